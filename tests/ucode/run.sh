#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# ucode tests of the reterm render layer and the ubus API.
#
#   tests/ucode/run.sh                  run everything that can run here
#   UPDATE_GOLDEN=1 tests/ucode/run.sh  rewrite tests/fixtures/*/expected
#                                       from the current renderer and
#                                       tests/ucode/api/fixtures/*/expected
#                                       from the API (review the result
#                                       with git diff)
#
# Per fixture tests/fixtures/<name>/ (config/reterm, meminfo, expected/):
#   render/<name>         render CLI with the mock uci (tests/ucode/mocks,
#                         first on the module path): every expected file,
#                         no unexpected file, stderr and exit code
#                         (expected/stderr, expected/exit)
#   render-libuci/<name>  the same with the real uci module, when present
#   nft/<name>            golden snippets loaded into an emulated fw4 table
#                         in a fresh net namespace (needs root, nft,
#                         unshare); then an element added at runtime must be
#                         gone after loading it again (fw4 reload), while
#                         the window audit's state must survive it
#   haproxy/<name>        haproxy -c on the golden haproxy.cfg, no warnings,
#                         no forbidden keywords
# Plus unit/validate (tests/ucode/validate_test.uc), unit/newline (no
# validator, ubus argument or UCI option takes a value with \n, \r or NUL:
# tests/ucode/newline_test.uc), and for the ubus API:
#   unit/api-parse        parsers and audit logic on recorded outputs
#                         (tests/ucode/api/parse_test.uc)
#   unit/contract         docs/ubus-api.md: its error codes are reterm.reply
#                         CODES, every error() code used is one of them, each
#                         method documented with exactly its declared codes
#   unit/defaults         reterm.defaults is the one place of the global
#                         section's defaults: /etc/config/reterm spells them
#                         out, 80_reterm and the daemon take them from there
#   unit/api              every method through the rpcd plugin file with
#                         mock fs/ubus/uci (tests/ucode/api/api_test.uc)
#   oui                   root/usr/share/reterm/oui.json is what
#                         tools/gen-oui.py makes from the installed
#                         ieee-data (skipped without /usr/share/ieee-data)
#   audit/lab             the window audit with real nft and ss in a net
#                         namespace, driven by the `api` CLI
#                         (tests/ucode/audit_ns.sh)
#   fixture/overview      tests/js/fixtures/overview.json is what
#                         make-overview.uc records from today's reterm-latencyd
# and for the sampler daemon reterm-latencyd: latency/* (tests/ucode/latency/tests.sh).
#
# ucode: $RETERM_UCODE, else $RETERM_OWRT/host/bin/ucode (tools/owrt/build.sh),
# else one on PATH.  Without ucode (or RETERM_UCODE=/nonexistent) the tests that need it are skipped; nft/*,
# haproxy/*, oui and latency/vectors still run.
#
# Output: "ok - <test>", "not ok - <test>", "skip - <test> (<reason>)", and
# a last line "ucode: N passed, N failed, N skipped".  Exit 1 on failure.

set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIXTURES=$ROOT/tests/fixtures
MODS=$ROOT/root/usr/share/ucode
MOCKS=$HERE/mocks
CLI=$ROOT/root/usr/libexec/reterm/render

# the ucode that tools/owrt/build.sh built for this machine, else one on PATH;
# its ubusd and ubus CLI serve latency/daemon
OWRT_HOST=${RETERM_OWRT:-/opt/owrt}/host
[ -d "$OWRT_HOST/bin" ] && PATH=$OWRT_HOST/bin:$OWRT_HOST/sbin:$PATH
UCODE=${RETERM_UCODE-$OWRT_HOST/bin/ucode}
[ -n "${RETERM_UCODE+x}" ] || [ -x "$UCODE" ] || UCODE=$(command -v ucode 2>/dev/null || :)
[ -x "$UCODE" ] || UCODE=

pass=0 fail=0 skip=0

ok()      { echo "ok - $1"; pass=$((pass + 1)); }
notok()   { echo "not ok - $1"; fail=$((fail + 1)); }
skipped() { echo "skip - $1 ($2)"; skip=$((skip + 1)); }

# uc_test <test> <log> <ucode arguments...>: ok with the log's last line,
# skipped when that line is "skipped: <why>" (the file had nothing to run
# on, e.g. no socket module); a test file that hangs (a loop that never ends) fails after UC_TIMEOUT s
UC_TIMEOUT=${UC_TIMEOUT:-120}

uc_test() {
	local name=$1 log=$2 rc=0
	shift 2
	if [ -z "$UCODE" ]; then
		skipped "$name" "ucode not found"
		return
	fi
	timeout "$UC_TIMEOUT" "$UCODE" "$@" >"$log" 2>&1 || rc=$?
	local last
	last=$(tail -n1 "$log")
	if [ $rc = 0 ] && [ "${last#skipped: }" != "$last" ]; then
		skipped "$name" "${last#skipped: }"	# the test file found nothing to run on
	elif [ $rc = 0 ]; then
		ok "$name ($last)"
	else
		[ $rc = 124 ] && echo "timed out: still running after ${UC_TIMEOUT} s" >>"$log"
		notok "$name"
		sed 's/^/#   /' "$log"
	fi
}

. "$HERE/latency/tests.sh"

fixtures=()
for d in "$FIXTURES"/*/; do
	[ -f "$d/config/reterm" ] && fixtures+=("$(basename "$d")")
done

# Tests that need rendered output only exist for fixtures that render.
renders() { [ "$(cat "$FIXTURES/$1/expected/exit" 2>/dev/null)" = 0 ]; }

[ -z "$UCODE" ] && echo "# ucode not found: the tests that need it are skipped"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# render <fixture> <outdir> [mocks]: run the CLI, leave files/, stderr, exit
render() {
	local fx=$FIXTURES/$1 out=$2 path=()
	[ -n "${3:-}" ] && path=(-L "$MOCKS")
	mkdir -p "$out/files"
	RETERM_SYSLOG=0 RETERM_UCI_CONFDIR=$fx/config RETERM_MEMINFO=$fx/meminfo \
		"$UCODE" "${path[@]}" -L "$MODS" "$CLI" "$out/files" 2>"$out/stderr"
	echo $? >"$out/exit"
}

# compare <fixture> <outdir>: prints differences, returns non-zero on any
compare() {
	local exp=$FIXTURES/$1/expected out=$2 rc=0
	diff -ru -x stderr -x exit "$exp" "$out/files" || rc=1
	diff -u "$exp/stderr" "$out/stderr" || rc=1
	diff -u "$exp/exit" "$out/exit" || rc=1
	return $rc
}

# render_test <test> <fixture> [mocks]: render, compare with expected/
render_test() {
	local out=$TMP/$1
	render "$2" "$out" "${3:-}"
	if compare "$2" "$out" >"$TMP/diff" 2>&1; then
		ok "$1"
	else
		notok "$1"
		sed 's/^/#   /' "$TMP/diff"
	fi
}

if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	[ -n "$UCODE" ] || { echo "UPDATE_GOLDEN=1 needs ucode" >&2; exit 1; }
	for f in "${fixtures[@]}"; do
		out=$TMP/golden-$f
		render "$f" "$out" mocks
		rm -rf "$FIXTURES/$f/expected"
		mkdir -p "$FIXTURES/$f/expected"
		cp -r "$out/files/." "$FIXTURES/$f/expected/"
		cp "$out/stderr" "$out/exit" "$FIXTURES/$f/expected/"
		echo "updated $f"
	done
fi

libuci_reason=
if [ -z "$UCODE" ]; then libuci_reason="ucode not found"
elif ! "$UCODE" -e 'require("uci")' >/dev/null 2>&1; then libuci_reason="uci module not available"
fi

nft_reason=
if ! command -v nft >/dev/null 2>&1; then nft_reason="nft not found"
elif [ "$(id -u)" != 0 ]; then nft_reason="not root"
elif ! command -v unshare >/dev/null 2>&1; then nft_reason="unshare not found"
elif ! unshare -n true 2>/dev/null; then nft_reason="unshare -n not permitted"
fi

# fw4 emulation: the include points and chain headers of firewall4's
# ruleset template, with "flush table" as on every fw4 reload.
fw4_wrapper() {
	local d=$1
	cat <<EOF
table inet fw4
flush table inet fw4
include "$d/nftables.d/ruleset-pre/reterm.nft"

table inet fw4 {
	include "$d/nftables.d/table-pre/reterm.nft"

	chain input {
		type filter hook input priority filter; policy drop;
		iifname "lo" accept comment "!fw4: Accept traffic from loopback"
		include "$d/nftables.d/chain-pre/input/reterm.nft"
		ct state established,related accept comment "!fw4: Allow inbound established and related flows"
	}

	chain mangle_prerouting {
		type filter hook prerouting priority mangle; policy accept;
		include "$d/nftables.d/chain-pre/mangle_prerouting/reterm.nft"
	}
}
EOF
}

for f in "${fixtures[@]}"; do
	if [ -z "$UCODE" ]; then
		skipped "render/$f" "ucode not found"
	else
		render_test "render/$f" "$f" mocks
	fi
	if [ -n "$libuci_reason" ]; then
		skipped "render-libuci/$f" "$libuci_reason"
	else
		render_test "render-libuci/$f" "$f"
	fi

	renders "$f" || continue

	exp=$FIXTURES/$f/expected
	if [ -n "$nft_reason" ]; then
		skipped "nft/$f" "$nft_reason"
	else
		fw4_wrapper "$exp" >"$TMP/fw4-$f.nft"
		if unshare -n sh -c '
			set -e
			nft -c -f "$1"
			nft -f "$1"
			nft list chain inet fw4 reterm_prerouting >/dev/null
			nft add element inet fw4 reterm_devices "{ 02:00:00:00:99:99 }"
			nft add element inet fw4 reterm_all "{ 02:00:00:00:99:99 }"
			nft add element inet fw4 reterm_ports "{ 02:00:00:00:99:99 . 1 }"
			nft list chain inet fw4 reterm_audit >/dev/null
			nft add element inet fw4 reterm_audit_on "{ \"br-lan\" timeout 5m }"
			nft add element inet fw4 reterm_audit_syn "{ 02:00:00:00:88:88 counter packets 3 bytes 180 }"
			nft -f "$1"
			if nft list table inet fw4 | grep -q 02:00:00:00:99:99; then
				echo "stale set element kept across an fw4 reload" >&2
				exit 1
			fi
			if ! nft list set inet fw4 reterm_audit_syn | grep -q "02:00:00:00:88:88 counter packets 3" ||
			   ! nft list set inet fw4 reterm_audit_on | grep -q br-lan; then
				echo "the window audit did not survive an fw4 reload" >&2
				exit 1
			fi
		' sh "$TMP/fw4-$f.nft" >"$TMP/nft.log" 2>&1; then
			ok "nft/$f"
		else
			notok "nft/$f"
			sed 's/^/#   /' "$TMP/nft.log"
		fi
	fi

	if ! command -v haproxy >/dev/null 2>&1; then
		skipped "haproxy/$f" "haproxy not found"
	else
		cfg=$exp/haproxy.cfg
		if haproxy -c -f "$cfg" >"$TMP/haproxy.log" 2>&1 &&
		   ! grep -qiE 'WARNING|ALERT' "$TMP/haproxy.log" &&
		   ! grep -qE '^[[:space:]]*(option[[:space:]]+transparent|tune\.(rcvbuf|sndbuf)|.*usesrc|daemon)' "$cfg"; then
			ok "haproxy/$f"
		else
			notok "haproxy/$f"
			sed 's/^/#   /' "$TMP/haproxy.log"
		fi
	fi
done

uc_test unit/validate "$TMP/unit.log" -L "$MODS" "$HERE/validate_test.uc"
uc_test unit/newline "$TMP/newline.log" -L "$MODS" "$HERE/newline_test.uc" "$ROOT"
API=$HERE/api
uc_test unit/api-parse "$TMP/parse.log" -L "$MODS" "$API/parse_test.uc"
uc_test unit/api "$TMP/api.log" -L "$API/mocks" -L "$MOCKS" -L "$MODS" "$API/api_test.uc"
# one contract per method: docs/ubus-api.md, reterm.reply CODES, both method tables
uc_test unit/contract "$TMP/contract.log" -L "$MODS" "$HERE/contract_test.uc" "$ROOT"
# reterm's defaults written once (reterm.defaults), the shipped config held to them
uc_test unit/defaults "$TMP/defaults.log" -L "$MODS" "$HERE/defaults_test.uc" "$ROOT"

if [ ! -r /usr/share/ieee-data/oui.csv ]; then
	skipped "oui" "ieee-data not installed (apt-get install ieee-data)"
elif ! command -v python3 >/dev/null 2>&1; then
	skipped "oui" "python3 not found"
elif python3 "$ROOT/tools/gen-oui.py" -o - >"$TMP/oui.json" 2>"$TMP/oui.log" &&
     diff -u "$ROOT/root/usr/share/reterm/oui.json" "$TMP/oui.json" >>"$TMP/oui.log"; then
	ok "oui (oui.json matches tools/gen-oui.py on the installed ieee-data)"
else
	notok "oui (root/usr/share/reterm/oui.json is not what tools/gen-oui.py makes; rerun it)"
	sed 's/^/#   /' "$TMP/oui.log" | head -n 40
fi

audit_reason=$nft_reason
[ -z "$UCODE" ] && audit_reason="ucode not found"
for tool in ss python3 nsenter timeout; do
	[ -z "$audit_reason" ] && ! command -v $tool >/dev/null 2>&1 && audit_reason="$tool not found"
done
if [ -n "$audit_reason" ]; then
	skipped "audit/lab" "$audit_reason"
else
	fw4_wrapper "$FIXTURES/lab/expected" >"$TMP/fw4-audit.nft"
	if timeout 120 unshare -n bash "$HERE/audit_ns.sh" "$TMP/fw4-audit.nft" "$FIXTURES/lab/config" \
		"$UCODE" "$ROOT/root/usr/libexec/reterm/api" >"$TMP/audit.log" 2>&1; then
		ok "audit/lab (3ds flagged, pc not, rwnd_limited read; through the api CLI)"
	else
		notok "audit/lab"
		sed 's/^/#   /' "$TMP/audit.log"
	fi
fi

latency_tests

if [ -z "$UCODE" ]; then
	skipped fixture/overview "ucode not found"
elif "$UCODE" -L "$MOCKS" -L "$MODS" -L "$HERE/latency" "$ROOT/tests/js/fixtures/make-overview.uc" \
		>"$TMP/overview.json" 2>"$TMP/overview.log" &&
     cmp "$ROOT/tests/js/fixtures/overview.json" "$TMP/overview.json" >>"$TMP/overview.log"; then
	ok "fixture/overview (overview.json is what make-overview.uc records)"
else
	notok "fixture/overview (tests/js/fixtures/overview.json is not what make-overview.uc records; rerun it)"
	sed 's/^/#   /' "$TMP/overview.log"
fi

echo "ucode: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
