# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/owrt/run.sh after init_checks.sh (osh, wait_for, event,
# triggers_idle, jq_py): the guided test's shaping pause on the real
# sqm-scripts, ended by the router itself, no browser anywhere.
#
#   pause/stop     test_start {pause_shaping}: sqm's run.sh stops the WAN's
#                  queue (its tbf goes, UCI unchanged); test_stop: back
#   pause/crash    reterm-latencyd killed mid-test: procd respawns it and the new
#                  instance starts the queue again from its RAM record
#   pause/no-respawn  reterm-latencyd killed mid-test for the sixth time
#                  within the hour: procd gives up (its crash loop), and
#                  the queue starts again all the same, with no reterm-latencyd
#   pause/init-recover  what a dead reterm-latencyd left (its records: a pause,
#                  CAKE at an adaptive rate) is put right by the init
#                  script: its stop, and its start with the daemon off
#                  (latency.enabled 0); CAKE's rate change is recorded by a
#                  stand-in tc (the sandbox kernel has no cake)
#
# The queue is a veth "wan0" shaped by tests/owrt/fixtures/reterm-tbf.qos
# (the sandbox kernel has no cake); the link and the script stay for the
# LuCI checks.

shaped() { tc qdisc show dev wan0 | grep -q ' tbf '; }
pause_field() { osh "ubus call reterm.latency test_status" | jq_py "(d.get('pause') or {}).get('$1')"; }

pause_setup() {
	cp "$HERE/fixtures/reterm-tbf.qos" "$OWRT_ROOT/usr/lib/sqm/reterm-tbf.qos"
	ip link show wan0 >/dev/null 2>&1 || ip link add wan0 type veth peer name wan0peer || return 1
	ip link set wan0 up && ip link set wan0peer up
	python3 "$TOP/tests/ucode/latency/httpd.py" > "$OWRT_DIR/pause-httpd.port" 2>/dev/null &
	PAUSE_HTTPD=$!
	wait_for 5 test -s "$OWRT_DIR/pause-httpd.port" || return 1
	PAUSE_PORT=$(head -n 1 "$OWRT_DIR/pause-httpd.port")
	osh "uci -q batch" >/dev/null <<-'EOF2'
		set sqm.pausetest=queue
		set sqm.pausetest.interface='wan0'
		set sqm.pausetest.enabled='1'
		set sqm.pausetest.download='20000'
		set sqm.pausetest.upload='10000'
		set sqm.pausetest.script='reterm-tbf.qos'
		set sqm.pausetest.qdisc='tbf'
		set reterm.latency.wan_device='wan0'
		commit sqm
		commit reterm
	EOF2
	osh "touch /etc/config/reterm_admin && uci set reterm_admin.latency=latency &&
		uci set reterm_admin.latency.test_server=127.0.0.1 && uci commit reterm_admin" || return 1
	osh "/usr/lib/sqm/run.sh start wan0" && shaped || { echo "sqm did not start the test queue"; tc qdisc show dev wan0; return 1; }
	# a fresh reterm-latencyd: no gap after an earlier test, wan0 monitored
	osh "/etc/init.d/reterm-latencyd restart" && wait_for 10 sh -c "chroot '$OWRT_ROOT' ubus call reterm.latency status >/dev/null 2>&1"
}

pause_start() {
	osh "ubus call reterm.latency test_start '{\"download_url\":\"http://127.0.0.1:$PAUSE_PORT/bytes/100000000\",\"upload_url\":\"http://127.0.0.1:$PAUSE_PORT/upload\",\"pause_shaping\":true}'"
}

pause_stop_check() {
	local sqm0 r
	sqm0=$(md5sum < "$OWRT_ROOT/etc/config/sqm")
	r=$(pause_start)
	grep -q '"wan0"' <<<"$r" || { echo "test_start: $r"; return 1; }
	shaped && { echo "the queue still shapes during the test"; return 1; }
	[ "$(pause_field state)" = paused ] || { echo "status: $(osh 'ubus call reterm.latency test_status')"; return 1; }
	[ "$sqm0" = "$(md5sum < "$OWRT_ROOT/etc/config/sqm")" ] || { echo "/etc/config/sqm was written"; return 1; }
	osh "ubus call reterm.latency test_stop" >/dev/null
	wait_for 10 shaped || { echo "sqm not restarted after test_stop"; return 1; }
	wait_for 5 sh -c "[ \"\$(chroot '$OWRT_ROOT' ubus call reterm.latency test_status | grep -c '\"restored\"')\" = 1 ]" ||
		{ echo "status: $(osh 'ubus call reterm.latency test_status')"; return 1; }
}

pause_crash_check() {
	local r pid
	osh "/etc/init.d/reterm-latencyd restart" && wait_for 10 sh -c "chroot '$OWRT_ROOT' ubus call reterm.latency status >/dev/null 2>&1"
	r=$(pause_start)
	grep -q '"wan0"' <<<"$r" || { echo "test_start: $r"; return 1; }
	shaped && { echo "the queue still shapes during the test"; return 1; }
	pid=$(owrt_pidof reterm-latencyd)
	[ -n "$pid" ] && kill -9 $pid
	# procd's respawn, then the new instance ends the pause it finds
	wait_for 20 shaped || { echo "sqm not restarted after reterm-latencyd was killed (pid $pid)"; return 1; }
	# the record goes once sqm's run.sh has finished
	wait_for 5 osh "test ! -e /var/run/reterm/pause.json" || { echo "pause record left"; return 1; }
}

# a reterm-latencyd runs that is not pid $1
respawned() { local p; p=$(owrt_pidof reterm-latencyd); [ -n "$p" ] && [ "$p" != "$1" ]; }
latencyd_up() { wait_for 10 sh -c "chroot '$OWRT_ROOT' ubus call reterm.latency status >/dev/null 2>&1"; }

pause_norespawn_check() {
	local r pid i
	osh "/etc/init.d/reterm-latencyd restart" && latencyd_up || { echo "reterm-latencyd not up"; return 1; }
	# five crashes within the hour: procd respawns each, 5 s later
	for i in 1 2 3 4 5; do
		pid=$(owrt_pidof reterm-latencyd)
		[ -n "$pid" ] && kill -9 $pid
		wait_for 15 respawned "$pid" &&
			latencyd_up || { echo "crash $i: not respawned"; return 1; }
	done
	r=$(pause_start)
	grep -q '"wan0"' <<<"$r" || { echo "test_start: $r"; return 1; }
	shaped && { echo "the queue still shapes during the test"; return 1; }
	# the sixth: procd gives up (it would respawn 5 s later)
	pid=$(owrt_pidof reterm-latencyd)
	kill -9 $pid
	sleep 8
	[ -z "$(owrt_pidof reterm-latencyd)" ] && osh "ubus call service list '{\"name\":\"reterm-latencyd\"}'" | grep -q '"running": false' ||
		{ echo "procd did not give up: $(osh 'ubus call service list')"; return 1; }
	wait_for 40 shaped || { echo "sqm not started again within 48 s of the crash procd gave up on"; return 1; }
	[ -z "$(owrt_pidof reterm-latencyd)" ] || { echo "a reterm-latencyd runs (respawned after all?)"; return 1; }
	wait_for 5 osh "test ! -e /var/run/reterm/pause.json" || { echo "pause record left"; return 1; }
}

# the records a reterm-latencyd (pid 999999: not running) leaves when it dies
# mid-test with adaptive shaping on, the queue stopped as it left it
pause_leftovers() {
	osh "/usr/lib/sqm/run.sh start wan0; /usr/lib/sqm/run.sh stop wan0"
	! shaped || { echo "sqm did not stop the queue"; return 1; }
	osh "mkdir -p /var/run/reterm && rm -f /tmp/tc.log &&
		echo '{ \"ifaces\": [ \"wan0\" ], \"until\": '\$((\$(date +%s) + 600))', \"pid\": 999999 }' > /var/run/reterm/pause.json &&
		echo '{ \"queue\": \"pausetest\", \"dev\": { \"dl\": \"ifb4wan0\", \"ul\": \"wan0\" }, \"sqm\": { \"dl\": 1000, \"ul\": 1000 }, \"pid\": 999999 }' > /var/run/reterm/autorate.json"
}

pause_put_right() {
	wait_for 5 shaped || { echo "$1: the queue not started again"; return 1; }
	osh "grep -qx 'qdisc change dev ifb4wan0 root cake bandwidth 20000kbit' /tmp/tc.log &&
		grep -qx 'qdisc change dev wan0 root cake bandwidth 10000kbit' /tmp/tc.log" ||
		{ echo "$1: CAKE not given sqm's rates: $(osh 'cat /tmp/tc.log')"; return 1; }
	osh "test ! -e /var/run/reterm/pause.json && test ! -e /var/run/reterm/autorate.json" || { echo "$1: records left"; return 1; }
}

pause_init_recover_check() {
	local rc=0 left p
	# a tc that records CAKE's rate changes and passes on the rest
	osh "printf '%s\n' '#!/bin/sh' 'case \"\$*\" in *\" root cake bandwidth \"*) echo \"\$*\" >> /tmp/tc.log; exit 0 ;; esac' \
		'exec /sbin/tc \"\$@\"' > /usr/sbin/tc && chmod 755 /usr/sbin/tc" || return 1
	osh "/etc/init.d/reterm-latencyd stop"
	{ pause_leftovers && osh "/etc/init.d/reterm-latencyd stop" && pause_put_right "stop"; } || rc=1
	if [ $rc = 0 ]; then
		osh "uci set reterm.latency.enabled=0 && uci commit reterm"
		{ pause_leftovers && osh "/etc/init.d/reterm-latencyd start" && pause_put_right "start (daemon off)"; } || rc=1
		left=$(owrt_pidof reterm-latencyd)
		if [ -n "$left" ] || osh "ubus call service list '{\"name\":\"reterm-latencyd\"}'" | grep -q '"running": true'; then
			echo "reterm-latencyd runs with latency.enabled '$(osh 'uci -q get reterm.latency.enabled')'"
			for p in $left; do
				echo "pid $p: $(grep -E '^(State|PPid)' "/proc/$p/status" | tr '\n\t' '  ') parent $(cat "/proc/$(awk '/^PPid/ { print $2 }' "/proc/$p/status")/comm" 2>/dev/null), $(tr '\0' ' ' < "/proc/$p/cmdline")"
			done
			osh "ubus call service list '{\"name\":\"reterm-latencyd\"}'"
			rc=1
		fi
	fi
	osh "rm -f /usr/sbin/tc /tmp/tc.log; uci -q delete reterm.latency.enabled; uci commit reterm; /etc/init.d/reterm-latencyd start"
	return $rc
}

# not in a subshell: PAUSE_PORT and PAUSE_HTTPD are used below
if pause_setup > "$OWRT_DIR/pause-setup.log" 2>&1; then
	check "pause/stop: test_start {pause_shaping} stops the WAN queue with sqm's run.sh (UCI untouched); test_stop starts it again" pause_stop_check
	check "pause/crash: reterm-latencyd killed mid-test; the respawned reterm-latencyd starts the queue again by itself" pause_crash_check
	check "pause/no-respawn: reterm-latencyd killed mid-test, procd gives up on it (6 crashes in the hour); the queue starts again all the same" pause_norespawn_check
	check "pause/init-recover: a dead reterm-latencyd's pause and adaptive rate put right by the init script's stop, and its start with the daemon off" pause_init_recover_check
else
	notok "pause/setup" "$(cat "$OWRT_DIR/pause-setup.log")"
fi
kill "${PAUSE_HTTPD:-}" 2>/dev/null
osh "uci -q delete sqm.pausetest; uci -q delete reterm.latency.wan_device; uci commit sqm; uci commit reterm; rm -f /etc/config/reterm_admin"
osh "/usr/lib/sqm/run.sh stop wan0" >/dev/null 2>&1
