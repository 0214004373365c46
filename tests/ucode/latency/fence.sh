# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/ucode/latency/tests.sh: latency/tls-fence, the HTTPS
# child held to the checked addresses by the kernel
# (reterm.latency.test.fence), in a network and mount namespace of its
# own (root, nft, python3, cgroup v2):
#  - fence_live.uc: a fenced process is reset everywhere but the allowed
#    address and port, holds() tells when the table went, its table and
#    cgroup go with leave(), and what a holder killed with SIGKILL left is
#    swept by the next one, what a running one holds is not;
#  - https-load against a name whose DNS answers flip (flipdns.py: the
#    checked 127.0.0.1 to https-load's own lookup, 127.0.0.2 to uclient's):
#    without --fence uclient connects to 127.0.0.2 (the hole the fence
#    closes, and proof that this test sees it), with --fence nothing
#    reaches 127.0.0.2.

tls_fence_test() {
	local d=$1 out
	if ! command -v nft >/dev/null 2>&1; then
		skipped latency/tls-fence "nft not found"
		return
	fi
	if ! grep -q '^cgroup2 /sys/fs/cgroup' /proc/self/mounts; then
		skipped latency/tls-fence "no cgroup v2 hierarchy under /sys/fs/cgroup"
		return
	fi
	printf '127.0.0.1 localhost\n' >"$d/fence-hosts"
	printf 'nameserver 127.0.0.1\n' >"$d/fence-resolv"
	out=$(D=$d ROOT=$ROOT UCODE=$UCODE MODS=$MODS MON=$MON unshare -n -m sh -s 2>"$d/fence.err" <<-'EOS'
	ip link set lo up || exit 3
	mount --bind "$D/fence-hosts" /etc/hosts || exit 3
	mount --bind "$D/fence-resolv" /etc/resolv.conf || exit 3
	# a listener on 127.0.0.2:18445 that prints a line per connection
	python3 -u -c '
import socket
s = socket.socket(); s.bind(("127.0.0.2", 18445)); s.listen(16)
print("listening", flush=True)
while True:
    c, a = s.accept(); print("conn", a[0], flush=True); c.close()' >"$D/fence-b.log" 2>&1 &
	lis=$!
	python3 -u -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 18446)); s.listen(16)
while True: time.sleep(60)' &
	open=$!
	python3 "$MON/flipdns.py" 127.0.0.1 flip.test 127.0.0.1 127.0.0.2 >"$D/fence-dns.log" 2>&1 &
	dns=$!
	for i in $(seq 50); do
		[ -s "$D/fence-b.log" ] && ss -Hlun 'sport = :53' | grep -q . && ss -Hltn 'sport = :18446' | grep -q . && break
		sleep 0.2
	done
	# the fence itself, and the sweep of what a killed holder left
	"$UCODE" -L "$MODS" -L "$MON" "$MON/fence_live.uc" hold 18445 >"$D/fence-hold.log" 2>&1 &
	holder=$!
	"$UCODE" -L "$MODS" -L "$MON" "$MON/fence_live.uc" hold 18445 >"$D/fence-live.log" 2>&1 &
	alive=$!
	for i in $(seq 50); do grep -q . "$D/fence-hold.log" && grep -q . "$D/fence-live.log" && break; sleep 0.1; done
	kill -9 $holder
	wait $holder 2>/dev/null
	"$UCODE" -L "$MODS" -L "$MON" "$MON/fence_live.uc" check 18446 18445 "$(sed -n 's/^held //p' "$D/fence-hold.log")" \
		"$(sed -n 's/^held //p' "$D/fence-live.log")"
	echo "live $?"
	kill -9 $alive
	wait $alive 2>/dev/null
	# the flipping name: without the fence, then with it
	for f in "" --fence; do
		before=$(grep -c '^conn' "$D/fence-b.log")
		# no environment, as reterm-latencyd starts it (child.uc): no PATH
		env -i LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" "$UCODE" -L "$MODS" "$ROOT/root/usr/libexec/reterm/https-load" --dir down --check $f --seconds 5 \
			--url https://flip.test:18445/x --addr 127.0.0.1 --ca "$D/lab-ca.pem" >"$D/fence-load.log" 2>&1
		sleep 0.3
		echo "load${f:- --open} $(($(grep -c '^conn' "$D/fence-b.log") - before)) $(tr '\n' '|' <"$D/fence-load.log")"
	done
	echo "dns $(grep -c '^A ' "$D/fence-dns.log")"
	echo "hold $(cat "$D/fence-hold.log")"
	echo "tables $(nft list tables | grep -c reterm_https_)"
	kill $lis $open $dns
	# the killed holder's cgroup (the namespace takes its table along)
	for c in /sys/fs/cgroup/reterm-https /sys/fs/cgroup/unified/reterm-https; do
		[ -d "$c" ] && find "$c" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
	done
	EOS
	)
	local rc=$?
	if [ $rc = 3 ]; then
		skipped latency/tls-fence "no namespace here"
		return
	fi
	local live open fenced
	live=$(printf '%s\n' "$out" | sed -n 's/^live //p')
	open=$(printf '%s\n' "$out" | sed -n 's/^load --open \([0-9]*\) .*/\1/p')
	fenced=$(printf '%s\n' "$out" | sed -n 's/^load--fence \([0-9]*\) .*/\1/p')
	# open: the flipped answer reached 127.0.0.2; fenced: nothing did
	# and the fenced run got as far as uclient's connect, which was reset
	if [ "$live" = 0 ] && [ "${open:-0}" -ge 1 ] && [ "$fenced" = 0 ] &&
	   printf '%s\n' "$out" | grep -q '^load--fence 0 e connect no connection to flip.test' &&
	   printf '%s\n' "$out" | grep -q '^tables 0$'; then
		ok "latency/tls-fence (flipping DNS: $open connection(s) to the unchecked address without the fence, none with it; live: $(printf '%s\n' "$out" | grep -o '[0-9]* passed, [0-9]* failed'))"
	else
		notok "latency/tls-fence (without the fence ${open:-?} connection(s) to the unchecked address, want >= 1; with it ${fenced:-?}, want 0)"
		printf '%s\n' "$out" | sed 's/^/#   /'
		sed 's/^/#   /' "$d/fence.err"
	fi
}
