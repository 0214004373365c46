"""Baseline: the problem reproduced, before any of our code runs.

130 ms RTT, 20 Mbit/s bottleneck with a 1000-packet buffer (a bloated modem).
"""
from labkit import measure, topo

RTT_MS = 130
RATE_MBIT = 20


def run():
    topo.build()
    topo.set_wan(RTT_MS, RATE_MBIT, limit=1000)
    server = measure.start_iperf_server()
    try:
        res = {"rtt_configured_ms": RTT_MS, "rate_configured_mbit": RATE_MBIT}
        topo.set_profile("cli", "pc")
        res["rtt_ms"] = measure.ping_median("cli", topo.SRV4, count=20)
        res["pc_mbps"] = measure.iperf_download("cli", topo.SRV4, seconds=8, omit=3)
        topo.set_profile("cli", "3ds")
        res["3ds_direct_mbps"] = measure.iperf_download("cli", topo.SRV4,
                                                       seconds=8, omit=2)
        topo.set_profile("cli", "pc")
        loaded, mbps = measure.latency_under_load("cli", topo.SRV4, topo.SRV4,
                                                  streams=4, seconds=12)
        res["loaded_ms"] = loaded
        res["bloat_added_ms"] = loaded - res["rtt_ms"]
        res["bloat_load_mbps"] = mbps
        return res
    finally:
        server.terminate()
        topo.teardown()
