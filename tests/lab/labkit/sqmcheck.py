"""What OpenWrt's sqm-scripts did for one queue (the files sqm_owrt.sh wrote
into a case directory), against what the Shaping page promised: the
preview's commands (tests/lab/shaping-opts.mjs) and the CAKE settings the
user chose.  compare() returns the mismatches as sentences, [] when none.

The expected CAKE state comes from the choices, not from the preview:
tc-cake(8) framing (ethernet = overhead 38 mpu 84, docsis 18/64,
pppoe-ptm 30 ptm, bridged-ptm 22 ptm, atm = ATM cells, each ether-vlan
+4 bytes, no keyword = raw), rtt presets, and sqm's documented ingress
behaviour (squash_ingress=1, the default: one best-effort tin; squash_dscp=1:
wash; layer_cake.qos without squash_ingress keeps sqm's default diffserv3)."""
import json
import os
import re

RTT_MS = {"lan": 1, "metro": 10, "regional": 30, "internet": 100, "oceanic": 300,
          "satellite": 1000}
# framing keyword -> (overhead, mpu, atm)
FRAMING = {"ethernet": (38, 84, "noatm"), "docsis": (18, 64, "noatm"),
           "pppoe-ptm": (30, 0, "ptm"), "bridged-ptm": (22, 0, "ptm"),
           "atm": (0, 0, "atm"), "none": None}
# isolation -> CAKE flow mode (egress, ingress); "none" writes no keyword:
# CAKE's default
FLOWMODE = {"dual": ("dual-srchost", "dual-dsthost"),
            "triple-isolate": ("triple-isolate", "triple-isolate"),
            "flows": ("flows", "flows"), "none": ("triple-isolate", "triple-isolate")}
COMMAND_RE = re.compile(r"^cmd_wrapper: COMMAND: (\S+) (.*)$")
FAILURE_RE = re.compile(r"^ERROR: cmd_wrapper: \w+: FAILURE \(\d+\): (\S+) (.*)$")


def ifb_name(dev):
    return ("ifb4" + dev)[:15]


def expected(case):
    """{"egress": {...} | None, "ingress": {...} | None}: the tc -j options."""
    o = case["opts"]
    framing = o.get("overhead", "ethernet")
    if FRAMING[framing] is None and "overhead_bytes" not in o and "mpu" not in o:
        link = {"raw": True, "overhead": 0, "mpu": 0}
    else:
        overhead, mpu, atm = FRAMING[framing] or (0, 0, "noatm")
        overhead = o.get("overhead_bytes", overhead) + 4 * o.get("vlan", 0)
        link = {"raw": False, "atm": atm, "overhead": overhead, "mpu": o.get("mpu", mpu)}
    rtt = o.get("rtt", "internet")
    flow = FLOWMODE[o.get("isolation", "dual")]
    common = dict(link, nat=o.get("nat", True),
                  rtt=1000 * (RTT_MS[rtt] if rtt in RTT_MS else int(rtt)))
    diffserv = o.get("diffserv", "besteffort")
    out = {"egress": None, "ingress": None}
    if o["up"]:
        out["egress"] = dict(common, bandwidth=o["up"] * 1000 // 8, diffserv=diffserv,
                             flowmode=flow[0], wash=False, ingress=False,
                             **{"ack-filter": "enabled" if o.get("ack_filter") else "disabled"})
    if o["down"]:
        keep = o.get("squash_ingress") == 0 and diffserv != "besteffort"
        out["ingress"] = dict(common, bandwidth=o["down"] * 1000 // 8,
                              diffserv="diffserv3" if keep else "besteffort",
                              flowmode=flow[1], wash=o.get("squash_dscp", 1) == 1,
                              ingress=True, **{"ack-filter": "disabled"})
    return out


def _load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _qdiscs(path):
    return _load(path, []) or []


def _root(qdiscs):
    return next((q for q in qdiscs if q.get("root")), None)


def _links(path):
    return {link["ifname"]: link for link in _load(path, []) or []}


def logged_commands(log):
    """(commands sqm ran, [(cmd, failed)]) from its debug log, binaries by
    their name; the transient SQM_IFB_ probes of verify_qdisc left out."""
    ran, failed = [], set()
    for line in log.splitlines():
        m = COMMAND_RE.match(line)
        if m:
            cmd = "%s %s" % (os.path.basename(m.group(1)), m.group(2).strip())
            if "SQM_IFB_" not in cmd:
                ran.append(cmd)
            continue
        m = FAILURE_RE.match(line)
        if m:
            failed.add("%s %s" % (os.path.basename(m.group(1)), m.group(2).strip()))
    return ran, failed


def _options(side, want, qdisc):
    if qdisc is None or qdisc.get("kind") != "cake":
        return ["%s: no CAKE qdisc (found %s)" % (side, qdisc and qdisc.get("kind"))]
    got = dict(qdisc.get("options") or {})
    got.setdefault("mpu", 0)
    if got.get("raw"):
        got.pop("atm", None)
    bad = ["%s: %s is %r, promised %r" % (side, k, got.get(k), v)
           for k, v in sorted(want.items()) if got.get(k) != v]
    tins = len(qdisc.get("tins") or [])
    ntins = {"besteffort": 1, "diffserv3": 3, "diffserv4": 4}[want["diffserv"]]
    if tins != ntins:
        bad.append("%s: %d tins, %s has %d" % (side, tins, want["diffserv"], ntins))
    return bad


def compare(cdir, case, plan):
    dev, bad = case["dev"], []
    ifb = ifb_name(dev)
    if plan["ifb"] != ifb:
        bad.append("preview names the IFB %s, sqm %s" % (plan["ifb"], ifb))
    if _read(os.path.join(cdir, "start.rc")).strip() != "0" or \
            _read(os.path.join(cdir, "state")).strip() != "1":
        bad.append("start: /etc/init.d/sqm start failed or wrote no state file: %s"
                   % _read(os.path.join(cdir, "start.out"))[-600:])
    ran, failed = logged_commands(_read(os.path.join(cdir, "start.log")))
    steps = [s["cmd"] for s in plan["steps"]]
    if ran != steps:
        bad.append("commands: sqm ran %s; the preview lists %s" % (ran, steps))
    for cmd in plan["commands"]:
        if cmd in failed:
            bad.append("commands: failed under sqm: %s" % cmd)
    want = expected(case)
    qdiscs = _qdiscs(os.path.join(cdir, "qdisc.json"))
    wan = [q for q in qdiscs if q.get("dev") == dev]
    ifbq = [q for q in qdiscs if q.get("dev") == ifb]
    links = _links(os.path.join(cdir, "links.json"))
    if want["egress"]:
        bad += _options("egress (%s)" % dev, want["egress"], _root(wan))
    elif _root(wan) and _root(wan).get("kind") == "cake":
        bad.append("egress: CAKE on %s although upload is 0" % dev)
    ingress_qd = [q for q in wan if q.get("kind") == "ingress"]
    redirect = json.dumps(_load(os.path.join(cdir, "filter.json"), []))
    if ifb not in links:
        bad.append("the IFB %s does not exist after the start" % ifb)
    if want["ingress"]:
        bad += _options("ingress (%s)" % ifb, want["ingress"], _root(ifbq))
        if not ingress_qd:
            bad.append("ingress: no ingress qdisc on %s" % dev)
        if '"mirred"' not in redirect or ifb not in redirect:
            bad.append("ingress: no mirred redirect from %s to %s" % (dev, ifb))
        if ifb in links and "UP" not in links[ifb].get("flags", []):
            bad.append("ingress: %s is not up" % ifb)
    else:
        if ingress_qd or (_root(ifbq) or {}).get("kind") == "cake":
            bad.append("ingress: shaped although download is 0")
    bad += _stopped(cdir, dev, ifb)
    return bad


def _stopped(cdir, dev, ifb):
    bad = []
    if _read(os.path.join(cdir, "after-state")).strip() != "0":
        bad.append("stop: the state file is still there")
    left = ["%s on %s" % (q.get("kind"), q.get("dev"))
            for q in _qdiscs(os.path.join(cdir, "after-qdisc.json"))
            if q.get("kind") in ("cake", "ingress")]
    if left:
        bad.append("stop: still there: %s" % ", ".join(left))
    links = _links(os.path.join(cdir, "after-links.json"))
    stray = [n for n in links if n == ifb or n.startswith("SQM_IFB_")]
    if stray:
        bad.append("stop: %s still exist(s)" % ", ".join(stray))
    return bad
