"""Runs inside the lab VM as root: the scenarios named on the command line,
results merged into <out>/results.json as {scenario: {metric: number}}."""
import argparse
import importlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from labkit import sh  # noqa: E402


def prepare():
    for mod in ("veth", "bridge", "sch_netem", "sch_cake", "ifb", "act_mirred",
                "nft_tproxy", "nft_socket", "nft_fib_inet"):
        sh.run(["modprobe", mod], check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("scenarios", nargs="+")
    args = ap.parse_args()
    prepare()
    path = os.path.join(args.out, "results.json")
    results = {}
    failed = False
    for name in args.scenarios:
        t0 = time.time()
        print("lab: scenario %s ..." % name, flush=True)
        try:
            mod = importlib.import_module("scenarios." + name.replace("-", "_"))
            results[name] = mod.run()
        except Exception:  # report, keep going with the other scenarios
            traceback.print_exc()
            results[name] = {"error": 1}
            failed = True
        print("lab: scenario %s done in %.0f s: %s" % (
            name, time.time() - t0, json.dumps(results[name])), flush=True)
        with open(path + ".tmp", "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        os.replace(path + ".tmp", path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
