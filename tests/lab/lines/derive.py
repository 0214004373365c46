#!/usr/bin/env python3
"""Re-derive the per-second DL/UL rate schedules in this folder from the raw data
(SPDX-License-Identifier: Apache-2.0 for this script; the CSVs it writes are
CC BY-SA 4.0 like the data they come from: README.md here).

Raw input (one file, see SOURCES.md):
  sys-uos/Starlink-on-the-Autobahn @ 2eec78c93b65f61970f91e1541d603453f3dce4b
  Data/Autobahn/throughput.zip  (contains throughput.csv; the extracted CSV is accepted too)

Usage:
  python3 derive.py RAW_THROUGHPUT(.zip|.csv) [--outdir DIR] [--floor 0] [--ceiling 10000]

For each trace below, the script finds the iperf3 run (a block of rows whose
DL intervals follow each other without a gap) that starts at the given
timestamp_start_dl, takes it and the run right after it (each must be 60 rows,
i.e. 60 s), and writes 120 rows: second, dl_mbit, ul_mbit.
dl_mbit = column "download", ul_mbit = column "upload" (both already Mbit/s
per 1 s interval in the raw file), clamped to [floor, ceiling] (by default
nothing is clamped) and rounded to 0.1.
The few seconds between the two runs (no measurement) are skipped, not filled.
Standard library only.
"""
import argparse
import csv
import datetime as dt
import io
import os
import sys
import zipfile

TRACES = {
    # name: timestamp_start_dl of the first of the two consecutive 60 s runs (UTC)
    "starlink-steady": "2024-04-19 17:27:27",
    "starlink-outages": "2024-04-19 18:26:17",
}


def ts(s):
    # raw stamps carry nanoseconds ("2024-04-19 16:23:00.001039872"); keep microseconds
    return dt.datetime.fromisoformat(s[:26])


def load_rows(path):
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            name = [n for n in z.namelist() if n.endswith("throughput.csv")][0]
            text = z.read(name).decode("utf-8")
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    return list(csv.DictReader(io.StringIO(text)))


def split_runs(rows):
    """Consecutive rows whose DL interval starts where the previous one ended (<0.5 s)."""
    runs, cur = [], [0]
    for i in range(1, len(rows)):
        gap = (ts(rows[i]["timestamp_start_dl"]) - ts(rows[i - 1]["timestamp_end_dl"])).total_seconds()
        if abs(gap) < 0.5:
            cur.append(i)
        else:
            runs.append(cur)
            cur = [i]
    runs.append(cur)
    return runs


def clamp_round(x, lo, hi):
    return round(min(max(x, lo), hi), 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", help="Data/Autobahn/throughput.zip (or the extracted throughput.csv)")
    ap.add_argument("--outdir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--floor", type=float, default=0.0)
    ap.add_argument("--ceiling", type=float, default=10000.0)
    a = ap.parse_args()

    rows = load_rows(a.raw)
    runs = split_runs(rows)
    by_start = {rows[r[0]]["timestamp_start_dl"][:19]: k for k, r in enumerate(runs)}

    for name, start in TRACES.items():
        k = by_start.get(start)
        if k is None or k + 1 >= len(runs):
            sys.exit(f"{name}: no run starting at {start}")
        r1, r2 = runs[k], runs[k + 1]
        if len(r1) != 60 or len(r2) != 60:
            sys.exit(f"{name}: runs are {len(r1)} and {len(r2)} rows, expected 60 and 60")
        gap = (ts(rows[r2[0]]["timestamp_start_dl"]) - ts(rows[r1[-1]]["timestamp_end_dl"])).total_seconds()
        idx = r1 + r2
        raw_dl = [float(rows[i]["download"]) for i in idx]
        raw_ul = [float(rows[i]["upload"]) for i in idx]
        dl = [clamp_round(x, a.floor, a.ceiling) for x in raw_dl]
        ul = [clamp_round(x, a.floor, a.ceiling) for x in raw_ul]
        out = os.path.join(a.outdir, name + ".csv")
        with open(out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["second", "dl_mbit", "ul_mbit"])
            for s, (d, u) in enumerate(zip(dl, ul)):
                w.writerow([s, f"{d:.1f}", f"{u:.1f}"])
        spd = [float(rows[i]["Speed(km/h)"] or 0) for i in idx]
        print(f"{name}: raw rows {idx[0] + 2}-{r1[-1] + 2} and {r2[0] + 2}-{idx[-1] + 2} (file line numbers, header=1)")
        print(f"  {rows[idx[0]]['timestamp_start_dl'][:19]} .. {rows[idx[-1]]['timestamp_end_dl'][:19]} UTC, "
              f"unmeasured gap between the runs {gap:.1f} s (skipped), mean speed {sum(spd)/len(spd):.0f} km/h")
        print(f"  raw   dl mean/min/max {sum(raw_dl)/120:.1f}/{min(raw_dl):.1f}/{max(raw_dl):.1f}  "
              f"ul {sum(raw_ul)/120:.1f}/{min(raw_ul):.1f}/{max(raw_ul):.1f}")
        print(f"  out   dl mean/min/max {sum(dl)/120:.1f}/{min(dl):.1f}/{max(dl):.1f}  "
              f"ul {sum(ul)/120:.1f}/{min(ul):.1f}/{max(ul):.1f}")
        print(f"  clamped: dl {sum(x > a.ceiling for x in raw_dl)} s at ceiling, {sum(x < a.floor for x in raw_dl)} s at floor; "
              f"ul {sum(x > a.ceiling for x in raw_ul)} s at ceiling, {sum(x < a.floor for x in raw_ul)} s at floor")
        print(f"  wrote {out}")


if __name__ == "__main__":
    main()
