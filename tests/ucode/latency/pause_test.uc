// SPDX-License-Identifier: Apache-2.0
//
// The shaping pause of the guided test (reterm.latency.test.pause through the
// service's test_start { pause_shaping: true }): the router stops the WAN's
// sqm queue with sqm-scripts' run.sh and starts it again by itself when
// the test ends, when it is stopped, at the deadline and after a restart
// of reterm-latencyd; no browser takes part.  sqm's run.sh is a stand-in here that
// answers from the simulated loop (the real one: tests/owrt).

'use strict';

import * as S from 'reterm.latency.service';
import * as P from 'reterm.latency.test.pause';
import { checker, sim, prober, load, memfs } from 'sim';

let c = checker('monitor/pause');
const STATE = '/var/run/sqm/eth1.state';

// a world with the WAN's sqm queue running; run.sh answers after 300 ms
function world(o) {
	let s = sim(1718000000000), fs = memfs({ [STATE]: 'IFACE=eth1\n', [P.RUN_SH]: '#!/bin/sh\n', ...(o?.files ?? {}) });
	let calls = [], fail = o?.fail ?? {};
	let run = (argv, cb) => {
		push(calls, join(' ', argv));
		s.timer(300, () => {
			let rc = fail[argv[1]] ? 1 : 0;

			// what run.sh does to its state file
			if (rc == 0 && argv[1] == 'stop')
				delete fs.files[`/var/run/sqm/${argv[2]}.state`];
			else if (rc == 0 && argv[1] == 'start')
				fs.files[`/var/run/sqm/${argv[2]}.state`] = 'IFACE=' + argv[2];

			cb(rc);
		});
	};
	let env = {
		clock: s.clock, timer: s.timer, prober: prober(s, () => 20),
		readfile: (p) => match(p, /^\/sys\/class\/net\/eth1\/statistics\/(rx|tx)_bytes$/) ? `${s.now() * 2000}\n` : null,
		qdisc: { show: (cb) => cb(null), close: () => null },
		load: load(s, () => 17000000), fs, fsync: fs.fsync, id: () => 'aa01',
		policy: () => ({ test_servers: [ '10.0.0.2' ], proxy_port: 15001 }),
		run: (o?.no_run) ? null : run
	};
	let svc = S.create(env, { enabled: true, reflectors: [ '1.1.1.1' ], prober: 'auto', wan: 'eth1',
		shaper: { rx: 18000000, tx: 4500000 }, cake: null, warnings: [], test_gap_ms: 0 });

	return { s, fs, calls, svc, m: svc.methods };
}

const ARGS = { download_url: 'http://10.0.0.2/bytes/100000000', upload_url: 'http://10.0.0.2/upload', pause_shaping: true };

// ---- a whole test, no browser ----------------------------------------------

let w = world(), replies = [];
let r = w.m.test_start(ARGS, (x) => push(replies, x));

c.eq('test_start with pause_shaping answers later (sqm is being stopped)', r, null);
c.eq('run.sh stop eth1, nothing else', w.calls, [ '/usr/lib/sqm/run.sh stop eth1' ]);
c.ok('the record of the pause is in /var/run/reterm (RAM)', w.fs.files[P.RECORD] != null);
w.s.advance(400);
c.eq('then the reply: started, paused eth1', [ replies[0]?.started, replies[0]?.paused ], [ true, [ 'eth1' ] ]);
c.eq('test_status shows the pause', w.m.test_status({}).pause?.state, 'paused');
c.eq('monitor status shows it too', w.m.status({}).pause?.ifaces, [ 'eth1' ]);
c.ok('the pause ends at the latest a minute after the test',
	w.m.test_status({}).pause.until == 1718000000 + 44 + 60);
w.s.advance(45000);
c.eq('the test ended: run.sh start eth1 by the router itself', w.calls[-1], '/usr/lib/sqm/run.sh start eth1');
w.s.advance(400);
c.eq('pause restored, record gone, sqm running', [ w.m.test_status({}).pause?.state, w.fs.files[P.RECORD], w.fs.access(STATE) ],
	[ 'restored', null, true ]);

let res = w.m.results({ id: 'aa01' }).result;

c.ok('the result was measured unshaped: no shaper rate held against the load',
	res && res.download?.shaper_bps == null);

// ---- stopped mid-test -----------------------------------------------------

w = world();
w.m.test_start(ARGS, () => null);
w.s.advance(10000);
w.m.test_stop({});
w.s.advance(400);
c.eq('test_stop: the queue is started again', [ w.calls[-1], w.m.test_status({}).pause?.state ],
	[ '/usr/lib/sqm/run.sh start eth1', 'restored' ]);

// ---- the deadline -----------------------------------------------------------

let fs2 = memfs({ [STATE]: 'x', [P.RUN_SH]: 'x' }), calls2 = [], s2 = sim(1718000000000);
let p2 = P.create({ fs: fs2, clock: s2.clock, timer: s2.timer,
	run: (argv, cb) => { push(calls2, argv[1]); s2.timer(10, () => cb(0)); } });

p2.pause([ 'eth1' ], 1718000000 + 100, () => null);
s2.advance(99000);
c.eq('before the deadline: still paused', [ calls2, p2.status().state ], [ [ 'stop' ], 'paused' ]);
s2.advance(1100);
c.eq('at the deadline: started again without anyone asking', [ calls2, p2.status().state ], [ [ 'stop', 'start' ], 'restored' ]);

// ---- a pause that does not need this process to end ----------------------
// the record names the daemon that paused (the init script leaves a live
// one's pause alone), and a guard of its own is started with the pause's
// deadline (it ends the pause if the daemon dies and is not started again)

let guards = [], s5 = sim(1718000000000), fs5 = memfs({ [STATE]: 'x', [P.RUN_SH]: 'x' });
let p5 = P.create({ fs: fs5, clock: s5.clock, timer: s5.timer, pid: 4242, guard: (until) => push(guards, until),
	run: (argv, cb) => s5.timer(10, () => cb(0)) });

p5.pause([ 'eth1' ], 1718000000 + 100, () => null);
c.eq('the record names the daemon that paused', json(fs5.files[P.RECORD]), { ifaces: [ 'eth1' ], until: 1718000100, pid: 4242 });
c.eq('no guard before sqm stopped', guards, []);
s5.advance(20);
c.eq('a guard with the deadline once sqm stopped', guards, [ 1718000100 ]);

// ---- reterm-latencyd restarted mid-test -------------------------------------------

let calls3 = [], fs3 = memfs({ [P.RECORD]: '{"ifaces":["eth1"],"until":1718000100}\n' });
let p3 = P.create({ fs: fs3, clock: sim().clock, timer: sim().timer, run: (argv, cb) => { push(calls3, join(' ', argv)); cb(0); } });
let rec = null;

p3.recover((st) => { rec = st; });
c.eq('a pause left by the last reterm-latencyd: started again at start', [ calls3, rec?.state, fs3.files[P.RECORD] ],
	[ [ '/usr/lib/sqm/run.sh start eth1' ], 'restored', null ]);

for (let bad in [ '{"ifaces":["eth1; reboot","$(x)","../../etc"]}', 'not json', '{"ifaces":"eth1"}', '' ]) {
	let calls4 = [], fs4 = memfs({ [P.RECORD]: bad });

	P.create({ fs: fs4, clock: sim().clock, timer: sim().timer, run: (argv, cb) => { push(calls4, argv); cb(0); } }).recover();
	c.eq(sprintf('a bad record runs nothing and goes: %J', bad), [ calls4, fs4.files[P.RECORD] ], [ [], null ]);
}

// ---- failures: nothing half-applied ----------------------------------------

w = world({ fail: { stop: true } });
replies = [];
w.m.test_start(ARGS, (x) => push(replies, x));
w.s.advance(1000);
c.eq('sqm does not stop: pause_failed, no test', [ replies[0]?.error, w.m.test_status({}).state ], [ 'pause_failed', 'idle' ]);
c.eq('… and what may have stopped is started again', w.calls, [ '/usr/lib/sqm/run.sh stop eth1', '/usr/lib/sqm/run.sh start eth1' ]);

w = world({ fail: { start: true } });
w.m.test_start(ARGS, () => null);
w.s.advance(46000);
c.ok('sqm does not start again: the status says so and how to fix it',
	w.m.test_status({}).pause?.state == 'failed' && match(w.m.test_status({}).pause.message, /sqm restart/));

w = world({ files: { [STATE]: null } });
delete w.fs.files[STATE];
replies = [];
r = w.m.test_start(ARGS, (x) => push(replies, x));
c.eq('no sqm queue running on the WAN: nothing to pause, started at once', [ r?.started, r?.paused, w.calls ], [ true, [], [] ]);

w = world({ no_run: true });
r = w.m.test_start(ARGS, () => null);
c.eq('without a way to run sqm: pause_failed at once', r?.error, 'pause_failed');

w = world();
c.eq('pause_shaping must be a boolean', w.m.test_start({ ...ARGS, pause_shaping: 'yes' }).error, 'invalid_argument');
c.eq('without pause_shaping nothing is stopped', [ w.m.test_start({ ...ARGS, pause_shaping: false }).started, w.calls ], [ true, [] ]);

c.done();
