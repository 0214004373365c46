"""Re-termination on the lab router (fixture `lab`: `cli` selected, all
ports; `cli2` not selected), 130 ms RTT, 20 Mbit/s.

Every metric is a number; tests/lab/checks.py states what they must be;
`make lab` (LAB_MODE=bench) adds the benchmark's: throughput per profile,
ramp-up, memory per idle connection, CPU per GB (tests/lab/targets.py)."""
import contextlib
import json
import os
import sys
import time

from labkit import bench, measure, mode, sh, topo
from labkit.reterm import Router, RESPAWN_DELAY

KIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "labkit")
HTTPC = os.path.join(KIT, "httpc.py")
HTTPD = os.path.join(KIT, "httpd.py")


def httpc(ns, *args, timeout=120):
    return json.loads(sh.run([sys.executable, HTTPC] + [str(a) for a in args],
                             ns=ns, timeout=timeout))


def fetch(ns, host, port, size=1000):
    return httpc(ns, "get", host, port, "/bytes/%d" % size)


def start_servers():
    procs = [measure.start_iperf_server()]
    for ns, port in (("srv", 80), ("srv", 443), ("srv", 8080),
                     ("rtr", 8080), ("cli2", 8080)):
        procs.append(sh.spawn([sys.executable, HTTPD, str(port)], ns=ns))
    time.sleep(1.0)
    return procs


def was_proxied(router, action):
    """Run action(); return (result, number of connections haproxy took)."""
    before = router.proxied_total()
    result = action()
    return result, router.proxied_total() - before


@contextlib.contextmanager
def lab(fixture):
    """The lab at 130 ms / 20 Mbit/s with its servers and a Router for the
    fixture (not yet up); everything is torn down afterwards."""
    topo.build()
    topo.set_wan(130, 20, limit=1000)
    procs = start_servers()
    router = Router(fixture)
    try:
        yield router
    finally:
        router.stop()
        for p in procs:
            p.kill()
        topo.teardown()


def run():
    res = {}
    with lab("lab") as router:
        # Direct, before reterm is applied.
        topo.set_profile("cli", "pc")
        res["pc_mbps"] = measure.iperf_bulk("cli", topo.SRV4)
        topo.set_profile("cli", "3ds")
        res["3ds_direct_mbps"] = measure.iperf_download("cli", topo.SRV4, seconds=6)

        res["lan_rtt_ms"] = measure.ping_median("cli", topo.LAN4, count=10)
        res["rendered"] = int(router.up() == "rendered")

        # 1. the selected 3DS-like client through reterm
        mbps, n = was_proxied(router, lambda: measure.iperf_bulk("cli", topo.SRV4))
        res["3ds_reterm_mbps"], res["3ds_reterm_conns"] = mbps, n

        # 2. the unselected client goes direct
        topo.set_profile("cli2", "3ds")
        mbps, n = was_proxied(router, lambda: measure.iperf_download(
            "cli2", topo.SRV4, seconds=6))
        res["cli2_mbps"], res["cli2_proxied_conns"] = mbps, n

        # 3. IPv6
        mbps, n = was_proxied(router, lambda: measure.iperf_bulk("cli", topo.SRV6))
        res["3ds_reterm_v6_mbps"], res["3ds_reterm_v6_conns"] = mbps, n

        # 6. the router itself and LAN addresses are never proxied
        lan_targets = [(topo.LAN4, 8080), (topo.RTR_WAN4, 8080),
                       (topo.CLIENTS["cli2"][1], 8080),
                       (topo.LAN6, 8080), (topo.CLIENTS["cli2"][2], 8080)]
        replies, n = was_proxied(router, lambda: [
            fetch("cli", host, port) for host, port in lan_targets])
        res["lan_proxied_conns"] = n
        res["lan_ok"] = sum(r["status"] == 200 for r in replies)
        res["lan_targets"] = len(lan_targets)

        # 4. fail-open: haproxy dies, new connections go direct at once;
        #    after the respawn they are proxied again
        cli4 = topo.CLIENTS["cli"][1]
        before = fetch("cli", topo.SRV4, 80)
        res["proxied_peer_is_router"] = int(before["peer"] == topo.RTR_WAN4)
        router.kill_haproxy()
        during = fetch("cli", topo.SRV4, 80)
        res["failopen_ms"] = during["ms"]  # connect to last byte, timed by the client
        res["failopen_direct"] = int(during["status"] == 200 and during["peer"] == cli4)
        router.wait_listening(timeout=RESPAWN_DELAY + 45)
        after = fetch("cli", topo.SRV4, 80)
        res["respawn_proxied"] = int(after["peer"] == topo.RTR_WAN4)

        # 7. load: 500 concurrent downloads through reterm
        topo.set_profile("cli", "pc")
        size = 32768
        load, n = was_proxied(router, lambda: httpc(
            "cli", "many", 500, topo.SRV4, 80, "/bytes/%d" % size, size, timeout=400))
        res["load_ok"], res["load_short"] = load["ok"], load["short"]
        res["load_reset"], res["load_error"] = load["reset"], load["error"]
        res["load_proxied_conns"] = n
        res["load_seconds"] = load["seconds"]

        # the benchmark's figures (`make lab`, tests/lab/targets.py)
        if mode.BENCH:
            bench.profiles(res)
            bench.rampup(res)
            bench.idle_rss(res)
            bench.cpu(res, router)
    return res
