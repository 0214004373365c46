"""sqm: the Shaping page's promise "the exact commands sqm-scripts will run",
checked against OpenWrt's real sqm-scripts on the lab kernel (CAKE, IFB).

For each combination of settings below: the queue section the page saves
and the preview's commands (tests/lab/shaping-opts.mjs, with the sqm version
read from the root's /usr/lib/sqm/defaults.sh as the page does; made on
the host before the VM boots: labkit/plans.py); then, in a
throwaway OpenWrt root (tests/owrt/env.sh, $RETERM_OWRT, default /opt/owrt)
on a veth WAN device, `/usr/lib/sqm/run.sh start` (what /etc/init.d/sqm
runs) with sqm's debug log, the kernel's qdiscs on the device and its IFB,
`run.sh stop` (labkit/sqm_owrt.sh; the cases split over two parallel roots,
one per vCPU).  labkit/sqmcheck.py compares: the tc/ip commands sqm logged,
in order, against the preview's steps (silent clean-ups included; sqm's
transient SQM_IFB_ probes left out); CAKE's options (bandwidth, rtt,
overhead/mpu/atm/ptm, nat, isolation, ack-filter, diffserv and tins, wash,
ingress) against the choices; the ingress qdisc, redirect and IFB; nothing
left after the stop.  LAB_SQM_KEEP=DIR keeps the case files in DIR.

About 100 s under TCG on an otherwise idle 2-core host (each sqm start runs
some 40 programs at ~0.3 s apiece there).

Without the OpenWrt parts: {"skipped": "OpenWrt parts not found"}."""
import os
import shutil
import subprocess
import tempfile
import time

from labkit import plans, sh, sqmcheck

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HELPER = os.path.join(TOP, "tests", "lab", "labkit", "sqm_owrt.sh")
OWRT = os.environ.get("RETERM_OWRT", "/opt/owrt")
DEV = "wanport"
WORKERS = 2  # the lab VM's vCPUs: sqm's shell scripts are slow under TCG
MODULES = ("sch_cake", "sch_ingress", "act_mirred", "cls_fw", "cls_flow", "cls_u32", "sch_htb")

# name -> WAN device and the page's settings (kbit/s; shaping-opts defaults:
# ethernet, rtt internet, nat, dual isolation, besteffort)
CASES = [
    ("ethernet-internet-dual", DEV,
     {"down": 18000, "up": 18000}),
    ("docsis-rtt45ms-diffserv4-ackfilter", DEV,
     {"down": 200000, "up": 10000, "overhead": "docsis", "rtt": "45",
      "diffserv": "diffserv4", "ack_filter": True}),
    ("vdsl-pppoe-ptm-vlan-regional-triple-diffserv3", DEV,
     {"down": 90000, "up": 36000, "overhead": "pppoe-ptm", "vlan": 1, "rtt": "regional",
      "isolation": "triple-isolate", "diffserv": "diffserv3"}),
    ("adsl-atm44-metro-nonat-flows", DEV,
     {"down": 14000, "up": 900, "overhead": "atm", "overhead_bytes": 44, "rtt": "metro",
      "nat": False, "isolation": "flows"}),
    ("download-0-lan-ackfilter", DEV,
     {"down": 0, "up": 18000, "rtt": "lan", "ack_filter": True}),
    ("upload-0-raw-oceanic-nonat-noisolation", DEV,
     {"down": 18000, "up": 0, "overhead": "none", "rtt": "oceanic", "nat": False,
      "isolation": "none"}),
    ("bridged-ptm-satellite-diffserv4", DEV,
     {"down": 50000, "up": 5000, "overhead": "bridged-ptm", "rtt": "satellite",
      "diffserv": "diffserv4"}),
    ("overhead20-mpu64-rtt200ms-nonat-diffserv3", DEV,
     {"down": 30000, "up": 3000, "overhead": "none", "overhead_bytes": 20, "mpu": 64,
      "rtt": "200", "nat": False, "isolation": "triple-isolate", "diffserv": "diffserv3"}),
    ("dscp-kept-diffserv4", DEV,
     {"down": 100000, "up": 20000, "diffserv": "diffserv4", "squash_dscp": 0,
      "squash_ingress": 0}),
    ("long-device-name-flows", "wanport-long-x1",
     {"down": 25000, "up": 25000, "isolation": "flows"}),
]
NAMES = [c[0] for c in CASES]


def opts_args(dev, o):
    """shaping-opts.mjs arguments for one case"""
    argv = ["--wan", dev, "--down-kbit", o["down"], "--up-kbit", o["up"],
            "--defaults", os.path.join(OWRT, "root", "usr", "lib", "sqm", "defaults.sh")]
    for key in ("overhead", "rtt", "isolation", "diffserv", "overhead_bytes", "mpu",
                "vlan", "squash_dscp", "squash_ingress"):
        if key in o:
            argv += ["--" + key.replace("_", "-"), o[key]]
    if o.get("nat") is False:
        argv.append("--no-nat")
    if o.get("ack_filter"):
        argv.append("--ack-filter")
    return [str(a) for a in argv]


PLANS = [opts_args(dev, o) for _, dev, o in CASES]


def uci_config(section):
    """/etc/config/sqm with one anonymous queue section (the page adds one
    with uci.add); the values are validated tokens, no quotes in them."""
    lines = ["config queue"]
    for key, value in section.items():
        if "'" in str(value):
            raise ValueError("quote in %s" % key)
        lines.append("\toption %s '%s'" % (key, value))
    return "\n".join(lines) + "\n"


def missing_modules():
    """sqm's modules (defaults.sh ALL_MODULES for cake) not in /sys/module"""
    return " ".join(m for m in MODULES if not os.path.isdir("/sys/module/" + m))


def start_workers(work):
    """WORKERS parallel sqm_owrt.sh runs (each in its own namespaces and
    overlay), set up while the cases are written; go() lets them run"""
    procs = []
    for w in range(WORKERS):
        os.makedirs(os.path.join(work, "w%d" % w, "cases"))
        procs.append(subprocess.Popen(["bash", HELPER, os.path.join(work, "w%d" % w)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True))
    return procs


def go(work, procs):
    for w in range(WORKERS):
        open(os.path.join(work, "w%d" % w, "go"), "w").close()
    return [(p.communicate(timeout=1200)[0], p.returncode) for p in procs]


def run():
    if not os.path.isfile(os.path.join(OWRT, "root", "usr", "lib", "sqm", "run.sh")):
        return {"skipped": "OpenWrt parts not found"}
    t0 = time.time()
    keep = os.environ.get("LAB_SQM_KEEP")  # a directory: the case files stay there
    work = tempfile.mkdtemp(prefix="lab-sqm-", dir=keep or None)
    try:
        res = {"modules_missing_before": missing_modules()}
        procs = start_workers(work)
        try:
            made = {name: plans.get(opts_args(dev, o)) for name, dev, o in CASES}
            cdirs = {}
            for i, (name, dev, o) in enumerate(CASES):
                cdir = os.path.join(work, "w%d" % (i % WORKERS), "cases", "%02d-%s" % (i, name))
                cdirs[name] = cdir
                os.makedirs(cdir)
                with open(os.path.join(cdir, "sqm"), "w") as f:
                    f.write(uci_config(made[name]["section"]))
                with open(os.path.join(cdir, "dev"), "w") as f:
                    f.write(dev + "\n")
        finally:
            results = go(work, procs)
        for output, rc in results:
            if rc == 3:  # owrt_detect: a part of the root is missing
                print(output, end="")
                return {"skipped": "OpenWrt parts not found"}
            if rc != 0:
                raise RuntimeError("sqm_owrt.sh -> %d\n%s" % (rc, output))
        for w in range(WORKERS):
            with open(os.path.join(work, "w%d" % w, "times")) as f:
                print("sqm: worker %d, times (ms)\n%s" % (w, f.read()), end="", flush=True)
        res.update(cases=len(CASES), profile=made[NAMES[0]]["profile"],
                   modules_missing_after=missing_modules(), modprobe_errors=0)
        for name, dev, o in CASES:
            bad = sqmcheck.compare(cdirs[name], {"dev": dev, "opts": o}, made[name])
            res["mismatch_" + name] = bad
            with open(os.path.join(cdirs[name], "start.log")) as f:
                res["modprobe_errors"] += sum(1 for line in f if line.startswith("modprobe:"))
            print("sqm %s: %s" % (name, "ok" if not bad else "\n  ".join([""] + bad)),
                  flush=True)
        res["seconds"] = round(time.time() - t0, 1)
        return res
    finally:
        if keep:
            print("sqm: case files kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
