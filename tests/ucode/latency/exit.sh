# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh: latency/daemon-exit, reterm-latencyd's
# ways out with adaptive shaping on (issue 30 item 3), the real daemon on
# a private ubusd, its CAKE a stand-in (tests/ucode/latency/fault: lo and
# ifb4lo, each rate change logged, show() throwing on demand).  sqm's
# queue is lo at 18000/4500 kbit/s, adaptive shaping's base 20000/5000;
# before each way out sqm's config changes to 19000 without a reload, and
# every way out must leave 19000/4500 on CAKE (what sqm's config holds
# then, not what it held at start):
#
#   fault   an exception in a loop callback (the CAKE timer): logged, sqm's
#           rates back, exit status 1
#   TERM    procd's stop: sqm's rates back, exit status 0
#   KILL    no way out in the process: the next start (adaptive shaping
#           off by then) finds the record and puts sqm's rates back

# exit_daemon <dir> <log>: reterm-latencyd in its own mount namespace (its
# /etc an overlay, /var/run the directory <dir>/run, kept between runs)
# with the stand-in first on its module path; its pid in <dir>/pid
exit_daemon() {
	RETERM_UBUS_SOCKET=$1/ubus.sock RETERM_UCI_CONFDIR=$1/conf RETERM_FAKE_TC=$1/tc.log RETERM_FIXTURES=$FIXTURES \
		unshare -m --propagation private \
		sh -c 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc &&
		       mount --bind "$1/run" "$(readlink -f /var/run)" && shift && exec "$@"' sh "$1" \
		"$UCODE" -L "$MON/fault" -L "$MODS" "$ROOT/root/usr/sbin/reterm-latencyd" >>"$2" 2>&1 &
	echo $! >"$1/pid"
}

# exit_wait <dir> <seconds>: the daemon's exit status, or 124 if it still runs
exit_wait() {
	local pid n=$(($2 * 10)) rc
	pid=$(cat "$1/pid")
	while [ $n -gt 0 ] && kill -0 "$pid" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
		sleep 0.1
		n=$((n - 1))
	done
	kill -0 "$pid" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] && return 124
	wait "$pid"
	rc=$?
	return $rc
}

# exit_up <dir>: its object published and adaptive shaping on
exit_up() {
	local i
	for i in $(seq 1 50); do
		ubus -s "$1/ubus.sock" call reterm.latency autorate_status 2>/dev/null | grep -q '"enabled": true' && return 0
		sleep 0.1
	done
	return 1
}

# exit_sqm <dir> <download>
exit_sqm() {
	printf "config queue 'q'\n\toption enabled '1'\n\toption interface 'lo'\n\toption download '%s'\n\toption upload '4500'\n\toption qdisc 'cake'\n" \
		"$2" >"$1/conf/sqm"
}

exit_rates() { tail -n 2 "$1/tc.log" | sort | tr '\n' ' '; }

# the three ways out in turn (exit_test's); the first that fails says why
exit_run() {
	local d=$1 log=$2 rc i
	# an exception in a loop callback
	exit_daemon "$d" "$log"
	exit_up "$d" || { echo "fault: adaptive shaping not on"; return 1; }
	grep -qx 'ifb4lo 20000' "$d/tc.log" || { echo "fault: base not set at start"; return 1; }
	exit_sqm "$d" 19000 && touch "$d/tc.log.fault"
	exit_wait "$d" 10
	rc=$?
	grep -q 'exception in the loop: fault injected by the test' "$log" || echo "fault: the exception not logged"
	[ "$(exit_rates "$d")" = "ifb4lo 19000 lo 4500 " ] || echo "fault: CAKE left at $(exit_rates "$d")"
	[ $rc = 1 ] || { echo "fault: exit status $rc, want 1"; return 1; }
	[ "$(exit_rates "$d")" = "ifb4lo 19000 lo 4500 " ] && grep -q 'exception in the loop' "$log" || return 1
	! test -e "$d/run/reterm/autorate.json" || { echo "fault: record left"; return 1; }

	# procd's SIGTERM
	rm -f "$d/tc.log.fault"
	exit_sqm "$d" 18000 && exit_daemon "$d" "$log"
	exit_up "$d" || { echo "TERM: adaptive shaping not on"; return 1; }
	exit_sqm "$d" 19000 && kill -TERM "$(cat "$d/pid")"
	exit_wait "$d" 10
	rc=$?
	[ "$(exit_rates "$d")" = "ifb4lo 19000 lo 4500 " ] || { echo "TERM: CAKE left at $(exit_rates "$d")"; return 1; }
	[ $rc = 0 ] || { echo "TERM: exit status $rc, want 0"; return 1; }

	# SIGKILL, then a start with adaptive shaping off
	exit_sqm "$d" 18000 && exit_daemon "$d" "$log"
	exit_up "$d" || { echo "KILL: adaptive shaping not on"; return 1; }
	test -s "$d/run/reterm/autorate.json" || echo "KILL: no record while driven"
	exit_sqm "$d" 19000 && kill -KILL "$(cat "$d/pid")"
	exit_wait "$d" 5
	[ "$(exit_rates "$d")" = "ifb4lo 20000 lo 5000 " ] || { echo "KILL: CAKE at $(exit_rates "$d") before the next start"; return 1; }
	sed -i "s/option enabled '1'/option enabled '0'/" "$d/conf/reterm" && exit_daemon "$d" "$log"
	for i in $(seq 1 50); do [ "$(exit_rates "$d")" = "ifb4lo 19000 lo 4500 " ] && break; sleep 0.1; done
	[ "$(exit_rates "$d")" = "ifb4lo 19000 lo 4500 " ] || { echo "KILL: the next start left CAKE at $(exit_rates "$d")"; return 1; }
	! test -e "$d/run/reterm/autorate.json" || { echo "KILL: record left after the next start"; return 1; }
}

exit_test() {
	local why= d=$TMP/exit rc i
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (raw ICMP, mounts)"
	elif ! command -v ubusd >/dev/null 2>&1 || ! command -v ubus >/dev/null 2>&1; then why="ubusd or the ubus CLI not found"
	elif ! "$UCODE" -e 'require("ubus"); require("uloop"); require("socket")' >/dev/null 2>&1; then why="ucode ubus/uloop/socket modules not available"
	elif ! command -v unshare >/dev/null 2>&1; then why="unshare not found"
	fi
	if [ -n "$why" ]; then
		skipped latency/daemon-exit "$why"
		return
	fi

	mkdir -p "$d/conf" "$d/up" "$d/work" "$d/run"
	cat >"$d/conf/reterm" <<-EOF
	config latency 'latency'
		list reflector '127.0.0.1'
		option prober 'icmp'
		option wan_device 'lo'

	config autorate 'q'
		option enabled '1'
		option dl_base '20000'
		option dl_max '40000'
		option ul_base '5000'
		option ul_max '10000'
	EOF
	exit_sqm "$d" 18000
	ubusd -s "$d/ubus.sock" >/dev/null 2>&1 &
	echo $! >"$d/ubusd.pid"
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$d/ubus.sock" ] && break; sleep 0.1; done
	local log=$d/daemon.log out=$d/run.log
	exit_run "$d" "$log" >"$out" 2>&1
	rc=$?
	kill "$(cat "$d/pid")" 2>/dev/null
	exit_wait "$d" 5 >/dev/null 2>&1
	kill_started "$d/ubusd.pid"
	if [ $rc = 0 ]; then
		ok "latency/daemon-exit (an exception in a loop callback, SIGTERM, SIGKILL and the next start: sqm's rates as its config holds them then)"
	else
		notok latency/daemon-exit
		sed 's/^/#   /' "$out" "$d/tc.log" "$log" 2>/dev/null | tail -n 60
	fi
}
