// SPDX-License-Identifier: Apache-2.0
//
// reterm.monitor.probe, the parts that need no network: ICMP packets,
// output parsers of ping and fping, fping's loss bookkeeping, and the
// round robin scheduler on a simulated clock.

'use strict';

import * as P from 'reterm.monitor.probe';
import * as F from 'reterm.monitor.fping';
import { checker, sim } from 'sim';

let c = checker('monitor/probe');

// ICMP echo
let pkt = P.build_echo(false, 0x1234, 7);

c.eq('v4 echo: type, code, id, seq', P.parse_echo(pkt, false), { type: 8, code: 0, id: 0x1234, seq: 7 });
c.eq('v4 echo: checksum verifies to 0', P.cksum(pkt), 0);
c.eq('v6 echo: type 128, checksum left to the kernel', [ P.parse_echo(P.build_echo(true, 1, 2), false).type, ord(P.build_echo(true, 1, 2), 2) ], [ 128, 0 ]);
c.eq('RFC 1071 example', P.cksum('\x00\x01\xf2\x03\xf4\xf5\xf6\xf7'), 0x220d);

// a raw IPv4 socket delivers the IP header first
let iphdr = '\x45' + '\x00\x00\x25' + '\x00\x00\x00\x00\x40\x01\x00\x00\x7f\x00\x00\x01\x7f\x00\x00\x01';

c.eq('raw v4: skips the IP header', P.parse_echo(iphdr + pkt, true), { type: 8, code: 0, id: 0x1234, seq: 7 });
c.eq('raw v4: not IPv4', P.parse_echo('\x60' + substr(iphdr, 1) + pkt, true), null);
c.eq('short datagram', P.parse_echo('\x00\x00', false), null);

c.ok('is_ip', P.is_ip('1.1.1.1') && P.is_ip('::1') && !P.is_ip('1.1.1.1; reboot') && !P.is_ip('localhost') && !P.is_ip(null));

// selection: fping, else ICMP sockets, else none; never a ping process
// per probe (issue 13: a shell and a ping every 200 ms)
let nofping = { access: () => false, dup2: () => true };
let nosock = { AF_INET: 2, AF_INET6: 10, SOCK_RAW: 3, SOCK_DGRAM: 2, SOCK_NONBLOCK: 2048, SOCK_CLOEXEC: 524288,
               create: () => null };
let fake_loop = { timer: () => ({ set: () => true, cancel: () => true }), handle: () => null, ULOOP_READ: 1 };
let sel = (kind) => P.open({ fs: nofping, socket: nosock, uloop: fake_loop, clock: { mono: () => 0, wall: () => 0 }, rand: () => 1 }, kind);

c.eq('auto without fping and ICMP sockets: none (no ping per probe)', sel('auto')?.name, 'none');
c.eq('the ping backend is gone', sel('ping'), null);
c.eq('icmp asked for but not possible: null', sel('icmp'), null);
c.eq('fping asked for but not installed: null', sel('fping'), null);
c.ok('none never starts anything', sel('auto').start([ '1.1.1.1' ], 200, 2000, () => die('called')) == null &&
	!sel('auto').running());
let withfping = { access: (p) => p == '/usr/bin/fping', dup2: () => true };
let pingsock = { ...nosock, create: (af, t) => (t & 15) == nosock.SOCK_DGRAM ? { setopt: () => true, close: () => true } : null };
let rawsock = { ...nosock, create: () => ({ setopt: () => true, close: () => true }) };

let pick = (fs, socket, kind, stamps) => P.open({ fs, socket, uloop: fake_loop, clock: { mono: () => 0, wall: () => 0 }, rand: () => 1 }, kind, stamps)?.name;

c.eq('auto: fping where installed (its own process)', pick(withfping, rawsock, 'auto'), 'fping');
c.eq('auto, one-way delays wanted: raw sockets first (timestamps), even with fping', pick(withfping, rawsock, 'auto', true), 'icmp');
c.eq('auto, one-way delays wanted, only ping sockets: fping', pick(withfping, pingsock, 'auto', true), 'fping');
c.eq('auto: ping sockets without fping', pick(nofping, pingsock, 'auto'), 'icmp');
c.eq('auto: raw sockets without fping', pick(nofping, rawsock, 'auto'), 'icmp');
c.eq('fping asked for: fping beside raw sockets, one-way delays wanted or not', [ pick(withfping, rawsock, 'fping'), pick(withfping, rawsock, 'fping', true) ], [ 'fping', 'fping' ]);
c.eq('icmp asked for: ping sockets', pick(withfping, pingsock, 'icmp'), 'icmp');

// ICMP timestamps (type 13/14): one-way delays
let struct = require('struct');
let tsq = P.build_tstamp(0x1234, 9, 43200123);

c.eq('timestamp request: type 13, id, seq, originate; checksum verifies to 0',
	[ struct.unpack('!BBHHHIII', tsq), P.cksum(tsq) ], [ [ 13, 0, P.cksum(struct.pack('!BBHHHIII', 13, 0, 0, 0x1234, 9, 43200123, 0, 0)), 0x1234, 9, 43200123, 0, 0 ], 0 ]);

let tsr = struct.pack('!BBHHHIII', 14, 0, 0, 0x1234, 9, 43200123, 43200150, 43200151);

c.eq('timestamp reply (raw v4): the three times', P.parse_echo(iphdr + tsr, true),
	{ type: 14, code: 0, id: 0x1234, seq: 9, orig: 43200123, recv: 43200150, xmit: 43200151 });
c.eq('timestamp reply: short', P.parse_echo(iphdr + substr(tsr, 0, 16), true), null);
c.eq('timestamp reply: not on a socket without the IP header', P.parse_echo(tsr, false), null);
c.eq('day clock: plain, across midnight both ways', [ P.day_diff(5000, 3000), P.day_diff(100, 86399900), P.day_diff(86399900, 100) ],
	[ 2000, 200, -200 ]);

// fping loop mode output
c.eq('fping line', F.parse_fping_line('1.1.1.1   : [12], 64 bytes, 12.3 ms (12.1 avg, 0% loss)'), { target: '1.1.1.1', seq: 12, rtt: 12.3 });
c.eq('fping line v6', F.parse_fping_line('2606:4700:4700::1111 : [0], 64 bytes, 9.87 ms (9.87 avg, 0% loss)'), { target: '2606:4700:4700::1111', seq: 0, rtt: 9.87 });
c.eq('fping summary line is not a probe', F.parse_fping_line('1.1.1.1 : xmt/rcv/%loss = 5/5/0%'), null);

// fping bookkeeping: two targets, 200 ms apart, period 400 ms
let got = [];
let tr = F.fping_tracker([ '1.1.1.1', '9.9.9.9' ], 200, 1000, 0, (r) => push(got, r));

tr.reply('1.1.1.1', 0, 10, 10);
tr.reply('9.9.9.9', 0, 20, 220);
tr.reply('1.1.1.1', 2, 12, 812);	// seq 1 of 1.1.1.1 never answered
c.eq('fping: a sequence gap is a lost probe with its send time', got, [
	{ t: 0, target: '1.1.1.1', rtt: 10 }, { t: 200, target: '9.9.9.9', rtt: 20 },
	{ t: 400, target: '1.1.1.1', rtt: null }, { t: 800, target: '1.1.1.1', rtt: 12 }
]);

got = [];
tr.reply('1.1.1.1', 2, 12, 900);
c.eq('fping: duplicates ignored', got, []);

tr.sweep(2500);
c.eq('fping: probes past the timeout are lost', sort(got, (a, b) => a.t - b.t), [
	{ t: 600, target: '9.9.9.9', rtt: null }, { t: 1000, target: '9.9.9.9', rtt: null },
	{ t: 1200, target: '1.1.1.1', rtt: null }, { t: 1400, target: '9.9.9.9', rtt: null }
]);

// the round robin scheduler of the icmp/ping backends, on a fake clock,
// with a fake socket module: sends go nowhere, nothing answers
let s = sim(), sent = [];
let fake_socket = {
	AF_INET: 2, AF_INET6: 10, SOCK_RAW: 3, SOCK_DGRAM: 2, SOCK_NONBLOCK: 2048, SOCK_CLOEXEC: 524288,
	SOL_SOCKET: 1, SO_TIMESTAMPNS: 35,
	create: (af, t, proto) => ({
		setopt: () => true,
		send: (data, flags, addr) => { push(sent, [ s.now(), addr, P.parse_echo(data, false).seq ]); return length(data); },
		recvmsg: () => null,
		close: () => true
	})
};
let uloop = { timer: s.uloop.timer, handle: () => ({ delete: () => true }), ULOOP_READ: 1 };
let results = [];
let p = P.icmp({ uloop, clock: s.clock, socket: fake_socket, rand: () => 0x4242 });

p.start([ '1.1.1.1', '2606:4700:4700::1111', '9.9.9.9' ], 200, 1000, (r) => push(results, r));
s.advance(1000);

c.eq('icmp: round robin every 200 ms', map(sent, x => [ x[0], x[1] ]), [
	[ 0, '1.1.1.1' ], [ 200, '2606:4700:4700::1111' ], [ 400, '9.9.9.9' ], [ 600, '1.1.1.1' ],
	[ 800, '2606:4700:4700::1111' ], [ 1000, '9.9.9.9' ]
]);
c.eq('icmp: unanswered probes are reported lost after the timeout', results, [ { t: 0, target: '1.1.1.1', rtt: null, up: null, down: null } ]);

p.start([ '1.1.1.1' ], 1000, 1000, (r) => push(results, r));
s.advance(3000);
c.eq('icmp: restart at 1/s', map(slice(sent, 6), x => x[0]), [ 1000, 2000, 3000, 4000 ]);

p.stop();
s.advance(5000);
c.eq('icmp: stopped, no more sends', length(sent), 10);

// a raw socket with reflectors: 192.0.2.1 answers timestamps (its clock
// 5 s ahead of ours, 30 ms up, 10 ms down), 192.0.2.2 only echoes (20 ms),
// 192.0.2.3 timestamps in a non-standard format (high bit set)
s = sim(1718000000000 + 86400000 - 100);	// 100 ms before midnight UTC
let inbox = [], on_read = null, kinds = [];
let reflector = {
	'192.0.2.1': (q, now) => (q[0] == 13) ? [ 30 + 10, struct.pack('!BBHHHIII', 14, 0, 0, q[3], q[4], q[5],
		(q[5] + 5030) % 86400000, (q[5] + 5030) % 86400000) ] : null,
	'192.0.2.2': (q, now) => (q[0] == 8) ? [ 20, struct.pack('!BBHHH', 0, 0, 0, q[3], q[4]) + 'reterm-probe-v1' ] : null,
	'192.0.2.3': (q, now) => (q[0] == 13) ? [ 12, struct.pack('!BBHHHIII', 14, 0, 0, q[3], q[4], q[5], 0x80000001, 0x80000002) ] : null
};
let answering = {
	AF_INET: 2, AF_INET6: 10, SOCK_RAW: 3, SOCK_DGRAM: 2, SOCK_NONBLOCK: 2048, SOCK_CLOEXEC: 524288,
	SOL_SOCKET: 1, SO_TIMESTAMPNS: 35,
	create: (af, t, proto) => ({
		setopt: () => true,
		send: function(data, flags, addr) {
			let q = struct.unpack((ord(data, 0) == 13) ? '!BBHHHIII' : '!BBHHH', data);
			let a = reflector[addr]?.(q, s.now());

			push(kinds, [ addr, q[0] ]);

			if (a)
				s.uloop.timer(a[0], () => { push(inbox, { data: iphdr + a[1], address: { address: addr } }); on_read(); });

			return length(data);
		},
		recvmsg: () => shift(inbox),
		close: () => true
	})
};
let got2 = [];
let p2 = P.icmp({ uloop: { timer: s.uloop.timer, handle: (sk, cb) => { on_read = cb; return { delete: () => true } }, ULOOP_READ: 1 },
	clock: s.clock, socket: answering, rand: () => 0x77 });

p2.start([ '192.0.2.1', '192.0.2.2', '192.0.2.3' ], 200, 250, (r) => push(got2, r));
s.advance(2900);
p2.stop();

let by = (ip) => filter(got2, (r) => r.target == ip);

c.eq('timestamps: rtt, and up/down with the offset in them, across midnight', map(by('192.0.2.1'), (r) => [ int(r.rtt), r.up, r.down ]),
	[ [ 40, 5030, -4990 ], [ 40, 5030, -4990 ], [ 40, 5030, -4990 ], [ 40, 5030, -4990 ], [ 40, 5030, -4990 ] ]);
c.eq('timestamps: a reflector that never answers them gets echoes after ' + P.TS_TRIES + ' tries',
	map(filter(kinds, (k) => k[0] == '192.0.2.2'), (k) => k[1]), [ 13, 13, 13, 8, 8 ]);
c.eq('timestamps: its echoes answered, rtt only', map(by('192.0.2.2'), (r) => [ (r.rtt != null) ? int(r.rtt) : null, r.up ]),
	[ [ null, null ], [ null, null ], [ null, null ], [ 20, null ], [ 20, null ] ]);
// 192.0.2.1 went silent for a while (a bloated line loses probes): it
// answered timestamps before, so it keeps getting them (lab finding: the
// far server fell back to echoes in a bloat and lost its one-way delays)
reflector['192.0.2.9'] = reflector['192.0.2.1'];
let quiet = false;
kinds = [];
let p3 = P.icmp({ uloop: { timer: s.uloop.timer, handle: (sk, cb) => { on_read = cb; return { delete: () => true } }, ULOOP_READ: 1 },
	clock: s.clock, socket: { ...answering, create: (...a) => {
		let sk = answering.create(...a), send = sk.send;

		sk.send = (data, flags, addr) => quiet ? (push(kinds, [ addr, ord(data, 0) ]), length(data)) : send(data, flags, addr);

		return sk;
	} }, rand: () => 0x78 });
let got3 = [];

p3.start([ '192.0.2.9' ], 200, 250, (r) => push(got3, r));
s.advance(1000);
quiet = true;
s.advance(2000);
quiet = false;
s.advance(1000);
p3.stop();
c.ok(sprintf('timestamps: a reflector that answered them keeps getting them after %d losses in a row (%J)',
	length(filter(got3, (r) => r.rtt == null)), map(kinds, (k) => k[1])),
	length(filter(got3, (r) => r.rtt == null)) >= 2 * P.TS_TRIES && length(filter(kinds, (k) => k[1] != 13)) == 0 && got3[-1].up == 5030);
c.eq('timestamps: a non-standard time: rtt only', map(by('192.0.2.3'), (r) => [ int(r.rtt), r.up, r.down ]),
	[ [ 12, null, null ], [ 12, null, null ], [ 12, null, null ], [ 12, null, null ], [ 12, null, null ] ]);

c.done();
