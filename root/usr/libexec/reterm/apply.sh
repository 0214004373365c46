#!/bin/sh
# reterm apply: rendered files -> firewall4 includes, policy routing, sysctl.
#
#   apply.sh check   validate the rendered files (apply.env, haproxy -c)
#   apply.sh start   check, then our ip rules and routes, the nft includes
#                    (fw4 check + reload), the sysctl maxima: all of it or
#                    nothing (a failure undoes what this start did and puts
#                    the previous start's state back)
#   apply.sh stop    remove all of it
#
# Only our own routing state is ever touched: per family, the rule
# `pref 90 fwmark MARK/MASK lookup TABLE` and the route
# `local default dev lo table TABLE`, with the values of the start that
# added them (kept in applied.env).  A TABLE that another rule looks up or
# that holds any other route is refused.  Sysctl: only the maxima of
# tcp_rmem/tcp_wmem are raised, and only those we raised go back on stop.
#
# OpenWrt-independent on purpose: the lab runs this file unchanged with
# other paths.  haproxy itself is started by the caller (procd on OpenWrt).
#
# Environment (defaults are the router's paths):
#   RETERM_RUN      rendered files, written by `render`   (/var/etc/reterm)
#   RETERM_NFT_DIR  firewall4 auto-include directory       (/usr/share/nftables.d)
#   RETERM_FW       firewall4 command, called as `$RETERM_FW -q check|reload` (fw4)
#   RETERM_HAPROXY  haproxy binary                         (haproxy)
#   RETERM_BRNF     bridge netfilter sysctls               (/proc/sys/net/bridge)
#
# The includes in RETERM_NFT_DIR are symlinks into RETERM_RUN/active, which
# lives in RAM on a router: after a reboot they dangle and firewall4 skips
# them, so no rule outlives the service, even after a power cut.

RUN=${RETERM_RUN:-/var/etc/reterm}
NFT_DIR=${RETERM_NFT_DIR:-/usr/share/nftables.d}
FW=${RETERM_FW:-fw4}
HAPROXY=${RETERM_HAPROXY:-haproxy}
BRNF=${RETERM_BRNF:-/proc/sys/net/bridge}
INCLUDES="ruleset-pre/reterm.nft table-pre/reterm.nft chain-pre/mangle_prerouting/reterm.nft chain-pre/input/reterm.nft"
RULE_PREF=90
SYSCTL_KEYS="net.ipv4.tcp_rmem net.ipv4.tcp_wmem"

log() { echo "reterm: $*" >&2; command -v logger >/dev/null && logger -t reterm "$*"; return 0; }
# Within a start's changes (TX set) the EXIT trap undoes them and says why.
die() { FAIL_REASON=$*; [ -n "${TX:-}" ] || log "$*"; exit 1; }

# apply.env holds plain assignments; accept nothing else before sourcing it,
# then check every value against its grammar again.
load_env() {
	local env="${1:-$RUN/apply.env}"
	[ -r "$env" ] || die "missing $env (nothing rendered?)"
	if grep -v -E "^(#.*|RETERM_[A-Z0-9_]+=('[A-Za-z0-9._:-]*'|[A-Za-z0-9._:-]*))\$" "$env" | grep -q .; then
		die "refusing $env: unexpected content"
	fi
	. "$env"
	case "${RETERM_PORT:-}" in ''|*[!0-9]*) die "bad RETERM_PORT" ;; esac
	[ "$RETERM_PORT" -ge 1 ] && [ "$RETERM_PORT" -le 65535 ] || die "bad RETERM_PORT"
	case "${RETERM_MARK:-}" in 0x*) ;; *) die "bad RETERM_MARK" ;; esac
	case "${RETERM_MARK#0x}" in ''|*[!0-9a-fA-F]*) die "bad RETERM_MARK" ;; esac
	case "${RETERM_MASK:-}" in 0x*) ;; *) die "bad RETERM_MASK" ;; esac
	case "${RETERM_MASK#0x}" in ''|*[!0-9a-fA-F]*) die "bad RETERM_MASK" ;; esac
	case "${RETERM_TABLE:-}" in ''|*[!0-9]*) die "bad RETERM_TABLE" ;; esac
	case "${RETERM_IPV6:-}" in 0|1) ;; *) die "bad RETERM_IPV6" ;; esac
}

check() {
	load_env
	# With br_netfilter on, bridged LAN frames also traverse the IP hooks and
	# diverted SYNs are answered with RST: that would fail closed, not open.
	for k in bridge-nf-call-iptables bridge-nf-call-ip6tables; do
		[ "$(cat "$BRNF/$k" 2>/dev/null)" = 1 ] &&
			die "br_netfilter is active ($k = 1); re-termination would break connections, not applied"
	done
	for f in $INCLUDES; do
		[ -r "$RUN/nftables.d/$f" ] || die "missing rendered $f"
	done
	"$HAPROXY" -c -q -f "$RUN/haproxy.cfg" >/dev/null 2>&1 ||
		die "haproxy rejects $RUN/haproxy.cfg: $("$HAPROXY" -c -f "$RUN/haproxy.cfg" 2>&1 | tail -n 3)"
}

# Copy dir $1 to $2 (both may be missing).
snapshot() {
	rm -rf "$2"
	[ -d "$1" ] && cp -a "$1" "$2"
	return 0
}

link_includes() {
	for f in $INCLUDES; do
		mkdir -p "$NFT_DIR/${f%/*}"
		ln -sfn "$RUN/active/$f" "$NFT_DIR/$f"
	done
}

unlink_includes() {
	for f in $INCLUDES; do
		rm -f "$NFT_DIR/$f"
	done
}

# Only reload the firewall when what it includes changed.
includes_current() {
	for f in $INCLUDES; do
		[ -L "$NFT_DIR/$f" ] && cmp -s "$RUN/nftables.d/$f" "$RUN/active/$f" || return 1
	done
}

fw_reload() {
	local out
	out=$("$FW" -q reload 2>&1 >/dev/null) && return 0
	log "firewall reload failed: $(printf '%s\n' "$out" | grep . | tail -n 1)"
	return 1
}

# NFT_CHANGED: this start replaced run/active (the previous one is in
# run/active.prev until the start completes); NFT_LOADED: and reloaded fw4.
install_includes() {
	if includes_current; then
		log "firewall includes unchanged"
		return 0
	fi
	NFT_CHANGED=1
	snapshot "$RUN/active" "$RUN/active.prev"
	snapshot "$RUN/nftables.d" "$RUN/active"
	link_includes
	"$FW" -q check >/dev/null 2>&1 || die "firewall check failed with the new rules"
	NFT_LOADED=1
	fw_reload || die "firewall reload failed"
	log "firewall includes installed"
}

rollback_includes() {
	if [ -d "$RUN/active.prev" ]; then
		snapshot "$RUN/active.prev" "$RUN/active"
	else
		unlink_includes
		rm -rf "$RUN/active"
	fi
	rm -rf "$RUN/active.prev"
}

# routing add|del: our rule and route per family, with the loaded RETERM_*
# values (add: IPv6 only when enabled).  del matches mark, mask, table and
# pref together, so no other rule or route goes, and never fails.
routing() {
	local fams="4 6" fam
	[ "$1" = add ] && [ "$RETERM_IPV6" != 1 ] && fams=4
	for fam in $fams; do
		if [ "$1" = del ]; then
			while ip -$fam rule del pref $RULE_PREF fwmark "$RETERM_MARK/$RETERM_MASK" \
				lookup "$RETERM_TABLE" 2>/dev/null; do :; done
			ip -$fam route del local default dev lo table "$RETERM_TABLE" 2>/dev/null
			continue
		fi
		ip -$fam rule add pref $RULE_PREF fwmark "$RETERM_MARK/$RETERM_MASK" \
			lookup "$RETERM_TABLE" || die "ip -$fam rule add failed"
		# add, not replace: never over a route that appeared since table_free
		ip -$fam route add local default dev lo table "$RETERM_TABLE" ||
			die "ip -$fam route add failed"
	done
	return 0
}

# routing_applied add|del: the same with the values of the last completed
# start (applied.env), if any.
routing_applied() {
	[ -r "$RUN/applied.env" ] || return 0
	( load_env "$RUN/applied.env" && routing "$1" ) 2>/dev/null
}

# Refuse a table that another rule looks up or that holds any route (ours
# are gone by now): another package may fill a table before its rule comes.
# -N: rt_tables names print as numbers (a named table must not look free).
table_free() {
	local fams="4 6" fam out other
	[ "$RETERM_IPV6" != 1 ] && fams=4
	for fam in $fams; do
		out=$(ip -$fam -N rule show 2>&1) || die "cannot list the ip -$fam rules: $out"
		other=$(printf '%s\n' "$out" | grep -m1 -E "[[:space:]]lookup $RETERM_TABLE( |\$)" | tr -s '\t ' '  ')
		[ -z "$other" ] ||
			die "table $RETERM_TABLE is used by another rule (ip -$fam rule: $other); choose another routing table (reterm.main.table)"
		# (all tables: asked for a table it does not have, the kernel errs)
		out=$(ip -$fam -N route show table all 2>&1) || die "cannot list the ip -$fam routes: $out"
		other=$(printf '%s\n' "$out" | grep -m1 -E "[[:space:]]table $RETERM_TABLE( |\$)" | tr -s '\t ' '  ')
		[ -z "$other" ] ||
			die "table $RETERM_TABLE holds routes of another package (ip -$fam route: $other); choose another routing table (reterm.main.table)"
	done
}

# Raise the TCP buffer maxima for the proxy's long leg, never lower them,
# and keep the current min and default: of the sysctl.conf lines
# "key = min default max" only max is used.  Each raise is noted in
# sysctl.raised as "key max-before min default max-set", so that stop
# undoes exactly it.
sysctl_apply() {
	local key eq min def max prev
	while read -r key eq min def max; do
		case "$key" in net.ipv4.tcp_rmem|net.ipv4.tcp_wmem) ;; *) continue ;; esac
		case "$max" in ''|*[!0-9]*) log "bad sysctl line for $key"; continue ;; esac
		set -- $(sysctl -n "$key" 2>/dev/null)	# now: min default max
		case "$#:$1$2$3" in 3:*[!0-9]*|[!3]:*) log "cannot read $key"; continue ;; esac
		[ "$3" -ge "$max" ] && continue
		# raising our own earlier raise: the maximum before that one stays
		prev=$(raised "$key" "$1 $2 $3") || prev=$3
		sysctl -q -w "$key=$1 $2 $max" >/dev/null || { log "sysctl $key failed"; continue; }
		{ grep -v "^$key " "$RUN/sysctl.raised" 2>/dev/null; echo "$key $prev $1 $2 $max"; } \
			> "$RUN/sysctl.raised.tmp" && mv "$RUN/sysctl.raised.tmp" "$RUN/sysctl.raised"
	done < "$RUN/sysctl.conf"
}

# raised KEY "MIN DEF MAX": the maximum before our raise of KEY, if KEY
# still holds exactly what we set; fails otherwise.
raised() {
	local key prev min def max
	[ -f "$RUN/sysctl.raised" ] || return 1
	while read -r key prev min def max; do
		[ "$key" = "$1" ] && [ "$min $def $max" = "$2" ] || continue
		case "$prev" in ''|*[!0-9]*) return 1 ;; esac
		echo "$prev"
		return 0
	done < "$RUN/sysctl.raised"
	return 1
}

# Put back the maxima we raised, and only where they still hold the value
# we set: a maximum raised (or anything tuned) since is someone else's.
sysctl_restore() {
	local key prev now
	[ -f "$RUN/sysctl.raised" ] || return 0
	for key in $SYSCTL_KEYS; do
		now=$(sysctl -n "$key" 2>/dev/null | tr -s '\t ' '  ')
		set -- $now
		prev=$(raised "$key" "$now") || {
			grep -q "^$key " "$RUN/sysctl.raised" && log "$key changed since reterm raised its maximum: left at $now"
			continue
		}
		sysctl -q -w "$key=$1 $2 $prev" >/dev/null || log "sysctl restore of $key failed"
	done
	rm -f "$RUN/sysctl.raised"
}

# EXIT trap of a start: undo what it changed, restore the previous state.
rollback() {
	[ -n "${TX:-}" ] || return 0
	TX=
	routing del
	if [ -n "${NFT_CHANGED:-}" ]; then
		rollback_includes
		[ -n "${NFT_LOADED:-}" ] && fw_reload
	fi
	routing_applied add || log "the previous routing could not be restored"
	log "not applied, changes undone: $FAIL_REASON"
}

start() {
	check
	TX=1
	trap rollback EXIT
	trap 'exit 1' INT TERM HUP
	# the rules first: a table change leaves no gap while fw4 reloads
	routing_applied del
	routing del
	table_free
	routing add
	install_includes
	cp "$RUN/apply.env" "$RUN/applied.env" || die "cannot write $RUN/applied.env"
	rm -rf "$RUN/active.prev"
	TX=
	trap - EXIT INT TERM HUP
	sysctl_apply
}

# fw4's reload flushes its table but keeps the chains and sets it no
# longer declares: delete ours (every reterm_* name in table inet fw4;
# chains flushed first, they jump to each other and use the sets).
drop_leftovers() {
	local table names name
	table=$(nft list table inet fw4 2>/dev/null) || return 0
	names() { printf '%s\n' "$table" | sed -n "s/^[[:space:]]*$1 \(reterm_[a-z0-9_]*\) {.*/\1/p"; }
	for name in $(names chain); do nft flush chain inet fw4 "$name"; done
	for name in $(names chain); do nft delete chain inet fw4 "$name" || log "cannot delete chain $name"; done
	for name in $(names set); do nft delete set inet fw4 "$name" || log "cannot delete set $name"; done
	return 0
}

stop() {
	local changed=0
	for f in $INCLUDES; do
		[ -L "$NFT_DIR/$f" ] || [ -e "$NFT_DIR/$f" ] && changed=1
	done
	unlink_includes
	rm -rf "$RUN/active" "$RUN/active.prev"
	[ "$changed" = 1 ] && fw_reload && drop_leftovers
	# Undo the routing that start set up, with the values it used.
	routing_applied del && rm -f "$RUN/applied.env"
	sysctl_restore
	return 0
}

case "${1:-}" in
	check) check ;;
	start) start ;;
	stop) stop ;;
	*) echo "usage: $0 check|start|stop" >&2; exit 2 ;;
esac
