#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The pkg tier (tests/run.sh runs this file). Checks the .ipk made by
# tools/mkipk.sh.  Builds from a temporary copy of the tree (htdocs/ root/
# tools/ po/) to which placeholder and junk files are added, unpacks with
# plain tar/gzip (and busybox tar when present), and checks the layout,
# control fields, maintainer scripts, modes, ownership and
# reproducibility.  Then runs the tier's other parts:
#
#   tests/pkg/i18n_test.sh   the translation .ipk (luci-i18n-reterm-<lang>)
#   tests/pkg/lmo_test.mjs   our .lmo writer read back, also by LuCI's loader
#   tests/pkg/apk_test.sh    the .apk of tools/mkapk.sh, installed with
#                            apk-tools 3 (skipped without it)
#
# Prints "ok - ..." / "not ok - ..." / "skip - ..." lines and ends with
# "pkg: N passed, N failed, N skipped"; exit status 1 on any failure.
#
# Uses the repo's Makefile when it has LUCI_DEPENDS, otherwise a scratch
# Makefile; the Depends translation is also checked on a scratch Makefile.

set -u
export LC_ALL=C TZ=UTC
HERE=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$HERE/../.." && pwd)
PKG=luci-app-reterm
. "$HERE/lib.sh"

finish() {
	part bash "$HERE/i18n_test.sh"
	if command -v node > /dev/null; then part node "$HERE/lmo_test.mjs"
	else skip "lmo/all" "node not found"; fi
	part bash "$HERE/apk_test.sh"
	summary pkg
	exit
}

T=$(mktemp -d "${TMPDIR:-/tmp}/ipk_test.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset SOURCE_DATE_EPOCH MAKEFILE TAR

# ---- Makefiles -------------------------------------------------------------
cat > "$T/Makefile.scratch" <<'EOF'
include $(TOPDIR)/rules.mk
RETERM_VERSION := 0.1.0
LUCI_TITLE:=Re-terminate TCP of slow-window LAN clients
LUCI_DESCRIPTION:=Terminates the TCP connections of selected LAN devices \
	in a local transparent haproxy ($(RETERM_VERSION))
LUCI_DEPENDS:=+luci-base +ucode +ucode-mod-fs +ucode-mod-uci \
	+ucode-mod-ubus +ucode-mod-uloop +haproxy-nossl +foo|+bar \
	+@KERNEL_SOMETHING +PACKAGE_foo:bar +(sqm-scripts||sqm-lite)
LUCI_DEPENDS += +kmod-nft-tproxy +luci-base
PKG_LICENSE:=Apache-2.0
PKG_MAINTAINER:=Reterm Developers <dev@example.org>
define Package/luci-app-reterm/conffiles
LUCI_DEPENDS:=+not-this
endef
include ../../luci.mk
EOF
want_deps='luci-base, ucode, ucode-mod-fs, ucode-mod-uci, ucode-mod-ubus, ucode-mod-uloop, haproxy-nossl | haproxy, foo | bar, sqm-scripts | sqm-lite, kmod-nft-tproxy'

if [ -f "$top/Makefile" ] && grep -q '^[[:space:]]*LUCI_DEPENDS' "$top/Makefile"; then
	MK=$top/Makefile
else
	MK=$T/Makefile.scratch
fi
V=$(sed -n 's/^[[:space:]]*RETERM_VERSION[[:space:]]*:*=[[:space:]]*\([^[:space:]]*\).*/\1/p' "$MK" | head -n 1)
V=${V:-0.1.0}
echo "# Makefile: $MK, version $V"

# ---- the tree copy, with placeholders and junk -----------------------------
S=$T/src
mkdir -p "$S"
for d in htdocs root tools po; do
	[ -e "$top/$d" ] && cp -a "$top/$d" "$S/"
done
mkdir -p "$S/htdocs" "$S/root"
# placeholder(path, mode, content): only where the repo has nothing yet
placeholder() {
	[ -e "$S/$1" ] && return
	mkdir -p "$(dirname "$S/$1")"
	printf '%s\n' "$3" > "$S/$1"
	chmod "$2" "$S/$1"
}
placeholder htdocs/luci-static/resources/view/reterm/overview.js 0644 "'use strict';"
placeholder root/etc/config/reterm 0644 "config reterm 'main'"
placeholder root/etc/init.d/reterm 0755 '#!/bin/sh /etc/rc.common'
placeholder root/usr/share/rpcd/ucode/reterm 0644 '{};'
placeholder root/usr/share/rpcd/acl.d/luci-app-reterm.json 0644 '{}'
# mode rules: shebang in an exec dir -> 0755 even without +x; +x kept anywhere
placeholder root/usr/libexec/reterm/zz-shebang-noexec 0644 '#!/bin/sh'
placeholder root/usr/libexec/reterm/zz-plain-data 0644 'not a script'
placeholder root/usr/share/reterm/zz-exec-kept 0755 'data, executable in the tree'
# never packaged
junk="root/etc/config/reterm~ root/etc/config/.reterm.swp htdocs/.gitkeep
root/usr/share/.gitkeep htdocs/node_modules/x/index.js root/.git/HEAD
htdocs/luci-static/resources/view/reterm/overview.js.orig root/#auto#"
for j in $junk; do
	mkdir -p "$(dirname "$S/$j")"
	echo junk > "$S/$j"
done
mkdir -p "$S/tests" && echo junk > "$S/tests/not-packaged"

# the files that must be packaged, as "<tree path>\t<installed path>"
expected_files() {
	(cd "$S" && find htdocs root \
		\( -name .git -o -name .svn -o -name CVS -o -name node_modules \) -prune -o \
		\( -type f -o -type l \) -print) |
	while IFS= read -r f; do
		b=${f##*/}
		case $b in
		*~|.#*|\#*\#|*.swp|*.swo|*.orig|*.rej|*.bak|*.tmp|.gitkeep|.gitignore|.DS_Store) continue ;;
		esac
		case $f in
		htdocs/*) printf '%s\t/www/%s\n' "$f" "${f#htdocs/}" ;;
		root/*) printf '%s\t/%s\n' "$f" "${f#root/}" ;;
		esac
	done | sort
}
# expected mode of a tree file: 0755 when executable in the tree, or a
# "#!" script in an exec dir; 0644 otherwise
expected_mode() {
	local src=$S/$1 dest=$2 first=
	[ -x "$src" ] && { echo rwxr-xr-x; return; }
	case $dest in
	/etc/init.d/*|/etc/uci-defaults/*|/usr/libexec/*|/usr/bin/*|/usr/sbin/*|/bin/*|/sbin/*)
		IFS= read -r first < "$src" || :
		case $first in '#!'*) echo rwxr-xr-x; return ;; esac ;;
	esac
	echo rw-r--r--
}
# tar listing as "<perm> <owner/group> <date time> <name>" (symlink targets cut)
listing() {
	"${@}" | while read -r perm og size d t name; do
		printf '%s %s %s %s %s\n' "$perm" "$og" "$d" "$t" "${name%% -> *}"
	done
}

# ---- build ------------------------------------------------------------------
build() { # build <outdir> [env...]: runs mkipk.sh from the copy
	local out=$1; shift
	env "$@" MAKEFILE="$MK" sh "$S/tools/mkipk.sh" "$V" "$out" > "$T/build.log" 2>&1
}
IPK_NAME=${PKG}_${V}_all.ipk
if build "$T/b1"; then ok "mkipk.sh builds"; else
	nok "mkipk.sh builds" "$(cat "$T/build.log")"
	finish
fi
IPK=$T/b1/$IPK_NAME
check "output is <outdir>/$IPK_NAME" test -s "$IPK"

# ---- outer archive ----------------------------------------------------------
magic=$(od -An -tx1 -N2 "$IPK" | tr -d ' \n')
check "ipk is gzip (not an ar archive)" test "$magic" = 1f8b
check "ipk gzip stream is valid" gzip -t "$IPK"
outer=$(tar -tzf "$IPK" | tr '\n' ' ')
if [ "$outer" = "./debian-binary ./control.tar.gz ./data.tar.gz " ]; then
	ok "outer members: debian-binary, control.tar.gz, data.tar.gz in order"
else
	nok "outer members: debian-binary, control.tar.gz, data.tar.gz in order" "got: $outer"
fi
mkdir -p "$T/x" "$T/x/control" "$T/x/data"
tar -xzf "$IPK" -C "$T/x"
check "debian-binary is \"2.0\\n\"" cmp -s "$T/x/debian-binary" <(printf '2.0\n')
for z in control.tar.gz data.tar.gz; do
	check "$z is gzip -n (no name, mtime 0)" test \
		"$(od -An -tx1 -j3 -N5 "$T/x/$z" | tr -d ' \n')" = 0000000000
done
tar -xzf "$T/x/control.tar.gz" -C "$T/x/control"
tar -xzf "$T/x/data.tar.gz" -C "$T/x/data"

# ---- control ---------------------------------------------------------------
C=$T/x/control/control
field() { sed -n "s/^$1: //p" "$C" | head -n 1; }
bad=$(grep -vnE '^([A-Za-z][A-Za-z0-9-]*: .+| .+)$' "$C")
check "control: every line is 'Field: value' or a continuation" test -z "$bad"
dups=$(grep -oE '^[A-Za-z][A-Za-z0-9-]*:' "$C" | sort | uniq -d)
check "control: no duplicate fields" test -z "$dups"
check "control: Package is $PKG" test "$(field Package)" = "$PKG"
check "control: Version is $V" test "$(field Version)" = "$V"
check "control: Architecture is all" test "$(field Architecture)" = all
check "control: Section is luci" test "$(field Section)" = luci
deps=$(field Depends)
check "control: Depends non-empty" test -n "$deps"
check "control: Depends contains luci-base" grep -qE '(^|, )luci-base(,|$)' <<<"$deps"
check "control: Depends has no Makefile syntax (+ @ :)" \
	bash -c '! grep -qE "[+@:]|\((\$|[^>])" <<<"$1"' _ "$deps"
# the ucode OpenWrt 24.10 ships (2025.07.18~3f64c808-r1) or newer; 23.05's
# (2024-07-11-1a8a0bcf-3, 2023.11.07~a6e75e02-r1 before 23.05.4) refused by
# opkg, whose versions compare as dpkg's
umin=$(sed -n 's/^RETERM_UCODE_MIN *:= *//p' "$MK")
check "control: Depends asks for ucode (>=$umin), the Makefile's RETERM_UCODE_MIN" \
	grep -qF "ucode (>=$umin)" <<<"$deps"
if command -v dpkg >/dev/null; then
	check "control: 24.10's and 25.12's ucode meet it, 23.05's do not (dpkg's order, as opkg's)" \
		bash -c 'for v in 2025.07.18~3f64c808-r1 2026.01.16~85922056-r1; do dpkg --compare-versions $v ge "$1" || exit 1; done
			for v in 2024-07-11-1a8a0bcf-3 2023.11.07~a6e75e02-r1; do dpkg --compare-versions $v ge "$1" && exit 1; done; exit 0' _ "$umin"
fi
if grep -qE '(^|, )haproxy(-nossl)?( |,|$)' <<<"$deps"; then
	check "control: Depends accepts haproxy or haproxy-nossl" \
		grep -qE '(^|, )(haproxy \| haproxy-nossl|haproxy-nossl \| haproxy)(,|$)' <<<"$deps"
fi
isize=$(field Installed-Size)
dsize=$(gzip -dc "$T/x/data.tar.gz" | wc -c)
check "control: Installed-Size numeric" grep -qxE '[0-9]+' <<<"$isize"
if [ "$isize" = "$((dsize + 0))" ]; then ok "control: Installed-Size equals data size"
else nok "control: Installed-Size equals data size" "Installed-Size $isize, data $dsize"; fi
for f in Description License Maintainer Source SourceName SourceDateEpoch; do
	check "control: $f present" test -n "$(field "$f")"
done

# ---- maintainer scripts, conffiles -----------------------------------------
clist=$(listing tar --numeric-owner --full-time -tvzf "$T/x/control.tar.gz")
for s in postinst prerm postrm; do
	check "$s is 0755" grep -qE "^-rwxr-xr-x .* \./$s\$" <<<"$clist"
	check "$s: sh -n clean" sh -n "$T/x/control/$s"
	if command -v busybox >/dev/null; then
		check "$s: busybox ash -n clean" busybox ash -n "$T/x/control/$s"
	fi
	mkdir -p "$T/instroot-$s"
	IPKG_INSTROOT=$T/instroot-$s sh "$T/x/control/$s" > /dev/null 2>&1
	rc=$?
	check "$s: image build (IPKG_INSTROOT) exits 0 and touches nothing" \
		test "$rc" = 0 -a -z "$(ls -A "$T/instroot-$s")"
done
P=$T/x/control/postinst
check "postinst skips live actions under IPKG_INSTROOT" \
	grep -q 'IPKG_INSTROOT:-}" ]; then' "$P"
check "postinst runs and removes uci-defaults/80_reterm" \
	grep -qE '^for f in (.* )?80_reterm( |;)' "$P"
check "postinst clears luci caches" grep -q 'rm -f /tmp/luci-indexcache' "$P"
check "postinst reloads rpcd" grep -q '/etc/init.d/rpcd reload' "$P"
check "prerm stops and disables every shipped service (reterm, reterm-latencyd)" \
	bash -c 'list=$(sed -n "s/^for s in \(.*\); do$/\1/p" "$1" | head -n 1)
		for svc in $(cd "$2" && ls); do
			case " $list " in *" /etc/init.d/$svc "*) ;; *) exit 1 ;; esac
		done
		grep -q "\"\$s\" stop" "$1" && grep -q "\"\$s\" disable" "$1"' _ "$T/x/control/prerm" "$top/root/etc/init.d"
check "conffiles is exactly /etc/config/reterm" \
	test "$(cat "$T/x/control/conffiles" 2>/dev/null)" = /etc/config/reterm
check "conffile /etc/config/reterm is in data" test -f "$T/x/data/etc/config/reterm"

# ---- data --------------------------------------------------------------------
dlist=$(listing tar --numeric-owner --full-time -tvzf "$T/x/data.tar.gz")
olist=$(listing tar --numeric-owner --full-time -tvzf "$IPK")
check "data, control, outer: all owned 0/0" \
	test -z "$(printf '%s\n%s\n%s\n' "$dlist" "$clist" "$olist" | awk '$2 != "0/0"')"
check "all entries have mtime 0 (no git, no SOURCE_DATE_EPOCH)" \
	test -z "$(printf '%s\n%s\n%s\n' "$dlist" "$clist" "$olist" | awk '$3" "$4 != "1970-01-01 00:00:00"')"
check "control SourceDateEpoch is 0" test "$(field SourceDateEpoch)" = 0
check "data directories are 0755" \
	test -z "$(awk '$1 ~ /^d/ && $1 != "drwxr-xr-x"' <<<"$dlist")"
check "data has only files, dirs and symlinks" \
	test -z "$(awk '$1 !~ /^[-dl]/' <<<"$dlist")"

expected_files > "$T/expected"
nexp=$(wc -l < "$T/expected")
missing=() wrongmode=()
while IFS=$'\t' read -r src dest; do
	line=$(awk -v n=".$dest" '$5 == n' <<<"$dlist")
	if [ -z "$line" ]; then missing+=("$src -> $dest"); continue; fi
	[ -L "$S/$src" ] && continue
	want=$(expected_mode "$src" "$dest")
	[ "${line:1:9}" = "$want" ] || wrongmode+=("$dest: ${line:1:9}, want $want")
done < "$T/expected"
if [ ${#missing[@]} -eq 0 ]; then ok "all $nexp tree files installed at their paths"
else nok "all $nexp tree files installed at their paths" "${missing[@]:0:10}"; fi
if [ ${#wrongmode[@]} -eq 0 ]; then ok "file modes (executables 0755, others 0644)"
else nok "file modes (executables 0755, others 0644)" "${wrongmode[@]:0:10}"; fi
extra=$(comm -13 <(cut -f2 "$T/expected" | sed 's|^|.|' | sort) \
	<(awk '$1 !~ /^d/ {print $5}' <<<"$dlist" | sort))
check "data holds nothing else" test -z "$extra"
[ -z "$extra" ] || printf '#   extra: %s\n' $extra
check "data has no .git, tests/, node_modules, backups, .gitkeep" \
	test -z "$(awk '{print $5}' <<<"$dlist" | grep -E '/\.git(/|$)|^\./tests/|node_modules|~$|\.swp$|\.orig$|\.gitkeep$|/#')"
if [ -f "$S/root/usr/libexec/reterm/zz-shebang-noexec" ]; then
	check "#! script without +x in usr/libexec packaged 0755" \
		grep -qE '^-rwxr-xr-x .* \./usr/libexec/reterm/zz-shebang-noexec$' <<<"$dlist"
fi
check "htdocs installed under /www" \
	grep -qE ' \./www/luci-static/' <<<"$dlist"
if [ -f "$S/root/etc/init.d/reterm" ]; then
	check "/etc/init.d/reterm is 0755" grep -qE '^-rwxr-xr-x .* \./etc/init\.d/reterm$' <<<"$dlist"
fi

# ---- busybox tar ------------------------------------------------------------
if command -v busybox >/dev/null && busybox tar --help >/dev/null 2>&1; then
	mkdir -p "$T/bb/control" "$T/bb/data"
	if (cd "$T/bb" && busybox tar -xzf "$IPK" &&
	    busybox tar -xzf control.tar.gz -C control &&
	    busybox tar -xzf data.tar.gz -C data); then
		ok "busybox tar unpacks ipk, control and data"
		check "busybox tar: same outer members" \
			test "$(busybox tar -tzf "$IPK" | tr '\n' ' ')" = "$outer"
		check "busybox tar: same content as GNU tar" diff -r "$T/x" "$T/bb"
	else
		nok "busybox tar unpacks ipk, control and data"
	fi
else
	echo "# busybox tar not available: skipping its checks"
fi

# ---- reproducibility ---------------------------------------------------------
find "$S" -exec touch -d '2001-02-03 04:05:06' {} +
(umask 077; build "$T/b2")
I18N_NAME=luci-i18n-reterm-de_${V}_all.ipk
same() { cmp -s "$IPK" "$1/$IPK_NAME" && cmp -s "$T/b1/$I18N_NAME" "$1/$I18N_NAME"; }
check "rebuild after touching every file (umask 077) is byte-identical (app and translation)" same "$T/b2"
if command -v busybox >/dev/null; then
	env MAKEFILE="$MK" busybox ash "$S/tools/mkipk.sh" "$V" "$T/b3" > "$T/build.log" 2>&1
	check "build under busybox ash is byte-identical (app and translation)" same "$T/b3"
fi
build "$T/b4" SOURCE_DATE_EPOCH=1700000000
e4=$(listing tar --numeric-owner --full-time -tvzf "$T/b4/$IPK_NAME" | awk '{print $3" "$4}' | sort -u)
check "SOURCE_DATE_EPOCH sets every mtime" test "$e4" = "2023-11-14 22:13:20"

# ---- Depends from LUCI_DEPENDS, errors ----------------------------------------
if MAKEFILE=$T/Makefile.scratch sh "$S/tools/mkipk.sh" 0.1.0 "$T/b5" > "$T/build.log" 2>&1; then
	got=$(tar -xOzf "$T/b5/${PKG}_0.1.0_all.ipk" ./control.tar.gz | tar -xOzf - ./control |
		sed -n 's/^Depends: //p')
	if [ "$got" = "$want_deps" ]; then ok "LUCI_DEPENDS -> Depends (+, |, @, COND:, +=, alternatives, define skipped)"
	else nok "LUCI_DEPENDS -> Depends (+, |, @, COND:, +=, alternatives, define skipped)" "got:  $got" "want: $want_deps"; fi
	got=$(tar -xOzf "$T/b5/${PKG}_0.1.0_all.ipk" ./control.tar.gz | tar -xOzf - ./control |
		sed -n '/^Description:/,$p')
	want=$'Description: Re-terminate TCP of slow-window LAN clients\n Terminates the TCP connections of selected LAN devices in a local transparent haproxy (0.1.0)'
	check "Description from LUCI_TITLE + LUCI_DESCRIPTION" test "$got" = "$want"
else
	nok "build with scratch Makefile" "$(cat "$T/build.log")"
fi
grep -v LUCI_DEPENDS "$T/Makefile.scratch" | grep -v '^	+' > "$T/Makefile.nodeps"
check "no LUCI_DEPENDS -> build fails" \
	bash -c '! MAKEFILE=$1 sh "$2" 0.1.0 "$3" 2>/dev/null >&2' _ "$T/Makefile.nodeps" "$S/tools/mkipk.sh" "$T/b6"
check "bad version -> build fails" \
	bash -c '! MAKEFILE=$1 sh "$2" "0.1_0" "$3" 2>/dev/null >&2' _ "$T/Makefile.scratch" "$S/tools/mkipk.sh" "$T/b7"
check "no arguments -> usage error" bash -c '! sh "$1" 2>/dev/null' _ "$S/tools/mkipk.sh"

# ---- uci-defaults/80_reterm with a stub uci ----------------------------------
UD=$S/root/etc/uci-defaults/80_reterm
if [ -f "$UD" ]; then
	mkdir -p "$T/ud/bin" "$T/ud/etc/config" "$T/ud/tmp"
	# same script, paths moved under $T/ud
	sed -e "s|/etc/config/|$T/ud/etc/config/|g" -e "s|/tmp/luci-|$T/ud/tmp/luci-|g" \
		"$UD" > "$T/ud/80_reterm"
	cat > "$T/ud/bin/uci" <<EOF
#!/bin/sh
echo "uci \$*" >> "$T/ud/calls"
[ "\$*" = "-q get reterm.main" ] && { [ -f "$T/ud/has-main" ]; exit; }
[ "\$1 \$2" = "-q batch" ] && cat >> "$T/ud/calls"
exit 0
EOF
	chmod 0755 "$T/ud/bin/uci"
	touch "$T/ud/tmp/luci-indexcache.abc"
	mkdir -p "$T/ud/tmp/luci-modulecache"
	(cd "$T/ud" && PATH=$T/ud/bin:$PATH sh ./80_reterm); rc=$?
	check "80_reterm without main: exit 0, adds main (no value: reterm.defaults has them), commits" bash -c '
		[ "$1" = 0 ] && grep -q "^set reterm.main=reterm$" "$2" &&
		! grep -q "^set reterm.main\." "$2" && grep -q "^commit reterm$" "$2"' \
		_ "$rc" "$T/ud/calls"
	check "80_reterm creates a missing /etc/config/reterm" test -f "$T/ud/etc/config/reterm"
	check "80_reterm clears luci caches" \
		test ! -e "$T/ud/tmp/luci-indexcache.abc" -a ! -e "$T/ud/tmp/luci-modulecache"
	: > "$T/ud/calls"; touch "$T/ud/has-main"
	(cd "$T/ud" && PATH=$T/ud/bin:$PATH sh ./80_reterm); rc=$?
	check "80_reterm with main present: exit 0, changes nothing" bash -c '
		[ "$1" = 0 ] && ! grep -qE "^(set|commit|uci -q batch)" "$2"' _ "$rc" "$T/ud/calls"
	check "80_reterm: sh -n clean" sh -n "$UD"
fi

finish
