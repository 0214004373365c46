# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh: latency/tls, the HTTPS load
# against tests/lab/labkit/httpsd.py on loopback with a CA made by
# openssl now (tests/lab/labkit/tlsca.py), in a mount namespace whose
# /etc/hosts maps speed.test to the loopback addresses.

# wait_listen PORT...: until something listens on each TCP port (python
# starts slowly on a busy machine), at most 10 s
wait_listen() {
	local p i
	for p in "$@"; do
		for i in $(seq 50); do
			ss -Hltn "sport = :$p" | grep -q . && break
			sleep 0.2
		done
	done
}

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
		for t in tls tls-upload tls-slow-answer tls-rcvbuf tls-silent-client tls-target tls-refused tls-fence tls-orphan; do
			skipped "latency/$t" "$why"
		done
		return
	fi

	mkdir -p "$d"
	( cd "$ROOT/tests/lab" && python3 -c "from labkit import tlsca
tlsca.make('$d', 'speed.test')
tlsca.make('$d', 'speed.test', tag='other')" ) || { notok "latency/tls (openssl CA)"; return; }
	printf '127.0.0.1 speed.test rebind.test\n::1 speed.test rebind.test\n' >"$d/hosts"
	local port=18443 p403=18444
	python3 "$ROOT/tests/lab/labkit/httpsd.py" $port "$d/lab-cert.pem" "$d/lab-key.pem" >"$d/srv.log" 2>&1 &
	echo $! >"$d/srv.pid"
	python3 "$ROOT/tests/lab/labkit/httpsd.py" $p403 "$d/lab-cert.pem" "$d/lab-key.pem" --status 403 >"$d/srv403.log" 2>&1 &
	echo $! >"$d/srv403.pid"
	wait_listen $port $p403
	if RETERM_TLS_PORT=$port RETERM_TLS_403_PORT=$p403 RETERM_TLS_CA=$d/lab-ca.pem RETERM_TLS_OTHER_CA=$d/other-ca.pem \
	   unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$d/hosts" \
	   "$UCODE" -L "$MODS" -L "$MON" "$MON/tls_live.uc" >"$d/log" 2>&1; then
		ok "latency/tls ($(tail -n1 "$d/log"))"
	else
		notok latency/tls
		sed 's/^/#   /' "$d/log"
	fi
	kill_started "$d/srv.pid"
	kill_started "$d/srv403.pid"
	tls_upload_test "$d"
	tls_slow_answer_test "$d"
	tls_rcvbuf_test "$d"
	tls_silent_client_test "$d"
	tls_target_test "$d"
	tls_refused_test "$d"
	tls_fence_test "$d"
	tls_orphan_test "$d"
}

# tls_ns DIR NAME [httpsd.py options] <BODY: the sh code on stdin run in a
# network and mount namespace whose loopback is shaped by tbf at 20 Mbit/s
# (so socket buffers fill), with /etc/hosts mapping speed.test there and
# httpsd.py on port 18445 (BODY sees D ROOT UCODE MODS and what the caller
# exported); BODY's output is the output, errors go to DIR/NAME.err.
# Exit 3: no tbf or namespace.
tls_ns() {
	local d=$1 name=$2
	shift 2
	{
		cat <<-'EOS'
		ip link set lo up || exit 3
		tc qdisc add dev lo root tbf rate 20mbit burst 200kb latency 100ms || exit 3
		mount --bind "$D/hosts" /etc/hosts || exit 3
		python3 "$ROOT/tests/lab/labkit/httpsd.py" 18445 "$D/lab-cert.pem" "$D/lab-key.pem" "$@" >"$D/srv-ns.log" 2>&1 &
		srv=$!
		for i in $(seq 50); do ss -Hltn 'sport = :18445' | grep -q . && break; sleep 0.2; done
		EOS
		cat
		printf 'kill $srv 2>/dev/null\nexit 0\n'
	} >"$d/$name.sh"
	D=$d ROOT=$ROOT UCODE=$UCODE MODS=$MODS unshare -n -m sh "$d/$name.sh" "$@" 2>"$d/$name.err"
}

# An HTTPS upload for 6 s (the send buffer fills: what stops a
# libustream-ssl upload for good unless the body fits, see https-load):
# tls_upload DIR STREAMS [httpsd.py options] -> the bytes loopback sent;
# the load's last progress line in DIR/up.out.  Exit 3: no tbf or namespace.
tls_upload() {
	local d=$1 streams=$2
	shift 2
	STREAMS=$streams tls_ns "$d" up "$@" <<-'EOS'
	a=$(awk '/lo:/ { print $10 }' /proc/net/dev)
	"$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir up --streams "$STREAMS" --seconds 6 \
		--url https://speed.test:18445/__up --ca "$D/lab-ca.pem" --referer https://speed.test/ >"$D/up.out"
	b=$(awk '/lo:/ { print $10 }' /proc/net/dev)
	echo $((b - a))
	EOS
}

# latency/tls-upload: one stream must send >= 80 % of what the rate allows.
tls_upload_test() {
	local d=$1
	if ! command -v tc >/dev/null 2>&1; then
		skipped latency/tls-upload "tc not found"
		return
	fi
	local sent
	sent=$(tls_upload "$d" 1)
	case $? in
	3) skipped latency/tls-upload "no tbf qdisc or namespace here" ;;
	0) if [ "${sent:-0}" -ge $((20000000 / 8 * 6 * 80 / 100)) ]; then
		ok "latency/tls-upload ($sent bytes sent in 6 s at 20 Mbit/s: $((sent * 8 / 6 / 10000))0 kbit/s)"
	   else
		notok "latency/tls-upload (only ${sent:-0} bytes sent in 6 s at 20 Mbit/s)"
		tail -n 3 "$d/up.out" "$d/up.err" | sed 's/^/#   /'
	   fi ;;
	*) notok "latency/tls-upload (the namespace script failed)"; sed 's/^/#   /' "$d/up.err" ;;
	esac
}

# latency/tls-slow-answer: a server that answers 250 ms after each body
# (a busy one) must not pass for a stalled upload: 4 streams keep their
# bodies (half of the 1 MiB send buffer each connection gets: >= 256 KiB
# a request on average, where a stall halves it down to 16 KiB) and the
# link >= 60 % busy.
tls_slow_answer_test() {
	local d=$1 sent
	command -v tc >/dev/null 2>&1 || { skipped latency/tls-slow-answer "tc not found"; return; }
	sent=$(tls_upload "$d" 4 --answer-delay 250)
	case $? in
	3) skipped latency/tls-slow-answer "no tbf qdisc or namespace here"; return ;;
	0) ;;
	*) notok "latency/tls-slow-answer (the namespace script failed)"; sed 's/^/#   /' "$d/up.err"; return ;;
	esac
	# p BYTES CONNECTED REQUESTS ERRORS CPU_MS HWM_KB
	set -- $(grep '^p ' "$d/up.out" | tail -n 1)
	[ $# -ge 4 ] || set -- p 0 0 0	# no progress line: nothing sent
	local per=$(( $4 > 0 ? $2 / $4 : 0 ))
	if [ "$per" -ge 262144 ] && [ "${sent:-0}" -ge $((20000000 / 8 * 6 * 60 / 100)) ]; then
		ok "latency/tls-slow-answer ($4 requests, $per bytes each, $((sent * 8 / 6 / 10000))0 kbit/s)"
	else
		notok "latency/tls-slow-answer ($4 requests, $per bytes each on average, want >= 262144; ${sent:-0} bytes sent in 6 s, want >= 60 % of 20 Mbit/s)"
		tail -n 3 "$d/up.out" "$d/up.err" | sed 's/^/#   /'
	fi
}

# latency/tls-rcvbuf: a download connection starts with the receive buffer
# the kernel's tuning may reach (https-load asks for half of tcp_rmem's
# maximum, at most 2 MiB; the kernel doubles it), not the 128 KB that a
# reader keeping pace with the line never grows (the lab's HTTPS download
# then left the modem's buffer half empty).  2 streams through tbf at
# 20 Mbit/s (tls_ns); the buffers as `ss -tm` shows them 2.5 s in.
tls_rcvbuf_test() {
	local d=$1 rbs want max
	if ! command -v tc >/dev/null 2>&1 || ! command -v ss >/dev/null 2>&1; then
		skipped latency/tls-rcvbuf "tc or ss not found"
		return
	fi
	rbs=$(tls_ns "$d" down <<-'EOS'
	"$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir down --streams 2 --seconds 4 \
		--url 'https://speed.test:18445/__down?bytes=25000000' --ca "$D/lab-ca.pem" --referer https://speed.test/ >"$D/down.out" &
	sleep 2.5
	ss -tmH state established '( dport = 18445 )' | grep -o 'rb[0-9]*' | tr -d rb
	wait $!
	EOS
	)
	case $? in
	3) skipped latency/tls-rcvbuf "no tbf qdisc or namespace here"; return ;;
	0) ;;
	*) notok "latency/tls-rcvbuf (the namespace script failed)"; sed 's/^/#   /' "$d/down.err"; return ;;
	esac
	max=$(awk '{ print $3 }' /proc/sys/net/ipv4/tcp_rmem)
	want=$(( max / 2 > 2097152 ? 2097152 : max / 2 ))
	want=$(( want * 2 ))
	set -- $rbs
	rbs=$*
	# OpenWrt 24.10's ucode has no fs.dup2: https-load cannot reach
	# uclient's socket there and the kernel sizes the buffers; the two
	# connections must still run
	if ! "$UCODE" -e 'exit(type(require("fs").dup2) == "function" ? 0 : 1)' 2>/dev/null; then
		if [ $# -eq 2 ]; then
			ok "latency/tls-rcvbuf (no fs.dup2 in this ucode: buffers left to the kernel, $1 and $2 bytes)"
		else
			notok "latency/tls-rcvbuf (no fs.dup2: want 2 connections, buffers: ${rbs:-none})"
			tail -n 3 "$d/down.out" "$d/down.err" | sed 's/^/#   /'
		fi
	elif [ $# -eq 2 ] && [ "$1" -ge "$want" ] && [ "$2" -ge "$want" ]; then
		ok "latency/tls-rcvbuf (2 connections, receive buffers $1 and $2 bytes)"
	else
		notok "latency/tls-rcvbuf (receive buffers: ${rbs:-none} bytes; want 2 connections with >= $want)"
		tail -n 3 "$d/down.out" "$d/down.err" | sed 's/^/#   /'
	fi
}

# latency/tls-silent-client: a client that connects and never starts its
# TLS handshake must not hold up the next one (the lab's server did the
# handshakes in its accept loop: one stalled handshake stalled every
# stream behind it).  A check request (https-load --check) while such a
# client waits must be answered.
tls_silent_client_test() {
	local d=$1 out
	command -v tc >/dev/null 2>&1 || { skipped latency/tls-silent-client "tc not found"; return; }
	out=$(tls_ns "$d" silent <<-'EOS'
	python3 -c 'import socket, time; s = socket.create_connection(("127.0.0.1", 18445)); time.sleep(8)' &
	sleep 0.5
	timeout 8 "$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir down --check --seconds 6 \
		--url 'https://speed.test:18445/__down?bytes=1000' --ca "$D/lab-ca.pem" --referer https://speed.test/
	echo "rc=$?"
	kill $! 2>/dev/null
	EOS
	)
	case $? in
	3) skipped latency/tls-silent-client "no tbf qdisc or namespace here"; return ;;
	0) ;;
	*) notok "latency/tls-silent-client (the namespace script failed)"; sed 's/^/#   /' "$d/silent.err"; return ;;
	esac
	if printf '%s\n' "$out" | grep -q '^ok 200$'; then
		ok "latency/tls-silent-client (answered beside a client that never handshakes)"
	else
		notok "latency/tls-silent-client (no answer while another client held its handshake: $(printf '%s\n' "$out" | grep -v '^p ' | tr '\n' ' '))"
	fi
}

# latency/tls-target: what an HTTPS check tells about a target and where it
# connects (tests/ucode/latency/tls_target_live.uc), in tls_ns with TCP
# port 18452 dropped by nft: a closed, a dropped, a silent and a non-TLS
# port read the same, for a caller's own URL also at the same time; a name
# that resolves elsewhere than the checked address is not connected to.
tls_target_test() {
	local d=$1 out
	if ! command -v tc >/dev/null 2>&1 || ! command -v nft >/dev/null 2>&1; then
		skipped latency/tls-target "tc or nft not found"
		return
	fi
	out=$(tls_ns "$d" target <<-'EOS'
	nft add table inet reterm_test && nft add chain inet reterm_test out '{ type filter hook output priority 0; }' &&
		nft add rule inet reterm_test out tcp dport 18452 drop || exit 3
	RETERM_TLS_PORT=18445 RETERM_TLS_CA=$D/lab-ca.pem "$UCODE" -L "$MODS" -L "$ROOT/tests/ucode/latency" \
		"$ROOT/tests/ucode/latency/tls_target_live.uc" >"$D/target.log" 2>&1
	echo "rc=$?"
	EOS
	)
	case $? in
	3) skipped latency/tls-target "no tbf qdisc, nft or namespace here"; return ;;
	0) ;;
	*) notok "latency/tls-target (the namespace script failed)"; sed 's/^/#   /' "$d/target.err"; return ;;
	esac
	if [ "$out" = "rc=0" ]; then
		ok "latency/tls-target ($(tail -n1 "$d/target.log"))"
	else
		notok "latency/tls-target"
		sed 's/^/#   /' "$d/target.log"
	fi
}

# latency/tls-refused: https-load with two streams whose connects are
# refused (a closed port on loopback) for 3 s: uclient's client that
# failed a connect holds a descriptor number it never opened (0, or on
# OpenWrt 24.10's uclient the one it closed before), and closes it on its
# next connect: the parent's end on descriptor 0, then whatever took that
# number (another stream's connection).  Descriptor 0 must still be the
# parent's pipe at the end; the failed clients are not reused.
tls_refused_test() {
	local d=$1 pid link want errs writer rc=0
	mkfifo "$d/refused.in"
	sleep 6 >"$d/refused.in" &
	writer=$!
	"$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir down --url https://localhost:1/x \
		--streams 2 --ca "$d/lab-ca.pem" --seconds 4 <"$d/refused.in" >"$d/refused.log" 2>&1 &
	pid=$!
	sleep 0.3
	want=$(readlink "/proc/$pid/fd/0")
	sleep 3
	link=$(readlink "/proc/$pid/fd/0")
	wait "$pid"
	case $want in *"$(stat -c %i "$d/refused.in")"*|*refused.in*) ;; *) echo "descriptor 0 at start: '$want'" >>"$d/refused.log"; rc=1 ;; esac
	[ "$link" = "$want" ] || { echo "descriptor 0 after 3 s of refused connects: '$link', was '$want'" >>"$d/refused.log"; rc=1; }
	grep -q '^e connect ' "$d/refused.log" || { echo "no connect error said" >>"$d/refused.log"; rc=1; }
	# each stream tried again (a new client each time): 2 streams, 4 attempts
	errs=$(awk '$1 == "p" { e = $5 } END { print e + 0 }' "$d/refused.log")
	[ "$errs" -ge 6 ] || { echo "only $errs failed connections counted: the streams did not try again" >>"$d/refused.log"; rc=1; }
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	rm -f "$d/refused.in"
	if [ $rc = 0 ]; then
		ok "latency/tls-refused (refused connects: descriptor 0 kept, failed clients not reused)"
	else
		notok latency/tls-refused
		sed 's/^/#   /' "$d/refused.log"
	fi
}

# latency/tls-orphan: https-load whose reterm-latencyd went away (its end
# of the pair closed after 1 s) ends within 3 s, not at its --seconds 20
# (uloop ignores SIGPIPE: writing does not end it).
tls_orphan_test() {
	local d=$1 took
	took=$(python3 - "$UCODE" "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" "$d/lab-ca.pem" <<-'EOS'
	import socket, subprocess, sys, time
	ucode, mods, load, ca = sys.argv[1:5]
	ours, theirs = socket.socketpair()
	p = subprocess.Popen([ucode, "-L", mods, load, "--dir", "down", "--url", "https://localhost:1/x",
	                      "--streams", "1", "--ca", ca, "--seconds", "20"],
	                     stdin=subprocess.DEVNULL, stdout=theirs.fileno(), stderr=subprocess.DEVNULL)
	theirs.close()
	time.sleep(1)
	ours.close()
	t0 = time.time()
	try:
	    p.wait(timeout=15)
	except subprocess.TimeoutExpired:
	    p.kill()
	print(round(time.time() - t0, 1))
	EOS
	)
	if [ -n "$took" ] && python3 -c "import sys; sys.exit(0 if float('$took') <= 3 else 1)"; then
		ok "latency/tls-orphan (ended $took s after its parent's end closed)"
	else
		notok "latency/tls-orphan (still running ${took:-?} s after its parent's end closed, want <= 3)"
	fi
}
