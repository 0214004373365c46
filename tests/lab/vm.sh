#!/bin/sh
# Boot the Debian kernel under QEMU (software emulation: nested KVM hangs on
# the CI machines) with the host filesystem as root, run the named scenarios
# inside, results in tests/lab/out/results.json.  The VM is killed after
# LAB_VM_TIMEOUT seconds (default 4200; tests/run.sh sets it from what is
# left of the CI's time: a wedged or slow VM must not hold the CI until its
# own limit, the checks and the summary must still print).  Killed, it
# leaves out/vm-timeout (the seconds), which the checks name.
# LAB_CPU_QUOTA=P holds the VM to P % of this machine's CPU (all cores
# together; 50: half, a machine twice as slow): a CPU cgroup around qemu
# (cgroup v1's cpu.cfs_quota_us, or v2's cpu.max).
# usage: tests/lab/vm.sh scenario...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out="$here/out"
vng="$top/.cache/venv/bin/vng"
# no results of an earlier run stay for the checks, whatever happens below
mkdir -p "$out"
rm -f "$out/results.json" "$out/vm-timeout" "$out/vm-stalled" "$out/plans.json"
# the guest sees the host's files but not its environment: the LAB_*
# settings read inside (LAB_MODE, LAB_SCENARIO_TIMEOUT, LAB_WATCHDOG_GRACE,
# LAB_AUTORATE_*, LAB_LINES_*) go on its command line, each checked to be a plain word
# list; the scenarios go as arguments (LAB_SCENARIOS, read by make, stays
# here), each one word of [a-z0-9@.-]
pass=""
for v in $(env | sed -n 's/^\(LAB_[A-Z0-9_]*\)=.*/\1/p'); do
	case $v in LAB_VM_TIMEOUT|LAB_CPU_QUOTA|LAB_SCENARIOS|LAB_SILENT_S) continue ;; esac
	eval "val=\${$v}"
	case $val in
	*[!A-Za-z0-9_.,\ -]*) echo "lab: $v: only letters, digits, '_.,-' and spaces" >&2; exit 2 ;;
	esac
	pass="$pass $v='$val'"
done
for s in "$@"; do
	case $s in
	''|-*|*[!a-z0-9@.-]*) echo "lab: scenario '$s': one word of a-z, 0-9, '@.-'" >&2; exit 2 ;;
	esac
done
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || { echo "lab: no Debian kernel in /boot (install linux-image-amd64)" >&2; exit 2; }
[ -x "$vng" ] || { echo "lab: virtme-ng missing ($vng); run tests/deps.sh" >&2; exit 2; }
limit=${LAB_VM_TIMEOUT:-4200}
case $limit in ''|*[!0-9]*) echo "lab: LAB_VM_TIMEOUT: seconds" >&2; exit 2 ;; esac
# cpu_quota P: this shell (and so qemu, started below) into a new CPU
# cgroup allowed P % of the machine's CPU time
cpu_quota() {
	ncpu=$(nproc)
	us=$(($1 * ncpu * 1000))	# of each 100 ms period
	if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		cg=/sys/fs/cgroup/cpu/reterm-lab.$$
		mkdir "$cg" && echo 100000 > "$cg/cpu.cfs_period_us" && echo "$us" > "$cg/cpu.cfs_quota_us" &&
			echo $$ > "$cg/cgroup.procs" || return 1
		root=/sys/fs/cgroup/cpu
	elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
		cg=/sys/fs/cgroup/reterm-lab.$$
		echo +cpu > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		mkdir "$cg" && echo "$us 100000" > "$cg/cpu.max" && echo $$ > "$cg/cgroup.procs" || return 1
		root=/sys/fs/cgroup
	else
		return 1
	fi
	echo "lab: the VM is held to $1 % of this machine's CPU ($us us of each 100 ms over $ncpu cores; $cg)"
	trap 'echo $$ > "$root/cgroup.procs"; rmdir "$cg" 2>/dev/null' EXIT
}
if [ -n "${LAB_CPU_QUOTA:-}" ]; then
	case $LAB_CPU_QUOTA in ''|*[!0-9]*|0) echo "lab: LAB_CPU_QUOTA: a percentage, 1-100" >&2; exit 2 ;; esac
	[ "$LAB_CPU_QUOTA" -le 100 ] || { echo "lab: LAB_CPU_QUOTA: a percentage, 1-100" >&2; exit 2; }
	cpu_quota "$LAB_CPU_QUOTA" || { echo "lab: no CPU cgroup controller here for LAB_CPU_QUOTA" >&2; exit 2; }
fi
# the Shaping view's plans the scenarios apply: jsdom with OpenWrt's LuCI,
# made here in seconds rather than minutes under the VM's emulation
python3 "$here/labkit/plans.py" "$@"
# A guest that prints nothing for LAB_SILENT_S (600) s has stalled: the
# in-VM watchdog (inside.py) says which scenario runs every 5 minutes, so
# two beats were missed.  The whole guest stops then (twice in the CI's
# autorate so far, QEMU busy on both cores, no line from any process).  It
# is killed, said so, and the scenarios without results run once more in
# a new VM (--keep: the results so far stay); a second stall fails.
silent=${LAB_SILENT_S:-600}
case $silent in ''|*[!0-9]*) echo "lab: LAB_SILENT_S: seconds" >&2; exit 2 ;; esac
start=$(date +%s)
# vm SCENARIO...: one VM; each line it prints touches $out/vm.beat.
# rc 124/137 at the time limit, 200 when the guest stalled
vm() {
	local left=$((limit - $(date +%s) + start)) beat="$out/vm.beat" piped
	[ "$left" -gt 60 ] || left=60
	rm -f "$out/vm.rc" "$out/vm.pid"
	: > "$beat"
	{
		PATH="$top/.cache/venv/bin:$PATH" timeout --kill-after=30 "$left" "$vng" --run "$kernel" --disable-kvm \
			--cpus 2 --memory 1536M --rwdir "$out" --cwd "$top" \
			--exec "env$pass /usr/bin/python3 $here/inside.py --out $out ${keep:+$keep }$*" 2>&1 &
		echo $! > "$out/vm.pid"
		wait $!
		echo $? > "$out/vm.rc"
	} | {
		while IFS= read -r line || [ -n "$line" ]; do
			printf '%s\n' "$line"
			: > "$beat"
		done
	} &
	piped=$!
	while kill -0 "$piped" 2>/dev/null; do
		sleep 2
		if [ $(($(date +%s) - $(stat -c %Y "$beat"))) -ge "$silent" ] && [ -s "$out/vm.pid" ] && [ ! -e "$out/vm.rc" ]; then
			kill "$(cat "$out/vm.pid")"
			wait "$piped"
			echo "lab: the guest printed nothing for $silent s: it stalled; the VM was stopped"
			return 200
		fi
	done
	wait "$piped"
	return "$(cat "$out/vm.rc" 2>/dev/null || echo 1)"
}
keep=""
rc=0
vm "$@" || rc=$?
if [ "$rc" = 200 ]; then
	# the scenarios that wrote no results, in their order
	again=$(python3 -c 'import json, sys
try:
    done = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    done = {}
print(" ".join(s for s in sys.argv[2:] if s not in done))' "$out/results.json" "$@")
	echo "$again" > "$out/vm-stalled"
	echo "lab: running again in a new VM: $again"
	keep="--keep"
	rc=0
	vm $again || rc=$?
	[ "$rc" = 200 ] && echo "lab: the guest stalled again"
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "$limit" > "$out/vm-timeout"
	echo "lab: the VM was stopped after $limit s (LAB_VM_TIMEOUT)"
fi
exit "$rc"
