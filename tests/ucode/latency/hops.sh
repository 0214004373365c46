# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh: latency/hops-live, the near-hop
# scan of adaptive shaping in network namespaces, with both real probes of
# reterm.latency.probe.hops: icmp_ttl (a raw socket with IP_TTL) and fping_ttl
# (fping's stdout and stderr on a socketpair):
#
#   cli 198.18.0.2 -> r1 198.18.0.1 | 203.0.113.1 -> r2 203.0.113.2 | 198.51.78.1 -> far 198.51.78.2
#   and over IPv6 2001:db8:18::2 -> ::1 | 2001:db8:113::1 -> ::2 | 2001:db8:78::1 -> far 2001:db8:78::2
#
# The scan towards far must find r1 at TTL 1 and r2 at TTL 2 (each answers
# from its address towards the client), end at TTL 3 where far answers,
# and pick both, in both families with the raw socket (IP_TTL,
# IPV6_UNICAST_HOPS) and over IPv4 with fping; a scan towards an address
# nobody has stops after MAX_TTL echoes (raw socket only: the scan's
# logic is the same).  A kernel without IPv6 skips the IPv6 path
# (latency/hops-live-ipv6) and still runs the rest.

hops_test() {
	local why= n=rh$$ d=$TMP/hops
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (network namespaces)"
	elif ! command -v fping >/dev/null 2>&1; then why="fping not found"
	elif ! command -v ip >/dev/null 2>&1; then why="ip (iproute2) not found"
	elif ! "$UCODE" -e 'require("uloop"); require("socket")' >/dev/null 2>&1; then
		why="ucode uloop/socket modules not available"
	fi
	if [ -n "$why" ]; then
		skipped latency/hops-live "$why"
		return
	fi
	local v6=1
	[ -d /proc/sys/net/ipv6 ] || { v6=; skipped latency/hops-live-ipv6 "kernel without IPv6"; }

	mkdir -p "$d"
	{
		local x
		for x in c 1 2 f; do ip netns add "$n$x"; done
		ip link add "${n}c0" netns "${n}c" type veth peer name "${n}1a" netns "${n}1" &&
		ip link add "${n}1b" netns "${n}1" type veth peer name "${n}2a" netns "${n}2" &&
		ip link add "${n}2b" netns "${n}2" type veth peer name "${n}f0" netns "${n}f" &&
		ip -n "${n}c" addr add 198.18.0.2/24 dev "${n}c0" &&
		ip -n "${n}1" addr add 198.18.0.1/24 dev "${n}1a" &&
		ip -n "${n}1" addr add 203.0.113.1/24 dev "${n}1b" &&
		ip -n "${n}2" addr add 203.0.113.2/24 dev "${n}2a" &&
		ip -n "${n}2" addr add 198.51.78.1/24 dev "${n}2b" &&
		ip -n "${n}f" addr add 198.51.78.2/24 dev "${n}f0" &&
		for x in c 1 2 f; do
			ip -n "$n$x" link set lo up
			for dev in $(ip -n "$n$x" -o link show | sed -n "s/^[0-9]*: \(${n}[^@:]*\).*/\1/p"); do
				ip -n "$n$x" link set "$dev" up
			done
		done &&
		ip -n "${n}c" route add default via 198.18.0.1 &&
		ip -n "${n}1" route add default via 203.0.113.2 &&
		ip -n "${n}2" route add 198.18.0.0/24 via 203.0.113.1 &&
		ip -n "${n}2" route add default via 198.51.78.2 &&
		ip -n "${n}f" route add default via 198.51.78.1 &&
		ip netns exec "${n}1" sysctl -qw net.ipv4.ip_forward=1 &&
		ip netns exec "${n}2" sysctl -qw net.ipv4.ip_forward=1
		[ -z "$v6" ] || {
			ip -n "${n}c" addr add 2001:db8:18::2/64 dev "${n}c0" nodad &&
			ip -n "${n}1" addr add 2001:db8:18::1/64 dev "${n}1a" nodad &&
			ip -n "${n}1" addr add 2001:db8:113::1/64 dev "${n}1b" nodad &&
			ip -n "${n}2" addr add 2001:db8:113::2/64 dev "${n}2a" nodad &&
			ip -n "${n}2" addr add 2001:db8:78::1/64 dev "${n}2b" nodad &&
			ip -n "${n}f" addr add 2001:db8:78::2/64 dev "${n}f0" nodad &&
			ip -n "${n}c" -6 route add default via 2001:db8:18::1 &&
			ip -n "${n}1" -6 route add default via 2001:db8:113::2 &&
			ip -n "${n}2" -6 route add 2001:db8:18::/64 via 2001:db8:113::1 &&
			ip -n "${n}2" -6 route add default via 2001:db8:78::2 &&
			ip -n "${n}f" -6 route add default via 2001:db8:78::1 &&
			ip netns exec "${n}1" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
			ip netns exec "${n}2" sysctl -qw net.ipv6.conf.all.forwarding=1
		}
		# neighbours resolved before the scan (the first echo must not
		# be lost to ARP or neighbour discovery)
		ip netns exec "${n}c" fping -q -c 1 -t 500 198.51.78.2 2>/dev/null
		[ -z "$v6" ] || ip netns exec "${n}c" fping -q -c 1 -t 500 2001:db8:78::2 2>/dev/null
		true
	} >"$d/setup.log" 2>&1

	local rc=0 kind
	for kind in icmp fping; do
		ip netns exec "${n}c" "$UCODE" -L "$MODS" "$MON/hops_live.uc" 198.51.78.2 $kind >"$d/far-$kind.json" 2>>"$d/setup.log" || rc=1
	done
	[ -z "$v6" ] || ip netns exec "${n}c" "$UCODE" -L "$MODS" "$MON/hops_live.uc" 2001:db8:78::2 icmp >"$d/far6-icmp.json" 2>>"$d/setup.log" || rc=1
	ip netns exec "${n}c" "$UCODE" -L "$MODS" "$MON/hops_live.uc" 198.51.79.9 icmp >"$d/none.json" 2>>"$d/setup.log" || rc=1

	for x in c 1 2 f; do ip netns del "$n$x" 2>/dev/null; done

	if [ $rc = 0 ] && python3 - "$d" "$v6" >"$d/check.log" 2>&1 <<-'PY'
	import json, sys
	said = []
	for kind in ("icmp", "fping"):
	    far = json.load(open("%s/far-%s.json" % (sys.argv[1], kind)))
	    assert far["hops"] == [{"ttl": 1, "addr": "198.18.0.1"}, {"ttl": 2, "addr": "203.0.113.2"}], (kind, far)
	    assert far["near"] == ["198.18.0.1", "203.0.113.2"], (kind, far)
	    assert far["echoes"] == 3, (kind, far)
	    said.append("%s: near %s, %d echoes" % (kind, " ".join(far["near"]), far["echoes"]))
	if sys.argv[2]:
	    far6 = json.load(open("%s/far6-icmp.json" % sys.argv[1]))
	    assert far6["hops"] == [{"ttl": 1, "addr": "2001:db8:18::1"}, {"ttl": 2, "addr": "2001:db8:113::2"}], far6
	    assert far6["near"] == ["2001:db8:18::1", "2001:db8:113::2"] and far6["echoes"] == 3, far6
	    said.append("icmp IPv6: near %s, %d echoes" % (" ".join(far6["near"]), far6["echoes"]))
	none = json.load(open("%s/none.json" % sys.argv[1]))
	assert none["echoes"] == 4 and none["hops"][:2] == far["hops"], none
	print("; ".join(said) + "; nobody there: %d echoes" % none["echoes"])
	PY
	then
		ok "latency/hops-live ($(cat "$d/check.log"))"
	else
		notok "latency/hops-live"
		sed 's/^/#   /' "$d"/*.log "$d"/*.json 2>/dev/null | head -40
	fi
}
