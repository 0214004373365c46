"""Live latency: reterm-latencyd's guided bufferbloat test run on the lab router
(`latency-run`: the daemon's own test_start, endpoint choice and loads,
without ubus) against the far server, without and with the Shaping
settings, over plain HTTP (URLs given) and over HTTPS with the default
settings (the built-in endpoint, whose name the lab's /etc/hosts points at
the far server, and a CA made now); the HTTPS failure paths (wrong CA,
endpoint down, 403); the HTTPS upload load on its own; and the sampler's
CPU at 5 probes/s.  `make test` leaves out what only the benchmark reads
(the shaped HTTPS test, the upload load alone) and samples 12 s, not 30.  Needs ucode (skipped without it, said so in the
results); the HTTPS part needs
ucode-mod-uclient (said so in the results: https_skipped)."""
import json
import os
import subprocess
import sys
import time

from labkit import measure, mode, sh, tlsca, topo
from labkit.reterm import ROOT, ucode_binary
from scenarios import shaping
from scenarios.proxy import HTTPD

MONITOR_TEST = os.path.join(ROOT, "usr", "libexec", "reterm", "latency-run")
PLANS = shaping.PLANS  # the shaped guided test applies the Shaping page's plan
# `make test`'s unshaped HTTPS test runs on a line of this rate (kbit/s):
# the TLS loads in ucode of an emulated router on a slow host push less
# than the usual 20 Mbit/s (upload 0.35 of it on one such machine: no
# bloat, grade B), and the check is that the endpoint's path loads and
# bloats a line, not how fast TLS is (the benchmark keeps 20 Mbit/s); its
# buffer holds as long as the usual one
HTTPS_CHECK_KBIT = 5000
HTTPSD = os.path.join(os.path.dirname(HTTPD), "httpsd.py")
HTTPS_LOAD = os.path.join(ROOT, "usr", "libexec", "reterm", "https-load")
GRADE_RANK = ["A+", "A", "B", "C", "D", "F"]
ENDPOINT_HOST = "speed.cloudflare.com"
TLS_DIR = "/tmp/reterm-lab-tls"


def guided(ucode, extra=(), urls=True):
    """One guided test; latency-run's whole answer (start, result, cpu_pct,
    rss_kb).  urls: plain HTTP to the far server; else the default endpoint."""
    # as on OpenWrt, cgroup v2 at /sys/fs/cgroup (the HTTPS load's fence
    # needs it): `ip netns exec` mounts a /sys of its own without it
    argv = ["sh", "-c", 'mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec "$@"', "sh",
            ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"), MONITOR_TEST,
            "--streams", 4, "--reflector", topo.SRV4, "--wan", "rtr-wan",
            "--allow", topo.SRV4, "--allow", ENDPOINT_HOST, "--ca-file", TLS_DIR + "/lab-ca.pem"]
    if urls:
        url = "http://%s" % topo.SRV4
        argv += ["--download", url + "/bytes/1000000000", "--upload", url + "/upload"]
    out = sh.run(argv + list(extra), ns="rtr", timeout=240, check=False)
    return json.loads(out)


def tls_setup():
    """CA + certificate for the endpoint's name, and a hosts file that points
    the name at the far server, bound over /etc/hosts inside the VM only."""
    ca = tlsca.make(TLS_DIR, ENDPOINT_HOST)
    tlsca.make(TLS_DIR, ENDPOINT_HOST, tag="other")
    with open(TLS_DIR + "/hosts", "w") as f:
        f.write("127.0.0.1 localhost\n%s %s\n%s %s\n" % (topo.SRV4, ENDPOINT_HOST, topo.SRV6, ENDPOINT_HOST))
    sh.run(["mount", "--bind", TLS_DIR + "/hosts", "/etc/hosts"])
    return ca


def httpsd(ca, *extra):
    """The far server's HTTPS endpoint, once it listens (python starts
    slowly under emulation)."""
    p = sh.spawn([sys.executable, HTTPSD, 443, ca["cert"], ca["key"]] + list(extra), ns="srv")
    for _ in range(100):
        if ":443 " in sh.run(["ss", "-Hltn"], ns="srv", check=False):
            return p
        time.sleep(0.2)
    return p


def https_upload_alone(ucode):
    """The HTTPS upload load on its own (https-load, 4 streams, 14 s, no
    probes beside it): its share of the link from its own byte counter
    between 4 s and its end, and its CPU (share of one core)."""
    argv = [ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"), HTTPS_LOAD, "--dir", "up",
            "--url", "https://%s/__up" % ENDPOINT_HOST, "--referer", "https://%s/" % ENDPOINT_HOST,
            "--streams", 4, "--ca", TLS_DIR + "/lab-ca.pem", "--seconds", 14]
    t0 = time.time()
    p = sh.spawn(argv, ns="rtr")
    rows = []
    for line in p.stdout:
        f = line.split()
        if f and f[0] == "p" and len(f) == 7:
            rows.append((time.time() - t0, int(f[1]), int(f[5])))
    p.wait()
    late = [r for r in rows if r[0] >= 4]
    if len(late) < 2:
        return {"https_upload_alone_share": 0}
    bps = (late[-1][1] - late[0][1]) * 8 / (late[-1][0] - late[0][0])
    return {"https_upload_alone_share": round(bps / (shaping.LINK_KBIT * 1000.0), 3),
            "https_upload_alone_cpu_pct": round(rows[-1][2] / 10.0 / (time.time() - t0), 1)}


def has_uclient(ucode):
    return subprocess.run([ucode, "-e", 'require("uclient")'], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def keep(res, tag, r, link_kbit=shaping.LINK_KBIT):
    """The figures of one guided test under names ending in tag (load
    shares of a line of link_kbit)."""
    t = r["result"]
    if t is None:
        raise RuntimeError("the guided test%s did not run: %s" % (tag, json.dumps(r.get("start"))))
    res["grade" + tag] = t["grade"]
    res["grade%s_rank" % tag] = GRADE_RANK.index(t["grade"]) if t["grade"] in GRADE_RANK else -1
    res["added_ms_download" + tag] = t["download"]["added_ms"]
    res["added_ms_upload" + tag] = t["upload"]["added_ms"]
    res["inconclusive" + tag] = int(bool(t["inconclusive"]))
    for d in ("download", "upload"):
        res["inconclusive_%s%s" % (d, tag)] = int(bool(t[d]["inconclusive"]))
    res["load_share_download" + tag] = t["download"]["throughput_bps"] / (link_kbit * 1000.0)
    res["load_share_upload" + tag] = t["upload"]["throughput_bps"] / (link_kbit * 1000.0)
    res["load_errors" + tag] = len(t.get("errors") or [])
    res["load_error_texts" + tag] = list(t.get("errors") or [])
    return t


def failures(ucode, ca, res):
    """The HTTPS failure paths: test_start's error (the first endpoint's
    reason in tried[0], since the next endpoint is tried too)."""
    def first(r):
        t = (r.get("start") or {}).get("tried") or [{}]
        return t[0].get("error"), t[0].get("message", "")

    srv = httpsd(ca)
    try:
        r = guided(ucode, ["--ca-file", TLS_DIR + "/other-ca.pem"], urls=False)
        res["fail_wrong_ca_code"], msg = first(r)
        res["fail_wrong_ca_named"] = int("Cloudflare speed test: the certificate of %s" % ENDPOINT_HOST in msg)
        res["fail_wrong_ca_started"] = int(bool((r.get("start") or {}).get("started")))
    finally:
        srv.kill()
    r = guided(ucode, urls=False)
    res["fail_down_code"], msg = first(r)
    res["fail_down_named"] = int(("Cloudflare speed test: no answer from %s" % ENDPOINT_HOST) in msg)
    srv = httpsd(ca, "--status", "403")
    try:
        r = guided(ucode, urls=False)
        res["fail_403_code"], msg = first(r)
        res["fail_403_named"] = int(("refused the test (HTTP 403)") in msg)
    finally:
        srv.kill()


def run():
    ucode = ucode_binary()
    if not ucode:
        print("latency: skipped: ucode not found", flush=True)
        return {"skipped": 1}
    topo.build()
    topo.set_wan(shaping.RTT_MS, shaping.LINK_KBIT / 1000.0, limit=1000)
    httpd = sh.spawn([sys.executable, HTTPD, 80], ns="srv")
    res = {}
    srv = None
    try:
        https = has_uclient(ucode)
        ca = tls_setup() if https else None
        srv = httpsd(ca) if https else None
        r = guided(ucode)
        t = keep(res, "_unshaped", r)
        res["idle_rtt_ms"] = t["idle_rtt"]
        res["test_cpu_pct_http"] = r["cpu_pct"]
        if https:
            link = shaping.LINK_KBIT if mode.BENCH else HTTPS_CHECK_KBIT
            # the buffer holds as long as the usual one (1000 packets at
            # 20 Mbit/s: 0.6 s)
            topo.set_wan(shaping.RTT_MS, link / 1000.0, limit=1000 * link // shaping.LINK_KBIT)
            r = guided(ucode, urls=False)
            topo.set_wan(shaping.RTT_MS, shaping.LINK_KBIT / 1000.0, limit=1000)
            keep(res, "_unshaped_https", r, link)
            res["https_link_kbit"] = link
            res["https_endpoint"] = (r["start"].get("endpoint") or {}).get("id")
            res["test_cpu_pct_https"] = r["cpu_pct"]
            res["test_rss_kb"] = r["rss_kb"]
            if mode.BENCH:
                res.update(https_upload_alone(ucode))
        plan, why = shaping.sqm_steps()
        if plan is None:
            raise RuntimeError("no shaping plan: " + why)
        shaping.apply_sqm(plan)
        kbit = str(shaping.SHAPE_KBIT)
        shaped = ["--shaper-down-kbit", kbit, "--shaper-up-kbit", kbit]
        r = guided(ucode, shaped)
        t = keep(res, "_shaped", r)
        res["rpm_shaped"] = t["rpm"]
        if https:
            if mode.BENCH:
                keep(res, "_shaped_https", guided(ucode, shaped, urls=False))
            srv.kill()
            srv = None
            failures(ucode, ca, res)
        else:
            res["https_skipped"] = 1
            print("latency: https: skipped: ucode-mod-uclient not found", flush=True)
        # reterm-latencyd's sampler service with a viewer polling once a second,
        # while a download keeps the WAN loaded (5 probes/s), with CAKE
        # stats (one `qdisc show` a second) and without
        iperf = measure.start_iperf_server()
        seconds = 30 if mode.BENCH else 12
        load = sh.spawn(["iperf3", "-c", topo.SRV4, "-R", "-t", 2 * seconds + 20], ns="cli")
        try:
            time.sleep(3)
            for key, extra in (("", []), ("_no_tc", ["--no-cake"])):
                s = json.loads(sh.run([ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"),
                                       MONITOR_TEST, "--sample-seconds", seconds, "--wan", "rtr-wan",
                                       "--shaper-down-kbit", kbit, "--shaper-up-kbit", kbit,
                                       "--reflector", topo.SRV4] + extra, ns="rtr", timeout=120))
                res["sampler_cpu_pct" + key] = s["cpu_pct"]
                res["sampler_cpu_pct_self" + key] = s["cpu_pct_self"]
                res["sampler_probes" + key] = s["probes"]
                # measured, not configured: probes sent (answered or lost) per second
                res["sampler_probes_per_s" + key] = s["probes"] / s["seconds"]
                res["sampler_interval_ms" + key] = s["interval_ms"]
                res["sampler_cake_rows" + key] = s["cake_rows"]
                res["sampler_rows" + key] = s["rows"]
                res["sampler_seconds" + key] = s["seconds"]
                res["sampler_tc_batch" + key] = int(bool(s["tc_batch"]))
        finally:
            load.kill()
            iperf.kill()
        res["sampler_prober"] = s["prober"]
        return res
    finally:
        httpd.kill()
        if srv:
            srv.kill()
        sh.run(["umount", "/etc/hosts"], check=False)
        topo.teardown()
