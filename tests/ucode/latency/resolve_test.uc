// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.test.resolve with real processes on a real uloop: names are
// resolved in a child process, so the loop keeps running while a resolver
// is slow (getaddrinfo in the daemon itself would stall probes, rows and
// every ubus call); a resolver that hangs is ended after the timeout; the
// answer is parsed strictly.  The live lookups ask for "localhost" only
// (from /etc/hosts).

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as R from 'reterm.latency.test.resolve';
import { checker, standins } from 'sim';

let c = checker('monitor/resolve');

// the parser, whatever this ucode has
c.eq('parse: IPv4 first, canonical, no duplicates', R.parse('{"addresses":["2606:4700:0::1111","93.184.216.34","93.184.216.34"]}'),
	[ [ '93.184.216.34', '2606:4700::1111' ], null ]);
c.eq('parse: an error', R.parse('{"error":"Name or service not known"}')[0], null);
c.eq('parse: junk', R.parse('garbage')[0], null);
c.eq('parse: no IP addresses in it', R.parse('{"addresses":["x; reboot"]}')[0], null);

let socket = null;

try { socket = require('socket'); } catch (e) { socket = null; }

if (!socket) {
	print('skipped: the socket module is missing in this ucode\n');
	c.done();
}

let st = standins('resolve');
let env = { uloop, fs, socket };
let slow = st.script('slow', 'sleep 1; echo \'{"addresses":["93.184.216.34"]}\'');
let hang = st.script('hang', 'while :; do sleep 0.1; done');

uloop.init();

function wait(ms) {
	uloop.timer(ms, () => uloop.end());
	uloop.run();
}

// a slow resolver: the loop runs on meanwhile
let ticks = 0, got = null, t0 = clock(true);

function tick() {
	ticks++;
	uloop.timer(50, tick);
}

uloop.timer(50, tick);

let job = R.resolver(env, { interpreter: slow, timeout_ms: 3000 })('speed.example.net', (a, why) => {
	got = [ a, why ];
	uloop.end();
});

c.eq('nothing is answered inside resolver()', got, null);
uloop.run();

let secs = (clock(true)[0] - t0[0]) + (clock(true)[1] - t0[1]) / 1e9;

c.eq('a slow resolver: its answer', got, [ [ '93.184.216.34' ], null ]);
c.ok(sprintf('... the loop ran meanwhile (%d ticks of 50 ms in %.1f s)', ticks, secs), ticks >= 10);
c.eq('... and its process is gone', st.count('slow'), 0);

// a resolver that hangs: ended after the timeout
got = null;
R.resolver(env, { interpreter: hang, timeout_ms: 300 })('slow.example.net', (a, why) => {
	got = [ a, why ];
	uloop.end();
});
uloop.run();
c.ok(sprintf('a hanging resolver: no addresses after the timeout (%J)', got), got && got[0] == null && index(got[1], 'within') >= 0);
wait(100);
c.eq('... its process is ended', st.count('hang'), 0);

// cancelled: no callback, no process left
got = null;
let j = R.resolver(env, { interpreter: hang, timeout_ms: 5000 })('x.example.net', (a, why) => { got = [ a, why ]; });

wait(100);
j.cancel();
wait(300);
c.eq('cancelled: no answer, no process', [ got, st.count('hang') ], [ null, 0 ]);

// no interpreter: an answer all the same, from the loop
got = null;
R.resolver(env, { interpreter: `${st.dir}/missing`, timeout_ms: 1000 })('x.example.net', (a, why) => {
	got = [ a, why ];
	uloop.end();
});
c.eq('a resolver that cannot start: not answered inside resolver()', got, null);
uloop.run();
c.eq('... answered from the loop, without addresses', got?.[0], null);

// the real thing: this ucode, socket.addrinfo, /etc/hosts
let real = R.interpreter(fs);

c.ok(sprintf('the running ucode is found (%s)', real), real != null);

got = null;
R.resolver(env, { timeout_ms: 5000 })('localhost', (a, why) => {
	got = [ a, why ];
	uloop.end();
});
uloop.run();
c.ok(sprintf('localhost resolves to loopback (%J)', got), got?.[0] != null && length(filter(got[0], (a) => a == '127.0.0.1' || a == '::1')) >= 1);

st.remove();
c.done();
