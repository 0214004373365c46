#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The owrt tier: the package from `make ipk`, installed the way opkg does
# into a throwaway overlay of an OpenWrt userland built from OpenWrt's own
# sources ($RETERM_OWRT, default /opt/owrt; what it must hold: README
# "Testing on OpenWrt's own parts"), run in private mount, net and pid
# namespaces, checked on real procd, ubusd, rpcd, uhttpd, rc.common/procd.sh
# and firewall4:
#
#   init/*    tests/owrt/init_checks.sh   the init scripts through rc.common
#   fw4/*     tests/owrt/fw4_checks.sh    fw4 print/reload with our includes
#   pause/*   tests/owrt/pause_checks.sh  the test's shaping pause on real
#                                         sqm-scripts, ended by the router
#   api/*     tests/owrt/apply_checks.sh  `reterm apply` with a slow reload
#   remove    tests/owrt/remove_checks.sh removal as opkg does it (last)
#   rpcd/*    tests/owrt/rpcd_checks.py   every method via ubus and HTTP,
#                                         three sessions, malformed input
#
# procd runs as on a router but not as PID 1 (owrt_start_procd): the init
# scripts' instances, respawn, limits and triggers are its own; what the
# scripts send it is read from `ubus monitor`.
#
# Output: "ok - owrt/<check>", "not ok - ...", "skip - ..." and a last line
# "owrt: N passed, N failed, N skipped".  Without the parts:
# "owrt: skipped: OpenWrt parts not found" and one skip.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
. "$HERE/env.sh"

pass=0 fail=0 skip=0
ok()      { echo "ok - owrt/$1"; pass=$((pass + 1)); }
notok()   { echo "not ok - owrt/$1"; fail=$((fail + 1)); [ -z "${2:-}" ] || sed 's/^/#   /' <<<"$2"; }
skipped() { echo "skip - owrt/$1 ($2)"; skip=$((skip + 1)); }
# check NAME CMD...: ok when CMD succeeds; its output is shown when not
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$out"; fi
}
summary() { echo "owrt: $pass passed, $fail failed, $skip skipped"; [ "$fail" -eq 0 ]; }

if [ "${OWRT_INSIDE:-}" != 1 ]; then
	if ! why=$(owrt_detect 2>&1); then
		echo "owrt: skipped: OpenWrt parts not found ($why)"
		echo "owrt: 0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	# the package as users get it
	OWRT_IPK_DIR=$(mktemp -d)
	if ! "$TOP/tools/mkipk.sh" "$(sed -n 's/^RETERM_VERSION := //p' "$TOP/Makefile")" "$OWRT_IPK_DIR" >"$OWRT_IPK_DIR/mkipk.log" 2>&1; then
		cat "$OWRT_IPK_DIR/mkipk.log"
		echo "owrt: 0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	export OWRT_IPK_DIR
	trap 'rm -rf "$OWRT_IPK_DIR"' EXIT
	# not exec: the trap above must run afterwards
	OWRT_INSIDE=1 unshare --mount --net --pid --fork --mount-proc --propagation private "$BASH" "$0" "$@"
	exit $?
fi

# ---- inside the namespaces ------------------------------------------------
ip link set lo up
work=$(mktemp -d)
trap 'owrt_down; rm -rf "$work"' EXIT
PORT=8080

owrt_up "$work" || { echo "owrt: 0 passed, 1 failed, 0 skipped"; exit 1; }
start_all() {
	owrt_start_ubus && owrt_start_procd || { cat "$OWRT_LOG/procd.log"; return 1; }
	# LuCI's login in the browser checks: root / reterm-test, set here in
	# the overlay (a root's own /etc/shadow has no password or another one)
	local hash
	hash=$(openssl passwd -6 reterm-test) || { echo "openssl passwd failed"; return 1; }
	sed -i "s|^root:[^:]*:|root:$hash:|" "$OWRT_ROOT/etc/shadow" &&
		grep -q "^root:\\\$6\\\$" "$OWRT_ROOT/etc/shadow" || { echo "cannot set root's password in /etc/shadow"; return 1; }
	owrt_start_rpcd && owrt_start_uhttpd $PORT || return 1
	# the WAN is the veth wan0 of the pause and LuCI checks, whatever
	# /etc/config/network the root came with (a router's names its own)
	owrt_sh 'uci set network.wan=interface && uci set network.wan.device=wan0 &&
		uci set network.wan6=interface && uci set network.wan6.device=wan0 &&
		uci commit network' || { echo "network.wan could not be set to wan0"; return 1; }
	# the firewall, as at boot (stock /etc/config/firewall, no netifd here)
	owrt_sh "/etc/init.d/firewall start && nft list table inet fw4 >/dev/null"
}

if out=$(start_all 2>&1); then ok "boot (ubusd, procd, rpcd by its init script, uhttpd on 127.0.0.1:$PORT, firewall)"
else notok "boot" "$out"; summary; exit 1
fi

# which ucode the root runs: 24.10's has no fs.dup2 (none), master's has
ucode_is() {
	local want=$1 got
	got=$(owrt_sh "ucode -e 'import * as fs from \"fs\"; print(type(fs.dup2) ?? \"none\");'") || return 1
	[ "$got" = "$want" ] || { echo "type(fs.dup2) is '$got', not '$want'"; return 1; }
}
if [ "$OWRT_ROOTNAME" = root-24.10 ]; then
	check "ucode: the root runs OpenWrt 24.10's ucode (no fs.dup2)" ucode_is none
else
	check "ucode: the root runs the lock's ucode (fs.dup2)" ucode_is function
fi

ipk=$(ls "$OWRT_IPK_DIR"/luci-app-reterm_*_all.ipk)
check "install: opkg-style unpack and postinst" owrt_install_ipk "$ipk"
check "install: the German translation (luci-i18n-reterm-de)" owrt_install_ipk "$(ls "$OWRT_IPK_DIR"/luci-i18n-reterm-de_*_all.ipk)"
# the postinst's `/etc/init.d/rpcd reload` (procd signals rpcd, which
# reads its plugins again)
published() { _owrt_wait 10 owrt_sh 'ubus list reterm' && owrt_sh 'ubus -v list reterm'; }
check "install: the postinst reloads rpcd through procd, ubus object reterm published" published

# an upgrade from retermd's versions: `config monitor 'monitor'` becomes
# `config latency 'latency'` with its options (uci-defaults, real uci)
migrate() {
	local rc=0
	# the package's postinst ran (and removed) its uci-defaults at install:
	# run the file it shipped on an old config
	cp "$TOP/root/etc/uci-defaults/81_reterm_latency" "$OWRT_ROOT/tmp/81_reterm_latency" || return 1
	owrt_sh "cp /etc/config/reterm /tmp/reterm.keep &&
		uci -q delete reterm.latency; uci set reterm.monitor=monitor && uci set reterm.monitor.prober=icmp &&
		uci add_list reterm.monitor.reflector=192.0.2.7 && uci commit reterm &&
		printf 'config monitor %s\n\toption test_server %s\n' \"'monitor'\" \"'192.0.2.9'\" > /etc/config/reterm_admin &&
		sh /tmp/81_reterm_latency && sh /tmp/81_reterm_latency &&
		[ \"\$(uci -q get reterm.latency)\" = latency ] && ! uci -q get reterm.monitor &&
		[ \"\$(uci -q get reterm.latency.prober)\" = icmp ] && [ \"\$(uci -q get reterm.latency.reflector)\" = 192.0.2.7 ] &&
		[ \"\$(uci -q get reterm_admin.latency.test_server)\" = 192.0.2.9 ]" || { owrt_sh 'uci show reterm; uci show reterm_admin'; rc=1; }
	# the config of the checks after this one, whatever happened above
	owrt_sh "mv /tmp/reterm.keep /etc/config/reterm && rm -f /etc/config/reterm_admin" || rc=1
	return $rc
}
check "install: an old config section 'monitor' (reterm, reterm_admin) becomes 'latency' with its options, twice idempotent" migrate

. "$HERE/init_checks.sh"
. "$HERE/fw4_checks.sh"
. "$HERE/pause_checks.sh"
. "$HERE/apply_checks.sh"

if out=$(python3 "$HERE/rpcd_checks.py" --root "$OWRT_ROOT" --port $PORT 2>&1); then :; fi
printf '%s\n' "$out" | grep -E '^(ok|not ok|skip|#)' | sed -E 's/^(ok|not ok|skip) - /\1 - owrt\/rpcd\//'
pass=$((pass + $(grep -c '^ok - ' <<<"$out")))
fail=$((fail + $(grep -c '^not ok - ' <<<"$out")))
skip=$((skip + $(grep -c '^skip - ' <<<"$out")))
grep -q '^rpcd-checks: done' <<<"$out" || notok "rpcd checks ended early" "$(tail -n 20 <<<"$out")"

# LuCI in Chromium (tests/owrt/luci_checks.mjs: node, playwright-core from
# node_modules, Debian's chromium): our pages, Save & Apply, the wizard
if ! command -v node >/dev/null 2>&1; then
	skipped "luci" "node not found"
else
	out=$(node "$HERE/luci_checks.mjs" --root "$OWRT_ROOT" --port $PORT 2>&1)
	out+=$'\n'$(node "$HERE/i18n_checks.mjs" --root "$OWRT_ROOT" --port $PORT 2>&1 || echo "not ok - luci/i18n: tests/owrt/i18n_checks.mjs failed")
	printf '%s\n' "$out" | grep -E '^(ok|not ok|skip|#)' | sed -E 's/^(ok|not ok|skip) - /\1 - owrt\//'
	pass=$((pass + $(grep -c '^ok - ' <<<"$out")))
	fail=$((fail + $(grep -c '^not ok - ' <<<"$out")))
	skip=$((skip + $(grep -c '^skip - ' <<<"$out")))
	grep -q '^luci-checks: done' <<<"$out" || notok "luci checks ended early" "$(tail -n 20 <<<"$out")"
fi

. "$HERE/remove_checks.sh"

summary
