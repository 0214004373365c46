# tests/owrt/env.sh: run the package on a real OpenWrt userland (sourced, bash).
#
# $RETERM_OWRT (default /opt/owrt) holds root/, an OpenWrt root file system
# that tools/owrt/build.sh builds from the pinned sources of
# tools/owrt/parts.lock (procd, ubusd, ubus, uci, rpcd + plugins, uhttpd +
# ubus/ucode, ucode + modules, fw4, sqm-scripts, luci-base, busybox; host
# nft/ip/tc/haproxy with their libs).
# It is never written to: every run gets a throwaway overlayfs on top of it.
# OWRT_ROOTNAME names another root of the cache: root-24.10 is the same root
# with ucode at OpenWrt 24.10's pin (rpcd, uhttpd and LuCI on it).
#
# Typical tier script:
#
#   . tests/owrt/env.sh
#   owrt_detect || { echo "owrt: 0 passed, 0 failed, 1 skipped"; exit 0; }
#   owrt_unshare "$0" "$@"          # re-exec in private mount/net/pid/uts namespaces
#   owrt_up "$(mktemp -d)"
#   owrt_start_ubus && owrt_start_procd && owrt_start_rpcd && owrt_start_uhttpd 8080
#   owrt_install_ipk dist/luci-app-reterm_*.ipk
#   owrt_sh 'ubus list reterm; /etc/init.d/reterm running; logread'
#   curl -s http://127.0.0.1:8080/ubus ...
#   owrt_down
#
# Everything lives in the namespaces of the re-executed script: when it exits,
# the kernel kills every process left in its pid namespace and drops its
# mounts, so nothing outlives a run even if owrt_down is not reached.
#
# API (all return non-zero and print "owrt: ..." on stderr on failure):
#   owrt_detect                 every required file present in $RETERM_OWRT/$OWRT_ROOTNAME?
#                               prints the first missing one, returns 1
#   owrt_unshare "$0" "$@"      unless already inside: exec the script again under
#                               unshare --mount --net --pid --uts --fork --mount-proc
#                               (sets OWRT_INSIDE=1 OWRT_UTS=1); inside: bring lo up
#                               and return. A caller doing its own unshare sets
#                               OWRT_INSIDE=1 (and OWRT_UTS=1 only with --uts:
#                               owrt_up then sets the hostname from uci)
#   owrt_up DIR                 overlay root at DIR/root (upper/work in DIR, log/
#                               in DIR/log), proc, sysfs, a private tmpfs /dev
#                               (null zero full random urandom tty, devpts, shm),
#                               tmpfs /tmp, OpenWrt's boot-time /var dirs
#   owrt_sh CMD...              run "CMD..." with /bin/sh -c in the chroot, OpenWrt
#                               env (PATH=/usr/sbin:/usr/bin:/sbin:/bin, HOME=/root,
#                               no IPKG_INSTROOT); stdin/stdout/stderr pass through
#   owrt_start_ubus             ubusd on /var/run/ubus/ubus.sock (waits for `ubus list`)
#   owrt_start_procd            OpenWrt's procd (not PID 1): ubus objects service
#                               and system; `ubus monitor` beside it
#   owrt_service_sets NAME      the "service set" calls procd got for NAME (JSON lines)
#   owrt_start_rpcd             /etc/init.d/rpcd start (procd runs it); waits for
#                               the session object
#   owrt_start_uhttpd PORT      uhttpd on 127.0.0.1:PORT with the flags
#                               /etc/init.d/uhttpd derives from /etc/config/uhttpd
#                               (/ubus and LuCI's ucode handler on /cgi-bin/luci);
#                               waits until it answers HTTP
#   owrt_pidof NAME             pids of the programs NAME running in the root (not
#                               the init script of that name)
#   owrt_install_ipk FILE.ipk   install as opkg would: preinst, unpack (conffiles
#                               kept, new one as FILE-opkg), opkg info db, postinst
#                               "configure" in the chroot; returns postinst's status
#   owrt_remove_pkg NAME        prerm remove, delete its files, postrm remove
#   owrt_down                   stop everything started in the root, unmount it
#
# Variables: RETERM_OWRT (input); OWRT_DIR, OWRT_ROOT (=DIR/root), OWRT_LOG
# (=DIR/log: ubusd.log procd.log ubus-monitor.log rpcd.log uhttpd.log
# opkg.log) after
# owrt_up.
# Needs root, overlayfs, chroot, unshare (util-linux), curl for uhttpd's wait.

: "${RETERM_OWRT:=/opt/owrt}"
: "${OWRT_ROOTNAME:=root}"
case $OWRT_ROOTNAME in root|root-24.10) ;; *) echo "owrt: OWRT_ROOTNAME is root or root-24.10, not $OWRT_ROOTNAME" >&2; exit 2 ;; esac
OWRT_PATH=/usr/sbin:/usr/bin:/sbin:/bin
OWRT_UBUS_SOCK=/var/run/ubus/ubus.sock

_owrt_err() { echo "owrt: $*" >&2; }

# files the tier relies on, relative to the root
OWRT_REQUIRED="
/sbin/procd /sbin/ubusd /bin/ubus /sbin/uci /sbin/rpcd /usr/lib/rpcd/ucode.so
/usr/sbin/uhttpd /usr/lib/uhttpd_ubus.so /usr/lib/uhttpd_ucode.so /usr/bin/ucode
/sbin/fw4 /usr/share/ucode/fw4.uc /usr/lib/sqm/run.sh /etc/init.d/sqm
/etc/rc.common /lib/functions.sh /lib/functions/procd.sh /lib/config/uci.sh
/usr/share/libubox/jshn.sh /usr/share/ucode/luci/uhttpd.uc
/www/luci-static/resources/luci.js /usr/sbin/nft /sbin/ip /sbin/tc
/usr/sbin/haproxy /usr/bin/flock /bin/busybox /bin/sh"

owrt_detect() {
	local r=$RETERM_OWRT/$OWRT_ROOTNAME f
	if [ ! -d "$r" ]; then
		_owrt_err "missing $r"
		return 1
	fi
	for f in $OWRT_REQUIRED; do
		if [ ! -e "$r$f" ] && [ ! -L "$r$f" ]; then
			_owrt_err "missing $r$f"
			return 1
		fi
	done
	if [ "$(id -u)" != 0 ]; then
		_owrt_err "needs root (overlayfs, chroot, namespaces)"
		return 1
	fi
	return 0
}

owrt_unshare() {
	if [ "${OWRT_INSIDE:-}" != 1 ]; then
		local self=$1
		shift
		export OWRT_INSIDE=1 OWRT_UTS=1
		if [ -x "$self" ]; then
			exec unshare --mount --net --pid --uts --fork --mount-proc \
				--propagation private "$self" "$@"
		else
			exec unshare --mount --net --pid --uts --fork --mount-proc \
				--propagation private "${BASH:-/bin/bash}" "$self" "$@"
		fi
		_owrt_err "unshare failed"
		exit 1
	fi
	ip link set lo up
}

owrt_up() {
	local dir=${1:?owrt_up DIR}
	if [ "${OWRT_INSIDE:-}" != 1 ]; then
		_owrt_err "owrt_up must run inside owrt_unshare (it mounts)"
		return 1
	fi
	mkdir -p "$dir" || return 1
	OWRT_DIR=$(cd "$dir" && pwd)
	OWRT_ROOT=$OWRT_DIR/root
	OWRT_LOG=$OWRT_DIR/log
	mkdir -p "$OWRT_DIR/upper" "$OWRT_DIR/work" "$OWRT_ROOT" "$OWRT_LOG"
	: > "$OWRT_DIR/pids"
	if ! mount -t overlay overlay \
		-o "lowerdir=$RETERM_OWRT/$OWRT_ROOTNAME,upperdir=$OWRT_DIR/upper,workdir=$OWRT_DIR/work" \
		"$OWRT_ROOT" 2>/dev/null; then
		# DIR's file system cannot carry an overlay upper (e.g. itself an
		# overlay): keep upper/work on a tmpfs inside DIR instead
		mkdir -p "$OWRT_DIR/rw"
		mount -t tmpfs -o mode=0755 owrt-rw "$OWRT_DIR/rw" || return 1
		mkdir -p "$OWRT_DIR/rw/upper" "$OWRT_DIR/rw/work"
		mount -t overlay overlay \
			-o "lowerdir=$RETERM_OWRT/$OWRT_ROOTNAME,upperdir=$OWRT_DIR/rw/upper,workdir=$OWRT_DIR/rw/work" \
			"$OWRT_ROOT" || { _owrt_err "overlay mount failed"; return 1; }
	fi
	mount -t proc proc "$OWRT_ROOT/proc" || return 1
	mount -t sysfs sysfs "$OWRT_ROOT/sys" || return 1
	_owrt_mkdev || return 1
	# /proc/kmsg is the host's kernel log: logd would drain it
	mount --bind /dev/null "$OWRT_ROOT/proc/kmsg" 2>/dev/null
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$OWRT_ROOT/tmp" || return 1
	# what /etc/init.d/boot creates at boot (the root's /var is a link to /tmp)
	owrt_sh '
		mkdir -p /var/lock /var/log /var/run /var/state /var/tmp /tmp/.uci \
			/tmp/resolv.conf.d /var/run/ubus /var/etc
		chmod 1777 /var/lock
		chmod 0700 /tmp/.uci
		[ -e /run ] || ln -s /var/run /run
		[ -e /var/run/lock ] || ln -s /var/lock /var/run/lock
		touch /var/log/wtmp /var/log/lastlog /tmp/resolv.conf.d/resolv.conf.auto
		ln -sf /tmp/resolv.conf.d/resolv.conf.auto /tmp/resolv.conf
		echo UTC0 > /tmp/TZ
	' || return 1
	# /etc/init.d/system: the hostname from uci, only in the UTS namespace
	# owrt_unshare made (OWRT_UTS=1); never the host's
	local h
	if [ "${OWRT_UTS:-}" = 1 ]; then
		h=$(owrt_sh 'uci -q get system.@system[0].hostname')
		hostname "${h:-OpenWrt}" 2>/dev/null || :
	fi
}

# a private /dev (tmpfs, as procd sets one up at boot): the usual nodes, own
# devpts; nothing written there (e.g. logd's /dev/log) reaches the host
_owrt_mkdev() {
	local d=$OWRT_ROOT/dev
	mount -t tmpfs -o mode=0755,nosuid,size=512k owrt-dev "$d" || return 1
	mknod -m 0666 "$d/null" c 1 3 && mknod -m 0666 "$d/zero" c 1 5 &&
		mknod -m 0666 "$d/full" c 1 7 && mknod -m 0666 "$d/random" c 1 8 &&
		mknod -m 0666 "$d/urandom" c 1 9 && mknod -m 0666 "$d/tty" c 5 0 || return 1
	mkdir -p "$d/pts" "$d/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$d/pts" || return 1
	ln -s pts/ptmx "$d/ptmx"
	mount -t tmpfs -o mode=1777,nosuid,nodev shm "$d/shm"
	ln -s /proc/self/fd "$d/fd"
	ln -s /proc/self/fd/0 "$d/stdin"
	ln -s /proc/self/fd/1 "$d/stdout"
	ln -s /proc/self/fd/2 "$d/stderr"
}

owrt_sh() {
	if [ -z "${OWRT_ROOT:-}" ]; then
		_owrt_err "owrt_sh before owrt_up"
		return 1
	fi
	chroot "$OWRT_ROOT" /usr/bin/env -i PATH=$OWRT_PATH HOME=/root USER=root \
		LOGNAME=root SHELL=/bin/ash /bin/sh -c "$*"
}

# _owrt_spawn NAME CMD...: start CMD in the chroot in the background (stdin
# from /dev/null, output to $OWRT_LOG/NAME.log); pid recorded in DIR/pids
_owrt_spawn() {
	local name=$1
	shift
	chroot "$OWRT_ROOT" /usr/bin/env -i PATH=$OWRT_PATH HOME=/root USER=root \
		LOGNAME=root SHELL=/bin/ash "$@" \
		</dev/null >>"$OWRT_LOG/$name.log" 2>&1 &
	echo "$name $!" >> "$OWRT_DIR/pids"
	eval "OWRT_PID_$name=\$!"
}

# _owrt_wait SECONDS CMD...: retry CMD every 0.1 s until it succeeds
_owrt_wait() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# owrt_pidof NAME: pids of the programs named NAME running in the root: a
# binary NAME or a script NAME run by its interpreter (ucode), not the init
# script of that name (/bin/sh /etc/rc.common /etc/init.d/NAME has the
# comm NAME too) nor a subshell of it
owrt_pidof() {
	local p out= a0 a1
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$OWRT_ROOT" ] || continue
		[ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] || continue
		{ IFS= read -r -d '' a0 && IFS= read -r -d '' a1; } < "$p/cmdline" 2>/dev/null
		case "${a0##*/} ${a1:-}" in
		"$1 "*|"ucode "*"/$1") out="$out ${p#/proc/}" ;;
		esac
		a0= a1=
	done
	[ -n "$out" ] && echo $out
}

# ubusd (on a router procd starts it; procd's objects: owrt_start_procd)
owrt_start_ubus() {
	_owrt_spawn ubusd /sbin/ubusd -s $OWRT_UBUS_SOCK
	if ! _owrt_wait 10 owrt_sh "ubus -s $OWRT_UBUS_SOCK list"; then
		_owrt_err "ubusd did not come up (see $OWRT_LOG/ubusd.log)"
		return 1
	fi
}

# OpenWrt's procd, not as PID 1: it connects to ubusd and serves its ubus
# objects "service" (instances, respawn, limits, triggers) and "system";
# what it cannot do here is boot the system (no preinit, hotplug, rc.d
# walk, reboot).  Started with the descriptor limits a PID 1 gets from the
# kernel (soft 1024, hard 4096); -S: its log on stdout, $OWRT_LOG/procd.log.
# Beside it `ubus monitor` records every call to $OWRT_LOG/ubus-monitor.log
# (what the init scripts send procd: owrt_service_sets).
owrt_start_procd() {
	_owrt_spawn procd sh -c "ulimit -S -n 1024; ulimit -H -n 4096; exec /sbin/procd -s $OWRT_UBUS_SOCK -S"
	_owrt_spawn ubus-monitor /bin/ubus -s $OWRT_UBUS_SOCK -m invoke monitor
	if ! _owrt_wait 10 owrt_sh "ubus list service && ubus list system"; then
		_owrt_err "procd did not publish service and system (see $OWRT_LOG/procd.log)"
		return 1
	fi
}

# owrt_service_sets NAME: the "service set" calls for NAME seen by ubusd,
# oldest first, one JSON object (the call's data) per line
owrt_service_sets() {
	sed -n 's/^<- [0-9a-f]* #[0-9a-f]* *invoke: //p' "$OWRT_LOG/ubus-monitor.log" |
		python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    d = m.get("data") or {}
    if m.get("method") == "set" and d.get("name") == sys.argv[1] and "instances" in d:
        print(json.dumps(d))
' "$1"
}

# rpcd through its init script: procd starts (and respawns) it
owrt_start_rpcd() {
	owrt_sh "/etc/init.d/rpcd start" >>"$OWRT_LOG/rpcd.log" 2>&1
	if ! _owrt_wait 10 owrt_sh "ubus list session"; then
		_owrt_err "rpcd did not come up (see $OWRT_LOG/procd.log)"
		return 1
	fi
}

# the uhttpd command line /etc/init.d/uhttpd builds for section "main",
# listening on 127.0.0.1:PORT only, without TLS
_owrt_uhttpd_args() {
	owrt_sh '
		. /lib/functions.sh
		config_load uhttpd
		a() { local v; config_get v main "$1"; [ -n "$v" ] && printf "%s\n%s\n" "$2" "$v"; }
		b() { local v; config_get_bool v main "$1" "$3"; [ "$v" = 1 ] && printf "%s\n" "$2"; }
		realm=$(uci -q get system.@system[0].hostname)
		printf "%s\n" -f
		a home -h
		printf "%s\n%s\n" -r "$(config_get v main realm; echo ${v:-${realm:-OpenWrt}})"
		a config -c
		a cgi_prefix -x
		if [ -f /usr/lib/uhttpd_ubus.so ]; then
			a ubus_prefix -u
			a ubus_socket -U
			b ubus_cors -X 0
		fi
		if [ -f /usr/lib/uhttpd_ucode.so ]; then
			up() {
				local p=${1%%=*} h=${1#*=}
				[ "$p" != "$h" ] && [ -n "$p" ] && [ -f "$h" ] && printf "%s\n%s\n%s\n%s\n" -o "$p" -O "$h"
			}
			config_list_foreach main ucode_prefix up
		fi
		a script_timeout -t
		a network_timeout -T
		a http_keepalive -k
		a tcp_keepalive -A
		a error_page -E
		config_get v main max_requests; printf "%s\n%s\n" -n "${v:-3}"
		a max_connections -N
		b no_ubusauth -a 0
		b no_symlinks -S 0
		b no_dirlists -D 0
		b rfc1918_filter -R 0
		config_get v main index_page
		for i in $v; do printf "%s\n%s\n" -I "$i"; done
	'
}

owrt_start_uhttpd() {
	local port=${1:?owrt_start_uhttpd PORT} args=() line
	while IFS= read -r line; do
		args+=("$line")
	done < <(_owrt_uhttpd_args)
	[ ${#args[@]} -gt 0 ] || { _owrt_err "cannot read /etc/config/uhttpd"; return 1; }
	_owrt_spawn uhttpd /usr/sbin/uhttpd "${args[@]}" -p "127.0.0.1:$port"
	if ! _owrt_wait 10 curl -s -o /dev/null "http://127.0.0.1:$port/"; then
		_owrt_err "uhttpd did not answer on 127.0.0.1:$port (see $OWRT_LOG/uhttpd.log)"
		return 1
	fi
	OWRT_HTTP_PORT=$port
}

owrt_down() {
	[ -n "${OWRT_ROOT:-}" ] || return 0
	local name pid p n
	# the daemons we started, newest first, then anything else running in
	# the root (services, haproxy, sleep holders of `lock`, ...)
	if [ -f "$OWRT_DIR/pids" ]; then
		tac "$OWRT_DIR/pids" | while read -r name pid; do
			kill "$pid" 2>/dev/null
		done
	fi
	for n in 1 2 3 4 5 6 7 8 9 10; do
		pid=
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$OWRT_ROOT" ] || continue
			pid="$pid ${p#/proc/}"
		done
		[ -n "$pid" ] || break
		if [ "$n" -lt 6 ]; then kill $pid 2>/dev/null; else kill -9 $pid 2>/dev/null; fi
		sleep 0.2
	done
	umount -R "$OWRT_ROOT" 2>/dev/null || umount -R -l "$OWRT_ROOT" 2>/dev/null
	if mountpoint -q "$OWRT_DIR/rw" 2>/dev/null; then
		umount -l "$OWRT_DIR/rw"
	fi
	: > "$OWRT_DIR/pids"
	unset OWRT_ROOT OWRT_HTTP_PORT
}

# ---- packages (opkg semantics) -------------------------------------------

# _owrt_ctrl_field FILE FIELD: a field of a control file
_owrt_ctrl_field() {
	sed -n "s/^$2:[[:space:]]*//p" "$1" | head -n 1
}

owrt_install_ipk() {
	local ipk=${1:?owrt_install_ipk FILE.ipk} tmp pkg ver info upgrade=0 rc f
	[ -n "${OWRT_ROOT:-}" ] || { _owrt_err "owrt_install_ipk before owrt_up"; return 1; }
	[ -f "$ipk" ] || { _owrt_err "no such ipk: $ipk"; return 1; }
	tmp=$(mktemp -d "$OWRT_DIR/ipk.XXXXXX") || return 1
	# an ipk is an ar archive (opkg-build) or a gzip'd tar (OpenWrt's
	# ipkg-build), each holding debian-binary, control.tar.gz, data.tar.gz
	case $(head -c 7 "$ipk" | tr -d '\000') in
	'!<arch>')
		if command -v ar >/dev/null 2>&1; then
			(cd "$tmp" && ar x "$(realpath "$ipk")")
		else
			(cd "$tmp" && busybox ar -x "$(realpath "$ipk")")
		fi ;;
	*) tar -xzf "$ipk" -C "$tmp" ;;
	esac || { _owrt_err "cannot unpack $ipk"; rm -rf "$tmp"; return 1; }
	if [ ! -f "$tmp/control.tar.gz" ] || [ ! -f "$tmp/data.tar.gz" ]; then
		_owrt_err "$ipk: no control.tar.gz/data.tar.gz"
		rm -rf "$tmp"
		return 1
	fi
	mkdir -p "$tmp/control"
	tar -xzf "$tmp/control.tar.gz" -C "$tmp/control" || { rm -rf "$tmp"; return 1; }
	pkg=$(_owrt_ctrl_field "$tmp/control/control" Package)
	ver=$(_owrt_ctrl_field "$tmp/control/control" Version)
	[ -n "$pkg" ] || { _owrt_err "$ipk: no Package field"; rm -rf "$tmp"; return 1; }
	info=$OWRT_ROOT/usr/lib/opkg/info
	mkdir -p "$info"
	[ -f "$info/$pkg.control" ] && upgrade=1

	# preinst runs from opkg's temporary unpack dir, before the files land
	if [ -f "$tmp/control/preinst" ]; then
		mkdir -p "$OWRT_ROOT/tmp/opkg-$pkg"
		cp "$tmp/control/preinst" "$OWRT_ROOT/tmp/opkg-$pkg/preinst"
		chmod 0755 "$OWRT_ROOT/tmp/opkg-$pkg/preinst"
		owrt_sh "PKG_ROOT=/ PKG_UPGRADE=$upgrade /tmp/opkg-$pkg/preinst $([ $upgrade = 1 ] && echo upgrade || echo install)" ||
			{ _owrt_err "$pkg: preinst failed"; rm -rf "$tmp" "$OWRT_ROOT/tmp/opkg-$pkg"; return 1; }
		rm -rf "$OWRT_ROOT/tmp/opkg-$pkg"
	fi

	# files: conffiles that exist and differ are kept, the new one lands as
	# <file>-opkg (opkg's rule for a changed configuration file)
	tar -tzf "$tmp/data.tar.gz" | sed -e 's#^\./#/#' -e 's#^\([^/]\)#/\1#' > "$tmp/all"
	grep -v '/$' "$tmp/all" > "$tmp/list"
	grep '/$' "$tmp/all" | grep -vx '/' | sed 's#/$##' > "$tmp/dirs"
	mkdir -p "$tmp/data"
	tar -xzf "$tmp/data.tar.gz" -C "$tmp/data" || { rm -rf "$tmp"; return 1; }
	if [ -f "$tmp/control/conffiles" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			if [ -f "$OWRT_ROOT$f" ] && [ -f "$tmp/data$f" ] &&
				! cmp -s "$OWRT_ROOT$f" "$tmp/data$f"; then
				mv "$tmp/data$f" "$tmp/data$f-opkg"
			fi
		done < "$tmp/control/conffiles"
	fi
	# files of the old version that the new one no longer has
	if [ "$upgrade" = 1 ] && [ -f "$info/$pkg.list" ]; then
		while read -r f; do
			grep -qxF -- "$f" "$tmp/list" || rm -f "$OWRT_ROOT$f"
		done < <(cut -f1 "$info/$pkg.list")
	fi
	# keep the root's directory symlinks (/var -> tmp) and directory modes
	tar -C "$tmp/data" -cf - . | tar -C "$OWRT_ROOT" -xf - \
		--keep-directory-symlink --no-overwrite-dir ||
		{ _owrt_err "$pkg: unpack failed"; rm -rf "$tmp"; return 1; }

	# opkg's database: info/<pkg>.{control,list,conffiles,preinst,postinst,...}
	cp "$tmp/control/control" "$info/$pkg.control"
	cp "$tmp/list" "$info/$pkg.list"
	for f in conffiles preinst postinst prerm postrm; do
		rm -f "$info/$pkg.$f"
		[ -f "$tmp/control/$f" ] && cp "$tmp/control/$f" "$info/$pkg.$f"
	done
	chmod 0755 "$info/$pkg".p* 2>/dev/null
	_owrt_status_set "$pkg" "$tmp/control" "$tmp/data"
	# the package's directories, to drop the empty ones on removal (kept
	# outside the root: opkg's .list holds files only)
	mkdir -p "$OWRT_DIR/opkg"
	cp "$tmp/dirs" "$OWRT_DIR/opkg/$pkg.dirs"

	rc=0
	if [ -f "$info/$pkg.postinst" ]; then
		owrt_sh "PKG_ROOT=/ PKG_UPGRADE=$upgrade /usr/lib/opkg/info/$pkg.postinst configure" >> "$OWRT_LOG/opkg.log" 2>&1
		rc=$?
		[ $rc = 0 ] || _owrt_err "$pkg: postinst exited $rc (see $OWRT_LOG/opkg.log)"
	fi
	rm -rf "$tmp"
	return $rc
}

# _owrt_status_set PKG CONTROLDIR DATADIR: (re)write PKG's entry in opkg's
# status file; conffiles with the md5 of the version the package ships
_owrt_status_set() {
	local st=$OWRT_ROOT/usr/lib/opkg/status pkg=$1 c=$2 data=$3 f sum
	_owrt_status_del "$pkg"
	{
		echo "Package: $pkg"
		for f in Version Depends Provides Conflicts; do
			sum=$(_owrt_ctrl_field "$c/control" $f)
			[ -n "$sum" ] && echo "$f: $sum"
		done
		echo "Status: install user installed"
		echo "Architecture: $(_owrt_ctrl_field "$c/control" Architecture)"
		if [ -s "$c/conffiles" ]; then
			echo "Conffiles:"
			while read -r f; do
				[ -n "$f" ] || continue
				if [ -f "$data$f-opkg" ]; then
					sum=$(md5sum "$data$f-opkg" | cut -d' ' -f1)
				else
					sum=$(md5sum "$data$f" 2>/dev/null | cut -d' ' -f1)
				fi
				echo " $f ${sum:-0}"
			done < "$c/conffiles"
		fi
		echo "Installed-Time: $(date +%s)"
		echo
	} >> "$st"
}

_owrt_status_del() {
	local st=$OWRT_ROOT/usr/lib/opkg/status
	[ -f "$st" ] || return 0
	awk -v p="$1" 'BEGIN { RS = ""; ORS = "\n\n" } $0 !~ "^Package: " p "\n" { print }' "$st" > "$st.new" &&
		mv "$st.new" "$st"
}

owrt_remove_pkg() {
	local pkg=${1:?owrt_remove_pkg NAME} info f sum rc=0
	info=$OWRT_ROOT/usr/lib/opkg/info
	[ -f "$info/$pkg.control" ] || { _owrt_err "$pkg is not installed"; return 1; }
	if [ -f "$info/$pkg.prerm" ]; then
		owrt_sh "PKG_ROOT=/ /usr/lib/opkg/info/$pkg.prerm remove" >> "$OWRT_LOG/opkg.log" 2>&1 || rc=$?
	fi
	# conffiles changed since install stay (opkg keeps modified ones)
	while read -r f; do
		if [ -f "$info/$pkg.conffiles" ] && grep -qxF -- "$f" "$info/$pkg.conffiles"; then
			sum=$(awk -v f="$f" '$1 == f { print $2 }' < <(
				awk -v p="$pkg" 'BEGIN { RS = "" } $0 ~ "^Package: " p "\n" { print }' \
					"$OWRT_ROOT/usr/lib/opkg/status"))
			[ "$(md5sum "$OWRT_ROOT$f" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] || continue
		fi
		rm -f "$OWRT_ROOT$f"
	done < <(cut -f1 "$info/$pkg.list")
	# its directories that are empty now, deepest first
	if [ -f "$OWRT_DIR/opkg/$pkg.dirs" ]; then
		sort -r "$OWRT_DIR/opkg/$pkg.dirs" | while read -r f; do
			rmdir "$OWRT_ROOT$f" 2>/dev/null
		done
		rm -f "$OWRT_DIR/opkg/$pkg.dirs"
	fi
	if [ -f "$info/$pkg.postrm" ]; then
		cp "$info/$pkg.postrm" "$OWRT_ROOT/tmp/$pkg.postrm"
		owrt_sh "PKG_ROOT=/ /tmp/$pkg.postrm remove" >> "$OWRT_LOG/opkg.log" 2>&1 || rc=$?
		rm -f "$OWRT_ROOT/tmp/$pkg.postrm"
	fi
	rm -f "$info/$pkg".*
	_owrt_status_del "$pkg"
	return $rc
}
