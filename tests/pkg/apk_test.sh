#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The .apk packages of tools/mkapk.sh (OpenWrt 25.12), checked with
# apk-tools 3: built from the tree, installed into a throwaway root (apk
# --root R --initdb --allow-untrusted --no-network) next to a stub that
# provides their dependencies, then checked: the same files and modes as
# the .ipk, OpenWrt's /lib/apk/packages/<name>.{list,conffiles,
# conffiles_static}, the translation's catalogue, the declared scripts
# (post-install and the others, in the package and in R's database), the
# translation needing the app, removal, reproducibility.
#
# Without apk-tools 3 (apk on $PATH or $APK): "apk: skipped: apk-tools 3
# not found" and one skip; what mkapk.sh says then is checked anyway.
# Ends with "apk: N passed, N failed, N skipped".

set -u
export LC_ALL=C TZ=UTC
HERE=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/apk_test.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset SOURCE_DATE_EPOCH MAKEFILE
export MAKEFILE=$top/Makefile
V=$(sed -n 's/^RETERM_VERSION[[:space:]]*:*=[[:space:]]*\([^[:space:]]*\).*/\1/p' "$MAKEFILE" | head -n 1)-r1
APP=luci-app-reterm I18N=luci-i18n-reterm-de

# ---- without apk-tools 3 -----------------------------------------------------
mkdir -p "$T/noapk/bin"
printf '#!/bin/sh\necho "apk-tools 2.14.4, compiled for x86_64."\n' > "$T/noapk/bin/apk"
chmod 0755 "$T/noapk/bin/apk"
for case in "none:$T/noapk/none" "apk-tools 2:$T/noapk/bin/apk"; do
	APK=${case#*:} sh "$top/tools/mkapk.sh" "$V" "$T/noapk/out" > "$T/noapk/log" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'apk-tools 3 is needed' "$T/noapk/log" && [ ! -e "$T/noapk/out" ]; then
		ok "apk/mkapk.sh without apk-tools 3 (${case%%:*}): says apk-tools 3 is needed, exit 1, builds nothing"
	else
		nok "apk/mkapk.sh without apk-tools 3 (${case%%:*}): says apk-tools 3 is needed, exit 1, builds nothing" \
			"exit $rc" "$(cat "$T/noapk/log")"
	fi
done

APK=${APK:-$(command -v apk || echo "${RETERM_OWRT:-/opt/owrt}/host/bin/apk")}
if [ -z "$APK" ] || ! "$APK" --version 2>/dev/null | grep -q '^apk-tools 3\.'; then
	echo "apk: skipped: apk-tools 3 not found"
	skip "apk/install into a throwaway root" "apk-tools 3 not found"
	summary apk
	exit
fi
export APK
echo "# $("$APK" --version | head -n 1)"

# ---- build --------------------------------------------------------------------
if sh "$top/tools/mkapk.sh" "$V" "$T/out" > "$T/build.log" 2>&1; then ok "apk/mkapk.sh builds $APP and $I18N"
else nok "apk/mkapk.sh builds" "$(cat "$T/build.log")"; summary apk; exit; fi
A=$T/out/$APP-$V.apk L=$T/out/$I18N-$V.apk
check "apk/output: $APP-$V.apk and $I18N-$V.apk, nothing else" \
	test "$(ls "$T/out" | tr '\n' ' ')" = "$APP-$V.apk $I18N-$V.apk "
check "apk/bad version -> exit 1" bash -c '! sh "$1" 0.1_0 "$2" >/dev/null 2>&1' _ "$top/tools/mkapk.sh" "$T/bad"

dump() { "$APK" adbdump "$1"; }
dump "$A" > "$T/app.yaml" && dump "$L" > "$T/i18n.yaml"
info() { sed -n "s/^  $2: //p" "$1" | head -n 1; }
list() { sed -n "/^  $2: /,/^  [a-z]/s/^    - //p" "$1"; }
check "apk/app info: name, version, arch noarch, origin, license" test \
	"$(info "$T/app.yaml" name) $(info "$T/app.yaml" version) $(info "$T/app.yaml" arch) $(info "$T/app.yaml" origin) $(info "$T/app.yaml" license)" = \
	"$APP $V noarch $APP Apache-2.0"
deps=$(list "$T/app.yaml" depends | tr '\n' ' ')
check "apk/app depends: luci-base, rpcd, haproxy-nossl, sqm-scripts (no '|', no '+')" \
	bash -c '[[ " $1" == *" luci-base "* && " $1" == *" rpcd "* && " $1" == *" haproxy-nossl "* && " $1" == *" sqm-scripts "* && "$1" != *[\|+]* ]]' _ "$deps"
umin=$(sed -n 's/^RETERM_UCODE_MIN *:= *//p' "$top/Makefile")
check "apk/app depends: ucode>=$umin (24.10's 2025.07.18~3f64c808-r1 and 25.12's 2026.01.16~85922056-r1 meet it)" \
	bash -c '[[ " $1 " == *" ucode>=$2 "* ]] && [ "$("$3" version -t 2025.07.18~3f64c808-r1 "$2")" != "<" ] &&
		[ "$("$3" version -t 2026.01.16~85922056-r1 "$2")" = ">" ] &&
		[ "$("$3" version -t 2023.11.07~a6e75e02-r1 "$2")" = "<" ]' _ "$deps" "$umin" "$APK"
check "apk/i18n info: depends on $APP only, noarch" test \
	"$(list "$T/i18n.yaml" depends | tr '\n' ' ')$(info "$T/i18n.yaml" arch)" = "$APP noarch"
for s in post-install post-upgrade pre-deinstall post-deinstall; do
	check "apk/app declares its $s script" grep -q "^  $s: " "$T/app.yaml"
done
check "apk/i18n declares post-install (registers the language)" \
	bash -c 'sed -n "/^  post-install: /,/^  [a-z]/p" "$1" | grep -q "/etc/uci-defaults/luci-i18n-reterm-de"' _ "$T/i18n.yaml"
check "apk/post-upgrade is post-install with PKG_UPGRADE=1" \
	bash -c 'sed -n "/^  post-upgrade: /,/^  [a-z]/p" "$1" | grep -q "export PKG_UPGRADE=1"' _ "$T/app.yaml"

# ---- install into a throwaway root -------------------------------------------
# a stub provides what the app depends on (no repository, no network)
mkdir -p "$T/stub/files"
"$APK" mkpkg --info name:owrt-stub --info version:1-r0 --info arch:noarch --info description:stub \
	--info "provides:$deps" --files "$T/stub/files" --output "$T/stub.apk" > /dev/null
R=$T/root
user=(); [ "$(id -u)" = 0 ] || user=(--usermode)
apkr() { "$APK" --root "$R" --allow-untrusted --no-network --no-cache --no-scripts "$@"; }
if apkr --initdb "${user[@]}" add "$T/stub.apk" "$L" > "$T/add.log" 2>&1; then
	nok "apk/$I18N alone is refused (needs $APP)"
else
	check "apk/$I18N alone is refused (needs $APP)" grep -q "$APP" "$T/add.log"
fi
check "apk/nothing installed by the refused add" test -z "$(find "$R" -path "$R/usr/lib/lua/*" 2>/dev/null)"
if apkr --initdb "${user[@]}" add "$T/stub.apk" "$A" "$L" > "$T/add.log" 2>&1; then ok "apk/add --root: stub, $APP, $I18N"
else nok "apk/add --root: stub, $APP, $I18N" "$(cat "$T/add.log")"; summary apk; exit; fi
check "apk/installed: both packages at $V" test \
	"$(grep -A1 -E "^P:($APP|$I18N)$" "$R/lib/apk/db/installed" | grep -c "^V:$V$")" = 2
scripts=$(tar -tzf "$R/lib/apk/db/scripts.tar.gz" 2>/dev/null | sed -E 's/\.X1[0-9a-f]+\./ /')
check "apk/database keeps $APP's post-install, post-upgrade, pre-deinstall, post-deinstall" test \
	"$(grep -c "^$APP-$V \(post-install\|post-upgrade\|pre-deinstall\|post-deinstall\)$" <<<"$scripts")" = 4
check "apk/database keeps $I18N's post-install" grep -qx "$I18N-$V post-install" <<<"$scripts"

# the .ipk's files, as installed by opkg: the same paths and modes
sh "$top/tools/mkipk.sh" "${V%-r*}" "$T/ipk" > /dev/null 2>&1
for p in "$APP" "$I18N"; do
	tar -xOzf "$T/ipk/${p}_${V%-r*}_all.ipk" ./data.tar.gz | tar -tvzf - | awk '$1 !~ /^d/ {print substr($1, 2), substr($6, 2)}'
done | sort > "$T/ipk.files"
(cd "$R" && find . \( -type f -o -type l \) ! -path './lib/apk/*' ! -path './etc/apk/*' ! -path './var/*' \
	-printf '%M %P\n' | sed 's|^.\(\S*\) |\1 /|') | sort > "$T/apk.files"
if cmp -s "$T/ipk.files" "$T/apk.files"; then ok "apk/files and modes as in the .ipk ($(wc -l < "$T/apk.files") files)"
else nok "apk/files and modes as in the .ipk" "$(diff "$T/ipk.files" "$T/apk.files" | head -n 10)"; fi
lst() { cat "$R/lib/apk/packages/$1.list" 2>/dev/null; }
own() { tar -xOzf "$T/ipk/${1}_${V%-r*}_all.ipk" ./data.tar.gz | tar -tzf - | grep -v '/$' | sed 's|^\.||' | sort; }
check "apk/lib/apk/packages/$APP.list: the app's files" test "$(lst "$APP")" = "$(own "$APP")"
check "apk/lib/apk/packages/$I18N.list: the catalogue and its uci-defaults" test \
	"$(lst "$I18N" | tr '\n' ' ')" = "/etc/uci-defaults/$I18N /usr/lib/lua/luci/i18n/reterm.de.lmo "
check "apk/$APP.conffiles: /etc/config/reterm" test "$(cat "$R/lib/apk/packages/$APP.conffiles")" = /etc/config/reterm
check "apk/$APP.conffiles_static: path and sha256" test "$(cat "$R/lib/apk/packages/$APP.conffiles_static")" = \
	"/etc/config/reterm $(sha256sum < "$R/etc/config/reterm" | cut -d' ' -f1)"
check "apk/reterm.de.lmo is po/de/reterm.po compiled (tools/po2lmo.mjs)" bash -c \
	'node "$1/tools/po2lmo.mjs" "$1/po/de/reterm.po" "$2/de.lmo" && cmp -s "$2/de.lmo" "$3/usr/lib/lua/luci/i18n/reterm.de.lmo"' _ "$top" "$T" "$R"
check "apk/uci-defaults adds German to LuCI's languages" test \
	"$(cat "$R/etc/uci-defaults/$I18N")" = "uci set luci.languages.de='Deutsch (German)'; uci commit luci"
ud=$(mktemp -d "$T/instroot.XXXX")
tar -xOzf "$R/lib/apk/db/scripts.tar.gz" --wildcards "$APP-$V.*.post-install" > "$T/post-install"
IPKG_INSTROOT=$ud sh "$T/post-install" > /dev/null 2>&1
check "apk/post-install in an image build (IPKG_INSTROOT) exits 0, touches nothing" \
	test "$?" = 0 -a -z "$(ls -A "$ud")"

# ---- removal, reproducibility ------------------------------------------------------
if apkr del "$I18N" "$APP" > "$T/del.log" 2>&1; then
	check "apk/del: no file of either package left" test -z "$(cd "$R" && find . \( -type f -o -type l \) \
		! -path './lib/apk/db/*' ! -path './etc/apk/*' ! -path './var/*')"
else nok "apk/del $I18N $APP" "$(cat "$T/del.log")"; fi
(umask 077; sh "$top/tools/mkapk.sh" "$V" "$T/out2" > /dev/null 2>&1)
check "apk/rebuild (umask 077) is byte-identical" bash -c 'cmp -s "$1" "$3" && cmp -s "$2" "$4"' _ \
	"$A" "$L" "$T/out2/$APP-$V.apk" "$T/out2/$I18N-$V.apk"

summary apk
