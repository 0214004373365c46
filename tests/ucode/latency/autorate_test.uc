// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.autorate.controller's decisions on a simulated clock (the model:
// autorate_model.uc): settings, raise, cut, one cut per bloat, the climb
// back to the edge, idle decay, a step schedule (the reflectors' side:
// autorate_reflectors_test.uc).

'use strict';

import * as A from 'reterm.latency.autorate.controller';
import { SET, line, mean, good, feed } from 'autorate_model';
import { checker } from 'sim';
import { constants } from 'spec';

let c = checker('monitor/autorate');
// thresholds as docs/adaptive-shaping.md states them, not as the controller has them
const SPEC = constants();

// ---- settings ----------------------------------------------------------
c.eq('settings from uci strings', good,
	{ dl_min: 2000, dl_base: 20000, dl_max: 40000, ul_min: 1000, ul_base: 5000, ul_max: 10000, delay_ms: 15 });
c.eq('numbers from ubus', A.check_settings({ ...SET, dl_min: 3000, delay_ms: 30 }).settings?.delay_ms, 30);

for (let bad in [
	[ { ...SET, dl_min: '50000' }, /minimum 50000 <= base 20000/ ],
	[ { ...SET, ul_base: '20000' }, /ul: minimum 1000 <= base 20000 <= maximum 10000/ ],
	[ { ...SET, dl_max: '0' }, /dl_max 0 kbit\/s is outside/ ],
	[ { ...SET, ul_max: '999999999' }, /ul_max 999999999 kbit\/s is outside/ ],
	[ { ...SET, dl_base: '20 000' }, /dl_base must be a whole number/ ],
	[ { ...SET, dl_base: '-5' }, /dl_base must be a whole number/ ],
	[ { ...SET, dl_base: 2.5 }, /dl_base must be a whole number/ ],
	[ { ...SET, ul_min: null }, /ul_min must be a whole number/ ],
	[ { ...SET, delay_ms: '1' }, /delay_ms must be 5..200/ ],
	[ { ...SET, delay_ms: '15; reboot' }, /delay_ms must be 5..200/ ],
	[ 'x', /must be an object/ ]
]) {
	let r = A.check_settings(bad[0]);

	c.ok(sprintf('bad settings %J refused: %J', bad[0], r.message), r.error == 'invalid_settings' && match(r.message, bad[1]) && r.settings == null);
}

// ---- raise: loaded, delay low -> towards max, never above ---------------
{
	let l = line(good, { cap: (d) => (d == 'dl' ? 60000 : 20000), load: () => true });

	l.run(30000);
	c.eq('raise: dl reaches its maximum', l.ctl.rate('dl'), 40000);
	c.eq('raise: ul reaches its maximum', l.ctl.rate('ul'), 10000);
	c.ok('raise: every change is a raise', length(filter(l.out.changes, (x) => x.to < x.from)) == 0);

	let st = l.ctl.status(l.now());

	c.ok('raise: decisions say why', length(st.decisions) >= 2 && match(st.decisions[0].reason, /loaded \([0-9]+ %\), delay low/));
	c.ok(sprintf('raise: a run of raises is one decision %J', st.decisions), length(filter(st.decisions, (x) => x.dir == 'dl')) == 1);
}

// ---- raise only while the direction carries >= RAISE_SHARE of its rate ----
{
	let ctl = A.create(good, 0), t = 0;
	let run = function(share, n) {
		for (let i = 0; i < n; i++) {
			t = feed(ctl, t, [ '192.0.2.1', 10 ], [ '192.0.2.2', 12 ]);
			ctl.tick(t, { rx: share * ctl.rate('dl') * 1000, tx: share * ctl.rate('ul') * 1000 });
		}
	};

	run(0.6, 50);
	c.eq(sprintf('at 60 %% of the rate, delay low: no raise (RAISE_SHARE %s)', SPEC.RAISE_SHARE),
		[ ctl.rate('dl'), ctl.rate('ul') ], [ 20000, 5000 ]);
	run(0.8, 10);
	c.ok(sprintf('at 80 %%: raised (%d, %d kbit/s)', ctl.rate('dl'), ctl.rate('ul')),
		ctl.rate('dl') > 20000 && ctl.rate('ul') > 5000);
}

// ---- raise: fast only while the shaper limits (lab finding) --------------
// a rate above the line's capacity is not followed by what the line
// delivers: climbing on at +4 % a tick until the share fell to 75 % put
// the rate a third above the line (the walk's falls met such overshoots)
{
	let l = line({ ...good, dl_base: 8000 }, { cap: (d) => (d == 'dl' ? 12000 : 20000), load: (d) => d == 'dl',
		sees: () => false });

	l.run(10000);
	let fast = filter(l.out.changes, (x) => x.dir == 'dl' && x.from * SPEC.FAST_SHARE > 12000 && x.to > x.from * 1.01);

	c.ok(sprintf('climb: no fast raise once the line delivers < %d %% of the rate: %J', SPEC.FAST_SHARE * 100, fast),
		SPEC.FAST_SHARE > SPEC.RAISE_SHARE && length(fast) == 0);
	c.ok(sprintf('climb: fast up to there (%d kbit/s after 3 s)', filter(l.out.changes, (x) => x.t <= 3000)[-1]?.to ?? 0),
		(filter(l.out.changes, (x) => x.t <= 3000)[-1]?.to ?? 0) >= 12000);
}

// ---- raise through CAKE's own standing delay (lab finding) --------------
// a loaded CAKE keeps ~5-10 ms of its own queue and the probes jitter by
// a few ms: below the threshold that must not stop the climb
{
	let l = line(good, { cap: (d) => (d == 'dl' ? 60000 : 20000), load: (d, t) => d == 'dl' && t >= 5000,
		late: (who, t) => (t >= 5000) ? 6 + ((t / 200) % 3) : 0 });

	l.run(35000);
	c.eq('standing delay under the threshold: dl still reaches its maximum', l.ctl.rate('dl'), 40000);
}

// ---- cut: the line drops below the rate; only the loaded direction ----
{
	let l = line(good, { cap: (d, t) => (d == 'dl' ? (t < 10000 ? 25000 : 8000) : 20000), load: (d) => d == 'dl' });

	l.run(10000);
	let before = l.ctl.rate('dl');

	c.ok(`cut: before the drop dl climbed (${before})`, before > 20000);

	l.run(4000);
	let cuts = filter(l.out.changes, (x) => x.dir == 'dl' && x.to < x.from);

	c.ok(`cut: dl cut within 2 s of the drop (first at ${cuts[0]?.t})`, length(cuts) > 0 && cuts[0].t <= 12000);
	c.ok(`cut: dl near the new capacity after 4 s (${l.ctl.rate('dl')})`, l.ctl.rate('dl') <= 8000 * 1.1);
	c.eq('cut: ul idle and never cut', length(filter(l.out.changes, (x) => x.dir == 'ul' && x.to < x.from)), 0);
	c.ok('cut: its reason names the delay and the direction',
		match(cuts[0]?.reason ?? '', /^delay \+[0-9.]+ ms with dl at [0-9]+ % of its rate$/));

	// tracking a step schedule: low delay, most of the line used
	l.run(30000);
	let tail = slice(l.out.delays, -100);

	c.ok(`cut: delay settles (mean of the last 20 s ${mean(tail)} ms)`, mean(tail) < 15);
}

// ---- the cut's depth follows the delay (lab finding) --------------------
// the queue behind the delay drains in about DRAIN_SPAN_MS at what the
// line delivers, within 0.5..0.9: a bloat of +20 ms is cut by 10 % (0.85 x
// left the line 15 % idle while the rate crept back), +100 ms by 40 %
// (0.5 x took seconds to climb back from), +125 ms and more halves it
{
	let depth = function(added) {
		let ctl = A.create(good, 0), t = 0;

		for (let i = 0; i < 10; i++)
			t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

		t = feed(ctl, t, [ '192.0.2.1', 20 + added ], [ '192.0.2.2', 30 + added ]);

		let cut = filter(ctl.tick(t, { rx: 20000000, tx: 0 }), (x) => x.dir == 'dl')[0];

		return cut?.to / 20000.0;
	};

	// whole numbers too (ucode divides two ints as ints)
	c.ok(`cut depth: cut_factor(100) = ${A.cut_factor(100)}`, A.cut_factor(100) > 0.595 && A.cut_factor(100) < 0.605);

	for (let v in [ [ 20, 0.9 ], [ 40, 0.84 ], [ 100, 0.6 ], [ 200, 0.5 ], [ 400, 0.5 ] ])
		c.ok(`cut depth: +${v[0]} ms cuts 20000 kbit/s to ${v[1]} x (got ${depth(v[0])} x)`,
			depth(v[0]) > v[1] - 0.005 && depth(v[0]) < v[1] + 0.005);
}

// one answer far above the others (a probe held up somewhere on its own:
// the lab's walk had +160.9 ms among +15 ms ones, and the cut halved the
// rate to its minimum for 8 s) does not set the depth alone: the worst
// counts up to twice the second worst (a queue still growing between two
// answers keeps its worst)
{
	let depth = function(...added) {
		let ctl = A.create(good, 0), t = 0;

		for (let i = 0; i < 10; i++)
			t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

		t = feed(ctl, t, ...map(added, (a, i) => (i % 2) ? [ '192.0.2.2', 30 + a ] : [ '192.0.2.1', 20 + a ]));

		return filter(ctl.tick(t, { rx: 20000000, tx: 0 }), (x) => x.dir == 'dl')[0];
	};

	let odd = depth(22, 160, 18), growing = depth(30, 52);

	c.ok(`cut depth: +22 and +18 ms with one answer at +160 ms count as +44 ms: 0.82 x, not 0.5 x (${odd?.to}: ${odd?.reason})`,
		odd?.to >= 16400 && odd?.to <= 16560 && match(odd?.reason ?? '', /^delay \+44 ms/));
	c.ok(`cut depth: a queue growing from +30 to +52 ms counts as +52 ms (${growing?.to}: ${growing?.reason})`,
		growing?.to >= 15760 && growing?.to <= 15880);
}

// a cut that fell short (the rate still above what the line delivers, its
// queue growing to twice the cut's delay) is followed by another before
// CUT_HOLD_MS (the lab's walk: cut at +20 ms to 5.8 Mbit/s on a 5 Mbit/s
// line, held 800 ms while the pings rose to +111 ms)
{
	let ctl = A.create(good, 0), t = 0;
	let answers = (ms) => feed(ctl, t, [ '192.0.2.1', 20 + ms ], [ '192.0.2.2', 30 + ms ]);

	for (let i = 0; i < 10; i++)
		t = answers(0);

	t = answers(20);
	let first = ctl.tick(t, { rx: 20000000, tx: 0 }), t0 = t;
	let second = [];

	for (let ms = 30; ms <= 70 && !length(second); ms += 20) {
		t = answers(ms);
		// the line delivers less than the new rate: the queue grows
		second = filter(ctl.tick(t, { rx: (ctl.rate('dl') - 1500) * 1000, tx: 0 }), (x) => x.dir == 'dl');
	}

	c.ok(`short cut: a cut at +20 ms (${first[0]?.to}), the queue growing under it: cut again ${t - t0} ms later (< ${SPEC.CUT_HOLD_MS}; ${second[0]?.reason})`,
		length(first) == 1 && length(second) == 1 && second[0].to < second[0].from && t - t0 < SPEC.CUT_HOLD_MS);
}

// a cut starts from the line's newest reading where it is below the
// window's (rates: the window's rx, and now.rx for the last 200 ms): the
// window still holds the line before it fell
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

	t = feed(ctl, t, [ '192.0.2.1', 20 + 25 ], [ '192.0.2.2', 30 + 25 ]);

	let cut = filter(ctl.tick(t, { rx: 18000000, tx: 0, now: { rx: 12000000, tx: 0 } }), (x) => x.dir == 'dl')[0];

	c.ok(`cut from the newest reading: 12 Mbit/s now, 18 over the window: cut to 0.9 x 12000 (${cut?.to})`,
		cut?.to >= 10750 && cut?.to <= 10850);
}

// an answer above the threshold is acted on when it comes, not at the next
// tick of the WAN counters: probe() returns its delta, tick(t, rates, true)
// then only cuts (the lab's replies landed just after each tick and waited
// 200 ms for the next while the queue grew); raises and decays wait for
// the counters' ticks
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

	let rates = { rx: 20000000, tx: 0 };
	let raise = filter(ctl.tick(t, rates, true), (x) => x.dir == 'dl');
	let low = ctl.probe('192.0.2.1', 21, t, null);

	ctl.probe('192.0.2.1', 20 + 30, t + 50, null);
	let d = ctl.probe('192.0.2.2', 30 + 35, t + 100, null);
	let cut = filter(ctl.tick(t + 120, rates, true), (x) => x.dir == 'dl');

	c.ok(`react: probe() returns the delta (${low}, ${d})`, low > 0.9 && low < 1.1 && d > 34.9 && d < 35.1);
	c.eq('react: no raise between the counters\' ticks', length(raise), 0);
	c.ok(`react: two high answers cut at once (${cut[0]?.reason})`, length(cut) == 1 && cut[0].to < cut[0].from);
}

// one answer whose one-way delays put twice the threshold in a direction
// is a bloat there on its own: a reflector slow to answer shows its delay
// in neither part (its receive and transmit times enclose it), so the
// split is the path's queue; without one-way delays two answers from two
// reflectors are still needed
{
	let solo = function(owd_up, owd_down, added) {
		let ctl = A.create(good, 0), t = 0;

		for (let i = 0; i < 10; i++) {
			ctl.probe('192.0.2.1', 20, t, { up: 5010, down: -4990 });
			ctl.probe('192.0.2.2', 30, t + 100, null);
			t += 200;
		}

		ctl.probe('192.0.2.1', 20 + added, t, (owd_up != null) ? { up: 5010 + owd_up, down: -4990 + owd_down } : null);

		return ctl.tick(t + 50, { rx: 20000000, tx: 5000000 }, true);
	};
	let down = solo(0, 36, 36), rtt_only = solo(null, null, 36), up = solo(36, 0, 36), small = solo(0, 25, 25);

	c.ok(`solo answer: +36 ms one way down cuts the download at once (${sprintf('%J', map(down, (x) => x.dir + ': ' + x.reason))})`,
		length(down) == 1 && down[0].dir == 'dl' && down[0].to < down[0].from);
	c.eq('solo answer: +36 ms without one-way delays cuts nothing alone', length(rtt_only), 0);
	c.ok(`solo answer: +36 ms one way up cuts the upload only (${sprintf('%J', map(up, (x) => x.dir))})`,
		length(up) == 1 && up[0].dir == 'ul');
	c.eq('solo answer: +25 ms one way down (under twice the threshold) cuts nothing alone', length(small), 0);
}

// ---- a cut behind the line: the delay goes on rising for a round trip ---
// (sqm's download shaper sits after the line: the senders hear of its
// drops a round trip later); one cut per bloat, and the line's delivery
// while its queue drains tells its capacity
{
	let l = line(good, { ingress: 40, load: (d) => d == 'dl',
		cap: (d, t) => (d == 'dl') ? ((t < 20000) ? 30000 : 12000) : 20000 });

	l.run(20000);
	let before = l.ctl.rate('dl');

	l.run(3000);
	let cuts = filter(l.out.changes, (x) => x.dir == 'dl' && x.to < x.from && x.t >= 20000);

	c.ok(`behind the line: one cut for the drop 30 -> 12 Mbit/s, from near the line (${join(', ', map(cuts, (x) => x.from + ' -> ' + x.to + ' at ' + x.t))}), from ${before}`,
		before >= 0.85 * 30000 && length(cuts) == 1);
	l.run(7000);
	c.ok(`behind the line: 10 s after the drop back near the line (${l.ctl.rate('dl')} kbit/s, want >= 0.8 x 12000)`,
		l.ctl.rate('dl') >= 9600);
}

// the line delivering more than our rate spares a second cut only while
// the last cut's queue can still be draining, not for good
{
	let ctl = A.create(good, 0), t = 0;
	let bloat = () => feed(ctl, t, [ '192.0.2.1', 60 ], [ '192.0.2.2', 70 ]);

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

	t = bloat();
	let first = ctl.tick(t, { rx: 20000000, tx: 0 });

	for (let i = 0; i < 300; i++) {
		t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);
		ctl.tick(t, { rx: (ctl.rate('dl') + 500) * 1000, tx: 0 });
	}

	t = bloat();
	let later = filter(ctl.tick(t, { rx: (ctl.rate('dl') + 500) * 1000, tx: 0 }), (x) => x.dir == 'dl');

	c.ok(`behind the line: a cut (${length(first)}), 60 s later a bloat with the line above our rate is cut again (${later[0]?.reason})`,
		length(first) == 1 && length(later) == 1 && later[0].to < later[0].from);
}

// the last cut's queue is gone once a probe came back low: a bloat after
// that is a new one (the line fell again) and is cut at once, not taken for
// the old queue still draining (the lab's walk: 5.0 Mbit/s under a rate of
// 6 for 2.3 s, the pings at +100 ms, because the last cut had been +84 ms)
{
	let ctl = A.create(good, 0), t = 0;
	let answers = (ms) => feed(ctl, t, [ '192.0.2.1', 20 + ms ], [ '192.0.2.2', 30 + ms ]);
	let tick = () => filter(ctl.tick(t, { rx: ctl.rate('dl') * 1000, tx: 0 }), (x) => x.dir == 'dl');

	for (let i = 0; i < 10; i++)
		t = answers(0);

	t = answers(84);
	let first = tick(), t_first = t;

	// drained: low answers for a second (the rate climbs back meanwhile)
	for (let i = 0; i < 5; i++) {
		t = answers(2);
		tick();
	}

	t = answers(40);
	let again = tick();

	c.ok(`drained queue: a cut at +84 ms (${first[0]?.reason}), the queue gone, a new bloat of +40 ms ${t - t_first} ms later is cut too (${again[0]?.reason ?? 'not cut'})`,
		length(first) == 1 && first[0].to < first[0].from && length(again) == 1 && again[0].to < again[0].from);
}

// ---- back to the edge: faster while calm ---------------------------------
// after a cut, near the rate the last bloat came at, the climb is gentle
// (+0.5 % a tick) while the probes show a queue forming (above half the
// threshold) or the line delivers less than CALM_LOAD of the rate, and
// +1 % while calm: the line may have risen (load: rx / rate)
function back_to_edge(calm_ms, load) {
	let ctl = A.create(good, 0), t = 0;
	let probe = (ms) => {
		ctl.probe('192.0.2.1', 10 + ms, t, null);
		ctl.probe('192.0.2.2', 20 + ms, t + 100, null);
		t += 200;
	};

	while (t < 2000)
		probe(0);

	let r0 = ctl.rate('dl'), cut = null;

	while (cut == null && t < 4000) {
		probe(40);
		cut = filter(ctl.tick(t, { rx: ctl.rate('dl') * 1000, tx: 0 }), (x) => x.dir == 'dl')[0];
	}

	let from = t;

	while (ctl.rate('dl') < r0 && t < from + 10000) {
		probe(calm_ms);
		ctl.tick(t, { rx: ctl.rate('dl') * 1000 * (load ?? 1), tx: 0 });
	}

	return { cut, ms: t - from, r0, rate: ctl.rate('dl') };
}

{
	let calm = back_to_edge(2), edgy = back_to_edge(10), short = back_to_edge(2, 0.85);

	c.ok(`back to the edge: cut first (${calm.cut?.from} -> ${calm.cut?.to})`, calm.cut?.to < calm.r0);
	c.ok(`back to the edge: calm probes, back at ${calm.r0} kbit/s ${calm.ms} ms after the cut (<= hold + 2.5 s)`,
		calm.rate >= calm.r0 && calm.ms <= SPEC.RAISE_HOLD_MS + 2500);
	c.ok(`back to the edge: probes at 10 ms (a queue forming), gentle: ${edgy.ms} ms (>= hold + 3 s)`,
		edgy.ms >= SPEC.RAISE_HOLD_MS + 3000);
	c.ok(`back to the edge: the line delivers 85 % of the rate, gentle: ${short.ms} ms (>= hold + 3 s)`,
		short.ms >= SPEC.RAISE_HOLD_MS + 3000);
}

// the answers before the queue drained say nothing about the edge now: the
// calm climb starts with the first raise after the drain, not once they
// have left the window (the lab's walk: +0.5 % a tick for 2.5 s after each
// cut while the line had risen by half); one answer a tick, as the lab's
// 5 probes a second, two reflectors
{
	let ctl = A.create(good, 0), t = 0, i = 0;
	let answer = (ms) => {
		ctl.probe(i % 2 ? '192.0.2.2' : '192.0.2.1', (i % 2 ? 30 : 20) + ms, t, null);
		i++;
		t += 200;
	};

	for (let k = 0; k < 10; k++)
		answer(0);

	// a cut of 10 %: the rate lands in the band of the last bloat's
	answer(20);
	answer(22);
	ctl.tick(t, { rx: 20000000, tx: 0 });

	let t_cut = t;

	// its queue drains: one more high answer, then low ones
	answer(25);
	ctl.tick(t, { rx: ctl.rate('dl') * 1000, tx: 0 });

	let raises = [];

	for (let k = 0; k < 20; k++) {
		answer(2);
		push(raises, ...map(filter(ctl.tick(t, { rx: ctl.rate('dl') * 1000, tx: 0 }), (x) => x.dir == 'dl'),
			(x) => ({ ...x, t })));
	}

	c.ok(`after the drain: the first raises are calm ones (+1 % or more: ${join(', ', map(slice(raises, 0, 2), (x) => x.from + ' -> ' + x.to))})`,
		length(raises) >= 2 && raises[0].to >= raises[0].from * 1.0099);
	// the queue drained: raises after DRAINED_HOLD_MS, not RAISE_HOLD_MS
	c.ok(`after the drain: the first raise ${raises[0]?.t - t_cut} ms after the cut (< ${SPEC.RAISE_HOLD_MS})`,
		raises[0]?.t - t_cut < SPEC.RAISE_HOLD_MS);
	// calm for 2 s: the step has doubled twice
	let late = filter(raises, (x) => x.t - raises[0].t >= 2 * SPEC.CALM_DOUBLE_MS)[0];

	c.ok(`after the drain: calm for 2 s, the step grew to +4 % (${late?.from} -> ${late?.to})`,
		late != null && late.to >= late.from * 1.039);
}

// at a low rate CAKE itself holds a probe behind a packet or two being
// sent (3 ms each at 4 Mbit/s): answers of +9-10 ms there are no queue
// forming, and the climb stays calm (the lab's walk crawled at +0.5 % a
// tick from 4 Mbit/s on a line of 8.6); at 20 Mbit/s they are not calm
{
	let climb = function(rate, ms) {
		let set = A.check_settings({ ...SET, dl_min: '2000', dl_base: '' + rate }).settings;
		let ctl = A.create(set, 0), t = 0, i = 0;
		let answer = (d) => {
			ctl.probe(i % 2 ? '192.0.2.2' : '192.0.2.1', (i % 2 ? 30 : 20) + d, t, null);
			i++;
			t += 200;
		};

		for (let k = 0; k < 10; k++)
			answer(0);

		// a cut of 10 %, its queue drained
		answer(20);
		answer(22);
		ctl.tick(t, { rx: rate * 1000, tx: 0 });
		answer(1);

		let raises = [];

		for (let k = 0; k < 12; k++) {
			answer(ms);
			push(raises, ...filter(ctl.tick(t, { rx: ctl.rate('dl') * 1000, tx: 0 }), (x) => x.dir == 'dl'));
		}

		return raises[0] ? raises[0].to * 1.0 / raises[0].from : null;
	};
	let slow = climb(4000, 9.5), fast = climb(20000, 9.5);

	c.ok(`calm at a low rate: +9.5 ms answers at 4 Mbit/s climb calmly (x ${slow})`, slow >= 1.0099);
	c.ok(`calm at a low rate: +9.5 ms answers at 20 Mbit/s climb gently (x ${fast})`, fast != null && fast < 1.009);
}

// ---- idle decay: after a cut, idle -> back towards base ----------------
{
	let l = line(good, { cap: (d, t) => (d == 'dl' ? (t < 5000 ? 25000 : 6000) : 20000), load: (d, t) => d == 'dl' && t < 15000 });

	l.run(15000);
	c.ok(`decay: cut below base first (${l.ctl.rate('dl')})`, l.ctl.rate('dl') < 10000);
	l.run(60000);
	c.eq('decay: idle for 60 s, back at base', l.ctl.rate('dl'), 20000);
	c.ok('decay: the last decision is the decay', l.ctl.status(l.now()).decisions[-1].reason == 'dl idle, back towards base');
}

// ---- steps 20 -> 8 -> 30 -> 12: added delay and utilisation ------------
{
	let steps = [ 20000, 8000, 30000, 12000 ];
	let l = line(good, { cap: (d, t) => (d == 'dl' ? steps[min(3, int(t / 30000))] : 20000), load: (d) => d == 'dl' });

	l.run(120000);

	let util = l.out.delivered / l.out.allowed;
	let sorted = sort([ ...l.out.delays ], (a, b) => a - b);

	c.ok(`steps: utilisation ${util} >= 0.8`, util >= 0.8);
	// the model's sender never backs off (worse than TCP): the queue a drop
	// leaves is larger than in the lab, which checks the issue's 15 ms
	c.ok(`steps: mean added delay ${mean(l.out.delays)} ms <= 25`, mean(l.out.delays) <= 25);
	c.ok(`steps: p95 added delay ${sorted[int(length(sorted) * 0.95)]} ms <= 40`, sorted[int(length(sorted) * 0.95)] <= 40);
}

// ---- observed: sqm restarted with its own rate ---------------------------
{
	let ctl = A.create(good, 0);

	c.eq('observed: the same rate needs nothing', ctl.observed('dl', 20000), null);
	c.eq('observed: no CAKE there keeps ours, nothing to set', ctl.observed('dl', null), null);
	c.eq('observed: another rate gets ours again', ctl.observed('dl', 35000), 20000);
}

c.done();
