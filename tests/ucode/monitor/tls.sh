# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/monitor/tests.sh: monitor/tls, the HTTPS load
# against tests/lab/labkit/httpsd.py on loopback with a CA made by
# openssl now (tests/lab/labkit/tlsca.py), in a mount namespace whose
# /etc/hosts maps speed.test to the loopback addresses.

tls_test() {
	local why= d=$TMP/tls
	if [ -z "$UCODE" ]; then why="ucode not found"
	elif [ "$(id -u)" != 0 ]; then why="not root (mount namespace for /etc/hosts)"
	elif ! command -v python3 >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then why="python3 or openssl not found"
	elif ! command -v unshare >/dev/null 2>&1; then why="unshare not found"
	elif ! "$UCODE" -e 'require("uclient"); require("uloop"); require("socket")' >/dev/null 2>&1; then
		why="ucode-mod-uclient not found"
	fi
	if [ -n "$why" ]; then
		skipped monitor/tls "$why"
		return
	fi

	mkdir -p "$d"
	( cd "$ROOT/tests/lab" && python3 -c "from labkit import tlsca
tlsca.make('$d', 'speed.test')
tlsca.make('$d', 'speed.test', tag='other')" ) || { notok "monitor/tls (openssl CA)"; return; }
	printf '127.0.0.1 speed.test\n::1 speed.test\n' >"$d/hosts"
	local port=18443 p403=18444
	python3 "$ROOT/tests/lab/labkit/httpsd.py" $port "$d/lab-cert.pem" "$d/lab-key.pem" >"$d/srv.log" 2>&1 &
	echo $! >"$d/srv.pid"
	python3 "$ROOT/tests/lab/labkit/httpsd.py" $p403 "$d/lab-cert.pem" "$d/lab-key.pem" --status 403 >"$d/srv403.log" 2>&1 &
	echo $! >"$d/srv403.pid"
	sleep 1
	if RETERM_TLS_PORT=$port RETERM_TLS_403_PORT=$p403 RETERM_TLS_CA=$d/lab-ca.pem RETERM_TLS_OTHER_CA=$d/other-ca.pem \
	   unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$d/hosts" \
	   "$UCODE" -L "$MODS" -L "$MON" "$MON/tls_live.uc" >"$d/log" 2>&1; then
		ok "monitor/tls ($(tail -n1 "$d/log"))"
	else
		notok monitor/tls
		sed 's/^/#   /' "$d/log"
	fi
	kill_started "$d/srv.pid"
	kill_started "$d/srv403.pid"
	tls_upload_test "$d"
	tls_slow_answer_test "$d"
	tls_rcvbuf_test "$d"
}

# An HTTPS upload for 6 s in a network namespace whose loopback is shaped
# by tbf at 20 Mbit/s, so the socket's send buffer fills (what stops a
# libustream-ssl upload for good unless the body fits, see https-load):
# tls_upload STREAMS [httpsd.py options] -> the bytes loopback sent; the
# load's last progress line in $d/up.out.  Exit 3: no tbf or namespace.
tls_upload() {
	local d=$1 streams=$2
	shift 2
	cat >"$d/up.sh" <<-'EOS'
	ip link set lo up || exit 3
	tc qdisc add dev lo root tbf rate 20mbit burst 200kb latency 100ms || exit 3
	mount --bind "$D/hosts" /etc/hosts || exit 3
	python3 "$ROOT/tests/lab/labkit/httpsd.py" 18445 "$D/lab-cert.pem" "$D/lab-key.pem" "$@" >"$D/srvup.log" 2>&1 &
	sleep 1
	a=$(awk '/lo:/ { print $10 }' /proc/net/dev)
	"$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir up --streams "$STREAMS" --seconds 6 \
		--url https://speed.test:18445/__up --ca "$D/lab-ca.pem" --referer https://speed.test/ >"$D/up.out"
	b=$(awk '/lo:/ { print $10 }' /proc/net/dev)
	kill $! 2>/dev/null
	echo $((b - a))
	EOS
	D=$d ROOT=$ROOT UCODE=$UCODE MODS=$MODS STREAMS=$streams unshare -n -m sh "$d/up.sh" "$@" 2>"$d/up.err"
}

# monitor/tls-upload: one stream must send >= 80 % of what the rate allows.
tls_upload_test() {
	local d=$1
	if ! command -v tc >/dev/null 2>&1; then
		skipped monitor/tls-upload "tc not found"
		return
	fi
	local sent
	sent=$(tls_upload "$d" 1)
	case $? in
	3) skipped monitor/tls-upload "no tbf qdisc or namespace here" ;;
	0) if [ "${sent:-0}" -ge $((20000000 / 8 * 6 * 80 / 100)) ]; then
		ok "monitor/tls-upload ($sent bytes sent in 6 s at 20 Mbit/s: $((sent * 8 / 6 / 10000))0 kbit/s)"
	   else
		notok "monitor/tls-upload (only ${sent:-0} bytes sent in 6 s at 20 Mbit/s)"
		tail -n 3 "$d/up.out" "$d/up.err" | sed 's/^/#   /'
	   fi ;;
	*) notok "monitor/tls-upload (the namespace script failed)"; sed 's/^/#   /' "$d/up.err" ;;
	esac
}

# monitor/tls-slow-answer: a server that answers 250 ms after each body
# (a busy one) must not pass for a stalled upload: 4 streams keep their
# bodies (half of the 1 MiB send buffer each connection gets: >= 256 KiB
# a request on average, where a stall halves it down to 16 KiB) and the
# link >= 60 % busy.
tls_slow_answer_test() {
	local d=$1 sent
	command -v tc >/dev/null 2>&1 || { skipped monitor/tls-slow-answer "tc not found"; return; }
	sent=$(tls_upload "$d" 4 --answer-delay 250)
	case $? in
	3) skipped monitor/tls-slow-answer "no tbf qdisc or namespace here"; return ;;
	0) ;;
	*) notok "monitor/tls-slow-answer (the namespace script failed)"; sed 's/^/#   /' "$d/up.err"; return ;;
	esac
	# p BYTES CONNECTED REQUESTS ERRORS CPU_MS HWM_KB
	set -- $(grep '^p ' "$d/up.out" | tail -n 1)
	local per=$(( $4 > 0 ? $2 / $4 : 0 ))
	if [ "$per" -ge 262144 ] && [ "${sent:-0}" -ge $((20000000 / 8 * 6 * 60 / 100)) ]; then
		ok "monitor/tls-slow-answer ($4 requests, $per bytes each, $((sent * 8 / 6 / 10000))0 kbit/s)"
	else
		notok "monitor/tls-slow-answer ($4 requests, $per bytes each on average, want >= 262144; ${sent:-0} bytes sent in 6 s, want >= 60 % of 20 Mbit/s)"
		tail -n 3 "$d/up.out" "$d/up.err" | sed 's/^/#   /'
	fi
}

# monitor/tls-rcvbuf: a download connection starts with the receive buffer
# the kernel's tuning may reach (https-load asks for half of tcp_rmem's
# maximum, at most 2 MiB; the kernel doubles it), not the 128 KB that a
# reader keeping pace with the line never grows (the lab's HTTPS download
# then left the modem's buffer half empty).  2 streams through tbf at
# 20 Mbit/s; the buffers as `ss -tm` shows them 2.5 s in.
tls_rcvbuf_test() {
	local d=$1 rbs want max
	if ! command -v tc >/dev/null 2>&1 || ! command -v ss >/dev/null 2>&1; then
		skipped monitor/tls-rcvbuf "tc or ss not found"
		return
	fi
	cat >"$d/down.sh" <<-'EOS'
	ip link set lo mtu 1500 up || exit 3
	tc qdisc add dev lo root tbf rate 20mbit burst 32kb latency 300ms || exit 3
	mount --bind "$D/hosts" /etc/hosts || exit 3
	python3 "$ROOT/tests/lab/labkit/httpsd.py" 18446 "$D/lab-cert.pem" "$D/lab-key.pem" >"$D/srvdown.log" 2>&1 &
	srv=$!
	sleep 1
	"$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir down --streams 2 --seconds 4 \
		--url 'https://speed.test:18446/__down?bytes=25000000' --ca "$D/lab-ca.pem" --referer https://speed.test/ >"$D/down.out" &
	sleep 2.5
	ss -tmH state established '( dport = 18446 )' | grep -o 'rb[0-9]*' | tr -d rb
	wait $!
	kill $srv 2>/dev/null
	EOS
	rbs=$(D=$d ROOT=$ROOT UCODE=$UCODE MODS=$MODS unshare -n -m sh "$d/down.sh" 2>"$d/down.err")
	case $? in
	3) skipped monitor/tls-rcvbuf "no tbf qdisc or namespace here"; return ;;
	0) ;;
	*) notok "monitor/tls-rcvbuf (the namespace script failed)"; sed 's/^/#   /' "$d/down.err"; return ;;
	esac
	max=$(awk '{ print $3 }' /proc/sys/net/ipv4/tcp_rmem)
	want=$(( max / 2 > 2097152 ? 2097152 : max / 2 ))
	want=$(( want * 2 ))
	set -- $rbs
	rbs=$*
	if [ $# -eq 2 ] && [ "$1" -ge "$want" ] && [ "$2" -ge "$want" ]; then
		ok "monitor/tls-rcvbuf (2 connections, receive buffers $1 and $2 bytes)"
	else
		notok "monitor/tls-rcvbuf (receive buffers: ${rbs:-none} bytes; want 2 connections with >= $want)"
		tail -n 3 "$d/down.out" "$d/down.err" | sed 's/^/#   /'
	fi
}
