// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.probe.icmp, the parts that need no network: ICMP packets, the
// round robin scheduler and the timestamp bookkeeping on a simulated
// clock with fake sockets (the real ones: loopback_live.uc).

'use strict';

import * as P from 'reterm.latency.probe.icmp';
import * as F from 'reterm.latency.probe.icmpfilter';
import { checker, sim } from 'sim';

let c = checker('monitor/icmp');

// ICMP echo
let struct = require('struct');
let pkt = P.build_echo(false, 0x1234, 7);

c.eq('v4 echo: type, code, id, seq, our payload', [ struct.unpack('!BBxxHH', pkt), substr(pkt, 8) ], [ [ 8, 0, 0x1234, 7 ], 'reterm-probe-v1' ]);
c.eq('v4 echo: checksum verifies to 0', P.cksum(pkt), 0);
c.eq('v6 echo: type 128, checksum left to the kernel', [ ord(P.build_echo(true, 1, 2), 0), ord(P.build_echo(true, 1, 2), 2) ], [ 128, 0 ]);
c.eq('RFC 1071 example', P.cksum(chr(0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7)), 0x220d);

// an ICMP message with its checksum filled in (the kernel's replies have one)
let signed = (m) => substr(m, 0, 2) + struct.pack('!H', P.cksum(m)) + substr(m, 4);
let reply = signed(struct.pack('!BBHHH', 0, 0, 0, 0x1234, 7) + 'reterm-probe-v1');

// a raw IPv4 socket delivers the IP header first
let iphdr = '\x45' + '\x00\x00\x25' + '\x00\x00\x00\x00\x40\x01\x00\x00\x7f\x00\x00\x01\x7f\x00\x00\x01';

c.eq('raw v4: our echo reply, behind the IP header', P.parse_reply(iphdr + reply, false, true, 0x1234), { type: 0, code: 0, id: 0x1234, seq: 7 });
c.eq('raw v4: another identifier', P.parse_reply(iphdr + reply, false, true, 0x1235), null);
c.eq('raw v4: an echo request (a flood reaches raw sockets)', P.parse_reply(iphdr + signed(pkt), false, true, 0x1234), null);
c.eq('raw v4: longer than any reply of ours (ping -s 1472)', P.parse_reply(iphdr + signed(reply + sprintf('%100s', '')), false, true, 0x1234), null);
c.eq('raw v4: not IPv4', P.parse_reply('\x60' + substr(iphdr, 1) + reply, false, true, 0x1234), null);
c.eq('raw v4: a wrong checksum', P.parse_reply(iphdr + substr(reply, 0, 8) + 'x' + substr(reply, 9), false, true, 0x1234), null);
c.eq('ping socket: its replies whatever the id (the kernel picks it)', P.parse_reply(reply, false, false, 0x9999), { type: 0, code: 0, id: 0x1234, seq: 7 });
c.eq('raw v6: an echo reply (129) with our id', P.parse_reply(struct.pack('!BBHHH', 129, 0, 0, 5, 6) + 'reterm-probe-v1', true, true, 5),
	{ type: 129, code: 0, id: 5, seq: 6 });
c.eq('raw v6: an echo request (128)', P.parse_reply(struct.pack('!BBHHH', 128, 0, 0, 5, 6), true, true, 5), null);
c.eq('short datagram', P.parse_reply('\x00\x00', false, false, 0), null);

// ICMP timestamps (type 13/14): one-way delays
let tsq = P.build_tstamp(0x1234, 9, 43200123);

c.eq('timestamp request: type 13, id, seq, originate; checksum verifies to 0',
	[ struct.unpack('!BBHHHIII', tsq), P.cksum(tsq) ], [ [ 13, 0, P.cksum(struct.pack('!BBHHHIII', 13, 0, 0, 0x1234, 9, 43200123, 0, 0)), 0x1234, 9, 43200123, 0, 0 ], 0 ]);

let tsr = signed(struct.pack('!BBHHHIII', 14, 0, 0, 0x1234, 9, 43200123, 43200150, 43200151));

c.eq('timestamp reply (raw v4): the three times', P.parse_reply(iphdr + tsr, false, true, 0x1234),
	{ type: 14, code: 0, id: 0x1234, seq: 9, orig: 43200123, recv: 43200150, xmit: 43200151 });
c.eq('timestamp reply: short', P.parse_reply(iphdr + substr(tsr, 0, 16), false, true, 0x1234), null);
c.eq('timestamp reply: a wrong checksum (raw sockets get it unchecked)',
	P.parse_reply(iphdr + substr(tsr, 0, 12) + struct.pack('!I', 99) + substr(tsr, 16), false, true, 0x1234), null);
c.eq('timestamp reply: not on a socket without the IP header', P.parse_reply(tsr, false, false, 0x1234), null);
c.eq('day clock: plain, across midnight both ways', [ P.day_diff(5000, 3000), P.day_diff(100, 86399900), P.day_diff(86399900, 100) ],
	[ 2000, 200, -200 ]);

// the round robin scheduler of the icmp/ping backends, on a fake clock,
// with a fake socket module: sends go nowhere, nothing answers
let s = sim(), sent = [];
let fake_socket = {
	AF_INET: 2, AF_INET6: 10, SOCK_RAW: 3, SOCK_DGRAM: 2, SOCK_NONBLOCK: 2048, SOCK_CLOEXEC: 524288,
	SOL_SOCKET: 1, SO_TIMESTAMPNS: 35,
	create: (af, t, proto) => ({
		setopt: () => true,
		send: (data, flags, addr) => { push(sent, [ s.now(), addr, struct.unpack('!H', data, 6)[0] ]); return length(data); },
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
	'192.0.2.1': (q, now) => (q[0] == 13) ? [ 30 + 10, signed(struct.pack('!BBHHHIII', 14, 0, 0, q[3], q[4], q[5],
		(q[5] + 5030) % 86400000, (q[5] + 5030) % 86400000)) ] : null,
	'192.0.2.2': (q, now) => (q[0] == 8) ? [ 20, signed(struct.pack('!BBHHH', 0, 0, 0, q[3], q[4]) + 'reterm-probe-v1') ] : null,
	'192.0.2.3': (q, now) => (q[0] == 13) ? [ 12, signed(struct.pack('!BBHHHIII', 14, 0, 0, q[3], q[4], q[5], 0x80000001, 0x80000002)) ] : null
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

// a prober on a socket that wraps `answering`: hook(data, addr, send)
// decides what happens to each request
function wrapped(hook, rnd) {
	kinds = [];

	return P.icmp({ uloop: { timer: s.uloop.timer, handle: (sk, cb) => { on_read = cb; return { delete: () => true } }, ULOOP_READ: 1 },
		clock: s.clock, socket: { ...answering, create: (...a) => {
			let sk = answering.create(...a), send = sk.send;

			sk.send = (data, flags, addr) => hook(data, addr, () => send(data, flags, addr));

			return sk;
		} }, rand: () => rnd });
}

// no route yet (the WAN not up at boot): requests that could not be sent
// do not count as unanswered timestamps
{
	let route = false, got = [];
	let p4 = wrapped((data, addr, send) => route ? send() : null, 0x79);

	p4.start([ '192.0.2.9' ], 200, 250, (r) => push(got, r));
	s.advance(1400);
	route = true;
	s.advance(1000);
	p4.stop();
	c.ok(sprintf('timestamps: requests that could not be sent do not count (%J, last up %J)', map(kinds, (k) => k[1]), got[-1]?.up),
		length(filter(kinds, (k) => k[1] != 13)) == 0 && got[-1]?.up == 5030);
}

// a reflector that answers only echoes is asked for timestamps again
// after TS_RETRY_MS; one that answered them and then filters them gets
// echoes after TS_TRIES_OK losses in a row
{
	let stamps_too = false, got = [];
	let p5 = wrapped((data, addr, send) => {
		push(kinds, [ addr, ord(data, 0) ]);

		return (ord(data, 0) == 8 || stamps_too) ? send() : length(data);
	}, 0x7a);

	reflector['192.0.2.10'] = (q, now) => (q[0] == 13) ? reflector['192.0.2.1'](q, now) : reflector['192.0.2.2'](q, now);
	p5.start([ '192.0.2.10' ], 1000, 250, (r) => push(got, r));
	s.advance(10000);

	let first = map(kinds, (k) => k[1]);

	stamps_too = true;
	s.advance(P.TS_RETRY_MS);
	c.ok(sprintf('timestamps: echo-only at first (%J), timestamps again after %d min (last up %J)', slice(first, 0, 5),
		P.TS_RETRY_MS / 60000, got[-1]?.up), join(',', slice(first, 0, 5)) == '13,13,13,8,8' && got[-1]?.up == 5030);

	stamps_too = false;
	kinds = [];
	s.advance((P.TS_TRIES_OK + 5) * 1000);
	p5.stop();
	c.ok(sprintf('timestamps: filtered after answering: echoes after %d losses (%J)', P.TS_TRIES_OK, map(kinds, (k) => k[1])),
		length(filter(slice(kinds, 0, P.TS_TRIES_OK), (k) => k[1] == 13)) == P.TS_TRIES_OK &&
		length(filter(slice(kinds, P.TS_TRIES_OK), (k) => k[1] == 8)) == length(kinds) - P.TS_TRIES_OK && got[-1]?.rtt != null);
}

// Floods: a socket per family while it is probed, filtered by the kernel
// to our replies, read at most READS_PER_WAKE datagrams a wake-up.
// 192.0.2.1 answers 30 ms later, behind `junk` queued datagrams (what
// reached the socket before its filter); IPv6 targets never answer
{
	let t = sim(), open = { '2': 0, '10': 0 }, made = 0, filters = [], inbox = [], reads = 0, ons = {}, junk = 0, got = [], manual = false;
	let flood = iphdr + signed(P.build_echo(false, 0x5555, 1) + sprintf('%1457s', ''));
	let n_open = () => open['2'] + open['10'];

	// uloop calls a readable descriptor's handler once a turn, as long as
	// something waits in it
	function turn() {
		let n = 0;

		for (; ons['2'] && length(inbox) && n < 100; n++)
			ons['2']();

		return n;
	}

	let mod = { ...answering, SO_ATTACH_FILTER: 26, create: (af, kind, proto) => {
		made++;
		open[af]++;

		return {
			af,
			setopt: (level, opt, v) => (opt == 26) ? (push(filters, [ af, v.filter ]), true) : true,
			send: function(data, flags, addr) {
				let q = struct.unpack((ord(data, 0) == 13) ? '!BBHHHIII' : '!BBHHH', data);
				let a = (af == 2) ? reflector['192.0.2.1'](q, 0) ?? reflector['192.0.2.2'](q, 0) : null;

				if (a)
					t.uloop.timer(30, () => {
						for (let i = 0; i < junk; i++)
							push(inbox, { data: flood, address: { address: '192.0.2.66' } });

						push(inbox, { data: iphdr + a[1], address: { address: addr } });

						if (!manual)
							turn();
					});

				return length(data);
			},
			recvmsg: () => (reads++, shift(inbox)),
			close: () => (open[af]--, true)
		};
	} };
	let p6 = P.icmp({ uloop: { timer: t.uloop.timer, ULOOP_READ: 1,
		handle: (sk, cb) => { ons[sk.af] = cb; return { delete: () => { delete ons[sk.af]; return true; } } } },
		clock: t.clock, socket: mod, rand: () => 0x4343 });

	c.ok('sockets: none open before start(); usable() and raw() leave none open', n_open() == 0 && p6.usable() && p6.raw() && n_open() == 0);
	made = 0;
	filters = [];
	p6.start([ '192.0.2.1' ], 1000, 500, (r) => push(got, r));
	t.advance(40);
	c.eq('sockets: the family\'s one open while it is probed, also between probes', [ open, length(got), got[0]?.rtt != null ],
		[ { '2': 1, '10': 0 }, 1, true ]);
	t.advance(960);
	junk = 100;
	manual = true;
	t.advance(30);
	reads = 0;
	ons['2']();
	c.eq(sprintf('reads: at most %d datagrams a wake-up, then back to the loop', F.READS_PER_WAKE), reads, F.READS_PER_WAKE);

	let turns = turn() + 1;

	c.ok(sprintf('reads: the answer behind %d flood datagrams taken %d wake-ups later', junk, turns),
		length(got) == 2 && got[1].rtt != null && turns == int((junk + F.READS_PER_WAKE) / F.READS_PER_WAKE));
	junk = 0;
	manual = false;
	t.advance(7980);
	c.ok(sprintf('sockets: one for %d probes, %d answered, with the kernel filter of our replies', length(got), length(filter(got, (r) => r.rtt != null))),
		made == 1 && length(got) == 9 && length(filter(got, (r) => r.rtt != null)) == 9 &&
		sprintf('%J', filters) == sprintf('%J', [ [ 2, F.replies(false, 0x4343) ] ]));
	// a probe to 192.0.2.1 out (sent at 9000, answered at 9030): the
	// round moves to IPv6
	p6.start([ '2001:db8::1' ], 1000, 500, (r) => push(got, r));
	c.eq('sockets: the IPv4 one kept while its probe is out', open, { '2': 1, '10': 0 });
	t.advance(30);
	c.eq('sockets: closed once it is answered, the round having no IPv4 target', [ open, got[-1].target, got[-1].rtt != null ],
		[ { '2': 0, '10': 1 }, '192.0.2.1', true ]);
	c.eq('sockets: the IPv6 one filtered too', filters[-1], [ 10, F.replies(true, 0x4343) ]);
	p6.stop();
	c.eq('sockets: stopped with a probe out, none left open', n_open(), 0);
	p6.start([ '192.0.2.1' ], 1000, 500, (r) => push(got, r));
	t.advance(2040);
	c.eq('sockets: reopened on demand after a stop', [ made, open['2'], length(filter(got, (r) => r.target == '192.0.2.1' && r.rtt != null)) ], [ 3, 1, 13 ]);
	p6.close();
	c.eq('sockets: none after close()', n_open(), 0);
}

c.done();
