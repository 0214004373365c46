// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.test.guided: the guided test's phase schedule and result math,
// run on a simulated clock with a fake prober and fake HTTP load.

'use strict';

import * as G from 'reterm.latency.test.guided';
import * as stats from 'reterm.latency.stats';
import { http_url } from 'reterm.validate';
import { checker, sim, prober, load } from 'sim';

let c = checker('monitor/guided');

c.eq('schedule', map(G.phases(), p => [ p.name, p.start, p.end ]), [
	[ 'idle', 0, 5 ], [ 'download', 5, 15 ], [ 'idle', 15, 17 ], [ 'upload', 17, 27 ],
	[ 'idle', 27, 29 ], [ 'both', 29, 39 ], [ 'cooldown', 39, 44 ]
]);
c.eq('44 s in all', G.total_secs(), 44);

const SHAPER = { rx: 18000000, tx: 4500000 };

// phase name at t ms after the test start
function phase_at(t) {
	for (let p in G.phases())
		if (t >= p.start * 1000 && t < p.end * 1000)
			return p.name;

	return 'after';
}

// a deterministic jitter 0..2 ms
function jitter(n) {
	return ((n * 7919) % 21) / 10.0;
}

// run one test: added(phase, target) ms on top of base(target);
// lost(phase, n) -> true for a lost probe; rates {down, up} bit/s
function run(o) {
	let s = sim(), starts = [];
	let base = o.base ?? (() => 20);
	let pr = prober(s, (t, target, n) => {
		let ph = phase_at(t);

		if (o.lost?.(ph, n))
			return null;

		return base(target) + (o.added?.(ph, target) ?? 0) + jitter(n);
	});
	let rates = o.rates ?? { down: 17500000, up: 4400000 };
	let result = null, loads = [];
	let t = G.run({
		clock: s.clock,
		timer: s.timer,
		prober: pr,
		load: load(s, (dir) => rates[dir], loads),
		wan: o.wan ? o.wan(s) : null,
		id: () => 'a1b2c3d4'
	}, {
		download_url: http_url('http://10.0.0.2/bytes/100000000'),
		upload_url: http_url('http://10.0.0.2/upload'),
		streams: 4,
		reflectors: o.reflectors ?? [ '10.0.0.2' ],
		shaper: exists(o, 'shaper') ? o.shaper : SHAPER,
		on_done: (r) => { result = r; }
	});

	if (o.stop_at) {
		s.advance(o.stop_at);
		t.stop();
	}
	else {
		s.advance(10000);
		o.midway?.(t);
		s.advance(40000);
	}

	return { t, result, loads, pr };
}

// ---- unshaped: +300 ms under download -> D --------------------------------

let bloat = run({ added: (ph) => (ph == 'download' || ph == 'both') ? 300 : (ph == 'upload' ? 3 : 0),
	midway: (t) => {
		let st = t.status();

		c.eq('status while running', [ st.state, st.phase, st.phase_index, st.total, st.elapsed, st.progress ],
			[ 'running', 'download', 1, 44, 10, 0.227 ]);
	} });
let r = bloat.result;

c.eq('state done', bloat.t.state(), 'done');
c.eq('probes every 50 ms', bloat.pr.starts, [ 50 ]);
c.eq('880 samples, [t, rtt] pairs in order', [ length(r.samples), r.samples[0], r.samples[1][0], r.samples[879][0] ],
	[ 880, [ 0, 20 ], 50, 43950 ]);
c.eq('load per phase: down at 5 s, up at 17 s, both at 29 s', map(bloat.loads, l => [ l.dir, l.t, l.streams ]),
	[ [ 'down', 5000, 4 ], [ 'up', 17000, 4 ], [ 'down', 29000, 4 ], [ 'up', 29000, 4 ] ]);
c.eq('phases carry name/start/end for the graph', map(r.phases, p => [ p.name, p.start, p.end ]),
	map(G.phases(), p => [ p.name, p.start, p.end ]));
c.near('idle RTT: median of the first idle phase', r.idle_rtt, 21, 0.01);
c.eq('baseline = idle RTT', r.baseline, r.idle_rtt);
c.eq('download: D', r.download.grade, 'D');
c.eq('upload: A+', r.upload.grade, 'A+');
c.eq('overall: the worse direction', r.grade, 'D');
c.ok(sprintf('download added ~300 ms (%.1f)', r.download.added_ms), r.download.added_ms > 295 && r.download.added_ms < 305);
c.eq('download throughput from the load bytes (no WAN counters)', r.download.throughput_bps, 17500000);
c.eq('upload throughput', r.upload.throughput_bps, 4400000);
c.eq('conclusive: >= 80 % of the shaper, no loss', [ r.inconclusive, r.reasons, r.download.inconclusive ], [ false, [], false ]);
c.ok(sprintf('RPM from the both phase: poor (%d)', r.rpm), r.rpm > 150 && r.rpm < 200 && r.rpm_class == 'poor');
c.eq('no loss', [ r.loss, r.download.loss ], [ 0, 0 ]);
c.eq('meta', [ r.id, r.prober, r.streams, r.download_url, r.shaper, r.v ],
	[ 'a1b2c3d4', 'fake', 4, 'http://10.0.0.2/bytes/100000000', SHAPER, 1 ]);

// the phase numbers are stats.uc phase_stats of the stored samples
for (let p in r.phases) {
	let inside = filter(r.samples, s => s[0] >= p.start * 1000 && s[0] < p.end * 1000);
	let st = stats.phase_stats(inside, r.baseline);

	c.near(`${p.name}@${p.start}: mean as phaseStats`, p.mean, stats.round1(st.mean));
	c.near(`${p.name}@${p.start}: peak as phaseStats`, p.peak, stats.round1(st.peak));
}

c.ok('status after the end carries the result', bloat.t.status().result === r);

// ---- CAKE: +3 ms -> A+ -------------------------------------------------------

let cake = run({ added: (ph) => (ph == 'idle' || ph == 'cooldown') ? 0 : 3 });

c.eq('shaped: A+ both ways and overall', [ cake.result.download.grade, cake.result.upload.grade, cake.result.grade ], [ 'A+', 'A+', 'A+' ]);
c.ok(sprintf('shaped: RPM good (%d)', cake.result.rpm), cake.result.rpm_class == 'good');

// ---- WAN counters are preferred when known --------------------------------

let wan = run({ added: () => 0, rates: { down: 17000000, up: 4000000 },
	wan: (s) => () => ({ rx: int(s.now() * 2500), tx: int(s.now() * 600) }) });	// 20 / 4.8 Mbit/s

c.eq('throughput from the WAN counters', [ wan.result.download.throughput_bps, wan.result.upload.throughput_bps ], [ 20000000, 4800000 ]);

// ---- inconclusive: slow download, lossy upload ------------------------------

let inc = run({ rates: { down: 10000000, up: 4400000 },
	lost: (ph, n) => ph == 'upload' && n % 20 == 0 });	// 5 % lost

c.eq('inconclusive reasons', [ inc.result.inconclusive, inc.result.reasons ], [ true, [ 'download_throughput', 'upload_loss' ] ]);
c.eq('download: throughput below 80 %', [ inc.result.download.inconclusive, inc.result.download.reasons ], [ true, [ 'throughput' ] ]);
c.eq('upload: loss above 2.5 %', [ inc.result.upload.reasons, inc.result.upload.loss ], [ [ 'loss' ], 0.05 ]);

let edge = run({ rates: { down: 14400000, up: 3600000 } });

c.eq('exactly 80 % is conclusive', edge.result.inconclusive, false);

let noshaper = run({ rates: { down: 1000, up: 1000 }, shaper: null });

c.eq('no shaper: the throughput rule is skipped', [ noshaper.result.inconclusive, noshaper.result.reasons ], [ false, [] ]);

// ---- several reflectors at different distances ------------------------------

let multi = run({ reflectors: [ '10.0.0.2', '10.0.0.3' ], base: (t) => (t == '10.0.0.2') ? 20 : 40,
	added: (ph) => (ph == 'idle' || ph == 'cooldown') ? 0 : 3 });

c.near('reflectors normalised to the nearest: idle RTT', multi.result.idle_rtt, 21, 0.01);
c.eq('reflectors normalised: still A+ (un-normalised it would look like +13 ms)', multi.result.grade, 'A+');
c.eq('per reflector idle medians', map(multi.result.reflector_idle, x => x.target), [ '10.0.0.2', '10.0.0.3' ]);

// ---- stopped early, and failed ------------------------------------------------

let cut = run({ stop_at: 12000 });

c.eq('stopped: state and flag', [ cut.t.state(), cut.result.stopped, cut.result.duration ], [ 'stopped', true, 12 ]);
c.eq('stopped: phases cut at the stop', map(cut.result.phases, p => [ p.name, p.end ]), [ [ 'idle', 5 ], [ 'download', 12 ] ]);
c.eq('stopped: upload never ran', cut.result.upload, null);
c.eq('stopped: loads closed', length(cut.loads), 1);

let dead = run({ lost: () => true });

c.eq('nothing answered: failed with a reason', [ dead.t.state(), dead.result.error ], [ 'failed', 'no_idle_rtt' ]);

// how much a phase's rate moved (the wizard proposes adaptive shaping above 0.3)
let rd = [], b = 0;

for (let i = 0; i <= 10; i++) {
	push(rd, { t: i * 1000, wan_rx: b });
	b += (i < 5) ? 2500000 : 1000000;	// 20 Mbit/s, then 8
}

c.eq('spread: 20 then 8 Mbit/s moved 60 %', G.spread(rd, 'wan_rx', 0, 10000), 0.6);
c.eq('spread: a steady rate did not move', G.spread(slice(rd, 0, 6), 'wan_rx', 0, 5000), 0);
c.eq('spread: under 3 s says nothing', G.spread(rd, 'wan_rx', 0, 2000), null);
c.eq('spread: no traffic says nothing', G.spread(map(rd, (r) => ({ t: r.t, wan_rx: 7 })), 'wan_rx', 0, 10000), null);

c.done();
