// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.probe.hops: fping's "time exceeded" lines, which addresses can
// be beyond the access line, which hops are picked, and the scan on a
// simulated clock (one echo at a time, GAP_MS apart, ends where the far
// reflector answers, stop() ends it).  The scan with the real fping in
// network namespaces is monitor/hops-live (tests/ucode/latency/hops.sh).

'use strict';

import * as H from 'reterm.latency.probe.hops';
import { checker, sim } from 'sim';
import { constants } from 'spec';

let c = checker('monitor/hops');
const SPEC = constants();	// docs/adaptive-shaping.md's

// ---- fping's lines (fping 5.1, stderr) ----------------------------------
c.eq('time exceeded: the router that answered', H.parse_exceeded(
	'ICMP Time Exceeded from 10.77.0.1 for ICMP Echo sent to 198.51.77.2\n198.51.77.2 : [0], timed out (NaN avg, 100% loss)\n'),
	'10.77.0.1');
c.eq('time exceeded: IPv6, canonical', H.parse_exceeded('ICMP Time Exceeded from 2001:DB8:0::1 for ICMP Echo sent to 2001:db8::9'),
	'2001:db8::1');
c.eq('a plain answer is no hop', H.parse_exceeded('198.51.77.2 : [0], 64 bytes, 0.056 ms (0.056 avg, 0% loss)'), null);
c.eq('not an address: no hop', H.parse_exceeded('ICMP Time Exceeded from 999.1.1.1 for ICMP Echo sent to x'), null);
c.eq('nothing: no hop', H.parse_exceeded(null), null);
c.eq('fping: a hop', H.parse_fping('ICMP Time Exceeded from 10.77.0.1 for ICMP Echo sent to 198.51.77.2\n' +
	'198.51.77.2 : [0], timed out (NaN avg, 100% loss)\n'), { from: '10.77.0.1', reached: false });
c.eq('fping: the target answered', H.parse_fping('198.51.77.2 : [0], 64 bytes, 0.056 ms (0.056 avg, 0% loss)\n'),
	{ from: null, reached: true });
c.eq('fping: silence', H.parse_fping('198.51.77.2 : [0], timed out (NaN avg, 100% loss)\n'), { from: null, reached: false });

// ---- raw ICMP datagrams (IPv4 header first) ---------------------------------
function bytes(l) {
	return join('', map(l, (b) => chr(b)));
}

const IP = [ 0x45, 0, 0, 56, 0, 0, 0, 0, 64, 1, 0, 0, 198, 51, 100, 1, 198, 51, 100, 2 ];
const QUOTED = [ 0x45, 0, 0, 43, 0, 0, 0, 0, 1, 1, 0, 0, 198, 51, 100, 2, 1, 1, 1, 1 ];
let exceeded = (id, proto, type) => bytes([ ...IP, 11, 0, 0, 0, 0, 0, 0, 0,
	...map(QUOTED, (b, i) => (i == 9) ? proto : b), type, 0, 0, 0, id >> 8, id & 255, 0, 1 ]);

c.eq('icmp: time exceeded quoting our echo', H.parse_icmp(exceeded(0x1234, 1, 8), 0x1234, 1, '1.1.1.1'), 'exceeded');
c.eq('icmp: time exceeded for another id', H.parse_icmp(exceeded(0x1235, 1, 8), 0x1234, 1, '1.1.1.1'), null);
c.eq('icmp: time exceeded quoting UDP', H.parse_icmp(exceeded(0x1234, 17, 8), 0x1234, 1, '1.1.1.1'), null);
c.eq('icmp: time exceeded quoting a reply', H.parse_icmp(exceeded(0x1234, 1, 0), 0x1234, 1, '1.1.1.1'), null);
c.eq('icmp: cut short', H.parse_icmp(substr(exceeded(0x1234, 1, 8), 0, 40), 0x1234, 1, '1.1.1.1'), null);
c.eq('icmp: our echo answered', H.parse_icmp(bytes([ ...IP, 0, 0, 0, 0, 0x12, 0x34, 0, 1, 1, 2, 3, 4 ]), 0x1234, 1, '1.1.1.1'), 'reached');
c.eq('icmp: someone else\'s reply', H.parse_icmp(bytes([ ...IP, 0, 0, 0, 0, 0x99, 0x34, 0, 1, 1, 2, 3, 4 ]), 0x1234, 1, '1.1.1.1'), null);
c.eq('icmp: IPv6 bytes', H.parse_icmp(bytes([ 0x60, ...slice(IP, 1), 11, 0, 0, 0, 0, 0, 0, 0 ]), 0x1234, 1, '1.1.1.1'), null);
// a time exceeded must quote our echo to our target with our sequence
// number: a random id alone is 16 bits a sender of forged errors can spray
c.eq('icmp: time exceeded for an echo to another address', H.parse_icmp(exceeded(0x1234, 1, 8), 0x1234, 1, '8.8.8.8'), null);
c.eq('icmp: time exceeded for another sequence number', H.parse_icmp(exceeded(0x1234, 1, 8), 0x1234, 2, '1.1.1.1'), null);
c.eq('icmp: a reply with another sequence number', H.parse_icmp(bytes([ ...IP, 0, 0, 0, 0, 0x12, 0x34, 0, 1, 1, 2, 3, 4 ]), 0x1234, 3, '1.1.1.1'), null);
c.eq('icmp: nothing', H.parse_icmp(null, 1, 1, '1.1.1.1'), null);

// ---- raw ICMPv6 datagrams (no IP header) --------------------------------------
const IP6 = [ 0x60, 0, 0, 0, 0, 16, 58, 1, ...map(split(sprintf("%32s", ""), ""), (x, i) => (i < 16) ? 0x20 : 0x30) ];
const T6 = '3030:3030:3030:3030:3030:3030:3030:3030';	// the quoted destination
let exceeded6 = (id, next, type) => bytes([ 3, 0, 0, 0, 0, 0, 0, 0, ...map(IP6, (b, i) => (i == 6) ? next : b),
	type, 0, 0, 0, id >> 8, id & 255, 0, 1 ]);

c.eq('icmp6: time exceeded quoting our echo', H.parse_icmp6(exceeded6(0x1234, 58, 128), 0x1234, 1, T6), 'exceeded');
c.eq('icmp6: time exceeded for another id', H.parse_icmp6(exceeded6(0x1235, 58, 128), 0x1234, 1, T6), null);
c.eq('icmp6: time exceeded quoting UDP', H.parse_icmp6(exceeded6(0x1234, 17, 128), 0x1234, 1, T6), null);
c.eq('icmp6: time exceeded quoting a reply', H.parse_icmp6(exceeded6(0x1234, 58, 129), 0x1234, 1, T6), null);
c.eq('icmp6: cut short', H.parse_icmp6(substr(exceeded6(0x1234, 58, 128), 0, 50), 0x1234, 1, T6), null);
c.eq('icmp6: our echo answered', H.parse_icmp6(bytes([ 129, 0, 0, 0, 0x12, 0x34, 0, 1, 1, 2 ]), 0x1234, 1, T6), 'reached');
c.eq('icmp6: someone else\'s reply', H.parse_icmp6(bytes([ 129, 0, 0, 0, 0x99, 0x34, 0, 1 ]), 0x1234, 1, T6), null);
c.eq('icmp6: an IPv4 time exceeded', H.parse_icmp6(exceeded(0x1234, 1, 8), 0x1234, 1, T6), null);
c.eq('icmp6: time exceeded for an echo to another address', H.parse_icmp6(exceeded6(0x1234, 58, 128), 0x1234, 1, '2001:db8::1'), null);
c.eq('icmp6: time exceeded for another sequence number', H.parse_icmp6(exceeded6(0x1234, 58, 128), 0x1234, 4, T6), null);
c.eq('icmp6: a reply with another sequence number', H.parse_icmp6(bytes([ 129, 0, 0, 0, 0x12, 0x34, 0, 1, 1, 2 ]), 0x1234, 2, T6), null);
c.eq('icmp6: nothing', H.parse_icmp6(null, 1, 1, T6), null);

// ---- beyond the access line? ---------------------------------------------
for (let x in [
	[ '198.51.100.1', true ], [ '100.64.0.1', true ], [ '8.8.8.8', true ], [ '172.32.0.1', true ],
	[ '10.1.2.3', false ], [ '172.16.0.1', false ], [ '172.31.255.1', false ], [ '192.168.1.1', false ],
	[ '169.254.0.1', false ], [ '127.0.0.1', false ], [ '0.0.0.0', false ], [ '224.0.0.1', false ],
	[ '2001:db8::1', true ], [ 'fd00::1', false ], [ 'fc00::1', false ], [ 'fe80::1', false ], [ '::1', false ],
	[ 'ff02::1', false ], [ 'router', false ], [ null, false ]
])
	c.eq(`beyond ${x[0]}`, H.beyond(x[0]), x[1]);

// ---- which hops are picked ------------------------------------------------
c.eq('pick: private first hop (a modem) left out, nearest first, at most MAX_NEAR',
	H.pick([ { ttl: 3, addr: '203.0.113.7' }, { ttl: 1, addr: '192.168.0.1' }, { ttl: 2, addr: '198.51.100.1' },
	         { ttl: 4, addr: '203.0.113.9' } ], '1.1.1.1'),
	[ '198.51.100.1', '203.0.113.7' ]);
c.eq('pick: the far reflector itself and repeats left out',
	H.pick([ { ttl: 1, addr: '1.1.1.1' }, { ttl: 2, addr: '198.51.100.1' }, { ttl: 3, addr: '198.51.100.1' } ], '1.1.1.1'),
	[ '198.51.100.1' ]);
c.eq('pick: nothing found', H.pick([], '1.1.1.1'), []);

// ---- the scan on a simulated clock -----------------------------------------
// path: ttl -> router address, 'end' where the target answers
function scan_world(path, opts) {
	let s = sim(), calls = [];
	let env = {
		timer: s.timer,
		ttl_probe: function(target, ttl, cb) {
			push(calls, [ s.now(), target, ttl ]);

			if (opts?.refuse)
				return null;

			let hop = path['' + ttl];
			let r = (hop == 'end') ? { from: null, reached: true } : { from: hop, reached: false };
			let t = s.timer(hop ? 30 : 1000, () => cb(r));

			return { kill: () => t.cancel() };
		}
	};

	return { s, calls, sc: H.scanner(env) };
}

{
	let w = scan_world({ '1': '192.168.0.1', '2': '198.51.100.1', '3': 'end' }), got = null, n = 0;

	w.sc.start('1.1.1.1', (h) => { got = h; n++; });
	w.s.advance(10000);
	c.eq('scan: each TTL once, towards the target', map(w.calls, (x) => [ x[1], x[2] ]), [ [ '1.1.1.1', 1 ], [ '1.1.1.1', 2 ], [ '1.1.1.1', 3 ] ]);
	c.ok(`scan: GAP_MS between the echoes (${map(w.calls, (x) => x[0])})`,
		w.calls[1][0] - w.calls[0][0] >= SPEC.GAP_MS && w.calls[2][0] - w.calls[1][0] >= SPEC.GAP_MS);
	c.eq('scan: ends where the far reflector answered, once', [ got, n ],
		[ [ { ttl: 1, addr: '192.168.0.1' }, { ttl: 2, addr: '198.51.100.1' } ], 1 ]);
	c.eq('scan: nothing left running', [ w.sc.running(), w.s.pending() ], [ false, 0 ]);
}

{
	let w = scan_world({ '2': '198.51.100.1' }), got = null;

	w.sc.start('1.1.1.1', (h) => { got = h; });
	w.s.advance(20000);
	c.eq(`scan: silent hops skipped, stops at MAX_TTL ${SPEC.MAX_TTL}`, [ length(w.calls), got ],
		[ SPEC.MAX_TTL, [ { ttl: 2, addr: '198.51.100.1' } ] ]);
}

{
	let w = scan_world({ '1': '198.51.100.1', '2': '198.51.100.9' }), got = null;

	w.sc.start('1.1.1.1', (h) => { got = h; });
	w.s.advance(500);
	w.sc.stop();
	w.s.advance(20000);
	c.eq('stop: no further echo, no answer', [ length(w.calls), got, w.s.pending() ], [ 1, null, 0 ]);
}

{
	let w = scan_world({}, { refuse: true }), got = null;

	w.sc.start('1.1.1.1', (h) => { got = h; });
	c.eq('no fping run possible: the scan ends at once with nothing', got, []);
}

c.done();
