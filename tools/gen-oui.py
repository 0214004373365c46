#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate root/usr/share/reterm/oui.json: the OUI prefixes of game console
and handheld makers, from Debian's ieee-data package (IEEE MA-L registry).

    tools/gen-oui.py [--ieee-dir /usr/share/ieee-data] [-o FILE | -o -]

Development time only; the router reads the committed JSON.  The output
depends only on the ieee-data files, never on today's date, so that a test
can check that the committed file is what this script makes: "generated"
is the date of the IEEE snapshot the package ships (its .lastupdate stamp).

Only MA-L (24-bit) assignments are used: console makers own whole MA-L
blocks, and an MA-M/MA-S block of a small maker could not be told apart
from the MA-L block it is carved out of without a longer prefix match.
"""

import argparse
import csv
import datetime
import json
import os
import subprocess
import sys

# Maker key -> (vendor text shown to users, class, organization names as
# they appear in the registry, compared case-insensitively).
MAKERS = {
    "sony": (
        "Sony Interactive Entertainment (PlayStation)", "console",
        ["Sony Interactive Entertainment Inc.",
         "Sony Computer Entertainment Inc.",
         "Sony Computer Entertainment America"]),
    "nintendo": (
        "Nintendo", "console",
        ["Nintendo Co.,Ltd", "Nintendo Co., Ltd.", "Nintendo Co.,Ltd."]),
    "valve": (
        "Valve (Steam Deck)", "handheld",
        ["Valve Corporation"]),
    "microsoft": (
        "Microsoft (Xbox or PC)", "other",
        ["Microsoft Corporation", "Microsoft Corp.", "Microsoft",
         "Microsoft XCG"]),
}

NOTES = [
    "Prefixes of the IEEE MA-L registry as shipped in Debian's ieee-data; "
    "generated is the date of that snapshot (reproducible output).",
    "Nintendo: one OUI pool for Switch, 3DS, Wii U and Wii; a 3DS cannot be "
    "told apart from a Switch by its MAC, so all are class console.",
    "Sony: only Sony Interactive Entertainment and its former name Sony "
    "Computer Entertainment (PS3/PS4/PS5/Vita). Sony Corporation OUIs are "
    "left out: they mostly belong to TVs, phones and cameras.",
    "Valve: a Steam Deck whose MAC comes from its Wi-Fi module maker's OUI "
    "is not recognised and shows up as other.",
    "Microsoft: the same OUIs cover Xbox consoles, Surface and other PCs and "
    "Hyper-V guests, so class other with the vendor text 'Microsoft (Xbox or "
    "PC)'. Microsoft Mobile Oy (former Nokia phones) is left out.",
    "Left out: NVIDIA (Shield shares its OUIs with Jetson boards and "
    "workstations; its Android TCP stack scales windows anyway). GPD, "
    "AYANEO, Anbernic and Retroid have no MA-L assignment in this snapshot.",
    "Locally administered (randomized) MACs never match: phones and PCs "
    "that randomize their MAC have no vendor.",
]


def ieee_version(ieee_dir):
    """Debian package version of ieee-data, when dpkg knows it."""
    if os.path.realpath(ieee_dir) != "/usr/share/ieee-data":
        return None
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "ieee-data"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def snapshot_date(ieee_dir):
    """Date of the IEEE snapshot: .lastupdate holds a Unix time."""
    try:
        with open(os.path.join(ieee_dir, ".lastupdate")) as f:
            stamp = int(f.read().strip())
    except (OSError, ValueError):
        stamp = int(os.stat(os.path.join(ieee_dir, "oui.csv")).st_mtime)
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")


def generate(ieee_dir):
    names = {}
    for key, (_, _, orgs) in MAKERS.items():
        for org in orgs:
            names[org.lower()] = key

    prefixes = {}
    with open(os.path.join(ieee_dir, "oui.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row.get("Registry") != "MA-L":
                continue
            org = (row.get("Organization Name") or "").strip()
            key = names.get(org.lower())
            if key is None:
                continue
            prefix = (row.get("Assignment") or "").strip().lower()
            if len(prefix) != 6 or any(c not in "0123456789abcdef" for c in prefix):
                continue
            prefixes[prefix] = key

    version = ieee_version(ieee_dir)
    source = "IEEE MA-L registry (oui.csv) from Debian ieee-data"
    if version:
        source += " " + version

    return {
        "source": source,
        "generated": snapshot_date(ieee_dir),
        "notes": NOTES,
        "makers": {key: {"vendor": vendor, "class": cls}
                   for key, (vendor, cls, _) in MAKERS.items()},
        "prefixes": dict(sorted(prefixes.items())),
    }


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ieee-dir", default="/usr/share/ieee-data")
    ap.add_argument("-o", "--output",
                    default=os.path.join(top, "root", "usr", "share", "reterm", "oui.json"))
    args = ap.parse_args()

    if not os.path.exists(os.path.join(args.ieee_dir, "oui.csv")):
        sys.exit("gen-oui: %s/oui.csv not found (apt-get install ieee-data)" % args.ieee_dir)

    text = json.dumps(generate(args.ieee_dir), indent=1, sort_keys=True, ensure_ascii=True) + "\n"

    if args.output == "-":
        sys.stdout.write(text)
    else:
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        with open(args.output + ".tmp", "w") as f:
            f.write(text)
        os.replace(args.output + ".tmp", args.output)


if __name__ == "__main__":
    main()
