// SPDX-License-Identifier: Apache-2.0
//
// Unit tests of the pure parts of the API: reterm.api.hosts parsers,
// reterm.api.audit (nft -j, ss -tin, evaluation, the nft command), reterm.api.oui,
// reterm.reply and the haproxy "show stat" parser, on recorded outputs in
// fixtures/parsers/.  Run with the real modules only:
//
//   ucode -L root/usr/share/ucode tests/ucode/api/parse_test.uc
//
// Prints "not ok - ..." per failure and "parse: N passed, N failed".

'use strict';

import { readfile } from 'fs';
import * as H from 'reterm.api.hosts';
import * as A from 'reterm.api.audit';
import * as R from 'reterm.reply';
import { lookup, load } from 'reterm.api.oui';
import { stat_sessions } from 'reterm.api.haproxy';

const DIR = sourcepath(0, true) + '/fixtures/parsers';

let passed = 0, failed = 0;

function check(what, got, want) {
	if (sprintf('%J', got) === sprintf('%J', want)) {
		passed++;
	}
	else {
		failed++;
		print(sprintf('not ok - %s\n#   got:  %J\n#   want: %J\n', what, got, want));
	}
}

function fixture(name) {
	return readfile(`${DIR}/${name}`);
}

// ---- hosts ------------------------------------------------------------

check('leases4: MAC, IP, name; "*" is no name; DHCPv6 and bad lines skipped',
	H.parse_leases4(
		'1790003580 98:e8:fa:12:34:56 192.168.1.51 * 01:98:e8:fa:12:34:56\n' +
		'1790003600 00:D9:D1:AA:BB:CC 192.168.1.60 PS4-123 *\n' +
		'duid 00:01:00:01:2b:00:00:01:02:aa:bb:cc:dd:ee\n' +
		'1790003650 305419896 2001:db8:1::abc host6 00:01:00:01\n' +
		'1790003660 01:00:5e:00:00:01 192.168.1.99 mcast *\n' +
		'1790003670 02:00:00:00:00:09 192.168.1.300 bad-ip *\n' +
		'1790003680 02:00:00:00:00:0a 192.168.1.10 evil\x1b[31mname *\n' +
		'garbage\n\n'),
	[
		{ mac: '98:e8:fa:12:34:56', ip: '192.168.1.51', name: null },
		{ mac: '00:d9:d1:aa:bb:cc', ip: '192.168.1.60', name: 'PS4-123' },
		{ mac: '02:00:00:00:00:0a', ip: '192.168.1.10', name: 'evil[31mname' }
	]);

check('leases4: no file', H.parse_leases4(null), []);

check('DUID-LLT and DUID-LL carry the MAC, others do not', [
	H.mac_from_duid('000100012b3c4d5e00d9d1aabbcc'),
	H.mac_from_duid('0003000198E8FA123456'),
	H.mac_from_duid('0004a1b2c3d4e5f60718293a4b5c6d7e8f90'),
	H.mac_from_duid('000100062b3c4d5e00d9d1aabbcc'),
	H.mac_from_duid('0003000101005e000001'),
	H.mac_from_duid('0003000198e8fa12345'),
	H.mac_from_duid('00030001zze8fa123456'),
	H.mac_from_duid(42)
], [ '00:d9:d1:aa:bb:cc', '98:e8:fa:12:34:56', null, null, null, null, null, null ]);

check('odhcpd leases', H.parse_odhcpd({ device: { 'br-lan': { leases: [
	{ duid: '000100012b3c4d5e00d9d1aabbcc', hostname: 'PS4-123',
	  'ipv6-addr': [ { address: '2001:DB8:1::60' }, { address: 'nonsense' }, { address: '192.0.2.1' } ] },
	{ duid: '0004aa', hostname: 'x\ny', 'ipv6-addr': [ { address: '2001:db8:1::20' } ] },
	'garbage'
] }, 'br-guest': { leases: 'nope' } } }), [
	{ mac: '00:d9:d1:aa:bb:cc', ips: [ '2001:db8:1::60' ], name: 'PS4-123' },
	{ mac: null, ips: [ '2001:db8:1::20' ], name: 'xy' }
]);

check('odhcpd: absent or odd replies', [ H.parse_odhcpd(null), H.parse_odhcpd({}), H.parse_odhcpd({ device: [] }) ], [ [], [], [] ]);

const ARP = 'IP address       HW type     Flags       HW address            Mask     Device\n' +
	'192.168.1.51     0x1         0x2         98:e8:fa:12:34:56     *        br-lan\n' +
	'192.168.1.77     0x1         0x0         00:00:00:00:00:00     *        br-lan\n' +
	'192.168.1.78     0x1         0x6         02:00:00:00:00:78     *        br-lan\n' +
	'203.0.113.1      0x1         0x2         02:aa:bb:cc:dd:01     *        eth1\n';

check('arp: complete entries of the LAN device', H.parse_arp(ARP, 'br-lan'), [
	{ mac: '98:e8:fa:12:34:56', ip: '192.168.1.51' },
	{ mac: '02:00:00:00:00:78', ip: '192.168.1.78' }
]);

check('neigh6: lladdr entries in a live state on the LAN device', H.parse_neigh6(
	'2001:db8:1::60 dev br-lan lladdr 00:d9:d1:aa:bb:cc REACHABLE\n' +
	'fe80::1 dev br-lan lladdr 02:00:00:00:00:01 router STALE\n' +
	'2001:db8:1::99 dev br-lan FAILED\n' +
	'2001:db8:1::98 dev br-lan lladdr 02:00:00:00:00:98 INCOMPLETE\n' +
	'2001:db8:1::97 dev eth1 lladdr 02:00:00:00:00:97 REACHABLE\n' +
	'2001:db8:1::96 dev br-lan lladdr 02:00:00:00:00:96 PROBE\n', 'br-lan'), [
	{ mac: '00:d9:d1:aa:bb:cc', ip: '2001:db8:1::60' },
	{ mac: '02:00:00:00:00:01', ip: 'fe80::1' },
	{ mac: '02:00:00:00:00:96', ip: '2001:db8:1::96' }
]);

check('ethers: hostname or IPv4, comments and garbage skipped', H.parse_ethers(
	'# comment\ne0:31:9e:10:20:30 steamdeck # trailing\nE0:31:9E:10:20:31 192.168.1.71\nnonsense here\n02:00:00:00:00:01\n'), [
	{ mac: 'e0:31:9e:10:20:30', name: 'steamdeck' },
	{ mac: 'e0:31:9e:10:20:31', ip: '192.168.1.71' }
]);

check('static hosts: one or more MACs, ip "ignore"', H.parse_statics([
	{ name: 'xbox', mac: '7C:1E:52:AA:00:01', ip: '192.168.1.40' },
	{ name: 'two', mac: [ '02:00:00:00:00:01', '02:00:00:00:00:02' ], ip: 'ignore' },
	{ name: 'spaced', mac: '02:00:00:00:00:03 02:00:00:00:00:04' },
	{ name: 'wild', mac: '*:*:*:*:*:*' },
	{ name: 'none' }
]), [
	{ mac: '7c:1e:52:aa:00:01', name: 'xbox', ip: '192.168.1.40' },
	{ mac: '02:00:00:00:00:01', name: 'two', ip: null },
	{ mac: '02:00:00:00:00:02', name: 'two', ip: null },
	{ mac: '02:00:00:00:00:03', name: 'spaced', ip: null },
	{ mac: '02:00:00:00:00:04', name: 'spaced', ip: null }
]);

let merged = H.merge({
	devices: [ { mac: '02:00:00:00:00:01', name: 'cfg', enabled: true, ports: 'web', section: 's1' } ],
	statics: [ { mac: '02:00:00:00:00:01', name: 'static', ip: '192.168.1.5' } ],
	leases4: [ { mac: '02:00:00:00:00:01', ip: '192.168.1.10', name: 'lease' }, { mac: '02:00:00:00:00:02', ip: '192.168.1.2', name: null } ],
	leases6: [ { mac: null, ips: [ '2001:db8::2' ], name: 'six' }, { mac: null, ips: [ '2001:db8::9' ], name: 'lost' } ],
	ethers: [ { mac: '02:00:00:00:00:02', name: 'ethers' } ],
	arp: [ { mac: '02:00:00:00:00:02', ip: '192.168.1.2' } ],
	neigh6: [ { mac: '02:00:00:00:00:02', ip: '2001:db8::2' }, { mac: '02:00:00:00:00:02', ip: 'fe80::2' } ],
	macs: [ '02:00:00:00:00:03' ]
});

check('merge: names by precedence, addresses merged and sorted, link-local dropped', merged, {
	'02:00:00:00:00:01': { mac: '02:00:00:00:00:01', name: 'cfg', ipv4: [ '192.168.1.5', '192.168.1.10' ], ipv6: [],
		online: false, reterm: true, enabled: true, ports: 'web', section: 's1' },
	'02:00:00:00:00:02': { mac: '02:00:00:00:00:02', name: 'six', ipv4: [ '192.168.1.2' ], ipv6: [ '2001:db8::2' ],
		online: true, reterm: false, enabled: false, ports: 'all', section: null },
	'02:00:00:00:00:03': { mac: '02:00:00:00:00:03', name: '', ipv4: [], ipv6: [],
		online: false, reterm: false, enabled: false, ports: 'all', section: null }
});

check('compare: class first, then name (unnamed last), then MAC',
	map(sort([
		{ class: 'other', name: 'b', mac: '1' }, { class: 'other', name: '', mac: '0' },
		{ class: 'handheld', name: 'z', mac: '2' }, { class: 'console', name: 'A', mac: '3' },
		{ class: 'other', name: 'B', mac: '0' }
	], H.compare), x => x.name), [ 'A', 'z', 'B', 'b', '' ]);

check('clean_name', [ H.clean_name('a\u0000b\tc'), H.clean_name('*'), H.clean_name('  '), H.clean_name(5),
	length(H.clean_name(join('', map(split('0123456789', ''), () => 'abcdefghij')))) ],
	[ 'abc', null, null, null, 63 ]);

// ---- nft sets ---------------------------------------------------------

let sets = A.parse_sets(fixture('nft-sets.jsonl') + '\nnot json\n{"nftables": "odd"}\n');

check('parse_sets: every set of the recorded output', sort(keys(sets)),
	[ 'reterm_audit_noscale', 'reterm_audit_on', 'reterm_audit_smallwin', 'reterm_audit_syn', 'reterm_audit_window' ]);
check('parse_sets: counters and expiry', sets.reterm_audit_syn[0], { val: '00:d9:d1:aa:bb:cc', packets: 30, bytes: 1800, expires: 3597 });
check('parse_sets: concatenated keys', sets.reterm_audit_window[1].val, { concat: [ '98:e8:fa:12:34:56', 16384 ] });
check('parse_sets: plain elements without counter', A.parse_sets('{"nftables":[{"set":{"name":"s","elem":["br-lan"]}}]}'),
	{ s: [ { val: 'br-lan', packets: 0, bytes: 0, expires: null } ] });
check('parse_sets: nothing', A.parse_sets(''), {});

check('state: running with time left', A.state(sets, 'br-lan'), { running: true, remaining_s: 597 });
check('state: other device or no set', [ A.state(sets, 'br-guest'), A.state({}, 'br-lan') ],
	[ { running: false, remaining_s: null }, { running: false, remaining_s: null } ]);

check('passive: counts per MAC, largest window of SYNs without scaling', A.passive(sets), {
	'00:d9:d1:aa:bb:cc': { syn: 30, noscale: 0, smallwin: 0, window: null },
	'0e:11:22:33:44:55': { syn: 4, noscale: 0, smallwin: 0, window: null },
	'3c:22:fb:01:02:03': { syn: 25, noscale: 0, smallwin: 25, window: null },
	'98:e8:fa:12:34:56': { syn: 12, noscale: 12, smallwin: 12, window: 16384 }
});

check('passive: hostile values ignored', A.passive({
	reterm_audit_syn: [ { val: '02:00:00:00:00:01"; drop', packets: 5 }, { val: [ 1 ], packets: 1 } ],
	reterm_audit_window: [ { val: { concat: [ '02:00:00:00:00:01', '16384' ] }, packets: 1 }, { val: 'x', packets: 1 } ]
}), {});

// ---- the start command ------------------------------------------------

check('start_argv: one nft run, flushes then switches on', A.start_argv('br-lan', 10), [ 'nft',
	'flush set inet fw4 reterm_audit_on; flush set inet fw4 reterm_audit_syn; flush set inet fw4 reterm_audit_noscale; ' +
	'flush set inet fw4 reterm_audit_smallwin; flush set inet fw4 reterm_audit_window; ' +
	'add element inet fw4 reterm_audit_on { "br-lan" timeout 10m }' ]);

check('start_argv: refuses what could leave the quotes or the range', [
	A.start_argv('br-lan" }; flush ruleset; #', 10), A.start_argv('br lan', 10), A.start_argv('', 10),
	A.start_argv(null, 10), A.start_argv('br-lan', 0), A.start_argv('br-lan', 121), A.start_argv('br-lan', '10'),
	A.start_argv('br-lan', 10.5), A.start_argv('averyveryverylongname', 10)
], [ null, null, null, null, null, null, null, null, null ]);

// ---- ss ---------------------------------------------------------------

let est = A.parse_ss(fixture('ss-established.txt'));
let all = A.parse_ss(fixture('ss-all.txt'));

check('parse_ss: both rows, IPv4 and IPv6, without State column', map(est, r => [ r.local, r.peer ]), [
	[ { addr: '192.0.2.1', port: 8080 }, { addr: '192.0.2.51', port: 38268 } ],
	[ { addr: '2001:db8::1', port: 8080 }, { addr: '2001:db8::51', port: 42770 } ]
]);
check('parse_ss: tcp_info fields', est[0], {
	local: { addr: '192.0.2.1', port: 8080 }, peer: { addr: '192.0.2.51', port: 38268 },
	wscale: null, rtt_ms: 6.667, snd_wnd: 1448, busy_ms: 1916, rwnd_limited_ms: 1620, rwnd_limited_pct: 84.6,
	bytes_acked: 1338012, bytes_received: 412
});
check('parse_ss: with State column', map(all, r => [ r.peer.addr, r.busy_ms, r.rwnd_limited_ms ]),
	[ [ '192.0.2.51', 1920, 1624 ], [ '2001:db8::51', 1916, 1616 ] ]);

let odd = A.parse_ss(
	'Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n' +
	'0 0 [fe80::1]%br-lan:22 [fe80::2]%br-lan:50000\n' +
	'\t cubic wscale:7,6 rtt:0.05/0.025 mss:1428 snd_wnd:65280 bbr:(bw:1bps,mrtt:9.9) rcv_rtt:7 lastsnd:1\n' +
	'0 0 [::ffff:192.0.2.1]:443 [::ffff:192.0.2.51]:40000\n' +
	'\t cubic rtt:1.5/0.7 busy:10ms\n' +
	'0 0 *:* *:*\n' +
	'\t nothing\n');

check('parse_ss: scope ids, mapped IPv4, wscale, no confusion with mrtt/rcv_rtt', odd, [
	{ local: { addr: 'fe80::1', port: 22 }, peer: { addr: 'fe80::2', port: 50000 }, wscale: [ 7, 6 ], rtt_ms: 0.05,
	  snd_wnd: 65280, busy_ms: null, rwnd_limited_ms: null, rwnd_limited_pct: null, bytes_acked: null, bytes_received: null },
	{ local: { addr: '192.0.2.1', port: 443 }, peer: { addr: '192.0.2.51', port: 40000 }, wscale: null, rtt_ms: 1.5,
	  snd_wnd: null, busy_ms: 10, rwnd_limited_ms: null, rwnd_limited_pct: null, bytes_acked: null,
	  bytes_received: null }
]);
check('parse_ss: empty', [ A.parse_ss(''), A.parse_ss(null) ], [ [], [] ]);

check('active: busy-weighted over both connections of the device', A.active(est, [ '192.0.2.51', '2001:db8::51' ]), {
	connections: 2, busy_ms: 3828, rwnd_limited_ms: 3232, pct: 84.4, scaling: false, window: 1448, rtt_ms: 6.667,
	bytes_to: 2657544, bytes_from: 810
});
check('active: other devices and bypassed (private) local addresses do not count', [
	A.active(est, [ '192.0.2.77' ]),
	A.active([ { local: { addr: '192.168.1.1', port: 53 }, peer: { addr: '192.168.1.51', port: 1 }, busy_ms: 10, rwnd_limited_ms: 10 },
	           { local: { addr: 'fd00::1', port: 53 }, peer: { addr: 'fd00::51', port: 1 }, busy_ms: 10, rwnd_limited_ms: 10 } ],
		[ '192.168.1.51', 'fd00::51' ])
], [ null, null ]);
check('bypassed', map([ '10.1.2.3', '100.64.0.1', '100.128.0.1', '192.0.2.1', '224.0.0.1', 'fe80::1', 'fd12::1', '2001:db8::1', '::ffff:1.2.3.4' ],
	A.bypassed), [ true, true, false, false, true, true, true, false, true ]);

// ---- evaluate ---------------------------------------------------------

let e = A.evaluate({ syn: 12, noscale: 12, smallwin: 12, window: 16384 }, null, 130);
check('evaluate: 3DS-like, passive only', e, {
	syn_count: 12, noscale_syns: 12, small_window_syns: 12, window: 16384, scaling: false,
	ceiling_bps: 1008246, rtt_ms: 130, rwnd_limited_pct: null, recommendation: 'reterm',
	summary: '12 SYNs, none with window scaling; window 16384 bytes: about 1.0 Mbit/s per connection at 130 ms; re-termination recommended.'
});

check('evaluate: PC-like, passive only', A.evaluate({ syn: 20, noscale: 0, smallwin: 20, window: null }, null, 130), {
	syn_count: 20, noscale_syns: 0, small_window_syns: 20, window: null, scaling: true,
	ceiling_bps: null, rtt_ms: 130, rwnd_limited_pct: null, recommendation: 'ok',
	summary: '20 SYNs, all with window scaling; the TCP window is not what limits it.'
});

check('evaluate: mixed, minority without scaling', [ A.evaluate({ syn: 10, noscale: 4, smallwin: 4, window: 8192 }, null, 100).recommendation,
	A.evaluate({ syn: 10, noscale: 5, smallwin: 5, window: 8192 }, null, 100).recommendation ], [ 'ok', 'reterm' ]);

let ps4 = A.evaluate(null, { connections: 2, busy_ms: 10000, rwnd_limited_ms: 6400, pct: 64, scaling: true, window: 7168, rtt_ms: 1.1 }, 130);
check('evaluate: re-terminated, window scaling but clamped (PS4)', [ ps4.window, ps4.scaling, ps4.ceiling_bps, ps4.rwnd_limited_pct, ps4.recommendation, ps4.syn_count ],
	[ 7168, true, 441107, 64, 'reterm', 0 ]);

let fine = A.evaluate({ syn: 3, noscale: 0, smallwin: 0, window: null },
	{ connections: 1, busy_ms: 1000, rwnd_limited_ms: 50, pct: 5, scaling: true, window: 1048576, rtt_ms: 0.5 }, 130);
check('evaluate: re-terminated but not window-limited', [ fine.recommendation, fine.ceiling_bps, fine.summary ], [ 'ok', 64527753,
	'Re-terminated: its receive window held the router back 5% of the busy time; 3 SYNs, all with window scaling; window 1048576 bytes: about 65 Mbit/s per connection at 130 ms without re-termination; the TCP window is not what limits it.' ]);

let idle = A.evaluate(null, { connections: 1, busy_ms: 0, rwnd_limited_ms: 0, pct: null, scaling: true, window: 65280, rtt_ms: 0.5 }, 130);
check('evaluate: re-terminated, idle, nothing known', [ idle.recommendation, idle.rwnd_limited_pct ], [ 'unknown', null ]);

check('evaluate: no data', [ A.evaluate(null, null, 130), A.evaluate({ syn: 0, noscale: 0, smallwin: 0, window: null }, null, 130) ], [ null, null ]);

check('evaluate: default RTT', A.evaluate({ syn: 1, noscale: 1, smallwin: 1, window: 65535 }, null).ceiling_bps, 4032923);

// ---- OUI --------------------------------------------------------------

check('oui: makers and classes', map([
	'98:e8:fa:12:34:56', '00:09:bf:00:00:01', '00:d9:d1:aa:bb:cc', '00:04:1f:00:00:01',
	'e0:31:9e:10:20:30', '7c:1e:52:aa:00:01', '3c:22:fb:01:02:03', '02:00:00:00:00:01', '9a:e8:fa:12:34:56'
], lookup), [
	{ vendor: 'Nintendo', class: 'console' }, { vendor: 'Nintendo', class: 'console' },
	{ vendor: 'Sony Interactive Entertainment (PlayStation)', class: 'console' },
	{ vendor: 'Sony Interactive Entertainment (PlayStation)', class: 'console' },
	{ vendor: 'Valve (Steam Deck)', class: 'handheld' },
	{ vendor: 'Microsoft (Xbox or PC)', class: 'other' },
	{ vendor: null, class: 'other' }, { vendor: null, class: 'other' }, { vendor: null, class: 'other' }
]);

let t = load();
check('oui: table records source and date', [ type(t.source), match(t.generated, /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/) != null, length(t.prefixes) > 100 ],
	[ 'string', true, true ]);

load('/nonexistent/oui.json');
check('oui: without a table nothing is known', lookup('98:e8:fa:12:34:56'), { vendor: null, class: 'other' });
load();

// ---- replies and haproxy ----------------------------------------------

check('reply.check', [
	R.check({}, { a: { type: 'string', required: true } }),
	R.check({ a: 1 }, { a: { type: 'string' } }),
	R.check({ b: 1 }, { a: { type: 'string' } }),
	R.check({ a: 'x', ubus_rpc_session: 'abc' }, { a: { type: 'string' } }),
	R.check(null, { a: { type: 'int' } }),
	R.check('x', {})
], [
	{ error: 'invalid_argument', message: "argument 'a' is required", field: 'a' },
	{ error: 'invalid_argument', message: "argument 'a' must be a string", field: 'a' },
	{ error: 'invalid_argument', message: 'unknown argument "b"', field: 'b' },
	{ args: { a: 'x' } }, { args: {} },
	{ error: 'invalid_argument', message: 'arguments must be an object', field: null }
]);

function rep(s, n) {
	let out = '';

	for (let i = 0; i < n; i++)
		out += s;

	return out;
}

// a cut inside a 2-byte character would be invalid UTF-8 on ubus/HTTP
check('reply.show: long values cut between UTF-8 characters', [
	R.show('x' + rep('\u00e4', 30)),
	R.show(rep('\u20ac', 30)),
	R.show('short \u00e4')
], [
	'"x' + rep('\u00e4', 21) + '...',
	'"' + rep('\u20ac', 14) + '...',
	'"short \u00e4"'
]);

check('show stat: frontend sessions', [
	stat_sessions(fixture('haproxy-show-stat.txt')),
	stat_sessions(replace(fixture('haproxy-show-stat.txt'), /reterm,FRONTEND,,,0,/, 'reterm,FRONTEND,,,7,')),
	stat_sessions(''), stat_sessions('Unknown command\n')
], [ 0, 7, null, null ]);

print(`parse: ${passed} passed, ${failed} failed\n`);
exit(failed ? 1 : 0);
