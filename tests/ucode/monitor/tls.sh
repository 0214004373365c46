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
}
