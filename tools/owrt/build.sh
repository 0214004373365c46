#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# OpenWrt's parts for the tests, built natively from the pinned sources in
# tools/owrt/parts.lock into a machine-wide cache outside the clone:
#
#   $RETERM_OWRT (default /opt/owrt)
#     root/         an OpenWrt root file system: base-files, procd, ubusd,
#                   uci, rpcd (+ file, rpcsys, ucode, luci plugins), uhttpd
#                   (ubus, ucode), ucode + modules, uclient, jsonfilter,
#                   firewall4, sqm-scripts, luci-base + bootstrap + app-sqm,
#                   Debian's busybox, iproute2, nftables, haproxy; first boot
#                   done (network with lan and wan, uci-defaults applied)
#     host/         ucode for this machine: bin/ucode, lib/ucode/*.so (with
#                   uclient, luci/core.so, html), bin/apk (apk-tools 3)
#     host-24.10/   ucode at OpenWrt 24.10's pin, same modules
#     root-24.10/   root/ with ucode at 24.10's pin (rpcd, uhttpd, LuCI's and
#                   uclient's modules rebuilt against it)
#     tools/po2lmo  LuCI's catalogue compiler
#     parts.stamp   what it was built from (the lock and these scripts)
#
#   tools/owrt/build.sh           build unless the stamp matches; prints
#                                 "parts: ..." lines, exit 0 when the parts
#                                 are there
#   tools/owrt/build.sh --force   build even when the stamp matches
#
# Sources: each archive of the lock from $RETERM_OWRT_SRC (default
# ../shared/owrt-src beside the clone), checked against its sha256; an
# archive that is not there is cloned from its upstream URL at the pinned
# commit (checked: HEAD must be that commit).  When a source cannot be got,
# it says which and from where and exits 2; the tiers that need the parts
# then skip (counted).  Needs root (apt-get for the build tools, unshare and
# chroot for the first boot); about 3 minutes on 2 cores.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
LOCKFILE=$HERE/parts.lock
DEST=${RETERM_OWRT:-/opt/owrt}
SRCDIR=${RETERM_OWRT_SRC:-$TOP/../shared/owrt-src}
JOBS=$(nproc 2>/dev/null || echo 2)
force=0
[ "${1:-}" = --force ] && force=1

BUILD_DEPS="build-essential cmake pkg-config file libjson-c-dev libmbedtls-dev
libnl-3-dev libnl-genl-3-dev zlib1g-dev libssl-dev libcrypt-dev meson ninja-build
libzstd-dev busybox-static iproute2 nftables haproxy git xz-utils"

# the stamp: the lock and the scripts that turn it into parts
stamp() {
	cat "$LOCKFILE" "$HERE/build.sh" "$HERE/compile.sh" "$HERE/root.sh" "$HERE/compat.h" "$HERE/shim/"* |
		sha256sum | cut -d' ' -f1
}

case $DEST in /*) ;; *) echo "parts: RETERM_OWRT must be an absolute path ($DEST)" >&2; exit 2 ;; esac
want=$(stamp)
if [ "$force" = 0 ] && [ -f "$DEST/parts.stamp" ] && [ "$(cat "$DEST/parts.stamp")" = "$want" ]; then
	echo "parts: up to date in $DEST"
	exit 0
fi

# ---- can every source be got? (nothing is written before this) ----------
nosrc=0
while IFS=$'\t' read -r name url commit archive sum; do
	case $name in ''|'#'*) continue ;; esac
	if [ -f "$SRCDIR/$archive" ]; then
		have=$(sha256sum "$SRCDIR/$archive" | cut -d' ' -f1)
		[ "$have" = "$sum" ] && continue
		echo "parts: cannot use $name: $SRCDIR/$archive has sha256 $have, the lock says $sum" >&2
	elif timeout 30 git ls-remote "$url" "$commit" >/dev/null 2>&1; then
		continue
	else
		echo "parts: cannot get $name: no $SRCDIR/$archive, and $url does not answer" >&2
	fi
	nosrc=1
done < "$LOCKFILE"
if [ "$nosrc" = 1 ]; then
	echo "parts: not built: sources missing (RETERM_OWRT_SRC=$SRCDIR, or the Internet); the tiers that need the parts skip" >&2
	exit 2
fi

if [ "$(id -u)" != 0 ]; then
	echo "parts: building OpenWrt's parts needs root (apt-get, unshare, chroot)" >&2
	exit 2
fi

mkdir -p "$(dirname "$DEST")"
exec 9>"$DEST.lock"
flock 9
# another run may have built them while this one waited
if [ "$force" = 0 ] && [ -f "$DEST/parts.stamp" ] && [ "$(cat "$DEST/parts.stamp")" = "$want" ]; then
	echo "parts: up to date in $DEST"
	exit 0
fi

t0=$SECONDS
NEW=$DEST.new
WORK=$DEST.work
SRC=$WORK/src
LOG=$WORK/log
rm -rf "$NEW" "$WORK"
mkdir -p "$NEW/root" "$SRC" "$LOG"

# ---- sources ------------------------------------------------------------
# get NAME URL COMMIT ARCHIVE: unpack into $SRC/NAME (the archive's sha256
# was checked above; a clone is checked by its commit id); prints why not
get() {
	local name=$1 url=$2 commit=$3 archive=$4
	mkdir -p "$SRC/$name"
	if [ -f "$SRCDIR/$archive" ]; then
		tar -xJf "$SRCDIR/$archive" -C "$SRC/$name" && return 0
		echo "$SRCDIR/$archive does not unpack"
		return 1
	fi
	if git -c advice.detachedHead=false clone -q --no-checkout "$url" "$SRC/$name.git" >"$LOG/clone-$name.log" 2>&1 &&
		git -C "$SRC/$name.git" -c advice.detachedHead=false checkout -q "$commit" >>"$LOG/clone-$name.log" 2>&1 &&
		[ "$(git -C "$SRC/$name.git" rev-parse HEAD)" = "$commit" ]; then
		git -C "$SRC/$name.git" archive "$commit" | tar -x -C "$SRC/$name"
		rm -rf "$SRC/$name.git"
		return 0
	fi
	echo "no $SRCDIR/$archive and no clone of $url at $commit ($(tail -n 1 "$LOG/clone-$name.log"))"
	return 1
}

# the build tools from Debian (second runs find them)
missing=
for p in $BUILD_DEPS; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "parts: apt-get install$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >"$LOG/apt.log" 2>&1 ||
		{ echo "parts: apt-get install failed:" >&2; tail -n 20 "$LOG/apt.log" >&2; exit 2; }
fi

failed=0
while IFS=$'\t' read -r name url commit archive sum; do
	case $name in ''|'#'*) continue ;; esac
	if ! why=$(get "$name" "$url" "$commit" "$archive"); then
		echo "parts: cannot get $name: $why" >&2
		failed=1
	fi
done < "$LOCKFILE"
if [ "$failed" = 1 ]; then
	rm -rf "$NEW" "$WORK"
	echo "parts: not built (sources missing; RETERM_OWRT_SRC=$SRCDIR)" >&2
	exit 2
fi
# luci's own patch of lucihttp (contrib/package/lucihttp/patches)
for p in "$SRC/luci/contrib/package/lucihttp/patches/"*.patch; do
	patch -s -d "$SRC/lucihttp" -p1 < "$p"
done
echo "parts: sources checked ($((SECONDS - t0)) s); building with $JOBS jobs"

# ---- build ----------------------------------------------------------------
. "$HERE/compile.sh"
. "$HERE/root.sh"

set +e
(
	set -e
	build_libs root; build_ucode ucode root; build_uclient root; build_luci_c root
	build_daemons
	build_libs host; build_ucode ucode host; build_uclient host; build_luci_c host
	build_ucode ucode-24.10 host-24.10; build_uclient host-24.10; build_luci_c host-24.10
	build_apk
	echo "parts: compiled ($((SECONDS - t0)) s)"
	root_dirs; root_files; root_place; root_busybox; root_tools; root_firstboot
	build_root_2410
)
rc=$?
set -e
if [ "$rc" != 0 ]; then
	echo "parts: build failed (logs in $LOG)" >&2
	# RETERM_OWRT_KEEP=1 keeps the half-built tree for a look
	[ "${RETERM_OWRT_KEEP:-}" = 1 ] || rm -rf "$NEW"
	exit 1
fi

# the host trees were installed under .dest with their final prefix
for t in host host-24.10; do
	mv "$NEW/.dest$DEST/$t" "$NEW/$t"
done
rm -rf "$NEW/.dest"
echo "$want" > "$NEW/parts.stamp"
rm -rf "$DEST.old"
[ -e "$DEST" ] && mv "$DEST" "$DEST.old"
mv "$NEW" "$DEST"
rm -rf "$DEST.old" "$WORK"

for u in "$DEST/host/bin/ucode" "$DEST/host-24.10/bin/ucode"; do
	if ! out=$("$u" -e 'require("fs"); require("uloop"); require("socket"); require("uclient"); require("luci.core"); print("ok")' 2>&1) ||
		[ "$out" != ok ]; then
		echo "parts: $u does not load its modules: $out" >&2
		exit 1
	fi
done
# root-24.10 runs 24.10's ucode (ucode -v names the version of its pin)
if ! out=$(chroot "$DEST/root-24.10" /usr/bin/ucode -e 'require("uloop"); require("socket"); require("uclient"); require("luci.core"); print("ok")' 2>&1) ||
	[ "$out" != ok ]; then
	echo "parts: root-24.10's ucode does not load its modules: $out" >&2
	exit 1
fi
echo "parts: built in $DEST ($((SECONDS - t0)) s)"
