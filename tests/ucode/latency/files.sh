# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh (after exit.sh: exit_daemon,
# exit_wait): latency/daemon-files, the real reterm-latencyd driving CAKE
# (the stand-in qdisc module of tests/ucode/latency/fault: lo and ifb4lo)
# while lo carries 18 Mbit/s against sqm's 20000 kbit/s, so adaptive
# shaping raises both rates again and again; meanwhile not one file may
# be written to flash: /etc is an overlay whose upper directory must stay
# empty, and the UCI directory (sqm's and reterm's config) unchanged.  On
# SIGTERM only the results store's folder (/etc/reterm) may appear.

# files_pump <seconds>: about 18 Mbit/s of UDP through lo (each datagram
# of 1400 bytes is 1442 on the wire of lo), read back by the same process
files_pump() {
	exec python3 - "$1" <<-'PY'
	import socket, sys, time
	secs = float(sys.argv[1])
	r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	r.bind(("127.0.0.1", 0))
	r.setblocking(False)
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	data, per_s = b"x" * 1400, 18e6 / 8 / 1442
	t0 = time.time()
	sent = 0
	while time.time() - t0 < secs:
	    while sent < (time.time() - t0) * per_s:
	        s.sendto(data, r.getsockname())
	        sent += 1
	    try:
	        while r.recv(2048):
	            pass
	    except BlockingIOError:
	        pass
	    time.sleep(0.005)
	PY
}

# files_raises <dir>: the rate changes above sqm's 20000 kbit/s so far
files_raises() { awk '$2 > 20000' "$1/tc.log" 2>/dev/null | wc -l; }

files_run() {
	local d=$1 log=$2 sums pump i left
	sums=$(cd "$d/conf" && ls -A && md5sum ./*)
	exit_daemon "$d" "$log"
	exit_up "$d" || { echo "adaptive shaping not on"; return 1; }
	( files_pump 20 ) &
	pump=$!
	# 15 s of load: the first raises come within a second
	sleep 15
	kill $pump 2>/dev/null
	wait $pump 2>/dev/null
	[ "$(files_raises "$d")" -ge 6 ] || { echo "fewer than 6 raises in 15 s of load: $(tr '\n' ' ' < "$d/tc.log")"; return 1; }
	echo "rate changes: $(tr '\n' ' ' < "$d/tc.log")"
	left=$(cd "$d/up" && find . -mindepth 1)
	[ -z "$left" ] || { echo "written to /etc while driving CAKE: $left"; return 1; }
	[ "$sums" = "$(cd "$d/conf" && ls -A && md5sum ./*)" ] || { echo "the UCI directory changed"; return 1; }
	kill -TERM "$(cat "$d/pid")"
	exit_wait "$d" 10 || { echo "no clean exit on SIGTERM"; return 1; }
	left=$(cd "$d/up" && find . -mindepth 1 | grep -v '^\./reterm\(/\|$\)')
	[ -z "$left" ] || { echo "written to /etc on SIGTERM, outside /etc/reterm: $left"; return 1; }
}

files_test() {
	local why= d=$TMP/files rc i
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (raw ICMP, mounts)"
	elif ! command -v ubusd >/dev/null 2>&1 || ! command -v ubus >/dev/null 2>&1; then why="ubusd or the ubus CLI not found"
	elif ! "$UCODE" -e 'require("ubus"); require("uloop"); require("socket")' >/dev/null 2>&1; then why="ucode ubus/uloop/socket modules not available"
	elif ! command -v unshare >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then why="unshare or python3 not found"
	else
		mkdir -p "$d/probe/u" "$d/probe/w"
		unshare -m --propagation private sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$d/probe/u,workdir=$d/probe/w /etc" \
			>/dev/null 2>&1 || why="no overlay mount over /etc here"
	fi
	if [ -n "$why" ]; then
		skipped latency/daemon-files "$why"
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
	EOF
	printf "config queue 'q'\n\toption enabled '1'\n\toption interface 'lo'\n\toption download '20000'\n\toption upload '20000'\n\toption qdisc 'cake'\n" \
		>"$d/conf/sqm"
	ubusd -s "$d/ubus.sock" >/dev/null 2>&1 &
	echo $! >"$d/ubusd.pid"
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$d/ubus.sock" ] && break; sleep 0.1; done
	local log=$d/daemon.log out=$d/run.log
	files_run "$d" "$log" >"$out" 2>&1
	rc=$?
	kill "$(cat "$d/pid")" 2>/dev/null
	exit_wait "$d" 5 >/dev/null 2>&1
	kill_started "$d/ubusd.pid"
	if [ $rc = 0 ]; then
		ok "latency/daemon-files (adaptive shaping raising CAKE under load: nothing written to /etc or the UCI files; on SIGTERM only /etc/reterm)"
	else
		notok latency/daemon-files
		sed 's/^/#   /' "$out" "$log" 2>/dev/null | tail -n 40
	fi
}
