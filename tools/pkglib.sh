# SPDX-License-Identifier: Apache-2.0
#
# pkglib.sh: what tools/mkipk.sh and tools/mkapk.sh share, sourced by them
# (POSIX sh; also busybox ash). The caller sets PROG (message prefix) and
# may set MAKEFILE; pkg_init <version> then sets version and:
#
#   top          the tree (the directory above tools/)
#   epoch        SOURCE_DATE_EPOCH, else the last commit time of the tree, else 0
#   title descr license licfiles maintainer
#   depends      opkg form: "a, b | c, d" (alternatives kept)
#   langs        the languages of po/ (each has a name, node is there)
#   work         a scratch directory, removed on exit; packages go to $work/out
#
# and offers:
#   stage_app DIR            the app's files as installed (htdocs -> /www,
#                            root -> /), modes 0755/0644
#   i18n_langs               the languages with po/<lang>/*.po, one a line
#   stage_i18n DIR LANG      /usr/lib/lua/luci/i18n/<name>.<lang>.lmo for every
#                            po/<lang>/<name>.po (tools/po2lmo.mjs, node) and
#                            the uci-defaults script that registers LANG
#   app_scripts DIR DATA     postinst, prerm, postrm of the app staged in DATA
#   i18n_postinst DIR LANG   postinst of the translation package
#   publish OUTDIR           move the packages built in $work/out to OUTDIR
#                            (all or, on an error before, none)
#
# Packages as luci.mk makes them: luci-app-reterm, and for each language
# luci-i18n-reterm-<lang> (Depends: luci-app-reterm) with
# /usr/lib/lua/luci/i18n/reterm.<lang>.lmo and
# /etc/uci-defaults/luci-i18n-reterm-<lang>, which adds the language to
# luci.languages.

PKG=luci-app-reterm
I18N_BASE=luci-i18n-reterm
ARCH=all
CONFFILES="/etc/config/reterm"
# luci.mk's names (LUCI_LANG.<lang>) of the languages we ship
lang_name() {
	case $1 in
	de) echo 'Deutsch (German)' ;;
	*) return 1 ;;
	esac
}

die() { echo "$PROG: $*" >&2; exit 1; }
warn() { echo "$PROG: warning: $*" >&2; }

inpath() { # inpath <name>: first executable <name> in $PATH
	_ifs=$IFS; IFS=:
	for _d in $PATH; do
		if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
			IFS=$_ifs; echo "$_d/$1"; return 0
		fi
	done
	IFS=$_ifs; return 1
}

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
			printf "%s: warning: cannot expand $%s%s%s\n", prog, c, name, cl > "/dev/stderr"
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
mkvar() { awk -v want="$1" -v prog="$PROG" "$MKVAR_AWK" "$makefile"; }

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
			printf "%s: warning: dropping conditional dependency %s\n", prog, t > "/dev/stderr"
			continue
		}
		gsub(/[()]/, "", t); gsub(/\|\|/, "|", t)
		m = split(t, alt, "|"); s = ""
		for (k = 1; k <= m; k++) {
			a = alt[k]; sub(/^\+/, "", a)
			if (a == "" || a ~ /^@/) continue
			if (a !~ /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/) {
				printf "%s: bad package name in LUCI_DEPENDS: %s\n", prog, a > "/dev/stderr"
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

# pkg_init <version>: metadata, epoch, scratch dir
pkg_init() {
	version=$1
	top=$(cd "$(dirname "$0")/.." && pwd)
	makefile=${MAKEFILE:-./Makefile}
	[ -f "$makefile" ] || die "no Makefile at '$makefile' (set MAKEFILE)"

	epoch=${SOURCE_DATE_EPOCH:-}
	if [ -z "$epoch" ]; then
		epoch=$(git -C "$top" log -1 --format=%ct 2>/dev/null) || epoch=
		[ -n "$epoch" ] || epoch=0
	fi
	case $epoch in ''|*[!0-9]*) die "SOURCE_DATE_EPOCH must be a number: '$epoch'" ;; esac

	title=$(mkvar LUCI_TITLE)
	descr=$(mkvar LUCI_DESCRIPTION)
	rawdeps=$(mkvar LUCI_DEPENDS)
	license=$(mkvar PKG_LICENSE)
	licfiles=$(mkvar PKG_LICENSE_FILES)
	maintainer=$(mkvar PKG_MAINTAINER)
	[ -n "$rawdeps" ] || die "no LUCI_DEPENDS in $makefile"
	depends=$(printf '%s\n' "$rawdeps" | awk -v alts="$ALTS" -v prog="$PROG" "$DEPS_AWK") ||
		die "bad LUCI_DEPENDS in $makefile"
	[ -n "$depends" ] || die "LUCI_DEPENDS in $makefile gives no dependencies"
	# the oldest ucode (LUCI_EXTRA_DEPENDS in the SDK): "ucode (>=MIN)" in
	# opkg's form; tools/mkapk.sh writes apk's "ucode>=MIN"
	ucode_min=$(mkvar RETERM_UCODE_MIN)
	if [ -n "$ucode_min" ]; then
		printf '%s\n' "$ucode_min" | grep -Eqx '[0-9]+(\.[0-9]+)*(~[0-9a-f]+)?' ||
			die "bad RETERM_UCODE_MIN in $makefile: '$ucode_min'"
		depends=$(printf '%s\n' "$depends" | sed -E "s/(^|, )ucode(,|\$)/\1ucode (>=$ucode_min)\2/")
	fi
	[ -n "$title" ] || title="LuCI $PKG app"

	# translations: every language named, node there, before anything is built
	langs=$(i18n_langs)
	for l in $langs; do
		case $l in *[!A-Za-z_]*) die "bad language directory po/$l" ;; esac
		lang_name "$l" > /dev/null ||
			die "po/$l: no language name for '$l' (add it to lang_name in tools/pkglib.sh)"
	done
	if [ -n "$langs" ]; then
		NODE=${NODE:-$(inpath node)} && [ -x "$NODE" ] ||
			die "node needed to compile the translations in po/ (tools/po2lmo.mjs)"
	fi

	work=$(mktemp -d "${TMPDIR:-/tmp}/$PROG.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$work/out"
	# every service we ship: enabled and (re)started on install, stopped on removal
	INITSCRIPTS=$(cd "$top/root/etc/init.d" 2>/dev/null && for f in *; do [ -f "$f" ] && echo "/etc/init.d/$f"; done | sort | tr '\n' ' ')
}

# ---- the app's files ---------------------------------------------------------
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

stage_app() {
	_data=$1
	_nl='
'
	mkdir -p "$_data"
	for tree in htdocs root; do
		[ -d "$top/$tree" ] || continue
		list_tree "$tree" > "$work/list"
		while IFS= read -r src; do
			case $src in
			htdocs/*) dest=www/${src#htdocs/} ;;
			root/*) dest=${src#root/} ;;
			*) continue ;;
			esac
			case $dest in *"$_nl"*|*\\*) die "unsupported file name: $src" ;; esac
			mkdir -p "$_data/$(dirname "$dest")"
			[ ! -e "$_data/$dest" ] || die "two sources for /$dest"
			cp -P "$top/$src" "$_data/$dest"
			[ -L "$_data/$dest" ] && continue
			if is_exec "$top/$src" "$dest"; then
				[ -x "$top/$src" ] || warn "$src starts with #! but is not executable; packaged as 0755"
				chmod 0755 "$_data/$dest"
			else
				chmod 0644 "$_data/$dest"
			fi
		done < "$work/list"
	done
	find "$_data" -type d -exec chmod 0755 {} \;
}

# ---- translations ----------------------------------------------------------
i18n_langs() {
	for d in "$top"/po/*/; do
		l=$(basename "$d")
		[ "$l" != templates ] || continue
		ls "$d"*.po > /dev/null 2>&1 || continue
		echo "$l"
	done
}

stage_i18n() {
	_data=$1 _lang=$2
	_name=$(lang_name "$_lang")
	mkdir -p "$_data/usr/lib/lua/luci/i18n" "$_data/etc/uci-defaults"
	for po in "$top/po/$_lang"/*.po; do
		"$NODE" "$top/tools/po2lmo.mjs" "$po" \
			"$_data/usr/lib/lua/luci/i18n/$(basename "$po" .po).$_lang.lmo" || die "cannot compile $po"
	done
	# luci.mk's: the language appears in LuCI's language choice
	echo "uci set luci.languages.$_lang='$_name'; uci commit luci" > "$_data/etc/uci-defaults/$I18N_BASE-$_lang"
	find "$_data" -type d -exec chmod 0755 {} \;
	find "$_data" -type f -exec chmod 0644 {} \;
}

# ---- maintainer scripts --------------------------------------------------------
app_scripts() {
	_d=$1
	# this package's uci-defaults scripts, run by postinst like luci.mk does
	_defaults=
	if [ -d "$2/etc/uci-defaults" ]; then
		for f in $(cd "$2/etc/uci-defaults" && LC_ALL=C ls -A); do
			case $f in *[!A-Za-z0-9._-]*) die "bad uci-defaults name: $f" ;; esac
			_defaults="${_defaults:+$_defaults }$f"
		done
	fi
	cat > "$_d/postinst" <<EOF
#!/bin/sh
# $PKG postinst (generated by tools/$PROG.sh)
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
for f in $_defaults; do
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

	cat > "$_d/prerm" <<EOF
#!/bin/sh
# $PKG prerm (generated by tools/$PROG.sh): stop the service so that no
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

	cat > "$_d/postrm" <<EOF
#!/bin/sh
# $PKG postrm (generated by tools/$PROG.sh): forget the menu and the API.
[ "\${IPKG_NO_SCRIPT:-}" = 1 ] && exit 0
[ -z "\${IPKG_INSTROOT:-}" ] || exit 0
rm -f /tmp/luci-indexcache*
rm -rf /tmp/luci-modulecache
[ ! -x /etc/init.d/rpcd ] || /etc/init.d/rpcd reload || :
exit 0
EOF
	chmod 0755 "$_d/postinst" "$_d/prerm" "$_d/postrm"
}

i18n_postinst() {
	cat > "$1/postinst" <<EOF
#!/bin/sh
# $I18N_BASE-$2 postinst (generated by tools/$PROG.sh): LuCI lists the
# language (on an image, uci-defaults do it on first boot).
[ "\${IPKG_NO_SCRIPT:-}" = 1 ] && exit 0
[ -z "\${IPKG_INSTROOT:-}" ] || exit 0
f=/etc/uci-defaults/$I18N_BASE-$2
[ ! -f "\$f" ] || { ( cd /etc/uci-defaults && . "\$f" ) && rm -f "\$f"; }
rm -f /tmp/luci-indexcache*
rm -rf /tmp/luci-modulecache
exit 0
EOF
	chmod 0755 "$1/postinst"
}

publish() {
	mkdir -p "$1"
	for _f in "$work/out"/*; do
		mv -f "$_f" "$1/" || die "cannot write $1/$(basename "$_f")"
		echo "$PROG: $1/$(basename "$_f")"
	done
}
