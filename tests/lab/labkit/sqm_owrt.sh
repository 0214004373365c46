#!/bin/bash
# OpenWrt's own sqm-scripts on the running kernel: for each case directory,
# write its /etc/config/sqm into a throwaway OpenWrt root (tests/owrt/env.sh:
# overlay on $RETERM_OWRT/root, private mount/net/pid/uts namespaces), run
# `/usr/lib/sqm/run.sh start` (what /etc/init.d/sqm's start_service runs)
# with sqm's debug log, record what the kernel holds, `run.sh stop`, record
# again.  Independent runs may go in parallel (each has its own namespaces).
#
# usage: sqm_owrt.sh DIR        (starts the cases once DIR/go exists)
#   DIR/cases/<name>/sqm   the /etc/config/sqm of the case
#   DIR/cases/<name>/dev   its WAN device (created as a veth pair, peer "sqmpeerN")
# writes into each case directory:
#   start.rc start.out     exit status and output of run.sh start
#   start.log              sqm's debug log of the start (/var/run/sqm/DEV.start-sqm.log)
#   state                  1 when sqm wrote its state file (DEV.state)
#   qdisc.json             tc -s -j qdisc show (every device) after the start
#   filter.json            tc -j filter show dev DEV parent ffff:
#   links.json             ip -j link show after the start
#   stop.rc stop.out stop.log   the same for run.sh stop
#   after-qdisc.json after-links.json after-state   after the stop (tc -j qdisc show)
# and DIR/times: milliseconds for the setup and each start, record, stop.
# Exit 3 when the OpenWrt parts are missing (message on stderr).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
. "$TOP/tests/owrt/env.sh"

dir=$(cd "${1:?usage: sqm_owrt.sh DIR}" && pwd)
if [ "${OWRT_INSIDE:-}" != 1 ]; then
	owrt_detect || exit 3
fi
owrt_unshare "$HERE/sqm_owrt.sh" "$dir"

ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
owrt_up "$dir/owrt" || exit 1
trap owrt_down EXIT

# OpenWrt loads modules with /sbin/modprobe (ubox's kmodloader) from
# /lib/modules/$(uname -r); this root has no kmodloader: busybox's modprobe
# applet on the running kernel's modules (read-only) stands in for it
mkdir -p "$OWRT_ROOT/lib/modules"
mount --bind /lib/modules "$OWRT_ROOT/lib/modules" &&
	mount -o remount,bind,ro "$OWRT_ROOT/lib/modules"
[ -e "$OWRT_ROOT/sbin/modprobe" ] || ln -s /bin/busybox "$OWRT_ROOT/sbin/modprobe"

# what run.sh does on its first call anyway (its state dir, the list of
# usable qdiscs: update-available-qdiscs), done while the caller writes
# the cases: `run.sh stop` with nothing running
owrt_sh '/usr/lib/sqm/run.sh stop' > "$dir/prepare.out" 2>&1
echo "setup: $(($(ms) - t0))" > "$dir/times"
# the caller creates DIR/go once DIR/cases is complete
w=0
while [ ! -e "$dir/go" ]; do
	w=$((w + 1))
	[ "$w" -lt 3000 ] || { echo "sqm_owrt: no $dir/go after 600 s" >&2; exit 1; }
	sleep 0.2
done

SQM_ENV="SQM_DEBUG=1 SQM_DEBUG_LOG=/var/run/sqm/run-debug.log"
n=0
for c in "$dir"/cases/*/; do
	c=${c%/}
	[ -f "$c/sqm" ] || continue
	n=$((n + 1))
	dev=$(cat "$c/dev")
	ip link show dev "$dev" >/dev/null 2>&1 ||
		{ ip link add "$dev" type veth peer name "sqmpeer$n" && ip link set "sqmpeer$n" up; }
	ip link set "$dev" up
	cp "$c/sqm" "$OWRT_ROOT/etc/config/sqm"
	# SQM_DEBUG=1 (run.sh takes it from the environment): sqm logs every
	# tc/ip call ("cmd_wrapper: COMMAND: ...") to /var/run/sqm/DEV.start-sqm.log
	# (and .stop-sqm.log); SQM_DEBUG_LOG for what run.sh logs before that
	# (defaults.sh never sets it: its test is [ -z "SQM_DEBUG_LOG" ])
	t0=$(ms)
	owrt_sh "$SQM_ENV /usr/lib/sqm/run.sh start" > "$c/start.out" 2>&1
	echo $? > "$c/start.rc"
	t1=$(ms)
	cp "$OWRT_ROOT/var/run/sqm/$dev.start-sqm.log" "$c/start.log" 2>/dev/null || : > "$c/start.log"
	[ -f "$OWRT_ROOT/var/run/sqm/$dev.state" ] && echo 1 > "$c/state" || echo 0 > "$c/state"
	tc -s -j qdisc show > "$c/qdisc.json" 2>&1
	tc -j filter show dev "$dev" parent ffff: > "$c/filter.json" 2>/dev/null || echo '[]' > "$c/filter.json"
	ip -j link show > "$c/links.json"

	t2=$(ms)
	owrt_sh "$SQM_ENV /usr/lib/sqm/run.sh stop" > "$c/stop.out" 2>&1
	echo $? > "$c/stop.rc"
	echo "$(basename "$c"): start $((t1 - t0)) record $((t2 - t1)) stop $(($(ms) - t2))" >> "$dir/times"
	cp "$OWRT_ROOT/var/run/sqm/$dev.stop-sqm.log" "$c/stop.log" 2>/dev/null || : > "$c/stop.log"
	[ -f "$OWRT_ROOT/var/run/sqm/$dev.state" ] && echo 1 > "$c/after-state" || echo 0 > "$c/after-state"
	tc -j qdisc show > "$c/after-qdisc.json" 2>&1
	ip -j link show > "$c/after-links.json"
	rm -f "$OWRT_ROOT/var/run/sqm/$dev".*.log
done
exit 0
