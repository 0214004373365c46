#!/bin/sh
# A stand-in for firewall4's `fw4` in the lab: builds `table inet fw4` with
# fw4's chain names and hooks and includes readable *.nft files from
# $RETERM_NFT_DIR the way fw4 does (table-pre/, chain-pre/<chain>/; broken
# symlinks are skipped).  Usage: fw4-emu.sh [-q] check|reload|print|stop
set -eu
[ "${1:-}" = -q ] && shift
DIR=${RETERM_NFT_DIR:?RETERM_NFT_DIR not set}

includes() {  # includes <subdir> <indent>
	for f in "$DIR/$1"/*.nft; do
		[ -r "$f" ] && printf '%binclude "%s"\n' "$2" "$f"
	done
	return 0
}

chain() {  # chain <name> <hook spec> [<rule before the includes>] -- <rules>
	printf '\tchain %s {\n\t\t%s\n' "$1" "$2"
	local name=$1
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do printf '\t\t%s\n' "$1"; shift; done
	[ $# -gt 0 ] && shift
	includes "chain-pre/$name" '\t\t'
	for rule in "$@"; do printf '\t\t%s\n' "$rule"; done
	printf '\t}\n'
}

# Same order as firewall4's ruleset template: flush (which keeps sets and
# their elements), ruleset-pre, then the table with table-pre first.
ruleset() {
	echo "table inet fw4"
	echo "flush table inet fw4"
	includes ruleset-pre ''
	echo "table inet fw4 {"
	includes table-pre '\t'
	chain input "type filter hook input priority filter; policy drop;" \
		'iifname "lo" accept' -- \
		'ct state established,related accept' \
		'ct state invalid drop' \
		'iifname "br-lan" accept' \
		'meta l4proto { icmp, ipv6-icmp } accept'
	chain forward "type filter hook forward priority filter; policy accept;"
	chain output "type filter hook output priority filter; policy accept;"
	chain mangle_prerouting "type filter hook prerouting priority mangle; policy accept;"
	chain mangle_output "type route hook output priority mangle; policy accept;"
	echo "}"
}

case "${1:-}" in
	print) ruleset ;;
	check) ruleset | nft -c -f - ;;
	reload) ruleset | nft -f - ;;
	stop) nft delete table inet fw4 ;;
	*) echo "usage: $0 [-q] check|reload|print|stop" >&2; exit 2 ;;
esac
