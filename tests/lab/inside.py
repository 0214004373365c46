"""Runs inside the lab VM as root: the scenarios named on the command line,
results merged into <out>/results.json as {scenario: {metric: number}}.

A scenario that runs longer than LAB_SCENARIO_TIMEOUT seconds (default 1500;
the longest, autorate, takes ~14 min) is stopped: what ran in the VM at that
moment (ps, memory, the kernel's last lines) is printed, its cleanup gets
another 120 s, and it counts as failed; the next scenarios still run."""
import argparse
import importlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from labkit import sh  # noqa: E402


def prepare():
    for mod in ("veth", "bridge", "sch_netem", "sch_cake", "ifb", "act_mirred",
                "nft_tproxy", "nft_socket", "nft_fib_inet"):
        sh.run(["modprobe", mod], check=False)


class ScenarioTimeout(BaseException):
    """Not an Exception: scenarios' own `except Exception` must not eat it."""


def diagnose():
    for argv in (["ps", "-eo", "pid,ppid,stat,etime,pcpu,rss,args", "--sort=-pcpu"],
                 ["free", "-m"], ["dmesg"]):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout
        except Exception as e:  # a wedged VM: say so, keep going
            out = repr(e)
        print("lab: timeout: %s\n%s" % (" ".join(argv[:1]), "\n".join(out.splitlines()[-40:])), flush=True)


def on_alarm(signum, frame):
    diagnose()
    signal.alarm(120)  # for the scenario's cleanup
    raise ScenarioTimeout()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("scenarios", nargs="+")
    args = ap.parse_args()
    prepare()
    path = os.path.join(args.out, "results.json")
    results = {}
    failed = False
    limit = int(os.environ.get("LAB_SCENARIO_TIMEOUT", "1500"))
    signal.signal(signal.SIGALRM, on_alarm)
    for name in args.scenarios:
        t0 = time.time()
        print("lab: scenario %s ..." % name, flush=True)
        signal.alarm(limit)
        try:
            mod = importlib.import_module("scenarios." + name.replace("-", "_"))
            results[name] = mod.run()
        except ScenarioTimeout:
            print("lab: scenario %s stopped after %d s" % (name, limit), flush=True)
            results[name] = {"error": 1, "timeout_s": limit}
            failed = True
        except Exception:  # report, keep going with the other scenarios
            traceback.print_exc()
            results[name] = {"error": 1}
            failed = True
        finally:
            signal.alarm(0)
        print("lab: scenario %s done in %.0f s: %s" % (
            name, time.time() - t0, json.dumps(results[name])), flush=True)
        with open(path + ".tmp", "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        os.replace(path + ".tmp", path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
