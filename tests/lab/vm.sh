#!/bin/sh
# Boot the Debian kernel under QEMU (software emulation: nested KVM hangs on
# the CI machines) with the host filesystem as root, run the named scenarios
# inside, results in tests/lab/out/results.json.  The VM is killed after
# LAB_VM_TIMEOUT seconds (default 4200: the whole lab takes ~40 min; a
# wedged VM must not hold the CI until its own limit).
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
rm -f "$out/results.json"
PATH="$top/.cache/venv/bin:$PATH" exec timeout --kill-after=30 "${LAB_VM_TIMEOUT:-4200}" "$vng" --run "$kernel" --disable-kvm --cpus 2 --memory 1536M \
	--rwdir "$out" --cwd "$top" \
	--exec "/usr/bin/python3 $here/inside.py --out $out $*"
