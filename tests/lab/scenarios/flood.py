"""flood: an ICMP echo flood from the LAN at the router while adaptive
shaping runs (issue 30 item 1, the data path's proof of
latency/probe/icmpfilter.uc).

The WAN at 20 Mbit/s and 20 ms, CAKE at the Shaping page's plan, 4
download flows and 1 upload flow from `cli`; reterm-latencyd's service with
adaptive shaping (latency-run --autorate, raw ICMP sockets, a viewer
asking for rows once a second as the Overview does) runs SECONDS twice:
calm, then with `ping -f -s 1472` and `ping -6 -f -s 1452` from `cli2` at
the router's LAN addresses for the whole run (as fast as the router
answers: the line rate of what this VM can send).

Per run: the controller's ticks (every 200 ms, from its tick log): the
longest gap between two; the viewer's longest wait from when its call was
due to its answer (what a `reterm.monitor` client waits; ubus adds its
socket hop, not measured here); the process's CPU (its own and its
children's, % of one core) and the controller's; probes sent and
answered; for the flood the echoes each ping sent (a run without a flood
proves nothing)."""
import json
import os
import re
import subprocess
import time

from labkit import measure, pidns, sh, topo
from labkit.reterm import ROOT, ucode_binary
from scenarios import autorate

LIMIT_S = 600
SECONDS = 30
PLANS = autorate.PLANS  # CAKE at the page's plan for the base rates
OUT = autorate.OUT


def controller(ucode, log):
    argv = sh._argv([ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"), autorate.MONITOR_TEST,
                     "--sample-seconds", SECONDS, "--wan", "rtr-wan", "--reflector", topo.SRV4,
                     "--reflector", topo.SRV6, "--tick-log", log,
                     "--autorate", ",".join(str(v) for v in autorate.DL + autorate.UL)], ns="rtr")
    return subprocess.Popen(pidns.wrap(argv), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def tick_gap_ms(log):
    """the longest gap between two controller ticks, and their number (lines
    with a rate, not the ones a late probe answer made: react)"""
    ticks = []
    with open(log) as f:
        for line in f:
            x = json.loads(line)
            if "dl" in x and not x.get("react"):
                ticks.append(x["t"])
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    return (max(gaps) if gaps else None), len(ticks)


def flood_sent(out):
    m = re.search(r"(\d+) packets transmitted", out or "")
    return int(m.group(1)) if m else 0


def one(ucode, flood):
    tag = "flood" if flood else "calm"
    log = os.path.join(OUT, "ticks-flood-%s.jsonl" % tag)
    servers = [measure.start_iperf_server(), measure.start_iperf_server(port=5202)]
    pings = []
    if flood:
        for argv in (["ping", "-q", "-f", "-s", "1472", "-w", SECONDS + 4, topo.LAN4],
                     ["ping", "-6", "-q", "-f", "-s", "1452", "-w", SECONDS + 4, topo.LAN6]):
            pings.append(sh.spawn(argv, ns="cli2"))
        time.sleep(1)
    ctl = controller(ucode, log)
    time.sleep(1)
    down = sh.spawn(["iperf3", "-c", topo.SRV4, "-R", "-t", SECONDS + 5, "-P", 4], ns="cli",
                    stdout=subprocess.DEVNULL)
    up = sh.spawn(["iperf3", "-c", topo.SRV4, "-p", 5202, "-t", SECONDS + 5], ns="cli",
                  stdout=subprocess.DEVNULL)
    try:
        c = json.loads(ctl.communicate(timeout=SECONDS + 60)[0])
        sent = [flood_sent(p.communicate(timeout=30)[0]) for p in pings]
    finally:
        for p in [down, up, ctl] + servers + pings:
            if p.poll() is None:
                p.kill()
                p.wait()
    gap, ticks = tick_gap_ms(log)
    r = {"tick_gap_ms_max": gap, "ticks": ticks, "viewer_answer_ms_max": c["viewer_answer_ms_max"],
         "cpu_pct": c["cpu_pct"], "controller_cpu_pct": c["controller_cpu_pct"],
         "probes": c["probes"], "answered": c["answered"], "prober": c["prober"],
         "seconds": c["seconds"]}
    if flood:
        r["echoes_sent"] = sent
    return {k + "_" + tag: v for k, v in r.items()}


def run():
    ucode = ucode_binary()
    if ucode is None:
        return {"skipped": "ucode not found"}
    topo.build()
    topo.set_wan(20, 20.0, limit=1000)
    autorate.shaping_on(autorate.DL[1], autorate.UL[1])
    res = {}
    try:
        for flood in (False, True):
            res.update(one(ucode, flood))
            print("flood: %s" % res, flush=True)
    finally:
        autorate.shaping_off()
    return res
