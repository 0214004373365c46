#!/bin/bash
# apply.sh orchestration against recording stand-ins for fw4, haproxy, ip and
# sysctl: what it installs, when it reloads the firewall, how it rolls back.
# (The lab runs the same script against the real tools.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
APPLY="$top/root/usr/libexec/reterm/apply.sh"
FIXTURE="$top/tests/fixtures/lab/expected"
. "$top/tests/sh/tap.sh"

setup() {
	T=$(mktemp -d)
	mkdir -p "$T/bin" "$T/run" "$T/nft"
	cp -r "$FIXTURE/." "$T/run/"
	cat > "$T/bin/fw4" <<'S'
#!/bin/sh
echo "fw4 $*" >> "$LOG"
[ "$2" = check ] && [ -n "${FAIL_CHECK:-}" ] && exit 1
[ "$2" = reload ] && [ -n "${FAIL_RELOAD:-}" ] && [ ! -e "$LOG.reloaded-once" ] && { touch "$LOG.reloaded-once"; exit 1; }
exit 0
S
	cat > "$T/bin/haproxy" <<'S'
#!/bin/sh
echo "haproxy $*" >> "$LOG"
[ -n "${FAIL_HAPROXY:-}" ] && { echo "[ALERT] bad config" >&2; exit 1; }
exit 0
S
	cp "$top/tests/sh/fake_ip.sh" "$T/bin/ip"
	# sysctl: the values in $T/sysctl/<key>, first read from CUR_*
	cat > "$T/bin/sysctl" <<'S'
#!/bin/sh
echo "sysctl $*" >> "$LOG"
case "$1" in
-n)	f=$SYSCTLS/$2
	[ -f "$f" ] || printf '%s\t%s\t%s\n' "${CUR_MIN:-4096}" "${CUR_DEF:-131072}" "${CUR_MAX:-1048576}" > "$f"
	cat "$f" ;;
-q)	echo "${3#*=}" | tr ' ' '\t' > "$SYSCTLS/${3%%=*}" ;;
esac
exit 0
S
	# nft: a fw4 table as left by fw4's reload without our includes (its
	# flush keeps chains and sets), with another package's set and chain
	cat > "$T/bin/nft" <<'S'
#!/bin/sh
echo "nft $*" >> "$LOG"
[ "$*" = "list table inet fw4" ] && cat <<'T'
table inet fw4 {
	set reterm_devices {
		type ether_addr
	}
	set other_pkg_set {
		type ipv4_addr
	}
	chain input {
		type filter hook input priority filter; policy accept;
	}
	chain reterm_prerouting {
		ip daddr @reterm_bypass4 return
	}
	chain reterm_audit {
	}
	chain other_pkg_chain {
	}
}
T
exit 0
S
	printf '#!/bin/sh\nexit 0\n' > "$T/bin/logger"
	chmod +x "$T/bin/"*
	mkdir -p "$T/brnf" "$T/sysctl"
	export PATH="$T/bin:$PATH" LOG="$T/log" IPSTATE="$T/ipstate" SYSCTLS="$T/sysctl" RETERM_RUN="$T/run" RETERM_NFT_DIR="$T/nft" RETERM_FW=fw4 RETERM_HAPROXY=haproxy RETERM_BRNF="$T/brnf"
	unset FAIL_CHECK FAIL_RELOAD FAIL_HAPROXY FAIL_IP CUR_MIN CUR_DEF CUR_MAX
	: > "$LOG"
}
teardown() { rm -rf "$T"; }
count() { grep -c -- "$1" "$LOG"; }
# what the fake ip holds: rules4/rules6/routes4/routes6 (see fake_ip.sh)
state() { cat "$IPSTATE/$1" 2>/dev/null; }
has() { state "$1" | grep -qxF -- "$2"; }
# plant a rule or route of another package: plant <file> <line>
plant() { mkdir -p "$IPSTATE"; echo "$2" >> "$IPSTATE/$1"; }
# exactly our rule and route for table $1 in both families (and nothing else)
only_ours() {
	local f
	for f in rules4 rules6; do [ "$(state $f)" = "pref=90 fwmark=0x10000000/0x10000000 lookup=$1" ] || return 1; done
	for f in routes4 routes6; do [ "$(state $f)" = "table=$1 local default dev lo" ] || return 1; done
}
none_left() { [ -z "$(state rules4)$(state rules6)$(state routes4)$(state routes6)" ]; }
set_table() { sed -i "s/^RETERM_TABLE=.*/RETERM_TABLE='$1'/" "$RETERM_RUN/apply.env"; }

# start installs all four includes as symlinks into run/active, reloads once
setup
sh "$APPLY" start 2>/dev/null
ok "start exits 0" test $? -eq 0
ok "start links every include into run/active" bash -c '
	for f in ruleset-pre table-pre chain-pre/mangle_prerouting chain-pre/input; do
		[ "$(readlink "$RETERM_NFT_DIR/$f/reterm.nft")" = "$RETERM_RUN/active/$f/reterm.nft" ] || exit 1
		cmp -s "$RETERM_RUN/active/$f/reterm.nft" "$RETERM_RUN/nftables.d/$f/reterm.nft" || exit 1
	done'
ok "start checks before it reloads" bash -c "grep -n 'fw4' \"\$LOG\" | head -2 | tr '\n' ' ' | grep -q 'check.*reload'"
ok "start adds v4 and v6 fwmark rules and local routes" only_ours 100
ok "start notes what it raised and raises the maxima" bash -c '
	grep -qx "net.ipv4.tcp_rmem 1048576 4096 131072 4194304" "$RETERM_RUN/sysctl.raised" &&
	grep -q "sysctl -q -w net.ipv4.tcp_rmem=4096 131072 4194304" "$LOG" &&
	grep -q "sysctl -q -w net.ipv4.tcp_wmem=4096 131072 4194304" "$LOG"'

# a second start with the same render does not reload the firewall
: > "$LOG"
sh "$APPLY" start 2>/dev/null
ok "unchanged includes: no firewall reload" test "$(count 'fw4 -q reload')" -eq 0
ok "unchanged includes: routes still ensured" test "$(count 'rule add')" -eq 2

# a changed render whose check fails leaves the previous rules in place
echo "# changed" >> "$RETERM_RUN/nftables.d/table-pre/reterm.nft"
: > "$LOG"
FAIL_CHECK=1 sh "$APPLY" start 2>/dev/null
ok "failed check: start exits non-zero" test $? -ne 0
ok "failed check: no reload" test "$(count 'fw4 -q reload')" -eq 0
ok "failed check: active rules are the previous ones" bash -c '! grep -q "# changed" "$RETERM_RUN/active/table-pre/reterm.nft"'
ok "failed check: includes still linked" test -L "$RETERM_NFT_DIR/table-pre/reterm.nft"

# a failing reload is rolled back and reloaded with the previous rules
: > "$LOG"
FAIL_RELOAD=1 sh "$APPLY" start 2>/dev/null
ok "failed reload: start exits non-zero" test $? -ne 0
ok "failed reload: reloaded again with the previous rules" bash -c '
	[ "$(grep -c "fw4 -q reload" "$LOG")" -eq 2 ] && ! grep -q "# changed" "$RETERM_RUN/active/table-pre/reterm.nft"'

# stop removes everything it added
: > "$LOG"
sh "$APPLY" stop 2>/dev/null
ok "stop exits 0" test $? -eq 0
ok "stop removes the includes and run/active" bash -c '
	! ls "$RETERM_NFT_DIR"/*/reterm.nft "$RETERM_NFT_DIR"/chain-pre/*/reterm.nft 2>/dev/null | grep -q . &&
	[ ! -e "$RETERM_RUN/active" ]'
ok "stop reloads the firewall once" test "$(count 'fw4 -q reload')" -eq 1
ok "stop deletes our fwmark rules and local routes" none_left
ok "stop puts the maxima it raised back" bash -c '
	grep -q "sysctl -q -w net.ipv4.tcp_rmem=4096 131072 1048576" "$LOG" &&
	grep -q "sysctl -q -w net.ipv4.tcp_wmem=4096 131072 1048576" "$LOG" && [ ! -e "$RETERM_RUN/sysctl.raised" ]'
: > "$LOG"
sh "$APPLY" stop 2>/dev/null
ok "stop when stopped: no firewall reload" test "$(count 'fw4 -q reload')" -eq 0
teardown

# a kernel whose maxima are already larger keeps them
setup
CUR_MAX=6291456 sh "$APPLY" start 2>/dev/null
ok "larger kernel maxima are never lowered" test "$(count 'sysctl -q -w')" -eq 0
teardown

# br_netfilter on: refuse (it would fail closed), touch nothing
setup
echo 1 > "$T/brnf/bridge-nf-call-iptables"
sh "$APPLY" start 2>"$T/err"
ok "br_netfilter active: refused with a reason" bash -c "grep -q 'br_netfilter is active' '$T/err'"
ok "br_netfilter active: nothing applied" test "$(grep -c -E '^(fw4|ip|sysctl)' "$LOG")" -eq 0
teardown

# haproxy rejecting the config: nothing is touched
setup
FAIL_HAPROXY=1 sh "$APPLY" start 2>"$T/err"
ok "haproxy -c failure: exits non-zero" test $? -ne 0
ok "haproxy -c failure: says why" grep -q "haproxy rejects" "$T/err"
ok "haproxy -c failure: no firewall, route or sysctl call" test "$(grep -c -E '^(fw4|ip|sysctl)' "$LOG")" -eq 0
teardown

# apply.env with anything but plain assignments is refused before sourcing
setup
echo 'RETERM_PORT=1; touch /tmp/reterm-pwned' >> "$RETERM_RUN/apply.env"
sh "$APPLY" start 2>"$T/err"
ok "injected apply.env: refused" bash -c "grep -q 'unexpected content' '$T/err' && [ ! -e /tmp/reterm-pwned ]"
ok "injected apply.env: nothing applied" test "$(grep -c -E '^(fw4|ip|sysctl|haproxy)' "$LOG")" -eq 0
teardown
setup
sed -i "s/^RETERM_MARK=.*/RETERM_MARK='0xZZ'/" "$RETERM_RUN/apply.env"
sh "$APPLY" start 2>"$T/err"
ok "bad mark in apply.env: refused" grep -q "bad RETERM_MARK" "$T/err"
teardown

# ---- routing: only our own rules and routes, whole starts or none ----------

# changing the table moves our rule and route; nothing stays in the old table
setup
sh "$APPLY" start 2>/dev/null
set_table 200
sh "$APPLY" start 2>/dev/null
ok "table change: the old table's rule and local route are removed" only_ours 200
sh "$APPLY" stop 2>/dev/null
ok "table change: stop removes the new table's rule and route" none_left
teardown

# another package's rule at our pref and its route in another table stay
setup
plant rules4 "pref=90 fwmark=0x20000/0x20000 lookup=200"
plant routes4 "table=200 local default dev lo"
sh "$APPLY" start 2>/dev/null
sh "$APPLY" stop 2>/dev/null
ok "stop keeps another package's pref 90 rule" test "$(state rules4)" = "pref=90 fwmark=0x20000/0x20000 lookup=200"
ok "stop keeps another package's route in its table" test "$(state routes4)" = "table=200 local default dev lo"
teardown

# a table holding another package's route (no rule yet) is refused: our
# route would change what that table does
setup
plant routes4 "table=100 unicast 192.0.2.0/24 dev eth0"
sh "$APPLY" start 2>"$T/err"
ok "table holding another route: start exits non-zero" test $? -ne 0
ok "table holding another route: says so" grep -q "table 100 holds routes of another package" "$T/err"
ok "table holding another route: its route stays, nothing of ours" bash -c '
	[ "$(cat "$IPSTATE/routes4")" = "table=100 unicast 192.0.2.0/24 dev eth0" ] && [ ! -s "$IPSTATE/rules4" ]'
teardown

# a table that another rule looks up is refused, and nothing is applied
setup
plant rules4 "pref=1000 lookup=100"
sh "$APPLY" start 2>"$T/err"
ok "table used by another rule: start exits non-zero" test $? -ne 0
ok "table used by another rule: says so" grep -q "table 100 is used by another rule" "$T/err"
ok "table used by another rule: nothing of ours applied" bash -c '
	[ "$(cat "$IPSTATE/rules4")" = "pref=1000 lookup=100" ] && [ ! -s "$IPSTATE/routes4" ] &&
	[ ! -s "$IPSTATE/rules6" ] && [ ! -e "$RETERM_NFT_DIR/table-pre/reterm.nft" ] &&
	! grep -q "sysctl -q -w" "$LOG"'
teardown

# a start that fails half-way (the IPv6 route) undoes all it did
setup
FAIL_IP="-6 route add local * table 100" sh "$APPLY" start 2>"$T/err"
ok "failed first start: exits non-zero" test $? -ne 0
ok "failed first start: says why, last" bash -c "tail -n1 '$T/err' | grep -q 'ip -6 route'"
ok "failed first start: no rule or route left" none_left
ok "failed first start: no include left, nothing for stop" bash -c '
	[ ! -e "$RETERM_NFT_DIR/table-pre/reterm.nft" ] && [ ! -e "$RETERM_RUN/active" ] && [ ! -e "$RETERM_RUN/applied.env" ]'
teardown
setup
FAIL_RELOAD=1 sh "$APPLY" start 2>/dev/null
ok "failed first start (fw4 reload): no rule, route or include left" bash -c '
	[ -z "$(cat "$IPSTATE"/*)" ] && [ ! -e "$RETERM_NFT_DIR/table-pre/reterm.nft" ] && [ ! -e "$RETERM_RUN/active" ]'
ok "failed first start (fw4 reload): reloaded again without our includes" test "$(count 'fw4 -q reload')" -eq 2
teardown

# a start that fails after a good one puts the good one back
setup
sh "$APPLY" start 2>/dev/null
set_table 200
echo "# changed" >> "$RETERM_RUN/nftables.d/table-pre/reterm.nft"
FAIL_IP="-6 route add local * table 200" sh "$APPLY" start 2>/dev/null
ok "failed restart: exits non-zero" test $? -ne 0
ok "failed restart: the previous rules and routes are back" only_ours 100
ok "failed restart: the previous includes are back" bash -c '
	[ -L "$RETERM_NFT_DIR/table-pre/reterm.nft" ] && ! grep -q "# changed" "$RETERM_RUN/active/table-pre/reterm.nft"'
sh "$APPLY" stop 2>/dev/null
ok "failed restart: stop still removes everything" none_left
teardown

# fw4's reload flushes its table but keeps what it no longer declares:
# stop removes our chains (flushed first: they jump to each other) and
# sets, nothing else
setup
sh "$APPLY" start 2>/dev/null
: > "$LOG"
sh "$APPLY" stop 2>/dev/null
ok "stop: our leftover chains flushed, then deleted, then our sets" test "$(grep '^nft ' "$LOG" | grep -v '^nft list')" = "$(printf '%s\n' \
	'nft flush chain inet fw4 reterm_prerouting' 'nft flush chain inet fw4 reterm_audit' \
	'nft delete chain inet fw4 reterm_prerouting' 'nft delete chain inet fw4 reterm_audit' \
	'nft delete set inet fw4 reterm_devices')"
teardown

# tuned TCP buffer min and default stay; only a lower max is raised
setup
CUR_MIN=8192 CUR_DEF=262144 sh "$APPLY" start 2>/dev/null
ok "sysctl: only the max is raised, tuned min and default kept" bash -c '
	grep -q "sysctl -q -w net.ipv4.tcp_rmem=8192 262144 4194304" "$LOG" &&
	grep -q "sysctl -q -w net.ipv4.tcp_wmem=8192 262144 4194304" "$LOG"'
teardown

echo "sh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
