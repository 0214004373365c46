"""Shaping: the sqm options the Shaping view produces for a 20 Mbit/s link at
90 % (18000 kbit/s), applied with the exact commands the view's preview says
sqm-scripts runs (egress CAKE on the router's WAN device, ingress CAKE on an
IFB), against the same 4-flow download with and without them.

The path has a 20 ms RTT (a wired line to a nearby server).  At 130 ms four
Cubic flows recover from each CAKE drop too slowly to fill the shaper (about
90 % of its rate in this lab; 8 flows or `rtt 300ms` fill it), which is a
property of the flows, not of the shaper settings under test."""
import statistics

from labkit import measure, mode, plans, sh, topo

LINK_KBIT = 20000
RTT_MS = 20
SHAPE_KBIT = LINK_KBIT * 90 // 100
# a full-size IPv4 TCP segment with timestamps: 1448 bytes of payload in a
# 1500-byte packet, which CAKE's `ethernet` keyword counts as 1500 + 38
PAYLOAD, PACKET, OVERHEAD = 1448, 1500, 38


def plan_args(dl_kbit, ul_kbit):
    """the Shaping page's settings for the lab's WAN (shaping-opts.mjs arguments)"""
    return ["--wan", "rtr-wan", "--down-kbit", str(dl_kbit), "--up-kbit", str(ul_kbit),
            "--overhead", "ethernet", "--rtt", "internet"]


ARGS = plan_args(SHAPE_KBIT, SHAPE_KBIT)
PLANS = [ARGS]


def sqm_steps():
    """The Shaping view's plan for the link, or (None, why) when OpenWrt's
    LuCI is not built (labkit/plans.py: made on the host)."""
    try:
        return plans.get(ARGS), None
    except plans.LuciMissing as e:
        return None, str(e)


def apply_sqm(plan):
    for step in plan["steps"]:
        if step["argv"][0] not in ("tc", "ip"):
            raise RuntimeError("unexpected command in the preview: %s" % step["cmd"])
        sh.run(step["argv"], ns="rtr", check=not step["silent"])


def run():
    plan, why = sqm_steps()
    if plan is None:
        return {"skipped": why}
    topo.build()
    topo.set_wan(RTT_MS, LINK_KBIT / 1000.0, limit=1000)
    server = measure.start_iperf_server()
    res = {"shaper_kbit": SHAPE_KBIT,
           "shaper_goodput_ceiling_mbps": SHAPE_KBIT / 1000.0 * PAYLOAD / (PACKET + OVERHEAD)}
    try:
        topo.set_profile("cli", "pc")
        res["idle_ms"] = measure.ping_median("cli", topo.SRV4, count=20)
        loaded, mbps = measure.latency_under_load("cli", topo.SRV4, topo.SRV4, streams=4,
                                                  omit=3)
        res["loaded_ms_unshaped"], res["unshaped_mbps"] = loaded, mbps
        res["commands"] = len(plan["commands"])
        apply_sqm(plan)
        # the benchmark: three runs, medians (one run on a busy emulated VM
        # is noisy); the behaviour check needs one
        runs = [measure.latency_under_load("cli", topo.SRV4, topo.SRV4, streams=4, omit=3)
                for _ in range(3 if mode.BENCH else 1)]
        res["loaded_ms_shaped"] = statistics.median(r[0] for r in runs)
        res["shaped_mbps"] = statistics.median(r[1] for r in runs)
        res["shaped_mbps_runs"] = [round(r[1], 2) for r in runs]
        res["added_ms_unshaped"] = res["loaded_ms_unshaped"] - res["idle_ms"]
        res["added_ms_shaped"] = res["loaded_ms_shaped"] - res["idle_ms"]
        # goodput with the shaper / goodput of the bare link, same method
        res["throughput_ratio"] = res["shaped_mbps"] / res["unshaped_mbps"]
        res["shaper_efficiency"] = res["shaped_mbps"] / res["shaper_goodput_ceiling_mbps"]
        return res
    finally:
        server.terminate()
        topo.teardown()
