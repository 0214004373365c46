#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# mkipk.sh <version> <outdir>
#
# Builds, without the OpenWrt SDK, for OpenWrt 23.05 and 24.10 (opkg):
#   <outdir>/luci-app-reterm_<version>_all.ipk
#   <outdir>/luci-i18n-reterm-<lang>_<version>_all.ipk  for every po/<lang>/
# in the format OpenWrt's ipkg-build produces: a gzip'd tar (not an ar
# archive) holding ./debian-binary, ./control.tar.gz and ./data.tar.gz.
#
#   app data     htdocs/* -> /www/*, root/* -> /*  (editor backups, .gitkeep,
#                VCS and node_modules directories left out)
#   app control  control (fields from the Makefile), postinst, prerm, postrm,
#                conffiles
#   i18n         /usr/lib/lua/luci/i18n/reterm.<lang>.lmo (tools/po2lmo.mjs)
#                and /etc/uci-defaults/luci-i18n-reterm-<lang>; Depends:
#                luci-app-reterm; postinst runs the uci-defaults script
#
# Environment:
#   MAKEFILE           Makefile to read LUCI_TITLE, LUCI_DESCRIPTION,
#                      LUCI_DEPENDS, PKG_LICENSE, PKG_MAINTAINER from
#                      (default ./Makefile)
#   SOURCE_DATE_EPOCH  mtime of every archive entry; default: the last git
#                      commit time of the tree, or 0
#   TAR                a GNU tar (default: tar, else gtar)
#   NODE               node, to compile the translations (default: node)
#
# Reproducible: entries sorted by name, owner/group 0/0, fixed mtime,
# gzip -n; modes 0755 for directories and executables, 0644 otherwise.
# A file is an executable if it is executable in the tree, or if it starts
# with "#!" and lives in etc/init.d, etc/uci-defaults, usr/libexec,
# usr/bin, usr/sbin, bin or sbin.
#
# POSIX sh; also runs under busybox ash.

set -eu
PROG=mkipk
. "$(dirname "$0")/pkglib.sh"

[ $# -eq 2 ] || die "usage: $0 <version> <outdir>"
case $1 in
''|*[!A-Za-z0-9.+~-]*|[!0-9]*)
	die "bad version '$1' (digits first, then A-Z a-z 0-9 . + ~ -)" ;;
esac
outdir=$2

# ---- tools ------------------------------------------------------------------
# By absolute path, so that a shell preferring its own applets (busybox ash)
# still runs the same GNU tar and gzip: the output stays byte-identical.
if [ -z "${TAR:-}" ]; then
	for t in tar gtar; do
		TAR=$(inpath $t) || continue
		"$TAR" --version 2>/dev/null | grep -q 'GNU tar' && break
		TAR=
	done
fi
[ -n "${TAR:-}" ] && "$TAR" --version 2>/dev/null | grep -q 'GNU tar' ||
	die "GNU tar needed (set TAR)"
GZ=$(inpath gzip) || die "gzip needed"

pkg_init "$1"

tarc() { # tarc <dir>: reproducible tar of <dir>/. on stdout
	(cd "$1" && LC_ALL=C "$TAR" --format=gnu --numeric-owner --owner=0 --group=0 \
		--sort=name --mtime="@$epoch" -cf - .)
}

# ipk <name> <dir>: <dir>/data and <dir>/control (control fields up to
# Architecture in <dir>/fields, the description in <dir>/descr) ->
# $work/out/<name>_<version>_all.ipk
ipk() {
	_n=$1 _w=$2
	tarc "$_w/data" > "$_w/data.tar"
	_size=$(wc -c < "$_w/data.tar")
	_size=$((_size + 0))
	mkdir -p "$_w/pkg"
	"$GZ" -n -9 < "$_w/data.tar" > "$_w/pkg/data.tar.gz"
	{
		cat "$_w/fields"
		echo "Installed-Size: $_size"
		cat "$_w/descr"
	} > "$_w/control/control"
	chmod 0644 "$_w/control/control"
	[ ! -f "$_w/control/conffiles" ] || chmod 0644 "$_w/control/conffiles"
	chmod 0755 "$_w/control"
	tarc "$_w/control" | "$GZ" -n -9 > "$_w/pkg/control.tar.gz"
	echo "2.0" > "$_w/pkg/debian-binary"
	chmod 0644 "$_w/pkg/debian-binary" "$_w/pkg/control.tar.gz" "$_w/pkg/data.tar.gz"
	(cd "$_w/pkg" && LC_ALL=C "$TAR" --format=gnu --numeric-owner --owner=0 --group=0 \
		--mtime="@$epoch" -cf - ./debian-binary ./control.tar.gz ./data.tar.gz) |
		"$GZ" -n -9 > "$work/out/${_n}_${version}_${ARCH}.ipk"
}

# fields <name> <depends>: the control fields before Installed-Size
fields() {
	echo "Package: $1"
	echo "Version: $version"
	echo "Depends: $2"
	echo "Source: $PKG"
	echo "SourceName: $PKG"
	[ -z "$license" ] || echo "License: $license"
	[ -z "$licfiles" ] || echo "LicenseFiles: $licfiles"
	echo "Section: luci"
	echo "SourceDateEpoch: $epoch"
	[ -z "$maintainer" ] || echo "Maintainer: $maintainer"
	echo "Architecture: $ARCH"
}

# ---- the app -------------------------------------------------------------------
w=$work/app
mkdir -p "$w/control"
stage_app "$w/data"
fields "$PKG" "$depends" > "$w/fields"
{
	echo "Description: $title"
	[ -z "$descr" ] || echo " $descr"
} > "$w/descr"
: > "$w/control/conffiles"
for cf in $CONFFILES; do
	if [ -f "$w/data$cf" ]; then echo "$cf" >> "$w/control/conffiles"
	else warn "conffile $cf is not in the package"; fi
done
[ -s "$w/control/conffiles" ] || rm -f "$w/control/conffiles"
app_scripts "$w/control" "$w/data"
ipk "$PKG" "$w"

# ---- one translation package per language ------------------------------------
for lang in $langs; do
	w=$work/i18n-$lang
	mkdir -p "$w/control"
	stage_i18n "$w/data" "$lang"
	fields "$I18N_BASE-$lang" "$PKG" > "$w/fields"
	printf 'Description: %s - %s translation\n Translation for %s - %s\n' \
		"$PKG" "$lang" "$PKG" "$(lang_name "$lang")" > "$w/descr"
	i18n_postinst "$w/control" "$lang"
	ipk "$I18N_BASE-$lang" "$w"
done

publish "$outdir"
