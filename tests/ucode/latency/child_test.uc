// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.child with real processes: each child holds only its own
// socketpair (both ends close-on-exec), and ending one child while another
// runs is safe.  Before both were true, reterm-latencyd crashed (SIGSEGV in
// uloop) the first time the WAN got loaded: fping was restarted at 5/s
// while the batch tc held a copy of fping's old socket.

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as C from 'reterm.latency.child';
import * as F from 'reterm.latency.probe.fping';
import { checker, standins } from 'sim';

let c = checker('monitor/child');
let socket = null;

try { socket = require('socket'); } catch (e) { socket = null; }

if (!socket) {
	print('skipped: the socket module is missing in this ucode\n');
	exit(0);
}

let st = standins('child');

// the distinct sockets a process has open
function sockets(pid) {
	let seen = {};

	for (let fd in fs.lsdir(`/proc/${pid}/fd`) ?? []) {
		let l = fs.readlink(`/proc/${pid}/fd/${fd}`);

		if (l && match(l, /^socket:/))
			seen[l] = true;
	}

	return length(keys(seen));
}

let echo = st.script('echo', 'while read -r l; do echo "$l"; done');
let other = st.script('other', 'while read -r l; do echo "$l"; done');
let env = { uloop, fs, socket };
let got = [];

uloop.init();

let a = null;

a = C.spawn(env, echo, [], { stdin: true, readable: () => push(got, a.sock.recv(100, socket.MSG_DONTWAIT)) });
let b = C.spawn(env, other, [], { stdin: true, readable: () => null });

c.ok('two children running', a?.alive() && b?.alive());

uloop.timer(300, () => {
	c.eq('the first child holds one socket: its own end', sockets(st.pid('echo')), 1);
	c.eq('the second child holds one socket: not the first one\'s pair', sockets(st.pid('other')), 1);
	a.sock.send('ping\n');
});

uloop.timer(600, () => {
	c.eq('the first child answers on its pair', got, [ 'ping\n' ]);
	a.kill();
	c.ok('kill(): not alive', !a.alive());
});

uloop.timer(1200, () => {
	c.eq('... its process is gone', st.pid('echo'), null);
	c.ok('... the other one runs on', b.alive() && st.pid('other') != null);
	b.kill();
	uloop.end();
});

uloop.run();

// the fping prober (a child too): a target listed twice in the schedule
// (adaptive shaping repeats the near hops) is handed to fping once, and
// fping's round (-p) is the interval times the distinct targets
let fping_args = `${st.dir}/fping-args`;
let fake_fping = st.script('fping', `echo "$*" > ${fping_args}; exec sleep 5`);
let fp = F.fping({ uloop, fs, socket, clock: { mono: () => int(clock(true)[0] * 1000), wall: () => time() * 1000 } }, fake_fping);

uloop.init();
c.ok('fping: started on a schedule with repeats', fp.start([ '198.51.100.1', '198.51.100.9', '198.51.100.1', '192.0.2.1' ],
	200, 2000, () => null));
uloop.timer(500, () => {
	c.eq('fping: each target once, the round = interval x distinct targets', trim(fs.readfile(fping_args) ?? ''),
		'-l -p 600 -i 200 -t 2000 -b 16 198.51.100.1 198.51.100.9 192.0.2.1');
	fp.close();
	uloop.end();
});
uloop.run();

st.remove();
c.done();
