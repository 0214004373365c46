// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.probe.icmpfilter: the classic BPF programs the kernel
// runs on the probers' raw ICMP sockets, run here by a small interpreter
// of the instructions they use (as linux/filter.h defines them) on the
// datagrams a raw socket gets: what passes and what is dropped.  The
// kernel runs them in loopback_live.uc (our replies pass, echo requests
// and other identifiers do not) and in hops-live (time exceeded).

'use strict';

import * as F from 'reterm.latency.probe.icmpfilter';
import { build_echo, build_tstamp, cksum } from 'reterm.latency.probe.icmp';
import { checker } from 'sim';

let c = checker('monitor/icmpfilter');
let struct = require('struct');

// the kernel's verdict: the bytes kept, 0 = dropped (also on a load past
// the end of the datagram)
function run(prog, pkt) {
	let A = 0, X = 0, n = length(pkt);

	function ld(at, size) {
		if (at < 0 || at + size > n)
			return null;

		return (size == 1) ? ord(pkt, at) : (ord(pkt, at) << 8) | ord(pkt, at + 1);
	}

	for (let pc = 0; pc < length(prog); pc++) {
		let code = prog[pc][0], jt = prog[pc][1], jf = prog[pc][2], k = prog[pc][3], v;

		switch (code) {
		case 0x30: case 0x28: case 0x50: case 0x48:	// ld b/h, abs/ind
			v = ld(((code & 0x40) ? X : 0) + k, (code & 0x10) ? 1 : 2);
			if (v == null)
				return 0;
			A = v;
			break;
		case 0xb1:	// ldx 4 * (P[k] & 0xf)
			v = ld(k, 1);
			if (v == null)
				return 0;
			X = (v & 15) * 4;
			break;
		case 0x15: pc += (A == k) ? jt : jf; break;
		case 0x54: A &= k; break;
		case 0x64: A = (A << k) & 0xffffffff; break;
		case 0x0c: A = (A + X) & 0xffffffff; break;
		case 0x07: X = A; break;
		case 0x06: return k;
		default: die(sprintf('opcode 0x%02x not in this interpreter\n', code));
		}
	}

	return 0;
}

let passes = (prog, pkt) => run(prog, pkt) > 0;
let signed = (m) => substr(m, 0, 2) + struct.pack('!H', cksum(m)) + substr(m, 4);
// an IPv4 header of ihl words (options: NOPs) from 198.51.100.2 to 192.0.2.1
// (built with struct: 24.10's ucode writes a \x80 and above in a
// string literal as UTF-8)
function ip4(ihl) {
	let h = struct.pack('!BBHHHBBH4B4B', 0x40 | ihl, 0, 0, 0, 0, 64, 1, 0, 198, 51, 100, 2, 192, 0, 2, 1);

	while (length(h) < ihl * 4)
		h += '\x01';

	return h;
}
let echo_reply = (id, seq) => signed(struct.pack('!BBHHH', 0, 0, 0, id, seq) + 'reterm-probe-v1');
let ts_reply = (id, seq) => signed(struct.pack('!BBHHHIII', 14, 0, 0, id, seq, 1, 2, 3));
let flood = (id) => build_echo(false, id, 1) + sprintf('%1457s', '');	// ping -f -s 1472

let id = 0x4242, v4 = F.replies(false, id), v6 = F.replies(true, id);

c.ok('v4: our echo reply passes', passes(v4, ip4(5) + echo_reply(id, 7)));
c.ok('v4: our echo reply passes behind IP options', passes(v4, ip4(15) + echo_reply(id, 7)));
c.ok('v4: our timestamp reply passes', passes(v4, ip4(5) + ts_reply(id, 9)));
c.ok('v4: an echo request (the flood) is dropped, whatever its id', !passes(v4, ip4(5) + flood(0x1111)) && !passes(v4, ip4(5) + flood(id)));
c.ok('v4: another identifier\'s echo and timestamp replies are dropped',
	!passes(v4, ip4(5) + echo_reply(0x4243, 7)) && !passes(v4, ip4(5) + ts_reply(0x4343, 9)));
c.ok('v4: a timestamp request, an unreachable, a time exceeded are dropped',
	!passes(v4, ip4(5) + build_tstamp(id, 1, 5)) && !passes(v4, ip4(5) + signed(struct.pack('!BBHHH', 3, 1, 0, id, 0))) &&
	!passes(v4, ip4(5) + signed(struct.pack('!BBHHH', 11, 0, 0, id, 0))));
c.ok('v4: a datagram that ends before the identifier is dropped', !passes(v4, ip4(5) + '\x00\x00\x00'));

let echo6 = (t, i) => struct.pack('!BBHHH', t, 0, 0, i, 3) + 'reterm-probe-v1';

c.ok('v6: our echo reply passes', passes(v6, echo6(129, id)));
c.ok('v6: echo requests, other identifiers, other types are dropped',
	!passes(v6, echo6(128, id)) && !passes(v6, echo6(129, 0x4243)) && !passes(v6, echo6(1, id)) && !passes(v6, echo6(135, id)));

// the near-hop scan: our echo reply, or a time exceeded quoting our echo
let t4 = F.ttl_answers(false, id), t6 = F.ttl_answers(true, id);
let exceeded4 = (ihl, qid) => signed(struct.pack('!BBHI', 11, 0, 0, 0) + ip4(ihl) + substr(build_echo(false, qid, 2), 0, 8));
let exceeded6 = (qid) => struct.pack('!BBHI', 3, 0, 0, 0) + '\x60' + sprintf('%39s', '') + substr(build_echo(true, qid, 2), 0, 8);

c.ok('hops v4: our echo reply passes, another\'s does not', passes(t4, ip4(5) + echo_reply(id, 2)) && !passes(t4, ip4(5) + echo_reply(7, 2)));
c.ok('hops v4: a time exceeded quoting our echo passes (quoted header with and without options)',
	passes(t4, ip4(5) + exceeded4(5, id)) && passes(t4, ip4(6) + exceeded4(15, id)));
c.ok('hops v4: quoting another echo, or an echo request, is dropped',
	!passes(t4, ip4(5) + exceeded4(5, 0x4243)) && !passes(t4, ip4(5) + flood(id)));
c.ok('hops v6: our echo reply and a time exceeded quoting our echo pass', passes(t6, echo6(129, id)) && passes(t6, exceeded6(id)));
c.ok('hops v6: quoting another echo, an echo request, a short one are dropped',
	!passes(t6, exceeded6(0x4243)) && !passes(t6, echo6(128, id)) && !passes(t6, substr(exceeded6(id), 0, 50)));

c.eq('assemble: forward jumps by label', F.assemble([ [ 0x15, 'b', 0, 1 ], 'a', [ 0x06, 0, 0, 0 ], 'b', [ 0x06, 0, 0, 1 ] ]),
	[ [ 0x15, 1, 0, 1 ], [ 0x06, 0, 0, 0 ], [ 0x06, 0, 0, 1 ] ]);

c.done();
