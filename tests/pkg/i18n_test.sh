#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The translation .ipk of tools/mkipk.sh (luci-i18n-reterm-<lang>, as
# luci.mk packages translations), built from a copy of the tree: control
# fields, exactly the catalogue and its uci-defaults script in data, the
# catalogue equal to tools/po2lmo.mjs's, the ACL description and a menu
# title German in it, postinst (image build and live, with a stub uci),
# no translation package without po/<lang>, errors that build nothing.
# Ends with "i18n: N passed, N failed, N skipped".

set -u
export LC_ALL=C TZ=UTC
HERE=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/i18n_test.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset SOURCE_DATE_EPOCH TAR NODE
export MAKEFILE=$top/Makefile
V=$(sed -n 's/^RETERM_VERSION[[:space:]]*:*=[[:space:]]*\([^[:space:]]*\).*/\1/p' "$MAKEFILE" | head -n 1)
APP=luci-app-reterm I18N=luci-i18n-reterm-de
IPK_NAME=${I18N}_${V}_all.ipk

S=$T/src
mkdir -p "$S"
for d in htdocs root tools po; do cp -a "$top/$d" "$S/"; done
build() { # build <src> <outdir> [env...]
	local src=$1 out=$2; shift 2
	env "$@" sh "$src/tools/mkipk.sh" "$V" "$out" > "$T/build.log" 2>&1
}
if build "$S" "$T/b1"; then ok "i18n/mkipk.sh builds $IPK_NAME"
else nok "i18n/mkipk.sh builds" "$(cat "$T/build.log")"; summary i18n; exit; fi
IPK=$T/b1/$IPK_NAME
check "i18n/outdir: the app and the German translation" test \
	"$(ls "$T/b1" | tr '\n' ' ')" = "${APP}_${V}_all.ipk $IPK_NAME "

mkdir -p "$T/x/control" "$T/x/data"
check "i18n/outer members: debian-binary, control.tar.gz, data.tar.gz" test \
	"$(tar -tzf "$IPK" | tr '\n' ' ')" = "./debian-binary ./control.tar.gz ./data.tar.gz "
tar -xzf "$IPK" -C "$T/x" && tar -xzf "$T/x/control.tar.gz" -C "$T/x/control" && tar -xzf "$T/x/data.tar.gz" -C "$T/x/data"

# ---- control -----------------------------------------------------------------
C=$T/x/control/control
field() { sed -n "s/^$1: //p" "$C" | head -n 1; }
check "i18n/control: every line is 'Field: value' or a continuation" \
	test -z "$(grep -vnE '^([A-Za-z][A-Za-z0-9-]*: .+| .+)$' "$C")"
for kv in "Package=$I18N" "Version=$V" "Depends=$APP" "Architecture=all" "Section=luci" "Source=$APP" "SourceName=$APP"; do
	check "i18n/control: ${kv%%=*} is ${kv#*=}" test "$(field "${kv%%=*}")" = "${kv#*=}"
done
check "i18n/control: Description as luci.mk's (title, 'Translation for ... - Deutsch (German)')" test \
	"$(sed -n '/^Description:/,$p' "$C")" = "Description: $APP - de translation
 Translation for $APP - Deutsch (German)"
check "i18n/control: Installed-Size equals data size" test \
	"$(field Installed-Size)" = "$(gzip -dc "$T/x/data.tar.gz" | wc -c | tr -d ' ')"
check "i18n/control.tar.gz: control and postinst (0755) only" test \
	"$(tar --numeric-owner -tvzf "$T/x/control.tar.gz" | awk '$1 !~ /^d/ {print $1, $2, $6}' | tr '\n' ' ')" = \
	"-rw-r--r-- 0/0 ./control -rwxr-xr-x 0/0 ./postinst "

# ---- data ---------------------------------------------------------------------
check "i18n/data: the catalogue and its uci-defaults script, 0644, root-owned" test \
	"$(tar --numeric-owner -tvzf "$T/x/data.tar.gz" | awk '$1 !~ /^d/ {print $1, $2, $6}' | tr '\n' ' ')" = \
	"-rw-r--r-- 0/0 ./etc/uci-defaults/$I18N -rw-r--r-- 0/0 ./usr/lib/lua/luci/i18n/reterm.de.lmo "
check "i18n/data: directories 0755" test -z "$(tar -tvzf "$T/x/data.tar.gz" | awk '$1 ~ /^d/ && $1 != "drwxr-xr-x"')"
LMO=$T/x/data/usr/lib/lua/luci/i18n/reterm.de.lmo
check "i18n/reterm.de.lmo is tools/po2lmo.mjs of po/de/reterm.po" bash -c \
	'node "$1/tools/po2lmo.mjs" "$1/po/de/reterm.po" "$2/de.lmo" && cmp -s "$2/de.lmo" "$3"' _ "$top" "$T" "$LMO"
# the ACL description (tools/i18n-scan.mjs collects it) and a menu title, German
german() { # german <json file> <key>: every such string of the file resolves in the catalogue
	node --input-type=module -e '
		import { readFileSync } from "node:fs";
		import { readLmo } from "'"$top"'/tools/lmo.mjs";
		import { scanJson } from "'"$top"'/tools/i18n-scan.mjs";
		const cat = readLmo(readFileSync(process.argv[1]));
		const ids = scanJson(readFileSync(process.argv[2], "utf8")).map(e => e.msgid);
		const bad = ids.filter(id => !cat.get(id));
		if (!ids.length || bad.length) { console.log(ids.length ? "untranslated: " + bad.join(" | ") : "none found"); process.exit(1); }
	' "$LMO" "$1"
}
for f in "$top"/root/usr/share/rpcd/acl.d/*.json "$top"/root/usr/share/luci/menu.d/*.json; do
	if out=$(german "$f" 2>&1); then ok "i18n/${f#"$top"/root/}: its descriptions and titles are German"
	else nok "i18n/${f#"$top"/root/}: its descriptions and titles are German" "$out"; fi
done
check "i18n/uci-defaults: German in LuCI's languages (luci.mk's line)" test \
	"$(cat "$T/x/data/etc/uci-defaults/$I18N")" = "uci set luci.languages.de='Deutsch (German)'; uci commit luci"

# ---- postinst ------------------------------------------------------------------
P=$T/x/control/postinst
check "i18n/postinst: sh -n clean" sh -n "$P"
mkdir -p "$T/instroot"
IPKG_INSTROOT=$T/instroot sh "$P" > /dev/null 2>&1
check "i18n/postinst in an image build (IPKG_INSTROOT): exit 0, touches nothing" \
	test "$?" = 0 -a -z "$(ls -A "$T/instroot")"
# live, paths moved under $T/live, uci a recording stand-in
L=$T/live
mkdir -p "$L/bin" "$L/etc/uci-defaults" "$L/tmp/luci-modulecache"
cp "$T/x/data/etc/uci-defaults/$I18N" "$L/etc/uci-defaults/"
touch "$L/tmp/luci-indexcache.1"
printf '#!/bin/sh\necho "uci $*" >> "%s/calls"\n' "$L" > "$L/bin/uci"
chmod 0755 "$L/bin/uci"
sed -e "s|/etc/uci-defaults|$L/etc/uci-defaults|g" -e "s|/tmp/luci-|$L/tmp/luci-|g" "$P" > "$L/postinst"
(PATH=$L/bin:$PATH sh "$L/postinst")
check "i18n/postinst: runs the uci-defaults script once, removes it, clears LuCI's caches" test \
	"$?|$(tr '\n' '|' < "$L/calls" 2>/dev/null)$(find "$L/etc/uci-defaults" "$L/tmp" -mindepth 1)" = \
	"0|uci set luci.languages.de=Deutsch (German)|uci commit luci|"

# ---- no translations, bad input ------------------------------------------------------
S2=$T/src2
cp -a "$S" "$S2" && rm -rf "$S2/po/de"
build "$S2" "$T/b2"
check "i18n/without po/de: the app only" test "$(ls "$T/b2" | tr '\n' ' ')" = "${APP}_${V}_all.ipk "
mkdir -p "$S2/po/xx" && cp "$S/po/de/reterm.po" "$S2/po/xx/"
if build "$S2" "$T/b3"; then nok "i18n/a language without a name (po/xx): error, nothing built"
else check "i18n/a language without a name (po/xx): error, nothing built" \
	bash -c 'grep -q "po/xx: no language name" "$1" && [ ! -e "$2" ]' _ "$T/build.log" "$T/b3"; fi
rm -rf "$S2/po/xx" && mkdir -p "$S2/po/de" && printf 'msgid "a"\nmsgstr "b"\nnonsense\n' > "$S2/po/de/reterm.po"
if build "$S2" "$T/b4"; then nok "i18n/a broken .po: error naming it, nothing built"
else check "i18n/a broken .po: error naming it, nothing built" \
	bash -c 'grep -q "reterm.po: cannot parse line" "$1" && [ ! -e "$2" ]' _ "$T/build.log" "$T/b4"; fi
if build "$S" "$T/b5" NODE=/nonexistent/node; then nok "i18n/node missing: error, nothing built"
else check "i18n/node missing: error, nothing built" \
	bash -c 'grep -q "node needed" "$1" && [ ! -e "$2" ]' _ "$T/build.log" "$T/b5"; fi

summary i18n
