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
