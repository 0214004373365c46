# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced last by tests/owrt/run.sh: removal as opkg does it (prerm, the
# package's files, postrm), with both services running first.
#
#   remove   no process, rule, route, include, file or ubus object of
#            ours left; conffiles the user changed are kept

remove_check() {
	local left= f
	owrt_sh "/etc/init.d/reterm start; /etc/init.d/reterm-latencyd start" >/dev/null 2>&1
	sleep 1
	[ -n "$(owrt_pidof reterm-latencyd)" ] || { echo "reterm-latencyd did not start before the removal"; return 1; }
	owrt_sh "uci set reterm.main.maxconn=300 && uci commit reterm" || return 1	# a changed conffile
	if [ -f "$OWRT_ROOT/usr/lib/opkg/info/luci-i18n-reterm-de.control" ]; then
		owrt_remove_pkg luci-i18n-reterm-de || left="$left i18n-remove-failed"
	fi
	owrt_remove_pkg luci-app-reterm || left="$left remove-failed"
	# postrm's `/etc/init.d/rpcd reload`: procd signals rpcd, which drops
	# the plugin
	sleep 2
	for f in reterm-latencyd haproxy; do
		[ -n "$(owrt_pidof $f)" ] && left="$left process:$f"
	done
	owrt_sh "nft list ruleset" | grep -q reterm && left="$left nft"
	owrt_sh "ip rule show; ip -6 rule show" | grep -q "lookup 100" && left="$left ip-rule"
	for f in /usr/sbin/reterm-latencyd /etc/init.d/reterm /etc/init.d/reterm-latencyd /usr/share/rpcd/ucode/reterm \
		/usr/share/ucode/reterm /usr/libexec/reterm /var/etc/reterm /usr/lib/lua/luci/i18n/reterm.de.lmo \
		/usr/share/luci/menu.d/luci-app-reterm.json /usr/share/rpcd/acl.d/luci-app-reterm.json; do
		owrt_sh "test -e $f" && left="$left $f"
	done
	ls "$OWRT_ROOT/usr/share/nftables.d"/*/reterm.nft >/dev/null 2>&1 && left="$left nft-include"
	owrt_sh "ubus list" | grep -q '^reterm' && left="$left ubus-object"
	owrt_sh "uci -q get reterm.main.maxconn" | grep -qx 300 || left="$left changed-conffile-lost"
	[ -z "$left" ] || { echo "left behind:$left"; return 1; }
}
check "remove: opkg-style prerm/postrm with both services running; nothing of ours left, the changed /etc/config/reterm kept" remove_check
