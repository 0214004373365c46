"""The Shaping view's plans for the lab's links, made on the host before the
VM boots (tests/lab/vm.sh) and read inside it.

A plan is what tests/lab/shaping-opts.mjs prints for one argument list: the
view's own modules run on OpenWrt's LuCI in jsdom.  Under the VM's software
emulation one batch of them took over 120 s (the CI run of 61eeb2e: the sqm
scenario timed out on it); on the host it takes seconds.  A plan is a pure
function of its arguments, so where it is made does not change it.

Each scenario module that applies a plan lists its argument lists in
PLANS; `python3 tests/lab/labkit/plans.py scenario...` makes them all in
one node start and writes tests/lab/out/plans.json:
  {"missing": null or why LuCI is not built, "plans": {json(argv): plan}}
Inside the VM get(argv) returns the plan, or raises PlanMissing when the
host did not make it (a scenario whose PLANS does not name its argv)."""
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
OPTS = os.path.join(LAB, "shaping-opts.mjs")
FILE = os.path.join(LAB, "out", "plans.json")


class PlanMissing(Exception):
    """get() for an argument list the host did not plan"""


class LuciMissing(Exception):
    """the host had no LuCI built: no plan could be made (the message says why)"""


def key(argv):
    return json.dumps([str(a) for a in argv])


def wanted(names):
    """every PLANS argument list of the named scenarios (latency@24.10 is latency)"""
    if LAB not in sys.path:
        sys.path.insert(0, LAB)
    lists = []
    for name in names:
        modname = "scenarios." + name.split("@")[0].replace("-", "_")
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name != modname:
                raise  # a scenario that imports what is not there
            continue  # an unknown scenario: inside.py names it
        for argv in getattr(mod, "PLANS", ()):
            argv = [str(a) for a in argv]
            if argv not in lists:
                lists.append(argv)
    return lists


def make(names, path=FILE, timeout=300):
    lists = wanted(names)
    doc = {"missing": None, "plans": {}}
    if lists:
        proc = subprocess.run(["node", OPTS, "--batch"], input=json.dumps(lists),
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode == 3:
            doc["missing"] = (proc.stderr.strip().splitlines() or ["LuCI not built"])[0]
        elif proc.returncode != 0:
            raise RuntimeError("shaping-opts.mjs --batch -> %d\n%s" % (proc.returncode, proc.stderr))
        else:
            doc["plans"] = {key(a): p for a, p in zip(lists, json.loads(proc.stdout))}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)
    return doc


def get(argv, path=FILE):
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise PlanMissing("%s not made: tests/lab/vm.sh makes it on the host before the VM boots"
                          % path) from None
    if doc.get("missing"):
        raise LuciMissing(doc["missing"])
    try:
        return doc["plans"][key(argv)]
    except KeyError:
        raise PlanMissing("no plan for %s: the scenario's PLANS must list it" % " ".join(map(str, argv))) from None


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: plans.py scenario...")
    d = make(sys.argv[1:])
    print("lab: %d shaping plans made on the host%s" % (
        len(d["plans"]), " (none: %s)" % d["missing"] if d["missing"] else ""), flush=True)
