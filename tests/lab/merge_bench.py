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
    m = results.setdefault("monitor", {})
    m["redraw_ms_600"] = bench["redraw_ms_600"]
    m["redraw_live_ms_600"] = bench.get("redraw_live_ms_600")
    # share of one 60 Hz frame (16.7 ms) a full redraw takes: the target is <= 1
    m["redraw_frame_share"] = round(bench["redraw_ms_600"] / (1000.0 / 60), 3)
    with open(results_path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    os.replace(results_path + ".tmp", results_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
