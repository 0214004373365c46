#!/bin/sh
# Boot the Debian kernel under QEMU (software emulation: nested KVM hangs on
# the CI machines) with the host filesystem as root, run the named scenarios
# inside, results in tests/lab/out/results.json.  The VM is killed after
# LAB_VM_TIMEOUT seconds (default 4200; tests/run.sh sets it from what is
# left of the CI's time: a wedged or slow VM must not hold the CI until its
# own limit, the checks and the summary must still print).  Killed, it
# leaves out/vm-timeout (the seconds), which the checks name.
# usage: tests/lab/vm.sh scenario...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out="$here/out"
vng="$top/.cache/venv/bin/vng"
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || { echo "lab: no Debian kernel in /boot (install linux-image-amd64)" >&2; exit 2; }
[ -x "$vng" ] || { echo "lab: virtme-ng missing ($vng); run tests/deps.sh" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out/results.json" "$out/vm-timeout"
# the guest sees the host's files but not its environment: the LAB_*
# settings read inside (LAB_SCENARIO_TIMEOUT, LAB_WATCHDOG_GRACE,
# LAB_AUTORATE_*) go on its command line, each checked to be a plain word
# list
pass=""
for v in $(env | sed -n 's/^\(LAB_[A-Z0-9_]*\)=.*/\1/p'); do
	[ "$v" = LAB_VM_TIMEOUT ] && continue
	eval "val=\${$v}"
	case $val in
	*[!A-Za-z0-9_.,\ -]*) echo "lab: $v: only letters, digits, '_.,-' and spaces" >&2; exit 2 ;;
	esac
	pass="$pass $v='$val'"
done
limit=${LAB_VM_TIMEOUT:-4200}
case $limit in ''|*[!0-9]*) echo "lab: LAB_VM_TIMEOUT: seconds" >&2; exit 2 ;; esac
rc=0
PATH="$top/.cache/venv/bin:$PATH" timeout --kill-after=30 "$limit" "$vng" --run "$kernel" --disable-kvm --cpus 2 --memory 1536M \
	--rwdir "$out" --cwd "$top" \
	--exec "env$pass /usr/bin/python3 $here/inside.py --out $out $*" || rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "$limit" > "$out/vm-timeout"
	echo "lab: the VM was stopped after $limit s (LAB_VM_TIMEOUT)"
fi
exit "$rc"
