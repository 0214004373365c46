// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.service on a simulated clock: waking and sleeping,
// probe rate by WAN load, rows and `samples {since}` deltas, CAKE
// columns, the ubus methods' replies and errors, the guided test through
// the methods, and the results file (last 10, survives a restart).

'use strict';

import { readfile } from 'fs';
import * as S from 'reterm.latency.service';
import * as api from 'reterm.latency.api';
import * as reply from 'reterm.reply';
import * as store from 'reterm.latency.test.store';
import { checker, sim, prober, load, memfs } from 'sim';

let c = checker('monitor/service');
let FX = getenv('RETERM_FIXTURES') + '/latency';
const WALL0 = 1718000000000;	// epoch ms at sim time 0

function world(o) {
	let s = sim(WALL0), rate = { rx: 0, tx: 0 }, bytes = { rx: 0, tx: 0, t: 0 };
	let ids = 0, fs = o?.fs ?? memfs(), tc_calls = [];

	// WAN byte counters that grow with the configured rate
	function counters() {
		let dt = (s.now() - bytes.t) / 1000.0;

		bytes.rx += int(rate.rx / 8 * dt);
		bytes.tx += int(rate.tx / 8 * dt);
		bytes.t = s.now();

		return bytes;
	}

	let pr = prober(s, (t, target) => (target == '9.9.9.9') ? 30 : 20);
	let env = {
		clock: s.clock,
		timer: s.timer,
		prober: pr,
		readfile: (p) => {
			let m = match(p, /^\/sys\/class\/net\/eth1\/statistics\/(rx|tx)_bytes$/);

			return m ? `${counters()[m[1]]}\n` : null;
		},
		qdisc: {
			show: (cb) => {
				push(tc_calls, 'qdisc show');
				cb(readfile(`${FX}/tc-show-all.json`));
			},
			close: () => push(tc_calls, 'close')
		},
		load: load(s, (dir) => (dir == 'down') ? 17000000 : 4000000),
		fs,
		fsync: fs.fsync,
		id: () => sprintf('%08x', ++ids),
		// a speed test box on the LAN, named in /etc/config/reterm_admin
		// (the address rules themselves: policy_test.uc)
		policy: () => ({ test_servers: [ '10.0.0.2' ], proxy_port: 15001 })
	};
	let cfg = {
		enabled: true, reflectors: [ '1.1.1.1', '9.9.9.9' ], prober: 'auto',
		wan: 'eth1', shaper: { rx: 18000000, tx: 4500000 }, cake: o?.cake ? { dl: 'ifb4eth1', ul: 'eth1' } : null,
		warnings: []
	};

	return { s, rate, pr, env, fs, tc_calls, svc: S.create(env, cfg) };
}

// ---- waking, sleeping, probe rate ------------------------------------------

let w = world(), svc = w.svc, m = svc.methods;

c.eq('starts asleep, nothing scheduled', [ svc.awake(), w.s.pending(), w.pr.starts ], [ false, 0, [] ]);

let st = m.status({});

c.eq('a call wakes it', [ st.state, svc.awake() ], [ 'awake', true ]);
c.eq('status reply', [ st.prober, st.wan, st.shaper, st.test, st.results, map(st.reflectors, r => r.target) ],
	[ 'fake', 'eth1', { rx: 18000000, tx: 4500000 }, 'idle', 0, [ '1.1.1.1', '9.9.9.9' ] ]);

w.s.advance(10000);
c.eq('idle WAN: 1 probe/s', w.pr.starts, [ 1000 ]);
c.ok(sprintf('... about 10 probes in 10 s (%d)', w.pr.sent), w.pr.sent >= 10 && w.pr.sent <= 11);

// 30 % of the download shaper rate: loaded
w.rate.rx = 5400000;
w.s.advance(2000);
c.eq('loaded WAN: 5 probes/s', [ svc.loaded(), w.pr.starts ], [ true, [ 1000, 200 ] ]);

w.rate.rx = 1000000;	// 5.5 %: idle again, after the 5 s hold
w.s.advance(3000);
c.eq('still 5/s during the hold', svc.interval(), 200);
w.s.advance(4000);
c.eq('back to 1/s', [ svc.interval(), w.pr.starts ], [ 1000, [ 1000, 200, 1000 ] ]);

// rows and samples
let first = m.samples({});

c.eq('samples: wire format v1, seconds', [ first.v, first.step, first.id, first.probe, first.shaper ],
	[ 1, 1, '00000001', 'fake', { rx: 18000000, tx: 4500000 } ]);
c.eq('samples: columns', first.cols, [ 'min', 'med', 'max', 'base', 'sent', 'lost', 'rx', 'tx' ]);

let last_t = first.t0 + length(first.rows) - 1;

c.ok(sprintf('samples: rows up to ~3.6 s before now (%d s behind)', first.now - last_t), first.now - last_t >= 3 && first.now - last_t <= 5);

let row = first.rows[2];	// a second of the first, idle 10 s

c.eq('a 1/s row: one probe, normalised RTT, base of the nearest reflector', [ row[4], row[5], row[3] ], [ 1, 0, 20 ]);
c.ok(sprintf('9.9.9.9 (30 ms) is shown at the 20 ms level (%J)', row[1]), row[1] == 20);
c.eq('an idle row has the WAN rates of its second', [ row[6], row[7] ], [ 0, 0 ]);

let loaded_rows = filter(first.rows, r => r && r[6] == 5400000);


c.eq('two loaded seconds with their WAN rate', length(loaded_rows), 2);
c.eq('the second of them has 5 probes', loaded_rows[1][4], 5);

w.s.advance(1000);

let d = m.samples({ since: last_t });

c.eq('delta: only the one new second', [ d.t0, length(d.rows) ], [ last_t + 1, 1 ]);
c.ok(sprintf('delta for one second is small (%d bytes)', length(sprintf('%J', d))), length(sprintf('%J', d)) < 4096);
c.eq('nothing new right after', length(m.samples({ since: last_t + 1 }).rows), 0);

let mins = m.samples({ step: 60 });

c.ok(sprintf('minute ring: a row per finished minute (%d)', length(mins.rows)), mins.step == 60 && length(mins.rows) <= 1);

c.eq('bad args: error reply, nothing else', m.samples({ since: 'x' }).error, 'invalid_argument');

// sleep after 60 s without calls
w.s.advance(61000);
c.eq('asleep after a minute without calls', [ svc.awake(), w.pr.running(), w.s.pending() ], [ false, false, 0 ]);

let gap = m.samples({ since: last_t + 1 });

c.eq('waking: the reply still has the old rows up to the sleep', svc.awake(), true);
w.s.advance(5000);

let after = m.samples({ since: gap.t0 + length(gap.rows) - 1 });

c.ok('after sleeping the new rows come (the sleep is a gap)', length(after.rows) >= 1);

// 15 minutes: at least one minute row
w.s.advance(30000);
m.status({});
w.s.advance(30000);
m.status({});
w.s.advance(30000);
c.ok(sprintf('minute rows appear (%d)', length(m.samples({ step: 60 }).rows)), length(m.samples({ step: 60 }).rows) >= 1);

// ---- CAKE columns --------------------------------------------------------------

let k = world({ cake: true });

k.svc.methods.status({});
k.s.advance(8000);

let ks = k.svc.methods.samples({});

c.eq('CAKE: one qdisc show a second for both devices', [ k.tc_calls[0], length(k.tc_calls) ], [ 'qdisc show', 9 ]);	// at 0, 1, ... 8 s

for (let col in [ 'dl_pk', 'dl_av', 'ul_pk', 'ul_av', 'dl_drop', 'dl_bl', 'ul_bl' ])
	c.ok(`CAKE column ${col} sent`, index(ks.cols, col) >= 0);

let kr = ks.rows[-1], ci = (n) => index(ks.cols, n);

c.eq('CAKE cells: worst tin peak, avg, backlog', [ kr[ci('dl_pk')], kr[ci('ul_pk')], kr[ci('dl_bl')], kr[ci('ul_bl')] ],
	[ 9.9, 14.5, 72680, 4542 ]);
c.eq('CAKE cells: the same counters read twice: 0 new drops', kr[ci('dl_drop')], 0);

let one = k.svc.methods.samples({ since: ks.t0 + length(ks.rows) - 2 });

c.ok(sprintf('one second with every column: %d bytes <= 4096', length(sprintf('%J', one))), length(one.rows) == 1 && length(sprintf('%J', one)) <= 4096);

k.s.advance(70000);
c.eq('asleep: tc is ended, no more qdisc shows', [ k.svc.awake(), k.tc_calls[-1], length(filter(k.tc_calls, (x) => x == 'close')) ],
	[ false, 'close', 1 ]);

// ---- the counter tick keeps its cadence -------------------------------------
// each tick takes time (a busy router: 30 ms); the next is due a period
// after the last was due, not after it ended (the lab's ICMP flood: 3.9
// ticks a second where 5 are due, each one's own time added to the next)
{
	let b = world(), reads = [];
	let rf = b.env.readfile;

	b.env.readfile = function(p) {
		if (match(p, /rx_bytes$/)) {
			push(reads, b.s.now());
			b.s.spend(30);
		}

		return rf(p);
	};
	b.svc = S.create(b.env, { enabled: true, reflectors: [ '1.1.1.1' ], prober: 'auto', wan: 'eth1',
		shaper: { rx: 18000000, tx: 4500000 }, cake: null, warnings: [] });
	b.svc.methods.status({});
	b.s.advance(10000);
	c.ok(`cadence: ticks taking 30 ms each, 10 s: ${length(reads)} ticks (50 due)`, length(reads) >= 49 && length(reads) <= 51);

	// a tick late by more than a period (the loop was blocked): the
	// missed ones are not made up in a burst
	let n0 = length(reads);

	b.s.spend(1000);
	b.s.advance(1000);

	let gaps = [];

	for (let i = n0 + 1; i < length(reads); i++)
		push(gaps, reads[i] - reads[i - 1]);

	c.ok(`cadence: after a 1 s stall no burst (gaps ${join(' ', gaps)})`, length(filter(gaps, (g) => g < 100)) == 0);
}

// ---- the guided test through the methods ------------------------------------

let g = world(), gm = g.svc.methods;
let args = { download_url: 'http://10.0.0.2/bytes/100000000', upload_url: 'http://10.0.0.2/upload' };

c.eq('test_start: bad URL', gm.test_start({ ...args, download_url: 'http://10.0.0.2/$(reboot)' }).error, 'invalid_argument');
c.eq('test_start: bad streams', gm.test_start({ ...args, streams: 0 }).error, 'invalid_argument');
c.eq('test_stop without a test: no_test', gm.test_stop({}).error, 'no_test');
c.eq('test_status without a test', gm.test_status({}), { state: 'idle', pause: null });

let started = gm.test_start({ ...args, streams: 2 });

c.eq('test_start reply', [ started.started, started.total, length(started.phases) ], [ true, 44, 7 ]);
c.eq('a second test_start is refused', gm.test_start(args).error, 'busy');
c.eq('the test probes every 50 ms', g.pr.starts, [ 50 ]);

g.s.advance(20000);
c.eq('test_status while running', [ gm.test_status({}).state, gm.test_status({}).phase ], [ 'running', 'upload' ]);
c.eq('the monitor does not take the prober back during the test', g.pr.starts, [ 50 ]);

g.s.advance(30000);

let done = gm.test_status({});

c.eq('test done, result in the status', [ done.state, done.result.grade, length(done.result.samples) ], [ 'done', 'A+', 880 ]);
c.eq('monitor probing resumed at 1/s', g.pr.starts[-1], 1000);

let list = gm.results({});

c.eq('results: summaries without samples', [ length(list.results), list.results[0].id, list.results[0].samples ],
	[ 1, done.result.id, null ]);
c.eq('results {id}: the whole result', length(gm.results({ id: done.result.id }).result.samples), 880);
c.eq('results {id}: unknown id', gm.results({ id: 'ffff' }).error, 'not_found');

let file = json(g.fs.files['/etc/reterm/results.json']);

c.eq('results file written', [ file.v, length(file.results), file.results[0].id ], [ 1, 1, done.result.id ]);

// the test's probes also fed the live rows: 20 probes per second
let live = gm.samples({}), most = 0;

for (let r in live.rows)
	if (r && r[4] > most)
		most = r[4];

c.eq('test probes show in the live rows', most, 20);

// the next test waits 30 s after the last one ended
let soon = gm.test_start(args);

c.eq('a test right after the last one: too_soon, with the seconds to wait', [ soon.error, soon.wait_s > 0 && soon.wait_s <= 30 ],
	[ 'too_soon', true ]);
g.s.advance(soon.wait_s * 1000);

// stop a running test
gm.test_start(args);
g.s.advance(3000);

let stopped = gm.test_stop({});

c.eq('test_stop: stopped, the result is kept', [ stopped.state, stopped.result.stopped, length(g.svc.results()) ], [ 'stopped', true, 2 ]);

// a restart reads the file again
let again = world({ fs: g.fs });

c.eq('results survive a restart', map(again.svc.methods.results({}).results, r => r.id), map(g.svc.results(), r => r.id));

// ---- the results file keeps the last 10 (more in store_test.uc) ------------------

let fs = memfs(), kept = store.open(fs, { timer: () => null, clock: { wall: () => 0 }, fsync: fs.fsync });

for (let i = 1; i <= 12; i++)
	kept.add({ id: sprintf('%x', i), samples: [ [ 0, 1 ] ] });

let reread = store.read(fs, store.RAM_PATH);

c.eq('12 results: the last 10 are kept, oldest first', map(reread, r => r.id), [ '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c' ]);
c.eq('no temporary file left', fs.files[`${store.RAM_PATH}.tmp`], null);

fs.files['/x/results.json'] = '{"v":1,"results":[{"id":"1"}';
c.eq('a corrupt file reads as none', store.read(fs, '/x/results.json'), null);
fs.files['/x/results.json'] = '{"v":1,"results":[{"id":"1"},{"no":"id"},"x",{"id":"2"}]}';
c.eq('entries that are not results are dropped', map(store.read(fs, '/x/results.json'), r => r.id), [ '1', '2' ]);
c.eq('a missing file reads as none', store.read(fs, '/nonexistent/results.json'), null);

// ---- clock stepped back ---------------------------------------------------------------

let cs = world();

cs.svc.methods.status({});
cs.s.advance(10000);

let id1 = cs.svc.methods.samples({}).id;

// the wall clock jumps back by an hour (NTP after boot)
cs.s.clock.wall = ((old) => () => old() - 3600000)(cs.s.clock.wall);
cs.s.advance(6000);

let after_step = cs.svc.methods.samples({});

c.ok(sprintf('clock step back: new ring id (%s -> %s), old rows gone', id1, after_step.id),
	after_step.id != id1 && after_step.t0 >= int((WALL0 - 3600000) / 1000));

// what ubus filters calls with: every argument typed, uhttpd's session
// declared where LuCI calls, not for reload (root only)
let types = {};

for (let n, m in api.METHODS)
	types[n] = map(sort(keys(reply.policy(m.args, !m.root))), (k) => `${k}:${type(reply.policy(m.args, !m.root)[k])}`);

c.eq('ubus argument declarations (reterm.latency.api)', types, {
	samples: [ 'since:int', 'step:int', 'ubus_rpc_session:string' ],
	status: [ 'ubus_rpc_session:string' ], autorate_status: [ 'ubus_rpc_session:string' ],
	test_start: [ 'download_url:string', 'endpoint:string', 'pause_shaping:bool', 'streams:int', 'ubus_rpc_session:string',
	              'upload_url:string' ],
	test_status: [ 'ubus_rpc_session:string' ], test_stop: [ 'ubus_rpc_session:string' ],
	results: [ 'id:string', 'ubus_rpc_session:string' ], reload: []
});

c.done();
