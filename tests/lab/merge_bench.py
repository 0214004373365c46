"""Fold the benchmarks measured outside the VM into results.json under
`latency`: the browser's redraw (tests/browser/out/bench.json, written by
tests/browser/graph.browser.mjs) and the results store's flash writes
(.cache/bench-ucode.json, from tests/ucode/latency/store_bench_test.uc).
A bench file with a "scenario" key goes under that scenario instead: the
store's flash writes on 24.10's ucode (.cache/bench-ucode-24.10.json) under
`latency@24.10`."""
import json
import os
import sys

# one flash write per test was ~160 KB a minute; the budget: 8 KB a minute
FLASH_BUDGET_PER_100_TESTS = 8192 * 100


def main(results_path, *bench_paths):
    if not os.path.exists(results_path):
        print("merge_bench: nothing to merge into (%s missing)" % results_path)
        return 0
    with open(results_path) as f:
        results = json.load(f)
    for path in bench_paths:
        if not os.path.exists(path):
            print("merge_bench: %s missing, not merged" % path)
            continue
        with open(path) as f:
            bench = json.load(f)
        m = results.setdefault(bench.get("scenario", "latency"), {})
        if "redraw_ms_600" in bench:
            m["redraw_ms_600"] = bench["redraw_ms_600"]
            m["redraw_live_ms_600"] = bench.get("redraw_live_ms_600")
            # share of one 60 Hz frame (16.7 ms) a full redraw takes: target <= 1
            m["redraw_frame_share"] = round(bench["redraw_ms_600"] / (1000.0 / 60), 3)
        if "flash_bytes_per_100_tests" in bench:
            m["flash_bytes_per_100_tests"] = bench["flash_bytes_per_100_tests"]
            # share of the flash budget (8 KB per minute of tests): target <= 1
            m["flash_budget_share"] = round(
                bench["flash_bytes_per_100_tests"] / float(FLASH_BUDGET_PER_100_TESTS), 3)
    with open(results_path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    os.replace(results_path + ".tmp", results_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
