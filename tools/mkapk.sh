#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# mkapk.sh <version> <outdir>
#
# Builds, without the OpenWrt SDK, for OpenWrt 25.12 and later (apk):
#   <outdir>/luci-app-reterm-<version>.apk
#   <outdir>/luci-i18n-reterm-<lang>-<version>.apk  for every po/<lang>/
# with apk-tools 3 (`apk mkpkg`), laid out as OpenWrt's package-pack.mk
# makes its .apk: the files as in the .ipk (tools/pkglib.sh) plus
# /lib/apk/packages/<name>.list (the package's files, which OpenWrt's
# default_postinst reads) and, for the app, <name>.conffiles and
# <name>.conffiles_static (path and sha256). Scripts: post-install (the
# .ipk's postinst), post-upgrade (the same with PKG_UPGRADE=1),
# pre-deinstall (prerm) and post-deinstall (postrm); the translation has
# post-install and post-upgrade only. arch noarch; depends from
# LUCI_DEPENDS (apk has no "a | b": the first alternative, the one the
# Makefile names, as the SDK build depends on it).
#
# <version> is an apk version, e.g. 0.1.0-r1 (`make apk` passes
# RETERM_VERSION-r1, as luci.mk's PKG_VERSION-rPKG_RELEASE).
#
# Environment: MAKEFILE, SOURCE_DATE_EPOCH, NODE as for tools/mkipk.sh;
# APK: apk-tools 3's apk (default: apk on $PATH, else the one
# tools/owrt/build.sh builds, $RETERM_OWRT/host/bin/apk). Without apk-tools 3 it
# says so and exits 1. File owners are recorded: run as root, else it
# runs itself under fakeroot.

set -eu
PROG=mkapk
. "$(dirname "$0")/pkglib.sh"

[ $# -eq 2 ] || die "usage: $0 <version> <outdir>"
APK=${APK:-$(inpath apk || { a=${RETERM_OWRT:-/opt/owrt}/host/bin/apk; [ -x "$a" ] && echo "$a"; })} || APK=
if [ -z "$APK" ] || ! "$APK" --version 2>/dev/null | grep -q '^apk-tools 3\.'; then
	echo "$PROG: apk-tools 3 is needed to build .apk packages (apk mkpkg); found ${APK:+"$("$APK" --version 2>/dev/null | head -n 1) at "}${APK:-no apk on PATH}." >&2
	echo "$PROG: Debian 12 has no package for it: tools/owrt/build.sh builds it from the pinned source into \$RETERM_OWRT/host/bin/apk (or put apk-tools 3 on PATH, or set APK)." >&2
	exit 1
fi
"$APK" version --check "$1" > /dev/null 2>&1 || die "bad version '$1' (an apk version such as 0.1.0-r1)"
if [ "$(id -u)" != 0 ]; then
	FAKEROOT=$(inpath fakeroot) || die "run as root or install fakeroot: the package records its files' owner (root)"
	exec "$FAKEROOT" -- sh "$0" "$@"
fi
outdir=$2
pkg_init "$1"
export SOURCE_DATE_EPOCH="$epoch"	# apk mkpkg: every file's mtime

# apk depends: "a, b | c, ucode (>=V)" -> "a b ucode>=V"
apkdeps=$(printf '%s\n' "$depends" | tr ',' '\n' | sed -e 's/|.*//' -e 's/ (>=\([^)]*\))/>=\1/' \
	-e 's/^ *//' -e 's/ *$//' | tr '\n' ' ' | sed 's/ *$//')

# index <dir> <name>: lib/apk/packages/<name>.list of the files staged so far
index() {
	mkdir -p "$1/lib/apk/packages"
	(cd "$1" && find . \( -type f -o -type l \) ! -path ./lib/apk/packages/"$2".list | sed 's|^\.||' | LC_ALL=C sort) \
		> "$work/list"
	mv "$work/list" "$1/lib/apk/packages/$2.list"
	chmod 0755 "$1/lib" "$1/lib/apk" "$1/lib/apk/packages"
	chmod 0644 "$1/lib/apk/packages/$2.list"
}

# mkpkg <name> <dir> <description> <depends> <script type:file>...
mkpkg() {
	_n=$1 _d=$2 _desc=$3 _deps=$4
	shift 4
	_args=
	for _s in "$@"; do _args="$_args --script $_s"; done
	# shellcheck disable=SC2086 # _args: "--script type:path" words without spaces
	"$APK" mkpkg \
		--info "name:$_n" --info "version:$version" --info "description:$_desc" \
		--info "arch:noarch" --info "license:$license" --info "origin:$PKG" \
		--info "maintainer:$maintainer" --info "depends:$_deps" \
		$_args --files "$_d" --output "$work/out/$_n-$version.apk" ||
		die "apk mkpkg failed for $_n"
}

# upgrade <script> <out>: the post-install script run as an upgrade
upgrade() {
	{ echo '#!/bin/sh'; echo 'export PKG_UPGRADE=1'; sed '1{/^#!/d}' "$1"; } > "$2"
	chmod 0755 "$2"
}

case $work in *[[:space:]]*) die "the scratch directory '$work' has a space (set TMPDIR)" ;; esac

# ---- the app -------------------------------------------------------------------
w=$work/app
mkdir -p "$w/scripts"
stage_app "$w/data"
index "$w/data" "$PKG"
: > "$w/data/lib/apk/packages/$PKG.conffiles"
: > "$w/data/lib/apk/packages/$PKG.conffiles_static"
for cf in $CONFFILES; do
	[ -f "$w/data$cf" ] || { warn "conffile $cf is not in the package"; continue; }
	echo "$cf" >> "$w/data/lib/apk/packages/$PKG.conffiles"
	echo "$cf $(sha256sum < "$w/data$cf" | cut -d' ' -f1)" >> "$w/data/lib/apk/packages/$PKG.conffiles_static"
done
chmod 0644 "$w/data/lib/apk/packages/$PKG".conffiles*
app_scripts "$w/scripts" "$w/data"
upgrade "$w/scripts/postinst" "$w/scripts/post-upgrade"
mkpkg "$PKG" "$w/data" "${descr:-$title}" "$apkdeps" \
	"post-install:$w/scripts/postinst" "post-upgrade:$w/scripts/post-upgrade" \
	"pre-deinstall:$w/scripts/prerm" "post-deinstall:$w/scripts/postrm"

# ---- one translation package per language ------------------------------------
for lang in $langs; do
	w=$work/i18n-$lang
	mkdir -p "$w/scripts"
	stage_i18n "$w/data" "$lang"
	index "$w/data" "$I18N_BASE-$lang"
	i18n_postinst "$w/scripts" "$lang"
	upgrade "$w/scripts/postinst" "$w/scripts/post-upgrade"
	mkpkg "$I18N_BASE-$lang" "$w/data" "Translation for $PKG - $(lang_name "$lang")" "$PKG" \
		"post-install:$w/scripts/postinst" "post-upgrade:$w/scripts/post-upgrade"
done

publish "$outdir"
