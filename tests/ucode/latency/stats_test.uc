// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.stats: the grade and percentile vectors of
// tests/fixtures/grade-vectors.json (made from grade.js, which the live
// view and the wizard use, by tests/fixtures/make-grade-vectors.mjs) and
// the fixed vectors of the rest, which only the daemon computes
// (tests/fixtures/latency/stats-vectors.json) must come out the same; plus
// the baseline tracker and the per-second aggregation.

'use strict';

import { readfile } from 'fs';
import * as stats from 'reterm.latency.stats';
import { checker } from 'sim';

let c = checker('monitor/stats');
let vec = { ...json(readfile(getenv('RETERM_FIXTURES') + '/grade-vectors.json')),
	...json(readfile(getenv('RETERM_FIXTURES') + '/latency/stats-vectors.json')) };

for (let v in vec.grade)
	c.eq(`grade(${v[0]})`, stats.grade(v[0]), v[1]);

for (let v in vec.overall)
	c.eq(`overall(${v[0]}, ${v[1]})`, stats.overall(v[0], v[1]), v[2]);

for (let v in vec.rpm) {
	c.near(`rpm(${v[0]})`, stats.rpm(v[0]), v[1]);
	c.eq(`rpm_class(rpm(${v[0]}))`, stats.rpm_class(stats.rpm(v[0])), v[2]);
}

for (let v in vec.percentile)
	c.eq(sprintf('percentile(%d values, %J)', length(v[0]), v[1]), stats.percentile(v[0], v[1]), v[2]);

for (let v in vec.inconclusive)
	c.eq(sprintf('inconclusive(%J)', v[0]), stats.inconclusive(v[0]), v[1]);

for (let v in vec.phase_stats) {
	let got = stats.phase_stats(v[0].samples, v[0].baseline), want = v[1], n = v[0].name;

	for (let k in [ 'mean', 'p95', 'peak', 'loss' ])
		c.near(`phase_stats ${n}: ${k}`, got?.[k], want[k]);

	c.eq(`phase_stats ${n}: sent/lost`, [ got?.sent, got?.lost ], [ want.sent, want.lost ]);

	for (let k in [ 'mean', 'p95', 'min', 'max' ])
		c.near(`phase_stats ${n}: rtt.${k}`, got?.rtt?.[k], want.rtt?.[k]);
}

// bad input as grade.js: null, not an exception
c.eq('grade(-1)', stats.grade(-1), null);
c.eq('grade("10")', stats.grade('10'), null);
c.eq('grade(NaN)', stats.grade(0 / 0.0), null);
c.eq('rpm(0)', stats.rpm(0), null);
c.eq('phase_stats([])', stats.phase_stats([], 10), null);
c.eq('phase_stats(bad baseline)', stats.phase_stats([ [ 0, 1 ] ], -1), null);
c.eq('inconclusive(loss > 1)', stats.inconclusive({ loss: 1.5 }), null);

// the verdicts the issue names: +300 ms under download is D, +3 ms is A+
c.eq('+300 ms -> D', stats.grade(300), 'D');
c.eq('+3 ms -> A+', stats.grade(3), 'A+');

// per-second aggregation
function agg(what, got, want) {
	for (let k in [ 'min', 'med', 'max' ])
		c.near(`${what}: ${k}`, got?.[k], want[k]);
}

agg('aggregate odd', stats.aggregate([ 30.2, 23.1, 24 ]), { min: 23.1, med: 24, max: 30.2 });
agg('aggregate even (mean of the middle two)', stats.aggregate([ 4, 1, 3, 2 ]), { min: 1, med: 2.5, max: 4 });
agg('aggregate rounds to 0.1 ms', stats.aggregate([ 23.04, 23.08 ]), { min: 23.0, med: 23.1, max: 23.1 });
agg('aggregate skips bad values', stats.aggregate([ null, -1, 5 ]), { min: 5, med: 5, max: 5 });
c.eq('aggregate of nothing', stats.aggregate([]), null);

// baseline: slowly rising, fast falling
let b = stats.baseline();

c.eq('baseline starts at the first sample', b.update(20, 0), 20.0);

let v = null;

for (let t = 200; t <= 60000; t += 200)
	v = b.update(320, t);

c.ok(sprintf('60 s of +300 ms raise it slowly (%.1f: between 40 and 90)', v), v > 40 && v < 90);

v = b.update(21, 60200);
c.ok(sprintf('one sample near the old minimum pulls it down at once (%.1f < 30)', v), v < 30);
b.update(21, 60400);
v = b.update(21, 60600);
c.ok(sprintf('and two more settle it (%.2f)', v), v < 21.1 && v >= 21);

c.eq('lost probes do not move it', b.update(null, 60800), v);

v = b.update(50, 60600 + 61000);
c.eq('after a 61 s gap (slept) it restarts at the sample', v, 50.0);

let b2 = stats.baseline();

for (let t = 0; t < 10000; t += 1000)
	b2.update(20 + (t / 1000) % 3, t);	// 20, 21, 22, 20, ...

c.ok(sprintf('jitter keeps it near the minimum (%.2f)', b2.value()), b2.value() >= 20 && b2.value() < 20.3);

// the binomial tail the reflectors' loss judgement uses
let near = (a, b, e) => a - b < e && b - a < e;

c.ok('tail: k = 0 is certain', near(stats.tail(10, 0, 0.3), 1, 1e-9));
c.ok(sprintf('tail: 5 or more heads of 10 fair coins: 638/1024 (%.6f)', stats.tail(10, 5, 0.5)),
	near(stats.tail(10, 5, 0.5), 638 / 1024.0, 1e-9));
c.ok(sprintf('tail: all 10 lost at 30 %%: 0.3^10 (%.3g)', stats.tail(10, 10, 0.3)),
	near(stats.tail(10, 10, 0.3), 0.0000059049, 1e-12));
c.ok(sprintf('tail: 5 of 10 at 3 %% (%.3g) is below LINE_P, 9 of 10 at 30 %% (%.3g) is not', stats.tail(10, 5, 1 / 32.0),
	stats.tail(10, 9, 0.3)), stats.tail(10, 5, 1 / 32.0) < 0.0001 && stats.tail(10, 9, 0.3) > 0.0001);

c.done();
