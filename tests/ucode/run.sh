#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# ucode tests of the reterm render layer.
#
#   tests/ucode/run.sh                  run everything that can run here
#   UPDATE_GOLDEN=1 tests/ucode/run.sh  rewrite tests/fixtures/*/expected
#                                       from the current renderer (review
#                                       the result with git diff)
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
#                         gone after loading it again (fw4 reload)
#   haproxy/<name>        haproxy -c on the golden haproxy.cfg, no warnings,
#                         no forbidden keywords
# Plus unit/validate (tests/ucode/validate_test.uc).
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

UCODE=$(command -v ucode 2>/dev/null || true)
[ -z "$UCODE" ] && [ -x /usr/local/bin/ucode ] && UCODE=/usr/local/bin/ucode

pass=0 fail=0 skip=0

ok()      { echo "ok - $1"; pass=$((pass + 1)); }
notok()   { echo "not ok - $1"; fail=$((fail + 1)); }
skipped() { echo "skip - $1 ($2)"; skip=$((skip + 1)); }

fixtures=()
for d in "$FIXTURES"/*/; do
	[ -f "$d/config/reterm" ] && fixtures+=("$(basename "$d")")
done

# Tests that need rendered output only exist for fixtures that render.
renders() { [ "$(cat "$FIXTURES/$1/expected/exit" 2>/dev/null)" = 0 ]; }

if [ -z "$UCODE" ]; then
	n=1
	for f in "${fixtures[@]}"; do
		n=$((n + 2))
		renders "$f" && n=$((n + 2))
	done
	echo "skipped: ucode not found"
	echo "ucode: 0 passed, 0 failed, $n skipped"
	exit 0
fi

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

if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
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

have_libuci=0
"$UCODE" -e 'require("uci")' >/dev/null 2>&1 && have_libuci=1

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
	out=$TMP/render-$f
	render "$f" "$out" mocks
	if compare "$f" "$out" >"$TMP/diff" 2>&1; then
		ok "render/$f"
	else
		notok "render/$f"
		sed 's/^/#   /' "$TMP/diff"
	fi

	if [ $have_libuci = 1 ]; then
		out=$TMP/libuci-$f
		render "$f" "$out"
		if compare "$f" "$out" >"$TMP/diff" 2>&1; then
			ok "render-libuci/$f"
		else
			notok "render-libuci/$f"
			sed 's/^/#   /' "$TMP/diff"
		fi
	else
		skipped "render-libuci/$f" "uci module not available"
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
			nft -f "$1"
			if nft list table inet fw4 | grep -q 02:00:00:00:99:99; then
				echo "stale set element kept across an fw4 reload" >&2
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

if "$UCODE" -L "$MODS" "$HERE/validate_test.uc" >"$TMP/unit.log" 2>&1; then
	ok "unit/validate ($(tail -n1 "$TMP/unit.log"))"
else
	notok "unit/validate"
	sed 's/^/#   /' "$TMP/unit.log"
fi

echo "ucode: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
