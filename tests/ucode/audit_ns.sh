#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The window audit end to end with real nft and ss, driven through the
# `api` CLI (the rpcd plugin's own code) the way the lab drives it.  Run
# by run.sh inside a fresh network namespace (unshare -n):
#
#   audit_ns.sh <fw4 ruleset file> <uci confdir> <ucode> <api CLI>
#
# Topology in this namespace: bridge "br-lan" (192.0.2.1, 2001:db8::1)
# with two clients in child namespaces: "3ds" (02:00:00:00:3d:51, window
# scaling off, 16 KB receive buffer: the device configured in the lab
# fixture) and "pc" (02:00:00:00:c2:51, defaults).  Prints what it checks;
# exit 0 when everything holds.

set -eu
RULESET=$1 CONFDIR=$2 UCODE=$3 CLI=$4
export RETERM_UCI_CONFDIR=$CONFDIR RETERM_SYSLOG=0

api() { "$UCODE" "$CLI" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# 1. rules not loaded: audit_start must say not_running
out=$(api audit_start '{"minutes":1}' 2>/dev/null) && fail "audit_start without rules: $out"
grep -q '"error": "not_running"' <<<"$out" || fail "expected not_running: $out"
echo "without rules: not_running"

# the emulated fw4 input chain drops by default (as a guest zone would);
# the test's clients may talk to this "router"
load_rules() {
	nft -f "$RULESET"
	nft add rule inet fw4 input iifname br-lan accept
}
load_rules
ip link set lo up
ip link add br-lan type bridge
ip link set br-lan address 02:00:00:00:00:01 up
ip addr add 192.0.2.1/24 dev br-lan
ip -6 addr add 2001:db8::1/64 dev br-lan nodad

# client <name> <mac> <last octet>: child namespace behind a veth on br-lan
client() {
	unshare -n sleep 120 &
	local pid=$!
	pids+=("$pid")
	sleep 0.2
	ip link add "v$1" type veth peer name "c$1"
	ip link set "c$1" netns "$pid"
	ip link set "v$1" master br-lan up
	nsenter -t "$pid" -n sh -c "
		ip link set lo up
		ip link set c$1 address $2 up
		ip addr add 192.0.2.$3/24 dev c$1
		ip -6 addr add 2001:db8::$3/64 dev c$1 nodad"
	eval "PID_$1=$pid"
}
client 3ds 02:00:00:00:3d:51 51
client pc 02:00:00:00:c2:51 77
nsenter -t "$PID_3ds" -n sysctl -q -w net.ipv4.tcp_window_scaling=0 'net.ipv4.tcp_rmem=4096 16384 16384'

# syns <client> <n> <address>: n connection attempts to a closed port (one
# SYN each, answered by a RST)
syns() {
	nsenter -t "$2" -n timeout 10 bash -c "for i in \$(seq $3); do (exec 3<>/dev/tcp/$4/9) 2>/dev/null; done; true"
}

# 2. SYNs before the audit are not counted
syns pc "$PID_pc" 5 192.0.2.1

out=$(api audit_start '{"minutes":1}') || fail "audit_start: $out"
echo "audit_start: $(tr -d ' \n' <<<"$out")"

syns pc "$PID_pc" 2 192.0.2.1
syns 3ds "$PID_3ds" 2 192.0.2.1
syns 3ds "$PID_3ds" 1 2001:db8::1

# 3. a "proxied" download to the 3ds with a slow reader: the router's
# socket is held back by the 3ds's receive window
python3 - <<'EOF' &
import socket, threading, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.1", 8080)); s.listen(1)
c, _ = s.accept()
try:
    while True:
        c.sendall(b"x" * 65536)
except OSError:
    pass
EOF
pids+=($!)
# the listener's python may take seconds to start on a busy machine: the
# client connects once it listens (a refused try would be one SYN more)
for _ in $(seq 200); do
	[ -n "$(ss -Htln '( sport = :8080 )')" ] && break
	sleep 0.1
done
nsenter -t "$PID_3ds" -n python3 -c '
import socket, time
s = socket.create_connection(("192.0.2.1", 8080))
t = time.time()
while time.time() - t < 2.5:
    s.recv(4096); time.sleep(0.005)
time.sleep(30)
' &
pids+=($!)
for _ in $(seq 200); do
	[ -n "$(ss -Htn state established '( sport = :8080 )')" ] && break
	sleep 0.1
done
sleep 2

# 4. fw4 reload in the middle: the audit and its counts survive
load_rules

out=$(api audit_result) || fail "audit_result: $out"
echo "$out" > "${AUDIT_OUT:-/dev/null}"
python3 - "$out" <<'EOF' || exit 1
import json, sys
r = json.loads(sys.argv[1])
dev = {d["mac"]: d for d in r["devices"]}
def need(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        sys.exit(1)
need(r["running"] is True and 0 < r["remaining_s"] <= 60, "audit running, %s s left" % r["remaining_s"])
t, p = dev["02:00:00:00:3d:51"], dev["02:00:00:00:c2:51"]
ta, pa = t["audit"], p["audit"]
need(t["name"] == "nintendo-3ds" and t["reterm"] and t["enabled"], "3ds is the configured device")
need(ta["syn_count"] == 4 and ta["noscale_syns"] == 4, "3ds: 4 SYNs, none with window scaling (%s/%s)" % (ta["noscale_syns"], ta["syn_count"]))
need(ta["small_window_syns"] == 4 and 0 < ta["window"] <= 16384, "3ds: small windows, window %s" % ta["window"])
need(ta["scaling"] is False and ta["recommendation"] == "reterm", "3ds: no scaling, recommendation reterm")
need(ta["rwnd_limited_pct"] is not None and ta["rwnd_limited_pct"] > 50, "3ds: rwnd_limited %s%% > 50%%" % ta["rwnd_limited_pct"])
need(ta["ceiling_bps"] == ta["window"] * 8000 // 130, "3ds: ceiling %s bit/s = window / 130 ms" % ta["ceiling_bps"])
need(pa["syn_count"] == 2 and pa["noscale_syns"] == 0, "pc: 2 SYNs counted (5 before the audit not), all with scaling")
need(pa["scaling"] is True and pa["recommendation"] == "ok" and pa["rwnd_limited_pct"] is None, "pc: scaling, ok, not re-terminated")
print("3ds summary: " + ta["summary"])
print("pc summary: " + pa["summary"])
EOF

out=$(api hosts) || fail "hosts: $out"
python3 - "$out" <<'EOF' || exit 1
import json, sys
h = {x["mac"]: x for x in json.loads(sys.argv[1])["hosts"]}
t = h["02:00:00:00:3d:51"]
ok = t["online"] and t["ipv4"] == ["192.0.2.51"] and "2001:db8::51" in t["ipv6"] and h["02:00:00:00:c2:51"]["online"]
print(("ok: " if ok else "FAIL: ") + "hosts: both clients online with their addresses")
sys.exit(0 if ok else 1)
EOF
