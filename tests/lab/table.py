"""Print results.json as a table: one block per scenario, one row a metric."""
import json
import sys


def fmt(v):
    return ("%.2f" % v).rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def main(path):
    with open(path) as f:
        results = json.load(f)
    width = max([len(k) for m in results.values() for k in m] + [6])
    for scenario, metrics in results.items():
        print("%s" % scenario)
        for key in sorted(metrics):
            print("  %-*s %12s" % (width, key, fmt(metrics[key])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
