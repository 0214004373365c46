"""Runs inside the lab VM as root: the scenarios named on the command line,
results merged into <out>/results.json as {scenario: {metric: number}}.

A scenario that runs longer than its limit is stopped: LAB_SCENARIO_TIMEOUT
seconds if set, else the scenario module's LIMIT_S, else 1500 (every
scenario but autorate takes < 9 min here; CI machines were seen up to
twice as slow); what ran in the VM at that
moment (ps, memory, the kernel's last lines) is printed, its cleanup gets
another 120 s, and it counts as failed; the next scenarios still run.

A watchdog process says every 5 minutes which scenario still runs; if the
alarm did not end a scenario 5 minutes after its limit (a main process
blocked where no signal reaches it), it prints where every process waits
(wchan, kernel stack) and kills the scenario's children.  If even the
heartbeat stops, the VM itself is wedged."""
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


BEAT = "/tmp/reterm-lab-beat"  # "<scenario> <start time> <limit>" of the running scenario
STUCK = "/tmp/reterm-lab-stuck"  # the start time of a scenario the watchdog unblocked
GRACE = int(os.environ.get("LAB_WATCHDOG_GRACE", "300"))  # after the limit


def stuck_report(main_pid):
    print("lab: watchdog: no progress; where processes wait:", flush=True)
    for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%d/cmdline" % pid) as f:
                cmd = f.read().replace("\0", " ").strip()[:120]
            with open("/proc/%d/wchan" % pid) as f:
                wchan = f.read()
            stack = ""
            if fields[0] == "D" or pid == main_pid:
                with open("/proc/%d/stack" % pid) as f:
                    stack = " | ".join(line.split()[-1] for line in f.read().splitlines()[:8])
        except (OSError, IndexError):
            continue
        if cmd:
            print("lab: watchdog: %d %s %s %s %s" % (pid, fields[0], wchan, cmd, stack), flush=True)


def kill_children(main_pid):
    """SIGKILL the main process's children but this watchdog: a scenario's
    command that blocks the main process ends, its wait returns"""
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open("/proc/%d/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == main_pid and pid != os.getpid():
                os.kill(pid, signal.SIGKILL)
                print("lab: watchdog: killed %d" % pid, flush=True)
        except (OSError, IndexError, ValueError):
            continue


def watchdog(main_pid):
    """the watchdog process's loop (see the module's text)"""
    last, acted = time.time(), None
    while True:
        time.sleep(min(30, GRACE))
        try:
            os.kill(main_pid, 0)
        except OSError:
            os._exit(0)
        try:
            with open(BEAT) as f:
                name, start, limit = f.read().split()
                limit = int(limit)
        except (OSError, ValueError):
            continue
        ran = time.time() - float(start)
        if time.time() - last >= 300:
            last = time.time()
            print("lab: watchdog: scenario %s running for %.0f s" % (name, ran), flush=True)
        if ran > limit + GRACE and acted != start:
            acted = start
            with open(STUCK, "w") as f:
                f.write(start)
            stuck_report(main_pid)
            kill_children(main_pid)


def start_watchdog():
    main_pid = os.getpid()
    if os.fork() == 0:
        try:
            watchdog(main_pid)
        finally:
            os._exit(0)


def on_alarm(signum, frame):
    diagnose()
    signal.alarm(120)  # for the scenario's cleanup
    raise ScenarioTimeout()


def release_ucode(name):
    """A scenario named <scenario>@<release> (latency@24.10) runs on the ucode
    tools/owrt/build.sh built at that OpenWrt release's pin
    ($RETERM_OWRT/host-<release>/bin/ucode, through RETERM_UCODE); the
    ucode it runs on is printed.  None for a plain name."""
    if "@" not in name:
        return None
    rel = name.split("@", 1)[1]
    ucode = os.path.join(os.environ.get("RETERM_OWRT", "/opt/owrt"), "host-" + rel, "bin", "ucode")
    if not os.access(ucode, os.X_OK):
        raise RuntimeError("no ucode for OpenWrt %s at %s (tools/owrt/build.sh builds it)" % (rel, ucode))
    os.environ["RETERM_UCODE"] = ucode
    print("lab: scenario %s runs on %s" % (name, ucode), flush=True)
    return ucode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    # the results of an earlier VM stay (vm.sh: a stalled guest's scenarios
    # run again in a new one)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("scenarios", nargs="+")
    args = ap.parse_args()
    prepare()
    path = os.path.join(args.out, "results.json")
    results = {}
    if args.keep and os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    failed = False
    forced = os.environ.get("LAB_SCENARIO_TIMEOUT")
    signal.signal(signal.SIGALRM, on_alarm)
    for stale in (BEAT, STUCK):
        if os.path.exists(stale):
            os.unlink(stale)
    start_watchdog()
    for name in args.scenarios:
        t0 = time.time()
        limit = 1500
        ucode = None
        try:
            ucode = release_ucode(name)
            mod = importlib.import_module("scenarios." + name.split("@")[0].replace("-", "_"))
            limit = int(forced or getattr(mod, "LIMIT_S", limit))
        except Exception:
            traceback.print_exc()
            mod = None
        with open(BEAT, "w") as f:
            f.write("%s %r %d" % (name, t0, limit))
        print("lab: scenario %s (limit %d s) ..." % (name, limit), flush=True)
        signal.alarm(limit)
        try:
            if mod is None:
                raise RuntimeError("scenario %s does not load" % name)
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
            if ucode:
                os.environ.pop("RETERM_UCODE", None)
        if os.path.exists(STUCK):  # it returned only because the watchdog killed its commands
            os.unlink(STUCK)
            print("lab: scenario %s was unblocked by the watchdog: failed" % name, flush=True)
            results[name] = {"error": 1, "stuck": 1}
            failed = True
        print("lab: scenario %s done in %.0f s: %s" % (
            name, time.time() - t0, json.dumps(results[name])), flush=True)
        with open(path + ".tmp", "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        os.replace(path + ".tmp", path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
