# tools/owrt/compile.sh: the C parts, compiled natively (sourced by build.sh).
#
# Three install trees, each a "variant":
#   root        prefix /usr, into $NEW/root: the OpenWrt root of the owrt tier
#               and the lab (binaries run there under chroot, no rpath)
#   host        prefix $DEST/host: the ucode the tests run on this machine
#               (ucode, its modules, uclient, luci's core.so), rpath'd
#   host-24.10  prefix $DEST/host-24.10: the same ucode at OpenWrt 24.10's
#               pin, with the libraries of host
#   root-24.10  prefix /usr, into $NEW/root-24.10: a copy of root with ucode
#               at 24.10's pin and what links libucode rebuilt against it
# The host trees are installed under $NEW/.dest$DEST/... and moved to
# $NEW/... when the build succeeded (build.sh), so their rpath is final.
#
# Needs: SRC (folder of unpacked sources, one per lock name), NEW, DEST,
# HERE (tools/owrt), JOBS, LOG (folder for one log per step).

# variant NAME: set PREFIX DESTDIR SYS (where headers and libraries of the
# variant are found during the build) RPATH
variant() {
	case $1 in
	root) PREFIX=/usr DESTDIR=$NEW/root SYS=$NEW/root/usr RPATH= ;;
	host) PREFIX=$DEST/host DESTDIR=$NEW/.dest SYS=$NEW/.dest$DEST/host RPATH=$DEST/host/lib ;;
	root-24.10) PREFIX=/usr DESTDIR=$NEW/root-24.10 SYS=$NEW/root-24.10/usr RPATH= ;;
	host-24.10) PREFIX=$DEST/host-24.10 DESTDIR=$NEW/.dest SYS=$NEW/.dest$DEST/host-24.10
		RPATH=$DEST/host-24.10/lib:$DEST/host/lib ;;
	*) echo "parts: unknown variant $1" >&2; return 1 ;;
	esac
}

# the flags every part gets; the libraries of "host" serve host-24.10 too,
# and their headers root-24.10 (the root's own are gone by then)
cflags() {
	local inc="-I$SYS/include" lib="-L$SYS/lib -Wl,-rpath-link,$SYS/lib"
	if [ "$1" = host-24.10 ] || [ "$1" = root-24.10 ]; then
		inc="$inc -I$NEW/.dest$DEST/host/include"
		lib="$lib -L$NEW/.dest$DEST/host/lib -Wl,-rpath-link,$NEW/.dest$DEST/host/lib"
	fi
	CFLAGS_ALL="-Os -g0 -Wno-error=deprecated-declarations $inc"
	# uclient, uhttpd and lucihttp call vasprintf: glibc declares it with
	# _GNU_SOURCE only; rpcd and procd call strlcpy (compat.h)
	COMPAT="-D_GNU_SOURCE= -include $HERE/compat.h"
	LDFLAGS_ALL=$lib
}

# step NAME CMD...: run CMD with its output in $LOG/NAME.log; on failure
# show the log's end and fail
step() {
	local name=$1
	shift
	if ! "$@" >"$LOG/$name.log" 2>&1; then
		echo "parts: building $name failed; the end of $LOG/$name.log:" >&2
		tail -n 25 "$LOG/$name.log" >&2
		return 1
	fi
}

# cm PART VARIANT [CMAKE ARGS...]: configure, build and install one CMake
# part for a variant; extra C flags in $XCFLAGS; INSRC=1 builds in a copy
# of the sources (jsonpath runs its parser generator from the build folder)
cm() {
	local part=$1 var=$2 b s
	shift 2
	variant "$var" || return 1
	cflags "$var"
	b=$WORK/build/$part-$var
	s=$SRC/$part
	rm -rf "$b"
	if [ "${INSRC:-}" = 1 ]; then
		cp -a "$SRC/$part" "$b"
		s=$b
	fi
	mkdir -p "$b"
	local prefixes=$SYS
	case $var in host-24.10|root-24.10) prefixes="$SYS;$NEW/.dest$DEST/host" ;; esac
	# (DESTDIR is never empty: an install without it would land in /usr)
	step "$part-$var" sh -c '
		b=$1 s=$2 jobs=$3 dest=$4; shift 4
		[ -n "$dest" ] || exit 1
		cmake -S "$s" -B "$b" "$@" && cmake --build "$b" -j "$jobs" &&
			DESTDIR="$dest" cmake --install "$b"' sh "$b" "$s" "$JOBS" "$DESTDIR" \
		-DCMAKE_BUILD_TYPE=None \
		-DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
		-DCMAKE_PREFIX_PATH="$prefixes" \
		-DCMAKE_C_FLAGS="$CFLAGS_ALL ${XCFLAGS:-}" \
		-DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS_ALL" \
		-DCMAKE_SHARED_LINKER_FLAGS="$LDFLAGS_ALL" \
		-DCMAKE_MODULE_LINKER_FLAGS="$LDFLAGS_ALL" \
		-DCMAKE_INSTALL_RPATH="$RPATH" \
		-DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
		"$@"
}

# the libraries everything links: libubox (+ jshn), uci, ubus
build_libs() {
	local v=$1
	cm libubox "$v" -DBUILD_LUA=OFF -DBUILD_EXAMPLES=OFF &&
		cm uci "$v" -DBUILD_LUA=OFF &&
		cm ubus "$v" -DBUILD_LUA=OFF -DBUILD_EXAMPLES=OFF &&
		cm ustream-ssl "$v" -DMBEDTLS=ON
}

# ucode of a lock entry (ucode or ucode-24.10) with the modules OpenWrt
# builds (no nl80211/rtnl: they need libnl-tiny, and nothing here uses them)
#
# OpenWrt links ucode with musl, whose getopt() stops at the first
# argument that is not an option: `ucode -L dir script --dir up` hands
# `--dir up` to the script.  glibc's getopt() reorders the arguments
# instead, and 24.10's main.c (unlike master's, which asks for POSIX
# order) would then read `--dir` as its own: the 24.10 host build calls
# glibc's POSIX-order getopt, __posix_getopt, as musl would behave.
build_ucode() {
	local part=$1 v=$2 x=
	[ "$part" = ucode-24.10 ] && x=-Dgetopt=__posix_getopt
	XCFLAGS=$x cm "$part" "$v" -DUBUS_SUPPORT=ON -DUCI_SUPPORT=ON -DULOOP_SUPPORT=ON \
		-DRTNL_SUPPORT=OFF -DNL80211_SUPPORT=OFF -DDIGEST_SUPPORT=OFF \
		-DDEBUG_SUPPORT=ON -DZLIB_SUPPORT=ON -DSOCKET_SUPPORT=ON
}

# uclient (library, uclient-fetch, the ucode module) against a variant's ucode
build_uclient() {
	XCFLAGS=$COMPAT cm uclient "$1" -DBUILD_UCODE=ON
}

# luci-base's C parts: luci/core.so (lmo catalogues, crypt) and po2lmo
# (kept in $NEW/tools), with its Makefile; ucode-mod-html
build_luci_c() {
	local v=$1 s
	s=$WORK/build/luci-base-$v
	variant "$v" || return 1
	cflags "$v"
	rm -rf "$s"
	cp -a "$SRC/luci/modules/luci-base/src" "$s"
	step "luci-base-c-$v" make -C "$s" core.so po2lmo version.uc \
		CC="cc" CFLAGS="$CFLAGS_ALL" FPIC=-fPIC LDFLAGS="$LDFLAGS_ALL" \
		LUCI_VERSION=lock LUCI_GITBRANCH=lock || return 1
	mkdir -p "$DESTDIR$PREFIX/lib/ucode/luci" "$DESTDIR$PREFIX/lib/ucode"
	cp "$s/core.so" "$DESTDIR$PREFIX/lib/ucode/luci/core.so"
	step "ucode-mod-html-$v" cc $CFLAGS_ALL -fPIC -Wall -shared \
		-o "$DESTDIR$PREFIX/lib/ucode/html.so" \
		"$SRC/luci/contrib/package/ucode-mod-html/src/html.c" $LDFLAGS_ALL || return 1
	if [ "$v" = root ]; then
		mkdir -p "$NEW/root/usr/share/ucode/luci" "$NEW/tools"
		cp "$s/version.uc" "$NEW/root/usr/share/ucode/luci/version.uc"
		cp "$s/po2lmo" "$NEW/tools/po2lmo"
	fi
}

# the daemons of the root: rpcd (+ its file, rpcsys and ucode plugins),
# uhttpd (ubus and ucode handlers), jsonfilter, lucihttp, rpcd-mod-luci,
# procd (udebug's ubus hook from shim/udebug.h)
build_daemons() {
	cflags root
	variant root
	INSRC=1 cm jsonpath root &&
		build_ucode_users root &&
		build_rpcd_mod_luci &&
		XCFLAGS="-include $HERE/compat.h -I$HERE/shim -Wno-error=format-overflow" cm procd root -DJAIL_SUPPORT=OFF -DSECCOMP_SUPPORT=OFF \
			-DUTRACE_SUPPORT=OFF -Dudebug_include_dir="$HERE/shim" -Dudebug="$SYS/lib/libubox.so"
}

# the daemons that link libucode: rpcd (its ucode plugin), uhttpd (its
# ucode handler), lucihttp (its ucode module)
build_ucode_users() {
	XCFLAGS=$COMPAT cm rpcd "$1" -DIWINFO_SUPPORT=OFF -DFILE_SUPPORT=ON -DRPCSYS_SUPPORT=ON -DUCODE_SUPPORT=ON &&
		XCFLAGS="$COMPAT -Wno-error=stringop-overread -Wno-error=format-truncation" \
			cm uhttpd "$1" -DLUA_SUPPORT=OFF -DTLS_SUPPORT=ON -DUBUS_SUPPORT=ON -DUCODE_SUPPORT=ON &&
		XCFLAGS=$COMPAT cm lucihttp "$1" -DBUILD_LUA=OFF -DBUILD_UCODE=ON -DBUILD_TESTS=OFF
}

# root-24.10: the finished root (first boot done) copied, then ucode at
# 24.10's pin installed over master's, and every part that links libucode
# rebuilt against it, so that rpcd, uhttpd and LuCI run on 24.10's ucode
# as on a 24.10 router.  Master's ucode modules are removed first: one
# that 24.10's ucode does not have (io) is then missing there, as on a
# 24.10 router.
build_root_2410() {
	local r=$NEW/root-24.10
	rm -rf "$r"
	cp -a "$NEW/root" "$r"
	rm -f "$r/usr/lib/libucode.so"* "$r/usr/bin/ucode"
	find "$r/usr/lib/ucode" -name '*.so' -delete
	build_ucode ucode-24.10 root-24.10 && build_uclient root-24.10 &&
		build_luci_c root-24.10 && build_ucode_users root-24.10 || return 1
	rm -rf "$r/usr/include" "$r/usr/lib/pkgconfig" "$r/usr/share/cmake" "$r/usr/lib/"*.a
}

# rpcd-mod-luci: its CMakeLists wants a newer cmake and libnl-tiny; the one
# file with Debian's libnl-3 and iwinfo's header
build_rpcd_mod_luci() {
	variant root
	cflags root
	mkdir -p "$NEW/root/usr/lib/rpcd"
	# shellcheck disable=SC2046
	step rpcd-mod-luci cc $CFLAGS_ALL -fPIC -Wall -shared \
		-I"$SRC/iwinfo/include" -I"$SRC/rpcd/include" $(pkg-config --cflags libnl-3.0) \
		-o "$NEW/root/usr/lib/rpcd/luci.so" "$SRC/luci/libs/rpcd-mod-luci/src/luci.c" \
		$LDFLAGS_ALL -lubox -lubus -luci -ldl $(pkg-config --libs libnl-3.0)
}

# apk-tools 3 (meson), for `make apk` and the pkg tier: $DEST/host/bin/apk
build_apk() {
	local b=$WORK/build/apk-tools
	rm -rf "$b"
	step apk-tools sh -c '
		meson setup "$1" "$2" --prefix="$3" -Dlua=disabled -Ddocs=disabled \
			-Dhelp=disabled -Dtests=disabled -Dcrypto_backend=openssl \
			-Ddefault_library=static >/dev/null &&
			ninja -C "$1" src/apk' sh "$b" "$SRC/apk-tools" "$DEST/host" || return 1
	mkdir -p "$NEW/.dest$DEST/host/bin"
	cp "$b/src/apk" "$NEW/.dest$DEST/host/bin/apk"
}
