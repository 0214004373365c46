// SPDX-License-Identifier: Apache-2.0
//
// Live check on loopback only (needs root for raw ICMP and a local HTTP
// server: tests/ucode/latency/httpd.py, its port in RETERM_HTTPD_PORT):
// the socket ICMP prober answers from 127.0.0.1 and ::1, and the HTTP
// load really moves bytes both ways, reports HTTP errors and does not
// follow a redirect (each hop would need the target checks of
// reterm.latency.target).  Never touches any other address.

'use strict';

import * as uloop from 'uloop';
import * as socket from 'socket';
import * as fs from 'fs';
import * as probe from 'reterm.latency.probe.icmp';
import { attach, replies } from 'reterm.latency.probe.icmpfilter';
import * as load from 'reterm.latency.test.load';
import { http_url } from 'reterm.validate';
import { mono, wall } from 'reterm.latency.sys';
import { checker } from 'sim';

let c = checker('monitor/loopback');
let port = +getenv('RETERM_HTTPD_PORT');

uloop.init();

let env = { uloop, socket, fs, clock: { mono, wall } };
let p = probe.icmp(env), got = [];

c.ok('icmp prober: a socket can be had', p.usable());

p.start([ '127.0.0.1', '::1' ], 50, 1000, (r) => push(got, r));

let lenv = { uloop, socket, resolve: (h) => load.resolve(socket, h) };
let down = load.start(lenv, { url: http_url(`http://127.0.0.1:${port}/bytes/20000000`), dir: 'down', streams: 2 });
let up = load.start(lenv, { url: http_url(`http://127.0.0.1:${port}/upload`), dir: 'up', streams: 2 });
let miss = load.start(lenv, { url: http_url(`http://127.0.0.1:${port}/nothing-here`), dir: 'down', streams: 1 });
let redir = load.start(lenv, { url: http_url(`http://127.0.0.1:${port}/redirect`), dir: 'down', streams: 1 });

uloop.timer(1200, () => {
	p.stop();
	down.stop();
	up.stop();
	miss.stop();
	redir.stop();
	uloop.end();
});

uloop.run();
p.close();

// the kernel filter of the prober's raw sockets: of what loopback carries
// (our echo requests, their replies, the same with another identifier)
// only our replies reach the socket
let seen = {};

for (let v6 in [ false, true ]) {
	let af = v6 ? socket.AF_INET6 : socket.AF_INET, proto = v6 ? 58 : 1, lo = v6 ? '::1' : '127.0.0.1';
	let rx = socket.create(af, socket.SOCK_RAW | socket.SOCK_NONBLOCK, proto);
	let tx = socket.create(af, socket.SOCK_RAW | socket.SOCK_NONBLOCK, proto);

	seen[lo] = { attached: attach(socket, rx, replies(v6, 0x5151)), rx, got: [] };
	tx.send(probe.build_echo(v6, 0x5151, 1), 0, lo);
	tx.send(probe.build_echo(v6, 0x5152, 2), 0, lo);
	tx.close();
}

uloop.timer(200, () => uloop.end());
uloop.run();

for (let lo, x in seen) {
	let m;

	while ((m = x.rx.recvmsg(1500)) != null) {
		let off = (lo == '::1') ? 0 : (ord(m.data, 0) & 15) * 4;

		push(x.got, [ ord(m.data, off), (ord(m.data, off + 4) << 8) | ord(m.data, off + 5) ]);
	}

	x.rx.close();
	c.ok(sprintf('icmp: the kernel filter passes only our replies on %s (type, id: %J)', lo, x.got),
		x.attached && length(x.got) >= 1 && length(filter(x.got, (g) => g[0] == ((lo == '::1') ? 129 : 0) && g[1] == 0x5151)) == length(x.got));
}

let answered = filter(got, r => r.rtt != null);

c.ok(sprintf('icmp: %d probes in 1.2 s at 50 ms, %d answered', length(got), length(answered)), length(got) >= 20 && length(answered) == length(got));
c.ok('icmp: both families answered', length(filter(answered, r => r.target == '::1')) > 0 && length(filter(answered, r => r.target == '127.0.0.1')) > 0);
c.ok(sprintf('icmp: loopback RTTs are small (max %.3f ms)', max(...map(answered, r => r.rtt))), max(...map(answered, r => r.rtt)) < 50);
// IPv4 over a raw socket: ICMP timestamps, answered by the kernel; one
// clock on both ends, so each one-way delay is a few ms at most (ms steps)
let v4 = filter(answered, r => r.target == '127.0.0.1'), v6 = filter(answered, r => r.target == '::1');
let small = (v) => type(v) == 'int' && v >= 0 && v <= 2;

c.ok(sprintf('icmp: IPv4 probes carry one-way delays from ICMP timestamps (%J)', map(slice(v4, 0, 3), r => [ r.up, r.down ])),
	length(v4) > 0 && length(filter(v4, r => small(r.up) && small(r.down))) == length(v4));
c.ok('icmp: IPv6 probes are echoes, without them', length(v6) > 0 && length(filter(v6, r => r.up == null && r.down == null)) == length(v6));
c.ok(sprintf('download moved %d bytes, no errors', down.bytes()), down.bytes() > 1000000 && down.status().errors == 0);
c.ok(sprintf('upload moved %d bytes, no errors', up.bytes()), up.bytes() > 1000000 && up.status().errors == 0);
c.ok(sprintf('a 404 is reported (%s)', miss.status().last_error), index(miss.status().last_error ?? '', 'HTTP 404') >= 0);
// (the bytes are the 302 answers' heads; following it would move 20 MB)
c.ok(sprintf('a redirect is not followed: reported (%s), %d bytes moved', redir.status().last_error, redir.bytes()),
	index(redir.status().last_error ?? '', 'HTTP 302') >= 0 && redir.bytes() < 100000);

c.done();
