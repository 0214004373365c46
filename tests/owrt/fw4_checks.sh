# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/owrt/run.sh after init_checks.sh (reterm stopped, one
# device configured): firewall4 itself with our includes.
#
#   fw4/print     `fw4 print` with OpenWrt's stock /etc/config/firewall puts
#                 each snippet where it belongs; the printed ruleset loads
#                 with `nft -f` in a throwaway network namespace
#   fw4/reload    `fw4 reload` while reterm runs keeps the tproxy rules and
#                 refills the sets
#   fw4/policy    a REJECT rule for the device's MAC (lan->wan): fw4 puts it
#                 in the forward path; reterm leaves the device direct there
#                 and status says why
#   fw4/policy-kinds  rules by src_ip, by port without a source and by a
#                 negated MAC, committed with uci and a config.change event
#                 of `firewall` only (what LuCI's apply sends): procd's
#                 trigger reloads reterm, which keeps what they match direct;
#                 the rules gone, the same way, everything is diverted again
#   fw4/reboot    with /var emptied (after a reboot) fw4 prints no reterm rule

# fw4 print writes include statements: each of ours must stand where
# its directory says: ruleset-pre between the flush and the table,
# table-pre inside the table before the first chain, chain-pre inside its
# chain before fw4's own verdicts (conntrack vmap, jumps)
fw4_print() {
	osh "/etc/init.d/reterm start" || return 1
	osh "fw4 print > /tmp/fw4.nft" || { echo "fw4 print failed"; return 1; }
	python3 - "$OWRT_ROOT/tmp/fw4.nft" <<'EOF' || return 1
import re, sys
lines = [l.strip() for l in open(sys.argv[1])]
def at(text):
    return next((i for i, l in enumerate(lines) if l == text), None)
def inc(d):
    return at('include "/var/etc/reterm/active/%s/reterm.nft"' % d)
def block(head):
    i = at(head)
    if i is None:
        return None, None
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth == 0:
            return i, j
    return i, None
errs = []
flush, table = at("flush table inet fw4"), block("table inet fw4 {")
r = inc("ruleset-pre")
if None in (flush, r, table[0]) or not flush < r < table[0]:
    errs.append("ruleset-pre not between the flush and the table")
t = inc("table-pre")
first_chain = next((i for i, l in enumerate(lines) if l.startswith("chain ")), None)
if None in (t, table[0], first_chain) or not table[0] < t < first_chain:
    errs.append("table-pre not inside the table before the first chain")
for chain in ("mangle_prerouting", "input"):
    b, c = block("chain %s {" % chain), inc("chain-pre/" + chain)
    verdict = next((i for i in range(b[0] + 1, b[1] or b[0]) if re.search(r"^(ct state|jump |goto )", lines[i])), b[1])
    if None in (b[0], c, verdict) or not b[0] < c < verdict:
        errs.append("chain-pre/%s not in its chain before fw4's verdicts" % chain)
if sum(1 for l in lines if "/var/etc/reterm/" in l) != 4:
    errs.append("not exactly 4 includes of ours")
sys.exit("; ".join(errs) if errs else 0)
EOF
	# the printed ruleset, includes and all, into a fresh network namespace
	unshare --net chroot "$OWRT_ROOT" nft -f /tmp/fw4.nft || { echo "printed ruleset does not load"; return 1; }
}
check "fw4/print: stock firewall config, snippets in place, ruleset loads with nft -f in a fresh netns" fw4_print

fw4_reload() {
	osh "nft flush set inet fw4 reterm_devices && nft flush set inet fw4 reterm_ports && nft flush set inet fw4 reterm_all" || return 1
	osh "fw4 reload" || { echo "fw4 reload failed"; return 1; }
	osh "nft list set inet fw4 reterm_all; nft list set inet fw4 reterm_devices" | grep -q "02:00:00:00:3d:51" ||
		{ echo "sets not refilled"; osh "nft list set inet fw4 reterm_devices"; return 1; }
	osh "nft list chain inet fw4 mangle_prerouting" | grep -q "jump reterm_prerouting" || { echo "reterm jump gone"; return 1; }
	osh "nft list ruleset" | grep -q "tproxy" || { echo "tproxy rules gone"; return 1; }
}
check "fw4/reload: reload while reterm runs keeps the tproxy rules and refills the sets" fw4_reload

fw4_policy() {
	local st
	osh "uci -q batch" >/dev/null <<'EOF'
add firewall rule
set firewall.@rule[-1].name='Block the 3DS'
set firewall.@rule[-1].src='lan'
set firewall.@rule[-1].dest='wan'
set firewall.@rule[-1].src_mac='02:00:00:00:3d:51'
set firewall.@rule[-1].target='REJECT'
commit firewall
EOF
	osh "fw4 reload && /etc/init.d/reterm reload" || return 1
	osh "nft list chain inet fw4 forward_lan" | grep -qi "02:00:00:00:3d:51.*reject" || { echo "fw4 made no reject rule"; return 1; }
	osh "nft list set inet fw4 reterm_devices" | grep -q "02:00:00:00:3d:51" && { echo "device still diverted"; return 1; }
	st=$(osh "ubus call reterm status")
	osh "uci delete firewall.@rule[-1] && uci commit firewall && fw4 reload && /etc/init.d/reterm reload"
	grep -q 'is not re-terminated: firewall rule \\"Block the 3DS\\" (reject)' <<<"$st" || { echo "status: $st"; return 1; }
	osh "nft list set inet fw4 reterm_devices" | grep -q "02:00:00:00:3d:51" || { echo "not diverted again after the rule went"; return 1; }
}
check "fw4/policy: a per-MAC REJECT lan->wan leaves the device direct (fw4's rule applies), status says why" fw4_policy

fw4_policy_kinds() {
	local st chain
	osh "uci -q batch" >/dev/null <<'EOF'
add firewall rule
set firewall.@rule[-1].name='Block an address'
set firewall.@rule[-1].src='lan'
set firewall.@rule[-1].dest='wan'
set firewall.@rule[-1].src_ip='192.168.1.50'
set firewall.@rule[-1].target='REJECT'
add firewall rule
set firewall.@rule[-1].name='No port 2525'
set firewall.@rule[-1].src='lan'
set firewall.@rule[-1].dest='wan'
set firewall.@rule[-1].proto='tcp'
set firewall.@rule[-1].dest_port='2525'
set firewall.@rule[-1].target='REJECT'
add firewall rule
set firewall.@rule[-1].name='Only the PC'
set firewall.@rule[-1].src='lan'
set firewall.@rule[-1].dest='wan'
set firewall.@rule[-1].src_mac='!02:00:00:00:00:99'
set firewall.@rule[-1].target='DROP'
commit firewall
EOF
	event firewall && triggers_idle || { echo "the reload triggers did not end"; return 1; }
	chain=$(osh "nft list chain inet fw4 forward_lan")
	grep -q "ip saddr 192.168.1.50 .*reject" <<<"$chain" && grep -q "tcp dport 2525 .*reject" <<<"$chain" &&
		grep -qi "ether saddr != 02:00:00:00:00:99 .*drop" <<<"$chain" || { echo "fw4 did not reload with the rules: $chain"; return 1; }
	chain=$(osh "nft list chain inet fw4 reterm_prerouting")
	grep -q "ip saddr 192.168.1.50 return" <<<"$chain" && grep -q "tcp dport 2525 return" <<<"$chain" ||
		{ echo "reterm did not reload with return rules for them: $chain"; return 1; }
	osh "nft list set inet fw4 reterm_devices" | grep -q "02:00:00:00:3d:51" && { echo "device still diverted (negated MAC)"; return 1; }
	st=$(osh "ubus call reterm status")
	grep -q 'firewall rule \\"No port 2525\\"' <<<"$st" &&
		grep -q 'is not re-terminated: firewall rule \\"Only the PC\\" (drop)' <<<"$st" || { echo "status: $st"; return 1; }
	osh "for i in 1 2 3; do uci delete firewall.@rule[-1]; done; uci commit firewall" && event firewall && triggers_idle ||
		{ echo "the reload triggers did not end"; return 1; }
	osh "nft list chain inet fw4 reterm_prerouting" | grep -q "firewall rule" && { echo "return rules left after the rules went"; return 1; }
	osh "nft list set inet fw4 reterm_devices" | grep -q "02:00:00:00:3d:51" || { echo "not diverted again after the rules went"; return 1; }
}
check "fw4/policy-kinds: src_ip, port and negated-MAC rules reach reterm through procd's trigger on firewall; undone the same way" fw4_policy_kinds

fw4_reboot() {
	# what a reboot leaves: /var is RAM, the include links dangle
	owrt_sh "rm -rf /var/etc/reterm /var/run/reterm" || return 1
	if osh "fw4 print" | grep -q "reterm"; then
		echo "fw4 still prints reterm rules"
		return 1
	fi
	osh "fw4 print > /tmp/fw4-reboot.nft" && unshare --net chroot "$OWRT_ROOT" nft -f /tmp/fw4-reboot.nft ||
		{ echo "ruleset after reboot does not load"; return 1; }
	osh "/etc/init.d/reterm stop" >/dev/null 2>&1
	return 0
}
check "fw4/reboot: with /var emptied fw4 prints no reterm rule and still loads" fw4_reboot
