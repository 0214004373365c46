"""Adaptive shaping on lines it was not tuned on (`make lab` only): both
directions move at once, on paths of 20, 40 and 80 ms.

The lab's usual WAN queues the upload on the `wan` namespace's link to
the far server, beyond the near hops the controller probes: they never
see it.  A modem's upload buffer sits before the ISP's first hop, so here
the upload's rate and its 1000-packet buffer are moved in front of it:
what the `wan` namespace receives from the router goes through an IFB
(ifb-up) with netem's rate; the link to the far server keeps half the
path's delay and no rate.  The download's line is the usual one
(wan-rtr: half the delay, the rate, 1000 packets).

Schedules (Mbit/s down / up, set every second): steps2, 30 s each of
20/10, 8/4, 30/12, 12/6; walk2, a random walk for 120 s (seed 32) of
5-40 down (steps of up to 3) and 2-15 up (up to 1); and recorded lines
(tests/lab/lines/*.csv, their sources and licence in its README.md),
120 s each, scaled by SCALE to what the emulated VM carries, at least
MIN_MBIT; a second recorded at 0 is an outage (the line drops every
packet that second).  Loads: 4 download flows and 2 upload flows all the
time.

Variants: none (the bare line), fixed (CAKE at the schedule's median each
way, the Shaping page's sqm commands) and autorate (reterm-latencyd's
controller, latency-run --autorate, its base at the same medians, from
1/10 of the schedule's highest rate to it).

Figures, each as <key>_<schedule>_<rtt>ms_<variant>: added_ms_mean and
added_ms_p95 (pings from the client to the far server every 200 ms minus
the idle RTT of that path), util_dl and util_ul (the bytes the client and
the far server received over the bytes the schedule allowed, the first 3 s
left out), and for autorate held_dl / held_ul (the shaper's rate over the
line's, second by second, at most 1, averaged: below 1 it held the line
back), above_dl / above_ul (the share of seconds its rate sat above the
line's: there the line's buffer fills) and controller_cpu_pct.  The benchmark's targets (tests/lab/targets.py): the
controller uses >= 0.85 of each direction and adds <= 15 ms (p95 <= 40),
and is never worse than the bare line on latency nor than CAKE fixed at the
median on utilisation.

The controller's runs also keep its rates a second (trace_...) and its
last decisions (decisions_...); with LAB_AUTORATE_TICKS=1 its probes and
ticks go to out/ticks-lines-<schedule>-<rtt>ms.jsonl.

LAB_LINES_RTTS, LAB_LINES_SCHEDULES and LAB_LINES_VARIANTS (word lists)
run fewer."""
import csv
import json
import os
import random
import statistics
import subprocess
import threading
import time

from labkit import measure, mode, sh, topo
from labkit.reterm import ucode_binary
from scenarios import shaping
from scenarios.autorate import cake_rates_kbit, controller, shaping_off, shaping_on

RTTS = [int(x) for x in os.environ.get("LAB_LINES_RTTS", "20 40 80").split()]
VARIANTS = os.environ.get("LAB_LINES_VARIANTS", "none fixed autorate").split()
SKIP_S = 3  # slow start fills the line in every variant
# 4 schedules x 3 paths x 3 variants x ~130 s, with room for a slow VM
LIMIT_S = 9000
LINES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lines")
SCALE = 0.1  # Starlink's 170 Mbit/s down: 17 in the VM
MIN_MBIT = 0.1  # netem's rate 0 is no limit


def _walk(rng, lo, hi, step, start, seconds):
    out, r = [], start
    for _ in range(seconds):
        r = min(hi, max(lo, r + rng.uniform(-step, step)))
        out.append(round(r, 1))
    return out


def schedules():
    """name -> [(dl_mbit, ul_mbit)], a pair a second"""
    steps = []
    for dl, ul in ((20, 10), (8, 4), (30, 12), (12, 6)):
        steps += [(dl, ul)] * 30
    rng = random.Random(32)
    dl = _walk(rng, 5.0, 40.0, 3.0, 20.0, 120)
    ul = _walk(rng, 2.0, 15.0, 1.0, 8.0, 120)
    out = {"steps2": steps, "walk2": list(zip(dl, ul))}
    for f in sorted(os.listdir(LINES)):
        if f.endswith(".csv"):
            with open(os.path.join(LINES, f)) as fh:
                rows = list(csv.DictReader(fh))
            out[f[:-4]] = [tuple(round(float(r[k]) * SCALE, 2) for k in ("dl_mbit", "ul_mbit")) for r in rows]
    return out


ONLY = os.environ.get("LAB_LINES_SCHEDULES", "").split() or list(schedules())


def medians(plan):
    """kbit/s: the schedule's median rate each way (CAKE fixed there, and
    the controller's base)"""
    return tuple(max(int(MIN_MBIT * 1000), int(statistics.median(p[d] for p in plan) * 1000)) for d in (0, 1))


def limits(plan):
    """latency-run --autorate's six rates (kbit/s): min, base, max per
    direction"""
    base = medians(plan)
    top = [int(max(p[d] for p in plan) * 1000) for d in (0, 1)]
    low = [max(64, t // 10) for t in top]
    return (min(low[0], base[0]), base[0], top[0], min(low[1], base[1]), base[1], top[1])


PLANS = [shaping.plan_args(*medians(p)) for p in schedules().values()]  # made on the host


def lines_on(rtt_ms):
    """the download's line as usual, the upload's before the near hop"""
    half = "%gms" % (rtt_ms / 2.0)
    sh.run(["ip", "link", "add", "ifb-up", "type", "ifb"], ns="wan")
    sh.run(["ethtool", "-K", "ifb-up", "gro", "off", "gso", "off", "tso", "off"], ns="wan", check=False)
    sh.run(["ip", "link", "set", "ifb-up", "up"], ns="wan")
    sh.run(["tc", "qdisc", "add", "dev", "wan-rtr", "handle", "ffff:", "ingress"], ns="wan")
    sh.run(["tc", "filter", "add", "dev", "wan-rtr", "parent", "ffff:", "protocol", "all", "u32",
            "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev", "ifb-up"], ns="wan")
    sh.run(["tc", "qdisc", "replace", "dev", "wan-srv", "root", "netem", "delay", half, "limit", "10000"], ns="wan")
    set_rates(rtt_ms, 20, 10, "replace")


def lines_off():
    sh.run(["tc", "qdisc", "del", "dev", "wan-rtr", "ingress"], ns="wan", check=False)
    sh.run(["ip", "link", "del", "ifb-up"], ns="wan", check=False)


def _netem(mbit):
    """netem's rate for a recorded rate; 0 (the line was down) drops all"""
    return ["rate", "%gmbit" % max(MIN_MBIT, mbit)] + (["loss", "100%"] if mbit <= 0 else [])


def rate_cmds(rtt_ms, dl, ul, verb="change"):
    """tc's arguments for the download's and the upload's line"""
    return (["qdisc", verb, "dev", "wan-rtr", "root", "netem", "delay", "%gms" % (rtt_ms / 2.0)]
            + _netem(dl) + ["limit", "1000"],
            ["qdisc", verb, "dev", "ifb-up", "root", "netem"] + _netem(ul) + ["limit", "1000"])


def set_rates(rtt_ms, dl, ul, verb="change"):
    for cmd in rate_cmds(rtt_ms, dl, ul, verb):
        sh.run(["tc"] + cmd, ns="wan")


def drive(rtt_ms, plan, stop, t0):
    """Follow the schedule from t0 through one batch tc, a command only
    where a direction's rate changed: a tc process a second each way
    would cost the emulated VM about a third of its CPU (a process start
    there takes ~170 ms), and the router's daemon would run starved."""
    tc = subprocess.Popen(sh._argv(["tc", "-force", "-batch", "-"], "wan"), stdin=subprocess.PIPE,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    last = (None, None)
    try:
        for i, pair in enumerate(plan):
            if stop.is_set():
                break
            cmds = rate_cmds(rtt_ms, *pair)
            for d in (0, 1):
                if pair[d] != last[d]:
                    tc.stdin.write(" ".join(cmds[d]) + "\n")
            tc.stdin.flush()
            last = pair
            stop.wait(max(0.0, t0 + i + 1 - time.time()))
    finally:
        try:
            tc.stdin.close()
        except OSError:
            pass
        try:
            tc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            tc.kill()
            tc.wait()


def counters():
    """bytes the client received, bytes the far server received"""
    rx = int(sh.run(["cat", "/sys/class/net/cli-lan/statistics/rx_bytes"], ns="cli"))
    up = int(sh.run(["cat", "/sys/class/net/srv-wan/statistics/rx_bytes"], ns="srv"))
    return rx, up


def allowed(plan, start, t0, t1):
    """kbit each way the schedule let through between t0 and t1"""
    got = [0.0, 0.0]
    for i, pair in enumerate(plan):
        lo, hi = max(t0, start + i), min(t1, start + i + 1)
        if hi > lo:
            for d in (0, 1):
                got[d] += (hi - lo) * pair[d] * 1000.0
    return got


def one(ucode, name, plan, rtt_ms, variant, idle_ms):
    seconds = len(plan)
    shaping_off()
    set_rates(rtt_ms, *plan[0])
    if variant != "none":
        shaping_on(*medians(plan))
    servers = [measure.start_iperf_server(), measure.start_iperf_server(port=5202)]
    # LAB_AUTORATE_TICKS=1: its probes and ticks in out/ticks-lines-<schedule>-<rtt>ms.jsonl
    ctl = controller(ucode, seconds, "lines-%s-%dms" % (name, rtt_ms), rates=limits(plan)) \
        if variant == "autorate" else None
    time.sleep(1 if ctl else 0)
    flows = [sh.spawn(["iperf3", "-c", topo.SRV4, "-R", "-t", seconds + 10, "-P", 4], ns="cli",
                      stdout=subprocess.DEVNULL),
             sh.spawn(["iperf3", "-c", topo.SRV4, "-p", 5202, "-t", seconds + 10, "-P", 2], ns="cli",
                      stdout=subprocess.DEVNULL)]
    stop = threading.Event()
    start = time.time()
    th = threading.Thread(target=drive, args=(rtt_ms, plan, stop, start))
    th.start()
    try:
        time.sleep(SKIP_S)
        c0, t0 = counters(), time.time()
        pings = measure.ping_samples("cli", topo.SRV4, count=(seconds - SKIP_S - 1) * 5, interval=0.2)
        c1, t1 = counters(), time.time()
        c = json.loads(ctl.communicate(timeout=60)[0]) if ctl else None
        rates_after = cake_rates_kbit() if ctl else None
    finally:
        stop.set()
        th.join()
        for p in flows + servers + [ctl]:
            if p and p.poll() is None:
                p.kill()
                p.wait()
    added = sorted(max(0.0, rtt - idle_ms) for ts, rtt in pings)
    lim = allowed(plan, start, t0, min(t1, start + seconds))
    r = {"added_ms_mean": round(statistics.mean(added), 1) if added else None,
         "added_ms_p95": round(added[int(len(added) * 0.95)], 1) if added else None,
         "util_dl": round((c1[0] - c0[0]) * 8 / 1000.0 / lim[0], 3),
         "util_ul": round((c1[1] - c0[1]) * 8 / 1000.0 / lim[1], 3), "pings": len(pings)}
    if c:
        # the shaper's rate over the line's, second by second (trace rows:
        # epoch s, _, download bit/s, _, upload bit/s, _), outages left out
        for d, col in ((0, 2), (1, 4)):
            line = lambda row: plan[int(row[0] - start)][d] if 0 <= int(row[0] - start) < seconds else 0
            shares = [row[col] / (line(row) * 1e6) for row in c["trace"] if row[col] and t0 <= row[0] and line(row) > 0]
            # held: what it let through of the line (1: all of it, or
            # more: above the line its queue fills); above: the share of
            # seconds it sat above the line
            way = ("dl", "ul")[d]
            r["held_" + way] = round(statistics.mean(min(1.0, x) for x in shares), 3) if shares else None
            r["above_" + way] = round(sum(1 for x in shares if x > 1) / float(len(shares)), 3) if shares else None
        r["controller_cpu_pct"] = c["controller_cpu_pct"]
        r["cuts"] = sum(1 for x in c["autorate"]["decisions"] if x.get("kind") == "cut")
        r["rates_after_kbit"] = rates_after
        # the shaper's rates a second and the decisions, to see where it cut
        r["trace"] = [row for row in c["trace"] if row[0] >= start]
        r["decisions"] = c["autorate"]["decisions"]
    return r


def run():
    ucode = ucode_binary()
    if not ucode:
        print("lines: skipped: ucode not found", flush=True)
        return {"skipped": 1}
    if not mode.BENCH:
        print("lines: a benchmark (LAB_MODE=bench): nothing to check", flush=True)
        return {"skipped": 1}
    topo.build()
    topo.set_wan(RTTS[0], 20, up_mbit=10, limit=1000)
    res = {}
    lines_on(RTTS[0])
    try:
        for rtt in RTTS:
            set_rates(rtt, 20, 10)
            sh.run(["tc", "qdisc", "change", "dev", "wan-srv", "root", "netem", "delay", "%gms" % (rtt / 2.0),
                    "limit", "10000"], ns="wan")
            shaping_off()
            idle_ms = measure.ping_median("cli", topo.SRV4, count=20)
            res["idle_ms_%dms" % rtt] = idle_ms
            for name, plan in schedules().items():
                if name not in ONLY:
                    continue
                for variant in VARIANTS:
                    r = one(ucode, name, plan, rtt, variant, idle_ms)
                    for k, v in r.items():
                        res["%s_%s_%dms_%s" % (k, name, rtt, variant)] = v
                    print("lines: %s %d ms %s: %s" % (name, rtt, variant,
                                                      {k: v for k, v in r.items() if k not in ("trace", "decisions")}),
                          flush=True)
        return res
    finally:
        shaping_off()
        lines_off()
