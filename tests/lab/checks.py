"""Lab acceptance checks: each reads results.json and states one fact about
the network behaviour with its tolerance.  Used by `make test`."""
import json
import sys


def _within(value, target, tol):
    return abs(value - target) <= target * tol


# scenario -> [(description, predicate(metrics))]
CHECKS = {
    "baseline": [
        ("RTT configured 130 ms measures 130 ms +-10 %",
         lambda m: _within(m["rtt_ms"], m["rtt_configured_ms"], 0.10)),
        ("pc profile reaches >= 85 % of the 20 Mbit/s bottleneck",
         lambda m: m["pc_mbps"] >= 0.85 * m["rate_configured_mbit"]),
        ("3ds profile at 130 ms stays <= 1.2 Mbit/s (window-bound)",
         lambda m: m["3ds_direct_mbps"] <= 1.2),
        ("4 download flows into a 1000-packet buffer add >= 100 ms",
         lambda m: m["bloat_added_ms"] >= 100),
    ],
    "proxy": [
        ("3ds through reterm >= 90 % of the pc profile on the same link",
         lambda m: m["3ds_reterm_mbps"] >= 0.90 * m["pc_mbps"]),
        ("3ds through reterm >= 20x its direct throughput",
         lambda m: m["3ds_reterm_mbps"] >= 20 * m["3ds_direct_mbps"]),
        ("3ds download was taken by haproxy",
         lambda m: m["3ds_reterm_conns"] >= 3),
        ("unselected cli2 is not proxied",
         lambda m: m["cli2_proxied_conns"] == 0),
        ("unselected cli2 gets its direct throughput (+-25 %)",
         lambda m: _within(m["cli2_mbps"], m["3ds_direct_mbps"], 0.25)),
        ("IPv6: 3ds through reterm >= 90 % of pc and >= 20x direct",
         lambda m: m["3ds_reterm_v6_mbps"] >= 0.90 * m["pc_mbps"]
         and m["3ds_reterm_v6_mbps"] >= 20 * m["3ds_direct_mbps"]
         and m["3ds_reterm_v6_conns"] >= 3),
        ("proxied connections reach the server from the router",
         lambda m: m["proxied_peer_is_router"] == 1),
        ("fail-open: with haproxy dead a new connection works direct within 1 s",
         lambda m: m["failopen_direct"] == 1 and m["failopen_ms"] < 1000),
        ("after the respawn new connections are proxied again",
         lambda m: m["respawn_proxied"] == 1),
        ("router and LAN addresses are reachable and never proxied",
         lambda m: m["lan_proxied_conns"] == 0 and m["lan_ok"] == m["lan_targets"]),
        ("500 concurrent downloads through reterm complete, none reset",
         lambda m: m["load_ok"] == 500 and m["load_reset"] == 0
         and m["load_short"] == 0 and m["load_error"] == 0
         and m["load_proxied_conns"] >= 500),
    ],
    "shaping": [
        ("shaped (CAKE at 90 %): 4-flow download adds <= 5 ms",
         lambda m: m["added_ms_shaped"] <= 5),
        ("shaped: throughput >= 85 % of the link's",
         lambda m: m["throughput_ratio"] >= 0.85),
        ("unshaped: the same load adds >= 100 ms",
         lambda m: m["added_ms_unshaped"] >= 100),
    ],
    "monitor": [
        ("guided test without shaping grades D or F",
         lambda m: m.get("skipped") or m["grade_unshaped"] in ("D", "F")),
        ("guided test with the Shaping settings grades A or A+",
         lambda m: m.get("skipped") or m["grade_shaped"] in ("A", "A+")),
        # the CPU figures (sampler_cpu_pct*) are reported, not checked; these
        # say they were measured in the state they claim
        ("sampler under load probes 5/s and makes a row a second",
         lambda m: m.get("skipped") or all(
             m["sampler_interval_ms" + k] == 200 and m["sampler_rows" + k] >= 20
             for k in ("", "_no_tc"))),
        ("sampler rows carry CAKE columns from the batch tc (none with --no-cake)",
         lambda m: m.get("skipped") or (
             m["sampler_tc_batch"] == 1 and m["sampler_cake_rows"] >= 20
             and m["sampler_cake_rows_no_tc"] == 0)),
    ],
    "proxy-web": [
        ("ports web: 80 and 443 are re-terminated (IPv4 and IPv6)",
         lambda m: all(m["%s_%d_proxied" % (f, p)] == 1 and m["%s_%d_status" % (f, p)] == 200
                       for f in ("v4", "v6") for p in (80, 443))),
        ("ports web: other ports go direct (IPv4 and IPv6)",
         lambda m: all(m["%s_8080_direct" % f] == 1 and m["%s_8080_status" % f] == 200
                       for f in ("v4", "v6"))),
    ],
}


def main(path, scenarios):
    try:
        with open(path) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        results = {}
        print("# cannot read %s: %s" % (path, e))
    passed = failed = 0
    for scenario in scenarios:
        metrics = results.get(scenario, {"error": 1})
        for desc, pred in CHECKS.get(scenario, []):
            try:
                good = "error" not in metrics and pred(metrics)
            except (KeyError, TypeError):
                good = False
            print("%s - lab %s: %s" % ("ok" if good else "not ok", scenario, desc))
            passed, failed = passed + good, failed + (not good)
    print("lab: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
