# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/run.sh (uses its ok/notok/skipped/uc_test, UCODE,
# MODS, MOCKS, FIXTURES, TMP): the tests of the sampler daemon reterm-latencyd.
# All but latency/vectors need ucode.
#
#   latency/<name>      tests/ucode/latency/<name>_test.uc: pure modules and
#                       the service on a simulated clock with a fake prober
#                       (mock uci first on the module path)
#   latency/loopback    the socket ICMP prober and the HTTP load against
#                       127.0.0.1 / ::1 and a local tests/ucode/latency/httpd.py
#                       (root, python3, ucode socket module)
#   latency/daemon      reterm-latencyd on a private ubusd: the published object,
#                       status, samples rows, an argument error, the guided
#                       test's target rules through real ubus (a refused
#                       loopback target, too_soon after it, then a host
#                       name answered by a deferred reply after resolution
#                       in a child process, the admin's test server in
#                       reterm_admin, busy, too_soon) (root, ubusd, ubus,
#                       python3)
#   latency/tls         the HTTPS load and its checks against a local HTTPS
#                       server and a throwaway CA (tests/ucode/latency/tls.sh;
#                       root, python3, openssl, ucode-mod-uclient); with tc
#                       also latency/tls-upload (one stream fills a tbf-shaped
#                       loopback), latency/tls-slow-answer (a server that
#                       answers late is not taken for a stalled upload) and
#                       latency/tls-rcvbuf (download connections start with
#                       the receive buffer the kernel's tuning may reach);
#                       latency/tls-silent-client (the lab's HTTPS server
#                       answers beside a client that never handshakes),
#                       latency/tls-target (closed, dropped, silent and
#                       non-TLS ports read the same; a name resolving
#                       elsewhere than the checked address is not
#                       connected to), latency/tls-fence (the kernel
#                       holds the child to the checked addresses: a name
#                       whose DNS answers flip reaches nothing else;
#                       tests/ucode/latency/fence.sh), latency/tls-orphan
#                       (a load whose daemon went away ends)
#   latency/daemon-exit reterm-latencyd's ways out with adaptive shaping on
#                       (tests/ucode/latency/exit.sh; root, ubusd, ubus)
#   latency/daemon-files reterm-latencyd raising CAKE under load writes no
#                       file: /etc (an overlay) and the UCI files unchanged,
#                       on SIGTERM only /etc/reterm (tests/ucode/latency/files.sh)
#   latency/icmp-flood  the icmp prober's raw sockets under `ping -f` from a
#                       LAN namespace: probes answered, CPU bounded
#                       (tests/ucode/latency/flood.sh; root, ping, ip)
#   latency/vectors     tests/fixtures/grade-vectors.json is what
#                       make-grade-vectors.mjs makes from today's grade.js
#                       (node; grade.js through LuCI, skipped without it)

MON=$HERE/latency
. "$MON/tls.sh"
. "$MON/fence.sh"
. "$MON/hops.sh"
. "$MON/exit.sh"
. "$MON/files.sh"
. "$MON/flood.sh"

# kill_started <pidfile>: end a process this script started, by its pid
kill_started() {
	[ -s "$1" ] && kill "$(cat "$1")" 2>/dev/null
	rm -f "$1"
}

latency_tests() {
	local t

	for t in "$MON"/*_test.uc; do
		RETERM_FIXTURES=$FIXTURES uc_test "latency/$(basename "$t" _test.uc)" \
			"$TMP/$(basename "$t").log" -L "$MOCKS" -L "$MODS" -L "$MON" "$t"
	done

	local why=
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (raw ICMP)"
	elif ! command -v python3 >/dev/null 2>&1; then why="python3 not found"
	elif ! "$UCODE" -e 'require("socket")' >/dev/null 2>&1; then why="ucode socket module not available"
	fi

	if [ -n "$why" ]; then
		skipped latency/loopback "$why"
	else
		python3 "$MON/httpd.py" >"$TMP/httpd.port" 2>/dev/null &
		echo $! >"$TMP/httpd.pid"
		local i port=
		for i in 1 2 3 4 5 6 7 8 9 10; do
			port=$(head -n1 "$TMP/httpd.port" 2>/dev/null)
			[ -n "$port" ] && break
			sleep 0.2
		done
		if RETERM_HTTPD_PORT=$port "$UCODE" -L "$MODS" -L "$MON" "$MON/loopback_live.uc" >"$TMP/loop.log" 2>&1; then
			ok "latency/loopback ($(tail -n1 "$TMP/loop.log"))"
		else
			notok latency/loopback
			sed 's/^/#   /' "$TMP/loop.log"
		fi
		kill_started "$TMP/httpd.pid"
	fi

	tls_test
	hops_test
	exit_test
	files_test
	flood_test

	# the script loads grade.js through OpenWrt's LuCI; exit 3: not built
	vec=0
	if command -v node >/dev/null 2>&1; then
		node "$FIXTURES/make-grade-vectors.mjs" "$TMP/grade-vectors.json" >"$TMP/vec.log" 2>&1 || vec=$?
	fi
	if ! command -v node >/dev/null 2>&1; then
		skipped latency/vectors "node not found"
	elif [ "$vec" = 3 ]; then
		skipped latency/vectors "$(sed -n 's/^make-grade-vectors: //p' "$TMP/vec.log" | head -n 1)"
	elif [ "$vec" = 0 ] && diff -u "$FIXTURES/grade-vectors.json" "$TMP/grade-vectors.json" >>"$TMP/vec.log" 2>&1; then
		ok "latency/vectors (grade-vectors.json matches grade.js)"
	else
		notok "latency/vectors (run: node tests/fixtures/make-grade-vectors.mjs)"
		sed 's/^/#   /' "$TMP/vec.log" | head -40
	fi

	why=
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (raw ICMP)"
	elif ! command -v python3 >/dev/null 2>&1; then why="python3 not found"
	elif ! command -v ubusd >/dev/null 2>&1; then why="ubusd not found"
	elif ! command -v ubus >/dev/null 2>&1; then why="ubus CLI not found"
	elif ! "$UCODE" -e 'require("ubus"); require("uloop"); require("socket")' >/dev/null 2>&1; then why="ucode ubus/uloop/socket modules not available"
	elif ! command -v unshare >/dev/null 2>&1; then why="unshare not found"
	else
		mkdir -p "$TMP/ovl/u" "$TMP/ovl/w"
		unshare -m --propagation private sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$TMP/ovl/u,workdir=$TMP/ovl/w /etc" \
			>/dev/null 2>&1 || why="no overlay mount over /etc here (reterm-latencyd would write this machine's /etc/reterm)"
	fi

	if [ -n "$why" ]; then
		skipped latency/daemon "$why"
		return
	fi

	local d=$TMP/daemon sock=$TMP/daemon/ubus.sock rc=0
	mkdir -p "$d/conf" "$d/up" "$d/work"
	cat >"$d/conf/reterm" <<-EOF
	config latency 'latency'
		list reflector '127.0.0.1'
		list reflector '::1'
		option prober 'icmp'
		option wan_device 'lo'
		option results '$d/results.json'
	EOF
	cat >"$d/conf/reterm_admin" <<-EOF
	config latency 'latency'
		option test_server 'localhost'
	EOF
	: >"$d/conf/sqm"
	ubusd -s "$sock" >/dev/null 2>&1 &
	echo $! >"$d/ubusd.pid"
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$sock" ] && break; sleep 0.1; done
	# reterm-latencyd keeps results at fixed paths (/etc/reterm, /var/run/reterm):
	# in a mount namespace of its own they land in $d/up and a tmpfs,
	# never on this machine
	RETERM_UBUS_SOCKET=$sock RETERM_UCI_CONFDIR=$d/conf unshare -m --propagation private \
		sh -c 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc &&
		       mount -t tmpfs none "$(readlink -f /var/run)" && shift && exec "$@"' sh "$d" \
		"$UCODE" -L "$MODS" "$ROOT/root/usr/sbin/reterm-latencyd" >"$d/reterm-latencyd.log" 2>&1 &
	echo $! >"$d/reterm-latencyd.pid"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		ubus -s "$sock" list reterm.latency >/dev/null 2>&1 && break
		sleep 0.1
	done
	{
		ubus -s "$sock" -v list reterm.latency &&
		ubus -s "$sock" call reterm.latency status >"$d/status.json" &&
		grep -q '"state": "awake"' "$d/status.json" &&
		grep -q '"prober": "icmp"' "$d/status.json" &&
		sleep 5 &&
		ubus -s "$sock" call reterm.latency samples '{"since":0}' >"$d/samples.json" &&
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["v"] == 1 and r["step"] == 1 and r["probe"] == "icmp", r
rows = [x for x in r["rows"] if x]
assert rows, "no rows after 5 s"
c = r["cols"]
assert all(x[c.index("sent")] >= 1 and x[c.index("lost")] == 0 for x in rows), rows
' "$d/samples.json" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://127.0.0.1/$(reboot)","upload_url":"http://127.0.0.1/upload"}' >"$d/bad.json" &&
		grep -q '"error": "invalid_argument"' "$d/bad.json" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://127.0.0.1/bytes/1","upload_url":"http://127.0.0.1/upload"}' >"$d/loop.json" &&
		grep -q '"error": "target_refused"' "$d/loop.json" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://localhost:9/bytes/1","upload_url":"http://localhost:9/upload"}' >"$d/gap.json" &&
		grep -q '"error": "too_soon"' "$d/gap.json" &&
		sleep "$(sed -n 's/.*"wait_s": \([0-9]*\).*/\1/p' "$d/gap.json")" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://localhost:9/bytes/1","upload_url":"http://localhost:9/upload"}' >"$d/named.json" &&
		grep -q '"started": true' "$d/named.json" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://localhost:9/bytes/1","upload_url":"http://localhost:9/upload"}' >"$d/busy.json" &&
		grep -q '"error": "busy"' "$d/busy.json" &&
		ubus -s "$sock" call reterm.latency test_stop >"$d/stop.json" &&
		grep -q '"state": "stopped"' "$d/stop.json" &&
		ubus -s "$sock" call reterm.latency test_start \
			'{"download_url":"http://localhost:9/bytes/1","upload_url":"http://localhost:9/upload"}' >"$d/soon.json" &&
		grep -q '"error": "too_soon"' "$d/soon.json" && grep -q '"wait_s": [123][0-9]*' "$d/soon.json" &&
		ubus -s "$sock" call reterm.latency results >"$d/results.json" &&
		grep -q '"results"' "$d/results.json"
	} >"$d/run.log" 2>&1 || rc=1
	local pid
	pid=$(cat "$d/reterm-latencyd.pid")
	kill_started "$d/reterm-latencyd.pid"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	# on SIGTERM the results go to "flash": the overlay, not this machine
	[ -s "$d/up/reterm/results.json" ] || { echo "no results in the sandbox's /etc/reterm after SIGTERM" >>"$d/run.log"; rc=1; }
	kill_started "$d/ubusd.pid"
	if [ $rc = 0 ]; then
		ok "latency/daemon (reterm-latencyd on a private ubusd: status, samples, argument errors, test targets, deferred reply, gap, results on SIGTERM)"
	else
		notok latency/daemon
		sed 's/^/#   /' "$d/run.log" "$d/reterm-latencyd.log" "$d"/*.json 2>/dev/null
	fi
}
