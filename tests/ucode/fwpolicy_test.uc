// SPDX-License-Identifier: Apache-2.0
//
// The proxy is no way around the firewall (reterm.fwpolicy): for each
// kind of rule in /etc/config/firewall, what reterm renders so that the
// connections the rule matches stay direct, where fw4 applies it.  Each
// case goes through reterm.config load() and the nft renderer, and looks
// at what reaches nft: the devices left in the sets, the rules of the
// chain reterm_prerouting that keep connections direct, the messages.
//
//   ucode -L <root>/usr/share/ucode tests/ucode/fwpolicy_test.uc
//
// Prints "not ok - ..." per failure and "fwpolicy: N passed, N failed".

'use strict';

import { load } from 'reterm.config';
import { table_pre } from 'reterm.render.nft';

let passed = 0, failed = 0;

function check(what, got, want) {
	if (sprintf('%J', got) === sprintf('%J', want)) {
		passed++;
		return;
	}

	failed++;
	print(sprintf('not ok - %s\n#   got:  %J\n#   want: %J\n', what, got, want));
}

function ok(what, cond, detail) {
	check(what, cond ? true : detail ?? false, true);
}

const A = '02:00:00:00:00:0a', B = '02:00:00:00:00:0b', C = '02:00:00:00:00:0c';

// A uci cursor over { config: [ section, ... ] } (sections in order,
// anonymous unless they carry '.name')
function cursor(uci) {
	let named = (c) => {
		let n = {}, seen = {};

		for (let s in uci[c] ?? []) {
			let t = s['.type'], i = seen[t] = (seen[t] ?? -1) + 1;
			let name = s['.name'] ?? sprintf('cfg%02x%04x', length(keys(n)), i);

			n[name] = { ...s, '.name': name, '.anonymous': s['.name'] == null, '.index': i };
		}

		return n;
	};

	return {
		get_all: (c, s) => named(c)[s],
		get: (c, s, o) => named(c)[s]?.[o],
		foreach: function(c, t, cb) {
			for (let n, s in named(c))
				if (s['.type'] == t && cb(s) === false)
					break;
		}
	};
}

const RETERM = [
	{ '.type': 'reterm', '.name': 'main', enabled: '1' },
	{ '.type': 'device', name: 'a', mac: A },
	{ '.type': 'device', name: 'b', mac: B },
	{ '.type': 'device', name: 'c', mac: C }
];

const ZONES = [
	{ '.type': 'zone', name: 'lan', network: [ 'lan' ], forward: 'ACCEPT' },
	{ '.type': 'zone', name: 'wan', network: [ 'wan', 'wan6' ], masq: '1' },
	{ '.type': 'zone', name: 'guest', network: [ 'guest' ] },
	{ '.type': 'forwarding', src: 'lan', dest: 'wan' }
];

// load with these firewall rules: { devices (MACs left selected),
// direct (the firewall lines of reterm_prerouting, comment cut off),
// errors, text (all of table-pre) }
function run(rules) {
	let fw = [ ...ZONES ];

	for (let r in rules)
		push(fw, { '.type': 'rule', ...r });

	let res = load(cursor({ reterm: RETERM, firewall: fw }), 65536);
	let text = table_pre(res.cfg), direct = [];

	for (let l in split(text, '\n')) {
		let m = match(l, /^\t(.*) comment "reterm: firewall rule [^"]*"$/);

		if (m)
			push(direct, m[1]);
	}

	return { devices: map(res.cfg.devices, d => d.mac), direct, errors: res.errors, text };
}

function rule(extra) {
	return { name: 'test rule', src: 'lan', dest: 'wan', target: 'REJECT', ...extra };
}

let r;

// ---- the three kinds of issue 30 item 6 ------------------------------------
r = run([ rule({ src_ip: '192.168.1.50' }) ]);
check('src_ip REJECT: that source stays direct', r.direct,
	[ 'meta nfproto ipv4 ip saddr { 192.168.1.50/32 } return' ]);
check('src_ip REJECT: every device still selected', r.devices, [ A, B, C ]);
ok('src_ip REJECT: a message names the rule', length(filter(r.errors, e => index(e, '"test rule"') >= 0)) == 1, r.errors);

r = run([ rule({ proto: 'tcp', dest_port: '25 465' }) ]);
check('dest_port REJECT without a source: those ports stay direct', r.direct,
	[ 'tcp dport { 25, 465 } return' ]);
check('dest_port REJECT: every device still selected', r.devices, [ A, B, C ]);

r = run([ rule({ dest_ip: [ '203.0.113.0/28', '198.51.100.7/255.255.255.0' ] }) ]);
check('dest_ip REJECT without a source: those destinations stay direct', r.direct,
	[ 'meta nfproto ipv4 ip daddr { 203.0.113.0/28, 198.51.100.0/24 } return' ]);

r = run([ rule({ src_mac: '!' + C, target: 'DROP' }) ]);
check('negated src_mac: every selected device but that one left direct', r.devices, [ C ]);
check('negated src_mac alone: no nft rule needed', r.direct, []);
ok('negated src_mac: a message per device left direct',
	length(filter(r.errors, e => match(e, /^device '[ab]' .* is not re-terminated: firewall rule "test rule"/))) == 2, r.errors);

r = run([ rule({ src_mac: [ '!' + C ], dest_port: '443' }) ]);
check('negated src_mac and a port: exactly that, in nft', r.direct,
	[ `ether saddr != { ${C} } tcp dport { 443 } return` ]);
check('negated src_mac and a port: every device still selected', r.devices, [ A, B, C ]);

// ---- what a rule names, as fw4 reads it ------------------------------------
r = run([ rule({ src_ip: [ '192.168.1.0/24', 'fd00:1::/64' ], dest_port: '80' }) ]);
check('both families: one nft rule each', r.direct, [
	'meta nfproto ipv4 ip saddr { 192.168.1.0/24 } tcp dport { 80 } return',
	'meta nfproto ipv6 ip6 saddr { fd00:1::/64 } tcp dport { 80 } return'
]);

r = run([ rule({ src_ip: '!192.168.1.5', dest_ip: '2001:db8::/32' }) ]);
check('v4 source and v6 destination: fw4 makes a rule per family of what it has', r.direct, [
	'meta nfproto ipv4 ip saddr != { 192.168.1.5/32 } return',
	'meta nfproto ipv6 ip6 daddr { 2001:db8::/32 } return'
]);

r = run([ rule({ src_mac: [ A, '02:00:00:00:00:99' ], src_port: '1024-2047', dest_port: '!22' }) ]);
check('src_mac with ports: only the selected MACs, exact ports', r.direct,
	[ `ether saddr { ${A} } tcp sport { 1024-2047 } tcp dport != { 22 } return` ]);
check('src_mac with ports: the device stays selected', r.devices, [ A, B, C ]);

r = run([ rule({ src_mac: '02:00:00:00:00:99', dest_port: '25' }) ]);
check('a rule for a device that is not selected changes nothing', [ r.direct, r.devices ], [ [], [ A, B, C ] ]);

r = run([ rule({ src_mac: 'AA-0:0:0:0-B', family: 'ipv6' }) ]);
check('fw4 MAC syntax and family ipv6', r.direct, []);
r = run([ rule({ src_mac: '2-0:0:0:0-A', family: 'ipv6' }) ]);
check('fw4 MAC syntax (1-2 digits, - or :), family ipv6: nft rule for that family', r.direct,
	[ `meta nfproto ipv6 ether saddr { ${A} } return` ]);

r = run([ rule({ src_mac: A, start_time: '22:00:00', stop_time: '07:00:00', target: 'ACCEPT' }) ]);
check('a time-limited rule: its device stays direct (as before)', r.devices, [ B, C ]);

r = run([ rule({ src_mac: B, target: 'MARK', set_mark: '0x1' }) ]);
check('a MARK rule (mangle_forward) applies to direct traffic only: device direct', r.devices, [ A, C ]);

r = run([ rule({ src_mac: B, target: 'ACCEPT' }), rule({ src_mac: B, proto: 'udp' }),
	rule({ src_mac: B, enabled: '0' }), rule({ src_mac: B, dest: null }), rule({ src_mac: B, src: 'wan', dest: 'lan' }) ]);
check('ACCEPT, UDP only, disabled, input, from the WAN: nothing', [ r.direct, r.devices ], [ [], [ A, B, C ] ]);

r = run([ rule({ src_mac: B, disabled: '1' }), rule({ src_mac: C, enabled: 'yes' }) ]);
check("fw4 has no option 'disabled' and reads enabled as a bool", r.devices, [ A ]);

r = run([ rule({ src: null, dest: 'wan', dest_port: '25' }) ]);
check("an output rule (no src: the router's own connections, which re-terminated ones become)", r.direct,
	[ 'tcp dport { 25 } return' ]);

r = run([ rule({ src: 'lan', dest: 'guest', dest_ip: '2001:db8:5::/48' }) ]);
check('a rule towards another LAN zone (a routed IPv6 prefix is diverted too)', r.direct,
	[ 'meta nfproto ipv6 ip6 daddr { 2001:db8:5::/48 } return' ]);

r = run([ rule({ src: '*', dest: '*', proto: [ 'udp', 'tcp' ], dest_port: '5000:5010' }) ]);
check('src and dest any, proto list, port range with ":"', r.direct, [ 'tcp dport { 5000-5010 } return' ]);

// ---- what cannot be followed exactly: more stays direct, never less ----------
r = run([ rule({ proto: 'all', dest_port: '25' }) ]);
check('proto all: fw4 ignores the ports, so the rule blocks all TCP: nothing re-terminated', r.devices, []);

r = run([ rule({ ipset: 'blocklist', src_mac: A }) ]);
check('an ipset with a MAC: the device stays direct', r.devices, [ B, C ]);
ok('an ipset: a warning says it is not followed',
	length(filter(r.errors, e => index(e, 'ipset') >= 0)) >= 1, r.errors);

r = run([ rule({ ipset: 'blocklist', dest_port: '443' }) ]);
check('an ipset with a port: the port stays direct for everyone', r.direct, [ 'tcp dport { 443 } return' ]);

r = run([ rule({ src_ip: 'lan', dest_ip: '203.0.113.0/24' }) ]);
check('a network name as source: no source condition, both families', r.direct, [
	'meta nfproto ipv4 ip daddr { 203.0.113.0/24 } return',
	'meta nfproto ipv6 return'
]);

r = run([ rule({ src_ip: [ '!lan', '!192.168.1.9' ], dest_port: '22' }) ]);
check('a negated entry that cannot be read is left out (matches more), and may be of either family', r.direct, [
	'meta nfproto ipv4 ip saddr != { 192.168.1.9/32 } tcp dport { 22 } return',
	'meta nfproto ipv6 tcp dport { 22 } return'
]);

r = run([ rule({ dest_ip: '203.0.113.5-203.0.113.9' }) ]);
check('an address range (not rendered): no destination condition (everything)', r.devices, []);
ok('an address range: a warning names dest_ip', length(filter(r.errors, e => index(e, 'its dest_ip cannot be followed') >= 0)) == 1, r.errors);

r = run([ rule({ dest_ip: '10.0.0.1/0.255.0.255' }) ]);
check('a non-contiguous mask: no destination condition (everything)', r.devices, []);

r = run([ rule({ limit: '10/second', dest_port: '80', mark: '0x5', weekdays: 'Mon' }) ]);
check('limit, mark match, weekdays dropped: the port stays direct', r.direct, [ 'tcp dport { 80 } return' ]);

let many = [];

for (let i = 0; i < 100; i++)
	push(many, rule({ dest_port: '' + (1000 + i) }));

r = run(many);
check('more rules than rendered: nothing re-terminated', [ r.devices, length(r.direct) ], [ [], 0 ]);

// ---- hostile values never reach nft --------------------------------------------
const EVIL = [
	'1.2.3.4 } accept', '1.2.3.4\n}', '80 } ; flush ruleset', '25\naccept', `${A} } accept`,
	'"x"', '1.2.3.4/24\ndrop', '0x1;reboot', '1.2.3.4' + chr(0) + '}', '80-\n90', '!\n1.2.3.4'
];

for (let e in EVIL) {
	for (let opt in [ 'src_ip', 'dest_ip', 'src_mac', 'dest_port', 'src_port', 'proto', 'family' ]) {
		r = run([ rule({ [opt]: e, dest_port: (opt == 'dest_port') ? e : '443' }), rule({ [opt]: [ e ], src_mac: B }) ]);

		let bad = filter(split(r.text, '\n'), l => index(l, 'firewall rule') >= 0 &&
			!match(l, /^\t[a-z0-9 !{},:.\/-]+ return comment "reterm: firewall rule (@rule\[[0-9]+\]|[A-Za-z0-9_]+)"$/));

		ok(sprintf('%s %J: only validated values in nft', opt, e),
			!length(bad) && index(r.text, 'flush ruleset') < 0 && index(r.text, 'accept\n') < 0 &&
			index(r.text, 'reboot') < 0, bad);
	}
}

print(sprintf('fwpolicy: %d passed, %d failed\n', passed, failed));
exit(failed ? 1 : 0);
