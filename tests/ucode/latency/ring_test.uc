// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.live.ring: storage, wrap-around, `samples {since}` deltas in
// the wire format of htdocs/luci-static/resources/reterm/ring.js, the
// 4 KB budget for one new second, and the per-minute combination.

'use strict';

import * as ring from 'reterm.latency.live.ring';
import { checker } from 'sim';

let c = checker('monitor/ring');
const T = 1718000000;	// a multiple of 60? no: 1718000000 % 60 = 20

// every column filled: the largest row a second can produce
function full(t) {
	return {
		min: 23.1, med: 24.5, max: 130.2, base: 22.8, sent: 5, lost: 1,
		rx: 180123456, tx: 45012345, dl_pk: 12.3, dl_av: 4.5, ul_pk: 8.1, ul_av: 2.2,
		dl_drop: 12, ul_drop: 3, dl_ecn: 40, ul_ecn: 7, dl_bl: 151400, ul_bl: 30280
	};
}

let r = ring.create({ step: 1, size: 600, id: 'abcd1234' });

c.eq('empty ring: no rows, cols still named', r.samples(0, T), {
	v: 1, id: 'abcd1234', now: T, step: 1, t0: T, cols: [ 'min', 'med', 'max' ], rows: []
});

for (let t = T; t < T + 10; t++)
	r.put(t, { min: 20, med: 21, max: 22, rx: 1000 * (t - T) });

let a = r.samples(0, T + 11);

c.eq('first reply: everything, oldest first', [ a.t0, length(a.rows), a.rows[0], a.rows[9] ],
	[ T, 10, [ 20, 21, 22, 0 ], [ 20, 21, 22, 9000 ] ]);
c.eq('only columns with values (plus min/med/max)', a.cols, [ 'min', 'med', 'max', 'rx' ]);

// the client asks with the t of its newest row
r.put(T + 10, full(T + 10));

let d = r.samples(T + 9, T + 11);

c.eq('delta: only the new row', [ d.t0, length(d.rows) ], [ T + 10, 1 ]);
c.eq('delta row in cols order', d.rows[0], [ 23.1, 24.5, 130.2, 22.8, 5, 1, 180123456, 45012345,
	12.3, 4.5, 8.1, 2.2, 12, 3, 40, 7, 151400, 30280 ]);
c.eq('all 18 columns named', length(d.cols), 18);

let bytes = length(sprintf('%J', { ...d, base: 22.8, shaper: { rx: 18000000, tx: 4500000 }, probe: 'fping' }));

c.ok(`one new second with every column is ${bytes} bytes (<= 4096)`, bytes <= 4096);
c.ok(`... and about 300 bytes as ring.js says (${bytes})`, bytes < 450);

c.eq('nothing new: empty rows, t0 after the newest', r.samples(T + 10, T + 12), {
	v: 1, id: 'abcd1234', now: T + 12, step: 1, t0: T + 11, cols: [ 'min', 'med', 'max' ], rows: []
});

// gaps: a null row (asleep) and a missing interval stay null rows
r.put(T + 11, null);
r.put(T + 13, { min: 1, med: 2, max: 3 });

let g = r.samples(T + 9, T + 14);

c.eq('gaps are null rows, contiguous', [ g.t0, length(g.rows), g.rows[1], g.rows[2], g.rows[3] ],
	[ T + 10, 4, null, null, [ 1, 2, 3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null ] ]);

let lead = r.samples(T + 10, T + 14);

c.eq('leading null rows are not sent (t0 moves)', [ lead.t0, lead.rows ], [ T + 13, [ [ 1, 2, 3 ] ] ]);

let r2 = ring.create({ step: 1, size: 600, id: 'x' });

r2.put(T, null);
r2.put(T + 1, null);
r2.put(T + 2, { min: 5, med: 5, max: 5 });
c.eq('leading nulls trimmed', [ r2.samples(0, T + 3).t0, length(r2.samples(0, T + 3).rows) ], [ T + 2, 1 ]);

// wrap-around: 700 seconds into 600 slots keep the newest 600
let w = ring.create({ step: 1, size: 600, id: 'w' });

for (let t = T; t < T + 700; t++)
	w.put(t, { min: t - T, med: t - T, max: t - T });

let all = w.samples(0, T + 700);

c.eq('wrap: one ring worth, the newest', [ all.t0, length(all.rows), all.rows[0][0], all.rows[599][0] ],
	[ T + 100, 600, 100, 699 ]);
c.eq('wrap: an old since starts at the oldest held', w.samples(T + 5, T + 700).t0, T + 100);
c.eq('wrap: overwritten slots are not served as old times', w.get(T + 50), null);
c.eq('wrap: get of a held second', w.get(T + 650).min, 650);
c.eq('delta after wrap', w.samples(T + 697, T + 700).rows, [ [ 698, 698, 698 ], [ 699, 699, 699 ] ]);

// step 60 ring
let m = ring.create({ step: 60, size: 1440, id: 'm' });
let M = T - T % 60;

m.put(M, { min: 1, med: 2, max: 3 });
m.put(M + 120, { min: 4, med: 5, max: 6 });

let ms = m.samples(0, M + 200);

c.eq('minute ring: step, gap as null row', [ ms.step, ms.t0, ms.rows ], [ 60, M, [ [ 1, 2, 3 ], null, [ 4, 5, 6 ] ] ]);
c.eq('minute ring: since is aligned', m.samples(M + 1, M + 200).t0, M + 120);
c.eq('minute ring: since = newest -> nothing', length(m.samples(M + 120, M + 200).rows), 0);

// combine 60 seconds into a minute row
let rows = [];

for (let i = 0; i < 60; i++)
	push(rows, (i % 10 == 9) ? null : { min: 20 + i % 3, med: 21 + i % 5, max: 30 + i, base: 20 + i / 100.0,
		sent: 5, lost: (i == 0) ? 2 : 0, rx: 1000000 + i, tx: 500, dl_pk: i, dl_av: 2, dl_drop: 1, dl_bl: 100 * i });

let cm = ring.combine(rows);

c.eq('combine: min/median/max', [ cm.min, cm.med, cm.max ], [ 20, 23, 88 ]);
c.eq('combine: sums of counts', [ cm.sent, cm.lost, cm.dl_drop ], [ 270, 2, 54 ]);
c.eq('combine: mean rates, max peaks and backlog', [ cm.rx, cm.tx, cm.dl_pk, cm.dl_av, cm.dl_bl ],
	[ 1000029, 500, 58, 2, 5800 ]);
c.eq('combine: last base', cm.base, 20 + 58 / 100.0);
c.eq('combine: columns without values stay null', [ cm.ul_pk, cm.ul_drop ], [ null, null ]);
c.eq('combine of nothing', ring.combine([ null, null ]), null);

// bad cells are stored as null, never as garbage
let b = ring.create({ step: 1, size: 10, id: 'b' });

b.put(T, { min: -1, med: 'x', max: 0 / 0.0, rx: 1 / 0.0, tx: 5 });
c.eq('bad cells become null', b.samples(0, T + 1).rows, [ [ null, null, null, 5 ] ]);

c.done();
