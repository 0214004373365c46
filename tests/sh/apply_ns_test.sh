#!/bin/bash
# apply.sh with the real ip and sysctl, each case in a network namespace of
# its own (and a private mount namespace, for a routing table name set in a
# bind-mounted rt_tables; the host's /etc/iproute2 is never written).  fw4
# and haproxy are stand-ins that succeed: the routing and the TCP buffer
# maxima are the subject.  Needs root, ip netns and unshare; else one
# counted skip.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
APPLY="$top/root/usr/libexec/reterm/apply.sh"
FIXTURE="$top/tests/fixtures/lab/expected"
. "$top/tests/sh/tap.sh"

why=
if [ "$(id -u)" != 0 ]; then why="not root"
elif ! command -v unshare >/dev/null || ! command -v sysctl >/dev/null; then why="unshare or sysctl not found"
elif ! ip netns add "reterm-probe-$$" 2>/dev/null; then why="ip netns add not permitted"
elif ! ip netns del "reterm-probe-$$"; then why="ip netns del failed"
elif [ ! -f /etc/iproute2/rt_tables ]; then why="no /etc/iproute2/rt_tables to bind over"
fi
if [ -n "$why" ]; then
	echo "skip - apply.sh in a network namespace ($why)"
	echo "sh-ns: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

NS=reterm-apply-$$
setup() {
	T=$(mktemp -d)
	mkdir -p "$T/bin" "$T/run" "$T/nft" "$T/brnf"
	cp -r "$FIXTURE/." "$T/run/"
	printf '#!/bin/sh\nexit 0\n' > "$T/bin/ok"
	chmod +x "$T/bin/ok"
	ln -s ok "$T/bin/logger"
	# the host's names, and those a case adds
	cp /etc/iproute2/rt_tables "$T/rt_tables"
	export RETERM_RUN="$T/run" RETERM_NFT_DIR="$T/nft" RETERM_FW="$T/bin/ok" RETERM_HAPROXY="$T/bin/ok" RETERM_BRNF="$T/brnf"
	ip netns add "$NS"
	in_ns ip link set lo up
	in_ns ip link add eth0 type veth peer name eth1
	in_ns ip link set eth1 up
	in_ns ip link set eth0 up
	in_ns ip addr add 192.0.2.1/24 dev eth0
	in_ns ip -6 addr add 2001:db8::1/64 dev eth0 nodad
	# the kernel defaults of a small router, set in this namespace only
	in_ns sysctl -q -w net.ipv4.tcp_rmem="4096 131072 1048576"
	in_ns sysctl -q -w net.ipv4.tcp_wmem="4096 16384 1048576"
}
teardown() { ip netns del "$NS"; rm -rf "$T"; }
# in_ns <command...>: in the namespace, with $T/rt_tables as rt_tables
in_ns() {
	ip netns exec "$NS" unshare -m --propagation private sh -c \
		'mount --bind "$0" /etc/iproute2/rt_tables && PATH="$1:$PATH" && shift && exec "$@"' \
		"$T/rt_tables" "$T/bin" "$@"
}
apply() { in_ns sh "$APPLY" "$@"; }
rules() { in_ns ip "-$1" rule show | tr -s '\t ' '  '; }
routes() { in_ns ip "-$1" route show table 100 2>/dev/null | tr -s '\t ' '  '; }
tcp() { in_ns sysctl -n "net.ipv4.tcp_$1" | tr -s '\t ' '  '; }

# the plain case: our rule and route in, and out again
setup
apply start 2>"$T/err"
ok "start in a namespace: exits 0" test $? -eq 0
ok "start: our fwmark rule and local route in both families" bash -c '
	for f in 4 6; do
		ip netns exec "$0" ip -$f rule show | grep -q "^90:.*fwmark 0x10000000/0x10000000 lookup 100" || exit 1
		ip netns exec "$0" ip -$f route show table 100 | grep -q "^local default dev lo" || exit 1
	done' "$NS"
apply stop 2>/dev/null
ok "stop: no rule of ours, table 100 empty" bash -c '[ -z "$0" ] && ! printf "%s\n" "$1" | grep -q "^90:"' \
	"$(routes 4)$(routes 6)" "$(rules 4)$(rules 6)"
teardown

# a table that has a name in rt_tables and another rule looks up:
# `ip rule show` prints the name, not 100
setup
echo "100	vpn" >> "$T/rt_tables"
in_ns ip -4 rule add pref 1000 lookup 100
apply start 2>"$T/err"
ok "named table used by another rule: start refused" test $? -ne 0
ok "named table used by another rule: says so" grep -q "table 100 is used by another rule" "$T/err"
ok "named table used by another rule: no rule or route of ours" bash -c '
	! printf "%s\n" "$0" | grep -q "^90:" && [ -z "$1" ]' "$(rules 4)$(rules 6)" "$(routes 4)$(routes 6)"
ok "named table used by another rule: its rule stays" bash -c 'printf "%s\n" "$0" | grep -q "^1000: from all lookup vpn"' "$(rules 4)"
teardown

# another package's default route in a table no rule uses yet: not replaced
setup
in_ns ip -4 route add default via 192.0.2.254 dev eth0 table 100
in_ns ip -6 route add default via 2001:db8::fe dev eth0 table 100
apply start 2>"$T/err"
ok "table holding another route: start refused" test $? -ne 0
ok "table holding another route: says so" grep -q "table 100 holds routes of another package" "$T/err"
ok "table holding another route: its IPv4 default route stays" bash -c 'printf "%s\n" "$0" | grep -q "^default via 192.0.2.254 dev eth0"' "$(routes 4)"
ok "table holding another route: its IPv6 default route stays" bash -c 'printf "%s\n" "$0" | grep -q "^default via 2001:db8::fe dev eth0"' "$(routes 6)"
ok "table holding another route: no rule of ours" bash -c '! printf "%s\n" "$0" | grep -q "^90:"' "$(rules 4)$(rules 6)"
teardown

# sysctl: our raise goes back on stop, a maximum raised since stays
setup
apply start 2>/dev/null
ok "sysctl: start raises both maxima, keeps min and default" test "$(tcp rmem)|$(tcp wmem)" = "4096 131072 4194304|4096 16384 4194304"
apply start 2>/dev/null	# a reload: the raise is still ours
in_ns sysctl -q -w net.ipv4.tcp_rmem="4096 131072 8388608"
apply stop 2>"$T/err"
ok "sysctl: a maximum raised since our start is not lowered on stop" test "$(tcp rmem)" = "4096 131072 8388608"
ok "sysctl: a maximum still at our value goes back to what it was before the first start" test "$(tcp wmem)" = "4096 16384 1048576"
teardown

# sysctl: a maximum already large enough is never ours to restore, and a
# value tuned after our raise (min changed) is left as it is
setup
in_ns sysctl -q -w net.ipv4.tcp_rmem="4096 131072 6291456"
apply start 2>/dev/null
in_ns sysctl -q -w net.ipv4.tcp_rmem="4096 131072 2097152"
in_ns sysctl -q -w net.ipv4.tcp_wmem="8192 16384 4194304"
apply stop 2>/dev/null
ok "sysctl: a maximum we did not raise is not written on stop" test "$(tcp rmem)" = "4096 131072 2097152"
ok "sysctl: a value changed after our raise is left as it is" test "$(tcp wmem)" = "8192 16384 4194304"
teardown

echo "sh-ns: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
