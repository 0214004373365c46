#!/bin/bash
# apply-bg (the ubus API's background reload) against a stand-in init
# script that records each reload and waits until the test lets it end:
# it returns at once, reloads never overlap, requests made meanwhile are
# coalesced into one more reload with the newest token, a dead worker's
# lock is taken over, and a bad token runs nothing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BG="$top/root/usr/libexec/reterm/apply-bg"
. "$top/tests/sh/tap.sh"

setup() {
	T=$(mktemp -d)
	export RETERM_RUN_DIR=$T/run RETERM_INIT=$T/init LOG=$T/log GATE=$T/gate
	# the stand-in reload: "start TOKEN", waits for the gate, "end TOKEN"
	cat > "$RETERM_INIT" <<'S'
#!/bin/sh
echo "start $RETERM_APPLY_TOKEN" >> "$LOG"
n=0
while [ ! -e "$GATE" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
echo "end $RETERM_APPLY_TOKEN" >> "$LOG"
S
	chmod 755 "$RETERM_INIT"
	: > "$LOG"
}
teardown() { touch "$GATE"; sleep 0.3; rm -rf "$T"; }
# wait_for <tenths> <command...>
wait_for() { local n=$1; shift; while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done; return 1; }
log_is() { [ "$(cat "$LOG")" = "$1" ]; }
idle() { [ ! -e "$RETERM_RUN_DIR/apply.lock" ]; }

setup
sh "$BG" aa01
ok "returns while the reload still runs" wait_for 20 log_is "start aa01"
sh "$BG" bb02; sh "$BG" cc03; sh "$BG" dd04
sleep 0.5
ok "requests during a reload do not start a second one" log_is "start aa01"
touch "$GATE"
ok "then one more reload, with the newest token; never two at once" wait_for 50 log_is "$(printf '%s\n' 'start aa01' 'end aa01' 'start dd04' 'end dd04')"
ok "the lock is released" wait_for 20 idle
teardown

setup
mkdir -p "$RETERM_RUN_DIR/apply.lock"
sh -c 'exit 0' & dead=$!; wait $dead
echo "$dead" > "$RETERM_RUN_DIR/apply.lock/pid"
touch "$GATE"
sh "$BG" ee05
ok "a dead worker's lock is taken over" wait_for 30 log_is "$(printf '%s\n' 'start ee05' 'end ee05')"
teardown

setup
sh "$BG" '$(touch /tmp/x); ;' 2>/dev/null; rc=$?
sleep 0.3
ok "a token without hex digits: exit 2, nothing run" test "$rc" = 2 -a ! -s "$LOG" -a ! -e "$RETERM_RUN_DIR/apply.want"
teardown

echo "sh-bg: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
