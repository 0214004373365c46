# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh: latency/icmp-flood, the sampler's
# icmp prober (raw sockets) under an ICMP echo flood from the LAN, in
# network namespaces:
#
#   lan 192.0.2.2, 2001:db8:2::2 -> rtr 192.0.2.1, 2001:db8:2::1
#   rtr 198.51.100.1, 2001:db8:100::1 -> wan 198.51.100.2, 2001:db8:100::2 (the reflectors)
#
# `ping -f -s 1472` (and `ping -6 -f -s 1452`) from lan at the router while
# latency-run's sampler probes both reflectors round robin for FLOOD_S
# seconds in rtr.  The prober's raw sockets are open while it probes, and
# every echo request the router gets reaches them unless the kernel
# filters it.  The sampler must go on probing at 1/s (at least 80 % of
# the probes due sent and answered), using under 10 % of a core (without
# the flood it uses well under 1 %; with the flood and without the kernel
# filter, the bound per wake-up alone, 17-21 % on a shared 2-core machine
# and a quarter of the probes lost).  The floods must have sent at least
# FLOOD_MIN echoes each (a check that passes without a flood proves
# nothing).

FLOOD_S=15 FLOOD_MIN=20000

flood_test() {
	local why= n=fl$$ d=$TMP/flood
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (network namespaces, raw ICMP)"
	elif ! command -v ping >/dev/null 2>&1; then why="ping not found"
	elif ! command -v ip >/dev/null 2>&1; then why="ip (iproute2) not found"
	elif ! command -v python3 >/dev/null 2>&1; then why="python3 not found"
	elif [ ! -d /proc/sys/net/ipv6 ]; then why="kernel without IPv6"
	elif ! "$UCODE" -e 'require("uloop"); require("socket")' >/dev/null 2>&1; then
		why="ucode uloop/socket modules not available"
	fi
	if [ -n "$why" ]; then
		skipped latency/icmp-flood "$why"
		return
	fi

	mkdir -p "$d"
	local x rc=0
	{
		for x in r l w; do ip netns add "$n$x"; done
		ip link add "${n}rl" netns "${n}r" type veth peer name "${n}lr" netns "${n}l" &&
		ip link add "${n}rw" netns "${n}r" type veth peer name "${n}wr" netns "${n}w" &&
		ip -n "${n}r" addr add 192.0.2.1/24 dev "${n}rl" &&
		ip -n "${n}r" addr add 2001:db8:2::1/64 dev "${n}rl" nodad &&
		ip -n "${n}l" addr add 192.0.2.2/24 dev "${n}lr" &&
		ip -n "${n}l" addr add 2001:db8:2::2/64 dev "${n}lr" nodad &&
		ip -n "${n}r" addr add 198.51.100.1/24 dev "${n}rw" &&
		ip -n "${n}r" addr add 2001:db8:100::1/64 dev "${n}rw" nodad &&
		ip -n "${n}w" addr add 198.51.100.2/24 dev "${n}wr" &&
		ip -n "${n}w" addr add 2001:db8:100::2/64 dev "${n}wr" nodad &&
		for x in r l w; do
			ip -n "$n$x" link set lo up
			for dev in $(ip -n "$n$x" -o link show | sed -n "s/^[0-9]*: \(${n}[^@:]*\).*/\1/p"); do
				ip -n "$n$x" link set "$dev" up
			done
		done &&
		# neighbours resolved before the floods and the probes
		ip netns exec "${n}r" ping -c 1 -W 1 198.51.100.2 &&
		ip netns exec "${n}r" ping -6 -c 1 -W 1 2001:db8:100::2 &&
		ip netns exec "${n}l" ping -c 1 -W 1 192.0.2.1 &&
		ip netns exec "${n}l" ping -6 -c 1 -W 1 2001:db8:2::1
	} >"$d/setup.log" 2>&1 || rc=1

	if [ $rc = 0 ]; then
		ip netns exec "${n}l" ping -q -f -s 1472 -w $((FLOOD_S + 4)) 192.0.2.1 >"$d/ping4.log" 2>&1 &
		echo $! >"$d/ping4.pid"
		ip netns exec "${n}l" ping -6 -q -f -s 1452 -w $((FLOOD_S + 4)) 2001:db8:2::1 >"$d/ping6.log" 2>&1 &
		echo $! >"$d/ping6.pid"
		sleep 1
		ip netns exec "${n}r" "$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/latency-run" \
			--sample-seconds "$FLOOD_S" --prober icmp --reflector 198.51.100.2 --reflector 2001:db8:100::2 \
			>"$d/sample.json" 2>>"$d/setup.log" || rc=1
		wait "$(cat "$d/ping4.pid")" "$(cat "$d/ping6.pid")"
		rm -f "$d/ping4.pid" "$d/ping6.pid"
	fi
	kill_started "$d/ping4.pid"
	kill_started "$d/ping6.pid"
	for x in r l w; do ip netns del "$n$x" 2>/dev/null; done

	if [ $rc = 0 ] && python3 - "$d" "$FLOOD_S" "$FLOOD_MIN" >"$d/check.log" 2>&1 <<-'PY'
	import json, re, sys
	d, secs, least = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	sent = []
	for fam in ("4", "6"):
	    m = re.search(r"(\d+) packets transmitted", open("%s/ping%s.log" % (d, fam)).read())
	    sent.append(int(m.group(1)) if m else 0)
	r = json.load(open("%s/sample.json" % d))
	due = secs	# one probe a second while the line is idle
	said = "floods of %d and %d echoes; %d probes sent of %d due, %d answered; %.1f %% of a core" % (
	    sent[0], sent[1], r["probes"], due, r["answered"], r["cpu_pct"])
	print(said)
	assert min(sent) >= least, "a flood sent fewer than %d echoes" % least
	assert r["prober"] == "icmp", r
	assert r["probes"] >= 0.8 * due, "fewer than 80 % of the probes due sent"
	assert r["answered"] >= 0.8 * due, "fewer than 80 % of the probes due answered"
	assert r["cpu_pct"] < 10, "the sampler used 10 % of a core or more"
	PY
	then
		ok "latency/icmp-flood ($(cat "$d/check.log"))"
	else
		notok "latency/icmp-flood"
		sed 's/^/#   /' "$d"/*.log "$d"/*.json 2>/dev/null | head -40
	fi
}
