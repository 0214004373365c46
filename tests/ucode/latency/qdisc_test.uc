// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.live.qdisc with real processes: one long-running stand-in
// answers every `qdisc show` (a counter proves it is the same process), a
// stand-in that dies is restarted, one slow to start is kept and its late
// answers used, one that never answers is given up once it owed an
// answer HANG_MS (its show gets null, the rates sent to it go to the next
// one), after MAX_RESTARTS failures in a row the next start waits for a
// backoff (a show answers null at once meanwhile, nothing blocks) and
// then tc is started again: never given up for good; close() ends the
// child.  And the real `tc -s -j -force -batch -` where this machine has
// tc: JSON per command, one process.

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as Q from 'reterm.latency.live.qdisc';
import { mono, wall } from 'reterm.latency.sys';
import { checker, standins } from 'sim';

let c = checker('monitor/qdisc');
let socket = null;

try { socket = require('socket'); } catch (e) { socket = null; }

let st = standins('qdisc'), script = st.script;

let good = script('good', 'n=0; while read -r l; do n=$((n + 1)); echo "[{\\"n\\":$n,\\"cmd\\":\\"$l\\"}]"; done');
let dies = script('dies', 'read -r l; echo "[{\\"n\\":1}]"; exit 0');
let mute = script('mute', 'while read -r l; do :; done');
// reads slowly and writes every line it got to a file (the changes tc ran)
let slow = script('slow', `sleep 0.3; while read -r l; do echo "$l" >> ${st.dir}/slow.out; done`);
// the first one answers one show and then hangs (reads nothing more);
// those started after it write every line to a file and answer the shows
let stuck = script('stuck', `if [ ! -e ${st.dir}/stuck.once ]; then : > ${st.dir}/stuck.once; read -r l; echo '[]'; exec sleep 60; fi; ` +
	`while read -r l; do echo "$l" >> ${st.dir}/stuck.out; [ "$l" = 'qdisc show' ] && echo '[]'; done`);
// slower than ANSWER_MS to start (a loaded, emulated router), then fine
let slowstart = script('slowstart', 'sleep 1.3; n=0; while read -r l; do n=$((n + 1)); echo "[{\\"n\\":$n}]"; done');
let env = { uloop, socket, fs, clock: { mono, wall } };

uloop.init();

// run the show() calls one after the other inside uloop; the answers in order
function shows(q, n, done) {
	let got = [];

	function next() {
		if (length(got) == n)
			return done(got);

		q.show((text) => {
			push(got, text);
			uloop.timer(10, next);
		});
	}

	next();
}

let steps = [];

function step(f) { push(steps, f); }

function go() {
	let f = shift(steps);

	if (f)
		f(go);
	else
		uloop.end();
}

if (!socket) {
	print(`skipped: the socket module is missing in this ucode\n`);
	exit(0);
}

step((next) => {
	let q = Q.open(env, [ good ]);

	shows(q, 3, (got) => {
		c.eq('one process answers every show (its counter runs 1, 2, 3)',
			map(got, (t) => json(t)[0].n), [ 1, 2, 3 ]);
		c.eq('... with the qdisc show command', json(got[0])[0].cmd, 'qdisc show');
		c.ok('... as a batch child', q.batch());
		c.eq('... exactly one stand-in running', st.count('good'), 1);
		q.close();
		uloop.timer(100, () => {
			c.eq('close() ends it', st.count('good'), 0);
			next();
		});
	});
});

step((next) => {
	let q = Q.open(env, [ slow ]);

	q.show(() => null);	// starts the batch child
	c.eq('change: a bad device or rate is refused, nothing sent',
		[ q.change('eth1; reboot', 1000), q.change('eth1', 0), q.change('eth1', 2.5), q.change('eth1', 100000001) ],
		[ false, false, false, false ]);
	c.ok('change: a good one is taken', q.change('ifb4eth1', 17500) && q.change('eth1', 4500));
	// reterm-latencyd stopping: sqm's rates go out and the child is closed at once
	q.close();
	uloop.timer(1000, () => {
		c.eq('close(): the batch child ran what it was sent before it ended (sqm\'s rates back on stop)',
			split(trim(fs.readfile(`${st.dir}/slow.out`) ?? ''), '\n'),
			[ 'qdisc show', 'qdisc change dev ifb4eth1 root cake bandwidth 17500kbit',
			  'qdisc change dev eth1 root cake bandwidth 4500kbit' ]);
		c.eq('close(): and it has ended', st.count('slow'), 0);
		fs.unlink(`${st.dir}/slow.out`);
		next();
	});
});

step((next) => {
	let skew = 0, clock = { mono: () => mono() + skew, wall };
	let q = Q.open({ ...env, clock }, [ stuck ]);

	q.show(() => {
		// sent to a tc that hangs: never run
		q.change('ifb4eth1', 9000);
		q.change('eth1', 3000);
		q.change('ifb4eth1', 8000);
		let second = 'pending';

		q.show((text) => (second = text));
		uloop.timer(300, () => {
			skew += Q.HANG_MS + 1;
			q.show(() => {
				c.eq('a tc that hangs after a change: its show gets null once it owed the answer HANG_MS', second, null);
				c.eq('the tc started after it gets the last rate of each device first',
					split(trim(fs.readfile(`${st.dir}/stuck.out`) ?? ''), '\n'),
					[ 'qdisc change dev ifb4eth1 root cake bandwidth 8000kbit',
					  'qdisc change dev eth1 root cake bandwidth 3000kbit', 'qdisc show' ]);
				q.close();
				next();
			});
		});
	});
});

step((next) => {
	let q = Q.open(env, [ slowstart ]);

	// one show a second, as the sampler asks
	let got = [];

	function one() {
		q.show((text) => push(got, text));

		if (length(got) < 4)
			uloop.timer(1000, one);
		else {
			c.ok(sprintf('a tc slow to give its first answer is not killed for it, and its late answer is a reading: one process, answers %J', got),
				st.count('slowstart') == 1 && length(filter(got, (t) => t != null)) >= 3);
			q.close();
			next();
		}
	}

	one();
});

step((next) => {
	let q = Q.open(env, [ dies ]);

	shows(q, 3, (got) => {
		c.eq('a child that exits is started again for the next show', map(got, (t) => t ? json(t)[0].n : null)[0], 1);
		c.ok('... every answer still arrives', length(filter(got, (t) => t != null)) >= 2);
		q.close();
		next();
	});
});

step((next) => {
	let skew = 0, clock = { mono: () => mono() + skew, wall };
	let q = Q.open({ ...env, clock }, [ mute ]);
	let first = 'pending', r = 'pending';
	// each show after HANG_MS: the hung tc is started again
	let hung = () => { skew += Q.HANG_MS + 1; };

	q.show((text) => (first = text));
	uloop.timer(300, () => {
		q.show((text) => (r = text));
		c.ok('a child that has not answered yet: another show gets null at once, the same tc kept',
			first == 'pending' && r == null && st.count('mute') == 1);
		hung();
		q.show(() => null);
		c.eq('... given up once it owed its answer HANG_MS: that show gets null', first, null);

		for (let i = 2; i < Q.MAX_RESTARTS; i++) {
			hung();
			q.show(() => null);
		}

		hung();
		r = 'pending';
		q.show((text) => (r = text));
		uloop.timer(200, () => {
			c.ok(`then, after ${Q.MAX_RESTARTS} failed starts in a row, the backoff: a show answers null at once, no tc started (nothing blocks)`,
				r == null && st.count('mute') == 0);
			skew += Q.BACKOFF_MS + 1;
			q.show(() => null);
			uloop.timer(300, () => {
				c.eq('after the backoff tc is started again: never given up', st.count('mute'), 1);
				q.close();
				uloop.timer(100, () => {
					c.eq('... and no stand-in is left', st.count('mute'), 0);
					next();
				});
			});
		});
	});
});

step((next) => {
	let q = Q.open(env, [ '/nonexistent/tc' ]);

	q.show((text) => {
		c.eq('no tc at all: show answers null, change says no', [ text, q.change('eth1', 4500), q.batch() ], [ null, false, false ]);
		next();
	});
});

let tc = filter(Q.TC_PATHS, (p) => fs.access(p, 'x'))[0];

if (tc)
	step((next) => {
		let q = Q.open(env);

		shows(q, 2, (got) => {
			let a = map(got, (t) => json(t ?? 'null'));

			c.ok('real tc: a JSON array per show', type(a[0]) == 'array' && type(a[1]) == 'array');
			c.eq('... listing the loopback device', length(filter(a[1] ?? [], (x) => x.dev == 'lo')), 1);
			c.ok('... from the batch child', q.batch());
			q.close();
			next();
		});
	});

uloop.timer(30000, () => { c.ok('finished in time', false); uloop.end(); });
go();
uloop.run();

st.remove();
c.done();
