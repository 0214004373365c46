# tools/owrt/root.sh: the OpenWrt root file system (sourced by build.sh).
#
# $NEW/root gets what OpenWrt's packages install, from the package
# Makefiles' install rules: base-files, procd's, uci's, rpcd's and uhttpd's
# files, firewall4, sqm-scripts, luci-base + luci-theme-bootstrap +
# luci-app-sqm; the C parts come from compile.sh.  Then the tools OpenWrt
# takes from busybox and its own builds of iproute2, nftables and haproxy,
# here Debian's (busybox from Debian's dynamic package: busybox-static, which
# the lab's VM needs on the host, shadows ip and tc); then what the first
# boot does (board.json, config_generate, uci-defaults) inside the root.
#
# Needs: SRC, NEW, WORK, LOG (see compile.sh).

OWRT=  # set by root_files: the openwrt snapshot's package folder

root_dirs() {
	local r=$NEW/root d
	for d in dev etc/config etc/crontabs etc/rc.d overlay lib/firmware lib/functions \
		mnt proc tmp usr/lib usr/bin usr/sbin sbin bin sys www rom; do
		mkdir -p "$r/$d"
	done
	mkdir -p -m 750 "$r/root"
	chmod 1777 "$r/tmp"
	ln -sfn tmp "$r/var"
	ln -sfn /proc/mounts "$r/etc/mtab"
	ln -sfn /tmp/resolv.conf "$r/etc/resolv.conf"
	ln -sfn /tmp/TZ "$r/etc/TZ"
	ln -sfn /tmp/localtime "$r/etc/localtime"
}

# the files of OpenWrt's packages (not compiled): paths as each package
# Makefile's install rule puts them
root_files() {
	local r=$NEW/root p
	OWRT=$SRC/openwrt/package
	p=$OWRT/base-files/files
	cp -a "$p/." "$r/"
	sed -i 's#%PATH%#/usr/sbin:/usr/bin:/sbin:/bin#g' "$r/sbin/hotplug-call" "$r/etc/preinit" "$r/etc/profile"
	sed -i -e "s#%D#OpenWrt#g; s#%V#SNAPSHOT#g; s#%R#lock#g; s#%C#lock#g; s#%S#x86/64#g" \
		-e "s#%A#x86_64#g; s#%t#lock#g; s#%M#OpenWrt#g; s#%P#x86_64#g; s#%[a-zA-Z]#lock#g" \
		"$r/etc/openwrt_release" "$r/etc/openwrt_version" "$r/usr/lib/os-release" \
		"$r/etc/device_info" "$r/etc/banner"
	chmod 0600 "$r/etc/shadow"
	# procd's files
	install -m 0644 "$OWRT/system/procd/files/procd.sh" "$r/lib/functions/procd.sh"
	install -m 0755 "$OWRT/system/procd/files/reload_config" "$r/sbin/reload_config"
	install -m 0755 "$OWRT/system/procd/files/service" "$r/sbin/service"
	install -m 0644 "$OWRT/system/procd/files/hotplug.json" "$r/etc/hotplug.json"
	# uci's (/lib/config/uci.sh)
	cp -a "$OWRT/system/uci/files/." "$r/"
	mkdir -p "$r/etc/uci-defaults"
	# rpcd's
	install -m 0755 "$OWRT/system/rpcd/files/rpcd.init" "$r/etc/init.d/rpcd"
	install -m 0600 "$OWRT/system/rpcd/files/rpcd.config" "$r/etc/config/rpcd"
	install -m 0755 "$OWRT/system/rpcd/files/50-migrate-rpcd-ubus-sock.sh" "$r/etc/uci-defaults/"
	mkdir -p "$r/usr/share/rpcd/acl.d"
	install -m 0644 "$SRC/rpcd/unauthenticated.json" "$r/usr/share/rpcd/acl.d/unauthenticated.json"
	# uhttpd's
	install -m 0755 "$OWRT/network/services/uhttpd/files/uhttpd.init" "$r/etc/init.d/uhttpd"
	install -m 0644 "$OWRT/network/services/uhttpd/files/uhttpd.config" "$r/etc/config/uhttpd"
	install -m 0644 "$OWRT/network/services/uhttpd/files/ubus.default" "$r/etc/uci-defaults/00_uhttpd_ubus"
	# firewall4: its root/ as is
	cp -a "$SRC/firewall4/root/." "$r/"
	# sqm-scripts: its own install rule for OpenWrt
	step sqm-scripts make -C "$SRC/sqm-scripts" install PLATFORM=openwrt DESTDIR="$r" || return 1
	# LuCI (luci.mk): htdocs -> /www, ucode -> /usr/share/ucode/luci, root -> /
	local l
	for l in modules/luci-base themes/luci-theme-bootstrap applications/luci-app-sqm; do
		l=$SRC/luci/$l
		[ -d "$l/htdocs" ] && { mkdir -p "$r/www"; cp -pR "$l/htdocs/." "$r/www/"; }
		[ -d "$l/ucode" ] && { mkdir -p "$r/usr/share/ucode/luci"; cp -pR "$l/ucode/." "$r/usr/share/ucode/luci/"; }
		[ -d "$l/root" ] && cp -pR "$l/root/." "$r/"
	done
	return 0
}

# where OpenWrt's packages put the compiled parts that cmake installs
# under /usr
root_place() {
	local r=$NEW/root
	mv "$r/usr/bin/ubus" "$r/bin/ubus"
	mv "$r/usr/sbin/ubusd" "$r/sbin/ubusd"
	mv "$r/usr/bin/uci" "$r/sbin/uci"
	mv "$r/usr/sbin/rpcd" "$r/sbin/rpcd"
	mv "$r/usr/bin/uclient-fetch" "$r/bin/uclient-fetch"
	mv "$r/usr/bin/jsonpath" "$r/usr/bin/jsonfilter"
	mv "$r/usr/sbin/procd" "$r/sbin/procd"
	mv "$r/usr/bin/uhttpd" "$r/usr/sbin/uhttpd" 2>/dev/null || :
	local so
	for so in ubus ucode; do
		[ -f "$r/usr/lib/uhttpd_$so.so" ] || {
			echo "parts: uhttpd_$so.so was not built" >&2; return 1; }
	done
	# a router has no headers, static libraries or cmake files
	rm -rf "$r/usr/include" "$r/usr/lib/pkgconfig" "$r/usr/share/cmake" "$r/usr/lib/"*.a
	rm -f "$r/usr/sbin/init" "$r/usr/sbin/udevtrigger" "$r/usr/sbin/askfirst" "$r/usr/sbin/upgraded"
}

# busybox from Debian's dynamic package, with an applet link for every
# applet that nothing else in the root provides (halt, poweroff and reboot
# left out: the root is used without a pid namespace too)
root_busybox() {
	local r=$NEW/root deb a
	deb=$(cd "$WORK" && apt-get download busybox >"$LOG/busybox-download.log" 2>&1 && ls "$WORK"/busybox_*.deb) ||
		{ echo "parts: cannot download Debian's busybox package (apt-get download busybox)" >&2; return 1; }
	mkdir -p "$WORK/busybox"
	dpkg-deb -x "$deb" "$WORK/busybox" || return 1
	install -m 0755 "$WORK/busybox/bin/busybox" "$r/bin/busybox"
	"$r/bin/busybox" --list-full | while read -r a; do
		case ${a##*/} in halt|poweroff|reboot|ip|tc|ss|nft|flock|busybox) continue ;; esac
		[ -e "$r/$a" ] || [ -L "$r/$a" ] && continue
		mkdir -p "$r/${a%/*}"
		ln -s /bin/busybox "$r/$a"
	done
	ln -sfn busybox "$r/bin/sh"
	[ -e "$r/bin/ash" ] || ln -s busybox "$r/bin/ash"
}

# Debian's iproute2 (ip, tc, ss), nft, haproxy and flock, placed where OpenWrt has
# them, with every host library any binary of the root needs
root_tools() {
	local r=$NEW/root t
	install -m 0755 "$(command -v ip)" "$r/sbin/ip"
	install -m 0755 "$(command -v tc)" "$r/sbin/tc"
	install -m 0755 "$(command -v ss)" "$r/usr/sbin/ss"
	install -m 0755 "$(command -v nft)" "$r/usr/sbin/nft"
	install -m 0755 "$(command -v haproxy)" "$r/usr/sbin/haproxy"
	# flock: OpenWrt's busybox has the applet (procd.sh and fw4 lock with
	# it), Debian's has not; util-linux's in its place
	install -m 0755 "$(command -v flock)" "$r/usr/bin/flock"
	# tc's netem distribution tables
	[ -d /usr/lib/tc ] && { mkdir -p "$r/usr/lib/tc"; cp -a /usr/lib/tc/. "$r/usr/lib/tc/"; }
	root_libs
}

# root_libs: the dynamic loader and the host libraries (glibc, json-c,
# mbedtls, libnl, libcrypt, haproxy's ...) that the root's ELF files load,
# at the paths they have on the host; none of the root's own libraries
root_libs() {
	local r=$NEW/root f lib
	find "$r" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
		xargs -0 file -N -F '|' 2>/dev/null | sed -n 's/|.*ELF.*dynamic.*//p; s/|.*ELF.*shared object.*//p' |
		while read -r f; do
			LD_LIBRARY_PATH=$r/usr/lib:$r/lib ldd "$f" 2>/dev/null
		done | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | sort -u |
		while read -r lib; do
			case $lib in "$r"/*) continue ;; esac
			[ -e "$r$lib" ] && continue
			mkdir -p "$r$(dirname "$lib")"
			cp -L "$lib" "$r$lib"
		done
	[ -e "$r/lib64/ld-linux-x86-64.so.2" ] || {
		mkdir -p "$r/lib64"
		cp -L /lib64/ld-linux-x86-64.so.2 "$r/lib64/"
	}
}

# in_root CMD: run the shell command CMD in the root as the first boot would
# (private mount and pid namespaces, proc, a minimal /dev, tmpfs /tmp)
in_root() {
	unshare --mount --pid --fork --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t tmpfs tmpfs "$r/tmp" &&
		mount -t tmpfs -o size=64k dev "$r/dev" &&
		for n in null zero random urandom; do touch "$r/dev/$n"; mount --bind /dev/$n "$r/dev/$n"; done &&
		mkdir -p "$r/tmp/run" "$r/tmp/lock" "$r/tmp/.uci" "$r/tmp/log" &&
		chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /bin/sh -c "$1"
	' sh "$NEW/root" "$1"
}

# what /etc/init.d/boot does on a router's first boot: /etc/board.json (a
# two-port board: lan eth0, wan eth1), config_generate, the uci-defaults;
# and luci-base's postinst (LuCI's ucode handler in uhttpd's config)
root_firstboot() {
	# (no set -e: OpenWrt's shell libraries end top-level tests with false)
	step firstboot in_root '
		. /lib/functions/uci-defaults.sh
		CFG=/etc/board.json
		board_config_update
		ucidef_set_interfaces_lan_wan eth0 eth1
		board_config_flush
		/bin/config_generate
		. /etc/init.d/boot
		uci_apply_defaults
		if ! uci -q get uhttpd.main.ucode_prefix | grep -sq /cgi-bin/luci; then
			uci add_list uhttpd.main.ucode_prefix="/cgi-bin/luci=/usr/share/ucode/luci/uhttpd.uc"
			uci commit uhttpd
		fi
		uci -q get network.wan >/dev/null && uci -q get system.@system[0] >/dev/null &&
			uci -q get uhttpd.main.ubus_prefix >/dev/null && [ -s /etc/board.json ]
	' || return 1
	rm -rf "$NEW/root/tmp/"* "$NEW/root/tmp/".[!.]* 2>/dev/null || :
}
