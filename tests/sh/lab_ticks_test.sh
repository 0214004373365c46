#!/bin/bash
# The lab's flood scenario counts the controller's ticks from its tick log
# (tests/lab/scenarios/flood.py, tick_gap_ms): only the 200 ms ticks, not
# the lines a late probe answer adds between them (react), which would
# hide a slow tick rate and its gaps.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/sh/tap.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ticks at 0, 200, ... 1000 ms, then one at 1800 (an 800 ms gap); a react
# line 50 ms after each tick; a probe line and a log line
python3 - "$T/log" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for t in [0, 200, 400, 600, 800, 1000, 1800]:
        f.write(json.dumps({"t": t, "dl": 1, "ul": 1, "react": False}) + "\n")
        f.write(json.dumps({"t": t + 50, "dl": 1, "ul": 1, "react": True}) + "\n")
    f.write(json.dumps({"t": 900, "a": 910, "p": "192.0.2.1", "rtt": 1}) + "\n")
    f.write(json.dumps({"w": 1, "log": "awake"}) + "\n")
PY
got=$(cd "$top/tests/lab" && python3 -c '
import sys
from scenarios import flood
gap, n = flood.tick_gap_ms(sys.argv[1])
print(round(gap), n)' "$T/log" 2>&1)
ok "flood's tick count: ticks only, the react lines left out (7 ticks, longest gap 800 ms; got $got)" test "$got" = "800 7"
echo "sh-labticks: $passed passed, $failed failed"
[ "$failed" = 0 ]
