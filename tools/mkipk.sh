#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# mkipk.sh <version> <outdir>
#
# Builds <outdir>/luci-app-reterm_<version>_all.ipk without the OpenWrt SDK,
# in the format OpenWrt's ipkg-build produces: a gzip'd tar (not an ar
# archive) holding ./debian-binary, ./control.tar.gz and ./data.tar.gz.
#
#   data     htdocs/* -> /www/*, root/* -> /*  (editor backups, .gitkeep,
#            VCS and node_modules directories left out)
#   control  control (fields from the Makefile), postinst, prerm, postrm,
#            conffiles
#
# Environment:
#   MAKEFILE           Makefile to read LUCI_TITLE, LUCI_DESCRIPTION,
#                      LUCI_DEPENDS, PKG_LICENSE, PKG_MAINTAINER from
#                      (default ./Makefile)
#   SOURCE_DATE_EPOCH  mtime of every archive entry; default: the last git
#                      commit time of the tree, or 0
#   TAR                a GNU tar (default: tar, else gtar)
#
# Reproducible: entries sorted by name, owner/group 0/0, fixed mtime,
# gzip -n; modes 0755 for directories and executables, 0644 otherwise.
# A file is an executable if it is executable in the tree, or if it starts
# with "#!" and lives in etc/init.d, etc/uci-defaults, usr/libexec,
# usr/bin, usr/sbin, bin or sbin.
#
# POSIX sh; also runs under busybox ash.

set -eu

PKG=luci-app-reterm
ARCH=all
CONFFILES="/etc/config/reterm"
# every service we ship: enabled and (re)started on install, stopped on removal
INITSCRIPTS=$(cd root/etc/init.d 2>/dev/null && for f in *; do [ -f "$f" ] && echo "/etc/init.d/$f"; done | sort | tr '\n' ' ')

die() { echo "mkipk: $*" >&2; exit 1; }
warn() { echo "mkipk: warning: $*" >&2; }

[ $# -eq 2 ] || die "usage: $0 <version> <outdir>"
version=$1
outdir=$2
case $version in
''|*[!A-Za-z0-9.+~-]*|[!0-9]*)
	die "bad version '$version' (digits first, then A-Z a-z 0-9 . + ~ -)" ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
makefile=${MAKEFILE:-./Makefile}
[ -f "$makefile" ] || die "no Makefile at '$makefile' (set MAKEFILE)"

# ---- tools ------------------------------------------------------------------
# By absolute path, so that a shell preferring its own applets (busybox ash)
# still runs the same GNU tar and gzip: the output stays byte-identical.
inpath() { # inpath <name>: first executable <name> in $PATH
	_ifs=$IFS; IFS=:
	for _d in $PATH; do
		if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
			IFS=$_ifs; echo "$_d/$1"; return 0
		fi
	done
	IFS=$_ifs; return 1
}
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

# ---- fixed mtime -----------------------------------------------------------
epoch=${SOURCE_DATE_EPOCH:-}
if [ -z "$epoch" ]; then
	epoch=$(git -C "$top" log -1 --format=%ct 2>/dev/null) || epoch=
	[ -n "$epoch" ] || epoch=0
fi
case $epoch in ''|*[!0-9]*) die "SOURCE_DATE_EPOCH must be a number: '$epoch'" ;; esac

# ---- Makefile variables ----------------------------------------------------
# Top-level assignments (NAME := / = / ?= / += / ::= value), continuation
# lines joined, define...endef blocks and recipe lines skipped, conditionals
# ignored (the last assignment wins), $(NAME) references expanded from the
# same file.  Prints the value of variable `want`.
MKVAR_AWK='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function expand(s, depth,    out, i, c, cl, rest, j, name) {
	out = ""
	while ((i = index(s, "$")) > 0) {
		out = out substr(s, 1, i - 1)
		c = substr(s, i + 1, 1)
		if (c == "$") { out = out "$"; s = substr(s, i + 2); continue }
		if (c != "(" && c != "{") {
			out = out (depth < 10 ? expand(vars[c], depth + 1) : "")
			s = substr(s, i + 2); continue
		}
		cl = (c == "(") ? ")" : "}"
		rest = substr(s, i + 2)
		j = index(rest, cl)
		if (j == 0) { out = out substr(s, i); s = ""; break }
		name = substr(rest, 1, j - 1)
		s = substr(rest, j + 1)
		if (name ~ /^[A-Za-z0-9_.-]+$/)
			out = out (depth < 10 ? expand(vars[name], depth + 1) : "")
		else {
			printf "mkipk: warning: cannot expand $%s%s%s\n", c, name, cl > "/dev/stderr"
			out = out "$" c name cl
		}
	}
	return out s
}
{
	line = $0
	while (line ~ /\\$/ && (getline nxt) > 0) {
		sub(/[ \t]*\\$/, "", line); sub(/^[ \t]+/, "", nxt)
		line = line " " nxt
	}
	if (indef) { if (line ~ /^[ \t]*endef([ \t]|$)/) indef = 0; next }
	if (line ~ /^[ \t]*define[ \t]/) { indef = 1; next }
	if (line ~ /^\t/) next
	sub(/^[ \t]*#.*/, "", line)
	sub(/[ \t]+#.*/, "", line)
	eq = index(line, "=")
	if (eq == 0) next
	lhs = substr(line, 1, eq - 1); val = trim(substr(line, eq + 1))
	op = "="
	if (lhs ~ /:::$/) { op = ":="; lhs = substr(lhs, 1, length(lhs) - 3) }
	else if (lhs ~ /::$/) { op = ":="; lhs = substr(lhs, 1, length(lhs) - 2) }
	else if (lhs ~ /[:?+!]$/) { op = substr(lhs, length(lhs)) "="; lhs = substr(lhs, 1, length(lhs) - 1) }
	lhs = trim(lhs)
	sub(/^override[ \t]+/, "", lhs); sub(/^export[ \t]+/, "", lhs)
	if (lhs !~ /^[A-Za-z0-9_.-]+$/) next
	if (op == "+=") vars[lhs] = (lhs in vars && vars[lhs] != "") ? vars[lhs] " " val : val
	else if (op == "?=") { if (!(lhs in vars)) vars[lhs] = val }
	else if (op == "!=") next
	else vars[lhs] = val
}
END { if (want in vars) print trim(expand(vars[want], 0)) }
'
mkvar() { awk -v want="$1" "$MKVAR_AWK" "$makefile"; }

# LUCI_DEPENDS -> opkg Depends: "+foo" -> "foo", "+a|b" / "+(a||b)" ->
# "a | b"; "@CONFIG" conditions and "COND:pkg" conditional deps are dropped
# (they only mean something inside the buildroot).  The buildroot cannot say
# "either of these variants", so a lone member of a group in ALTS gets the
# others added as alternatives, the named one first: "+haproxy-nossl" ->
# "haproxy-nossl | haproxy".
ALTS="haproxy,haproxy-nossl"
DEPS_AWK='
BEGIN {
	ng = split(alts, grp, / +/)
	for (g = 1; g <= ng; g++) {
		nm = split(grp[g], mem, ",")
		for (k = 1; k <= nm; k++) {
			o = ""
			for (q = 1; q <= nm; q++) if (q != k) o = o " | " mem[q]
			others[mem[k]] = o
		}
	}
}
{
	n = split($0, tok, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		t = tok[i]
		if (t == "" || t ~ /^\+?@/) continue
		if (index(t, ":")) {
			printf "mkipk: warning: dropping conditional dependency %s\n", t > "/dev/stderr"
			continue
		}
		gsub(/[()]/, "", t); gsub(/\|\|/, "|", t)
		m = split(t, alt, "|"); s = ""
		for (k = 1; k <= m; k++) {
			a = alt[k]; sub(/^\+/, "", a)
			if (a == "" || a ~ /^@/) continue
			if (a !~ /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/) {
				printf "mkipk: bad package name in LUCI_DEPENDS: %s\n", a > "/dev/stderr"
				bad = 1; continue
			}
			s = s (s == "" ? "" : " | ") a
		}
		if (m == 1 && s in others) s = s others[s]
		if (s != "" && !(s in seen)) { seen[s] = 1; out = out (out == "" ? "" : ", ") s }
	}
}
END { print out; exit bad }
'

title=$(mkvar LUCI_TITLE)
descr=$(mkvar LUCI_DESCRIPTION)
rawdeps=$(mkvar LUCI_DEPENDS)
license=$(mkvar PKG_LICENSE)
licfiles=$(mkvar PKG_LICENSE_FILES)
maintainer=$(mkvar PKG_MAINTAINER)
[ -n "$rawdeps" ] || die "no LUCI_DEPENDS in $makefile"
depends=$(printf '%s\n' "$rawdeps" | awk -v alts="$ALTS" "$DEPS_AWK") || die "bad LUCI_DEPENDS in $makefile"
[ -n "$depends" ] || die "LUCI_DEPENDS in $makefile gives no dependencies"
[ -n "$title" ] || title="LuCI $PKG app"

# ---- staging ---------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/mkipk.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
data=$work/data
ctrl=$work/control
pkgd=$work/pkg
mkdir -p "$data" "$ctrl" "$pkgd"

# is_exec <src> <installed path without leading />
is_exec() {
	[ -x "$1" ] && return 0
	case $2 in
	etc/init.d/*|etc/uci-defaults/*|usr/libexec/*|usr/bin/*|usr/sbin/*|bin/*|sbin/*)
		first=
		IFS= read -r first < "$1" || :
		case $first in '#!'*) return 0 ;; esac ;;
	esac
	return 1
}

# find's list of the tree's files, with what is never packaged pruned
list_tree() {
	(cd "$top" && find "$1" \
		\( -name .git -o -name .svn -o -name CVS -o -name node_modules \) -prune -o \
		\( -type f -o -type l \) \
		! -name '*~' ! -name '.#*' ! -name '#*#' ! -name '*.sw[op]' \
		! -name '*.orig' ! -name '*.rej' ! -name '*.bak' ! -name '*.tmp' \
		! -name .gitkeep ! -name .gitignore ! -name .DS_Store \
		-print)
}

nl='
'
for tree in htdocs root; do
	[ -d "$top/$tree" ] || continue
	list_tree "$tree" > "$work/list"
	while IFS= read -r src; do
		case $src in
		htdocs/*) dest=www/${src#htdocs/} ;;
		root/*) dest=${src#root/} ;;
		*) continue ;;
		esac
		case $dest in *"$nl"*|*\\*) die "unsupported file name: $src" ;; esac
		mkdir -p "$data/$(dirname "$dest")"
		[ ! -e "$data/$dest" ] || die "two sources for /$dest"
		cp -P "$top/$src" "$data/$dest"
		[ -L "$data/$dest" ] && continue
		if is_exec "$top/$src" "$dest"; then
			[ -x "$top/$src" ] || warn "$src starts with #! but is not executable; packaged as 0755"
			chmod 0755 "$data/$dest"
		else
			chmod 0644 "$data/$dest"
		fi
	done < "$work/list"
done
find "$data" -type d -exec chmod 0755 {} \;

tarc() { # tarc <dir>: reproducible tar of <dir>/. on stdout
	(cd "$1" && LC_ALL=C "$TAR" --format=gnu --numeric-owner --owner=0 --group=0 \
		--sort=name --mtime="@$epoch" -cf - .)
}

tarc "$data" > "$work/data.tar"
installed_size=$(wc -c < "$work/data.tar")
installed_size=$((installed_size + 0))
"$GZ" -n -9 < "$work/data.tar" > "$pkgd/data.tar.gz"

# ---- control files ---------------------------------------------------------
{
	echo "Package: $PKG"
	echo "Version: $version"
	echo "Depends: $depends"
	echo "Source: $PKG"
	echo "SourceName: $PKG"
	[ -z "$license" ] || echo "License: $license"
	[ -z "$licfiles" ] || echo "LicenseFiles: $licfiles"
	echo "Section: luci"
	echo "SourceDateEpoch: $epoch"
	[ -z "$maintainer" ] || echo "Maintainer: $maintainer"
	echo "Architecture: $ARCH"
	echo "Installed-Size: $installed_size"
	echo "Description: $title"
	[ -z "$descr" ] || echo " $descr"
} > "$ctrl/control"

: > "$ctrl/conffiles"
for cf in $CONFFILES; do
	if [ -f "$data$cf" ]; then echo "$cf" >> "$ctrl/conffiles"
	else warn "conffile $cf is not in the package"; fi
done
[ -s "$ctrl/conffiles" ] || rm -f "$ctrl/conffiles"

# this package's uci-defaults scripts, run by postinst like luci.mk does
defaults=
if [ -d "$data/etc/uci-defaults" ]; then
	for f in $(cd "$data/etc/uci-defaults" && LC_ALL=C ls -A); do
		case $f in *[!A-Za-z0-9._-]*) die "bad uci-defaults name: $f" ;; esac
		defaults="${defaults:+$defaults }$f"
	done
fi

cat > "$ctrl/postinst" <<EOF
#!/bin/sh
# $PKG postinst (generated by tools/mkipk.sh)
[ "\${IPKG_NO_SCRIPT:-}" = 1 ] && exit 0
if [ -n "\${IPKG_INSTROOT:-}" ]; then
	# image build: uci-defaults run on first boot; only enable the services
	for s in $INITSCRIPTS; do
		if [ -f "\$IPKG_INSTROOT\$s" ] && [ -f "\$IPKG_INSTROOT/etc/rc.common" ]; then
			IPKG_INSTROOT="\$IPKG_INSTROOT" sh "\$IPKG_INSTROOT/etc/rc.common" \\
				"\$IPKG_INSTROOT\$s" enable || :
		fi
	done
	exit 0
fi
for f in $defaults; do
	f=/etc/uci-defaults/\$f
	[ -f "\$f" ] || continue
	( cd /etc/uci-defaults && . "\$f" ) && rm -f "\$f"
done
rm -f /tmp/luci-indexcache*
rm -rf /tmp/luci-modulecache
for s in $INITSCRIPTS; do
	[ -x "\$s" ] || continue
	[ "\${PKG_UPGRADE:-0}" = 1 ] || "\$s" enable || :
	! "\$s" enabled || "\$s" restart || :
done
[ ! -x /etc/init.d/rpcd ] || /etc/init.d/rpcd reload || :
exit 0
EOF

cat > "$ctrl/prerm" <<EOF
#!/bin/sh
# $PKG prerm (generated by tools/mkipk.sh): stop the service so that no
# firewall rules, routes or proxy stay behind, and drop its boot links.
[ "\${IPKG_NO_SCRIPT:-}" = 1 ] && exit 0
if [ -n "\${IPKG_INSTROOT:-}" ]; then
	exit 0
fi
for s in $INITSCRIPTS; do
	[ -x "\$s" ] || continue
	"\$s" stop || :
	"\$s" disable || :
done
exit 0
EOF

cat > "$ctrl/postrm" <<EOF
#!/bin/sh
# $PKG postrm (generated by tools/mkipk.sh): forget the menu and the API.
[ "\${IPKG_NO_SCRIPT:-}" = 1 ] && exit 0
[ -z "\${IPKG_INSTROOT:-}" ] || exit 0
rm -f /tmp/luci-indexcache*
rm -rf /tmp/luci-modulecache
[ ! -x /etc/init.d/rpcd ] || /etc/init.d/rpcd reload || :
exit 0
EOF

chmod 0644 "$ctrl/control"
[ ! -f "$ctrl/conffiles" ] || chmod 0644 "$ctrl/conffiles"
chmod 0755 "$ctrl/postinst" "$ctrl/prerm" "$ctrl/postrm" "$ctrl"
tarc "$ctrl" | "$GZ" -n -9 > "$pkgd/control.tar.gz"

# ---- the .ipk --------------------------------------------------------------
echo "2.0" > "$pkgd/debian-binary"
chmod 0644 "$pkgd/debian-binary" "$pkgd/control.tar.gz" "$pkgd/data.tar.gz"
mkdir -p "$outdir"
ipk=$outdir/${PKG}_${version}_${ARCH}.ipk
(cd "$pkgd" && LC_ALL=C "$TAR" --format=gnu --numeric-owner --owner=0 --group=0 \
	--mtime="@$epoch" -cf - ./debian-binary ./control.tar.gz ./data.tar.gz) |
	"$GZ" -n -9 > "$work/out.ipk"
mv -f "$work/out.ipk" "$ipk"
echo "mkipk: $ipk (Installed-Size $installed_size)"
