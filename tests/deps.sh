#!/bin/sh
# Install what `make test` needs on a Debian 12 machine; second runs reuse it.
#   Debian: the lab's kernel and tools;  PyPI: virtme-ng in .cache/venv;
#   npm: the JS test tools (npm ci); chromium for the browser checks
#   (Debian's, driven by playwright-core: no browser download).
#   OpenWrt's parts: tools/owrt/build.sh (from pinned sources).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

APT_PKGS="qemu-system-x86 linux-image-amd64 busybox-static haproxy nftables
iproute2 iperf3 iputils-ping ethtool python3 python3-venv chromium ieee-data fping"

missing=""
for p in $APT_PKGS; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: apt-get install$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# busybox-static replaces busybox: virtme-ng needs a static one in the VM.
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ ! -x .cache/venv/bin/vng ]; then
	echo "deps: virtme-ng into .cache/venv"
	mkdir -p .cache
	/usr/bin/python3 -m venv .cache/venv
	.cache/venv/bin/pip install -q --disable-pip-version-check virtme-ng
fi

# (a node_modules without npm's own lock record is an interrupted install;
# sh's -nt is false when the second file is missing)
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "deps: npm ci"
	npm ci --no-audit --no-fund --loglevel=error
fi

# OpenWrt's parts (ucode, rpcd, uhttpd, LuCI, firewall4, sqm-scripts, procd,
# apk-tools 3) from the pinned sources in tools/owrt/parts.lock into
# $RETERM_OWRT (default /opt/owrt); reused while the lock is unchanged.
# Sources that cannot be got (exit 2) leave the tiers that need the parts
# to skip, each saying so; a build that fails fails the run.
rc=0
tools/owrt/build.sh || rc=$?
case $rc in
0) ;;
2) echo "deps: OpenWrt's parts are not available; the tiers that need them skip" ;;
*) echo "deps: building OpenWrt's parts failed (tools/owrt/build.sh exit $rc)"; exit 1 ;;
esac
