"""Fold the browser benchmark (tests/browser/out/bench.json, written by
tests/browser/graph.browser.mjs) into results.json under `monitor`."""
import json
import os
import sys


def main(results_path, bench_path):
    if not os.path.exists(bench_path) or not os.path.exists(results_path):
        print("merge_bench: nothing to merge (%s or %s missing)" % (bench_path, results_path))
        return 0
    with open(results_path) as f:
        results = json.load(f)
    with open(bench_path) as f:
        bench = json.load(f)
    results.setdefault("monitor", {})["redraw_ms_600"] = bench["redraw_ms_600"]
    with open(results_path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    os.replace(results_path + ".tmp", results_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
