"""The benchmark table of `make lab`: every speed target of the README with
its measured figure, the peer it is judged against, measured in the same
run (direct, fixed CAKE, the bare link, the sampler alone), their ratio,
and met / not met.  Reads results.json; prints the table; exits 0 when
every scenario it was asked about measured something, whatever it
measured (speed is judged here, behaviour by checks.py).

  python3 tests/lab/benchmark.py results.json [scenario ...] [--markdown FILE]

--markdown also writes the table as docs/benchmarks.md's body (generated,
never edited by hand)."""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import TARGETS  # noqa: E402


def _get(metrics, key):
    """a figure: a key, or a function of the metrics; None when missing"""
    if key is None:
        return None
    try:
        return key(metrics) if callable(key) else metrics[key]
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float):
        v = ("%.3g" % v) if abs(v) < 100 else ("%.0f" % v)
    return "%s%s" % (v, (" " + unit) if unit else "")


def rows(results, scenarios):
    """one row per target of the scenarios asked about:
    (scenario, target text, figure, peer, ratio, verdict)"""
    out = []
    for t in TARGETS:
        if t["scenario"] not in scenarios:
            continue
        m = results.get(t["scenario"])
        if not m or "error" in m or "skipped" in m or "timeout_s" in m:
            why = "not run" if not m else ("skipped" if "skipped" in m else "failed")
            out.append((t["scenario"], t["text"], "-", "-", "-", why))
            continue
        fig, peer = _get(m, t["figure"]), _get(m, t.get("peer"))
        ratio = None
        if isinstance(fig, (int, float)) and isinstance(peer, (int, float)) and peer:
            ratio = fig / float(peer)
        if fig is None:
            verdict = "not measured"
        else:
            verdict = "met" if t["met"](fig, peer, ratio) else "not met"
        peer_txt = "%s %s" % (t["peer_name"], fmt(peer, t.get("unit", ""))) if t.get("peer") else "-"
        out.append((t["scenario"], t["text"], fmt(fig, t.get("unit", "")), peer_txt,
                    fmt(ratio) if ratio is not None else "-", verdict))
    return out


def text_table(table):
    head = ("scenario", "target", "measured", "peer (same run)", "ratio", "verdict")
    widths = [max(len(str(r[i])) for r in table + [head]) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths))]
    lines.append("  ".join("-" * w for w in widths))
    for r in table:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)


def markdown(table):
    lines = ["| scenario | target | measured | peer (same run) | ratio | verdict |",
             "|---|---|---|---|---|---|"]
    for r in table:
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in r) + " |")
    return "\n".join(lines)


def main(argv):
    md = None
    if "--markdown" in argv:
        i = argv.index("--markdown")
        md = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    path, scenarios = argv[0], argv[1:]
    try:
        with open(path) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        print("benchmark: cannot read %s: %s" % (path, e))
        return 1
    scenarios = scenarios or sorted({t["scenario"] for t in TARGETS})
    table = rows(results, scenarios)
    print(text_table(table))
    met = sum(1 for r in table if r[5] == "met")
    print("benchmark: %d targets, %d met, %d not met, %d not measured" % (
        len(table), met, sum(1 for r in table if r[5] == "not met"),
        sum(1 for r in table if r[5] not in ("met", "not met"))))
    if md:
        with open(md, "w") as f:
            f.write(markdown(table) + "\n")
    unmeasured = [s for s in scenarios if not results.get(s) or "error" in results[s] or "timeout_s" in results[s]]
    # the tier's line (tests/run.sh): a scenario that measured passes
    print("lab: %d passed, %d failed, 0 skipped" % (len(scenarios) - len(unmeasured), len(unmeasured)))
    return 1 if unmeasured else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
