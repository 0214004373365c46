// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.probe.select, the parts that need no network: the choice of
// prober, fping's output parser and loss bookkeeping (the icmp prober:
// icmp_test.uc).

'use strict';

import * as P from 'reterm.latency.probe.select';
import * as F from 'reterm.latency.probe.fping';
import { checker } from 'sim';

let c = checker('monitor/probe');

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

c.done();
