// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.autorate.controller's reflectors on a simulated clock (the model:
// autorate_model.uc): one-way delays and which direction a bloat is in,
// reflectors that stop answering or answer late, near hops, reflectors
// no longer probed.

'use strict';

import * as A from 'reterm.latency.autorate.controller';
import * as R from 'reterm.latency.autorate.reflectors';
import { line, good, feed, REFL } from 'autorate_model';
import { checker } from 'sim';

let c = checker('monitor/autorate-reflectors');

// ---- attribution: one-way delays say which direction's queue it is -----
// both directions loaded; the download's line drops (or the upload's):
// with timestamps only the direction whose queue grew is cut
function dip(which, owd) {
	let l = line(good, { owd, load: () => true,
		cap: (d, t) => (d == which && t >= 10000) ? ((d == 'dl') ? 16000 : 5000) : ((d == 'dl') ? 60000 : 20000) });

	l.run(10000);

	let before = { dl: l.ctl.rate('dl'), ul: l.ctl.rate('ul') };

	l.run(6000);

	return { l, before, cuts: (d) => filter(l.out.changes, (x) => x.dir == d && index(x.reason, 'delay') == 0) };
}

{
	let rtt_only = dip('dl', null), all = dip('dl', () => true), half = dip('dl', (who) => who in { '192.0.2.1': 1, '192.0.2.3': 1 });

	c.ok(`attribution: without one-way delays a download dip cuts the upload too (${length(rtt_only.cuts('ul'))} cuts)`,
		length(rtt_only.cuts('ul')) > 0);
	c.ok(`attribution: with them the download is cut (${all.l.ctl.rate('dl')}) and the upload never (${length(all.cuts('ul'))} cuts)`,
		all.l.ctl.rate('dl') <= 16000 * 1.1 && length(all.cuts('ul')) == 0 && all.l.ctl.rate('ul') >= all.before.ul);
	c.ok(`attribution: the cut's reason names the one-way part: ${all.cuts('dl')[0]?.reason}`,
		match(all.cuts('dl')[0]?.reason ?? '', /^delay \+[0-9.]+ ms with dl at [0-9]+ % of its rate, \+[0-9.]+ ms of it one way down$/));
	c.ok(`attribution: two of four reflectors with timestamps suffice (dl ${half.l.ctl.rate('dl')}, ${length(half.cuts('ul'))} ul cuts)`,
		half.l.ctl.rate('dl') <= 16000 * 1.1 && length(half.cuts('ul')) == 0);
	c.ok('attribution: status says which reflectors give one-way delays',
		map(half.l.ctl.status(half.l.now()).reflectors, (r) => r.one_way) + '' == [ true, false, true, false ] + '');

	let junk = dip('ul', () => 'frozen');

	c.ok(`attribution: one-way delays that contradict the RTT are not used (the upload cut to ${junk.l.ctl.rate('ul')})`,
		junk.l.ctl.rate('ul') <= 5000 * 1.1 && length(junk.cuts('ul')) > 0 &&
		length(filter(junk.l.ctl.status(junk.l.now()).reflectors, (r) => r.one_way)) == 0);

	let up = dip('ul', () => true);

	c.ok(`attribution: an upload dip cuts the upload (${up.l.ctl.rate('ul')}) and spares the download (${length(up.cuts('dl'))} cuts)`,
		up.l.ctl.rate('ul') <= 5000 * 1.1 && length(up.cuts('dl')) == 0 && match(up.cuts('ul')[0]?.reason ?? '', /one way up$/));
}

// ---- one-way delays fed by hand (review findings) ------------------------
// one odd reply (a spoofed or corrupt one, a clock step) must not pull
// a one-way baseline down: the next answers still split the delay
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20, 5010, -4990 ]);

	t = feed(ctl, t, [ '192.0.2.1', 20, 5010 - 3600000, -4990 + 3600000 ]);

	for (let i = 0; i < 5; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20, 5010, -4990 ]);

	c.ok('one-way: an odd reply leaves the baselines alone (still one_way)', ctl.status(t).reflectors[0].one_way);

	// its clock stepped for good: new baselines after a few answers
	for (let i = 0; i < R.OWD_MISFITS + 3; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20, 65010, -64990 ]);

	c.ok('one-way: a clock that stepped for good gets new baselines', ctl.status(t).reflectors[0].one_way);
}

// parts that do not add up to the delay (both far below it) are no split:
// such a bloat is nobody's to spare, both loaded directions are cut
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20, 5010, -4990 ], [ '192.0.2.2', 30, 5015, -4985 ]);

	t = feed(ctl, t, [ '192.0.2.1', 60, 5015, -4985 ], [ '192.0.2.2', 70, 5020, -4980 ]);

	let ch = ctl.tick(t, { rx: 20000000, tx: 5000000 });

	c.eq(`one-way: parts far below the delay spare nothing (${join('; ', map(ch, (x) => x.reason))})`,
		sort(map(filter(ch, (x) => x.to < x.from), (x) => x.dir)), [ 'dl', 'ul' ]);
}

// the cut's depth follows the delay charged to the direction: a big
// download bloat beside a small upload one cuts only the download deep
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20, 5010, -4990 ], [ '192.0.2.2', 30, 5015, -4985 ]);

	t = feed(ctl, t, [ '192.0.2.1', 98, 5010, -4990 + 78 ], [ '192.0.2.2', 108, 5015, -4985 + 78 ],
		[ '192.0.2.1', 40, 5010 + 18, -4990 + 2 ]);

	let ch = {};

	for (let x in ctl.tick(t, { rx: 20000000, tx: 5000000 }))
		ch[x.dir] = x;

	c.ok(`one-way: dl cut deep (${ch.dl?.from} -> ${ch.dl?.to}), ul by 10 % (${ch.ul?.from} -> ${ch.ul?.to}: ${ch.ul?.reason})`,
		// +78 ms down: 1 - 78 / DRAIN_SPAN_MS
		ch.dl?.to >= int(ch.dl?.from * A.cut_factor(79)) && ch.dl?.to <= int(ch.dl?.from * A.cut_factor(77)) &&
		ch.ul?.to == int(ch.ul?.from * 0.9) &&
		match(ch.ul?.reason ?? '', /^delay \+(19|20)(\.[0-9])? ms with ul at 100 % of its rate, \+18(\.[0-9])? ms of it one way up$/));
}

// a reflector no longer probed (the scan found another near hop) leaves
// the status a minute later; a shunned one stays while shunned
{
	let ctl = A.create(good, 0), t = 0;

	for (let i = 0; i < 10; i++)
		t = feed(ctl, t, [ '192.0.2.1', 20 ], [ '192.0.2.2', 30 ]);

	for (let i = 0; i < 700; i++) {
		t = feed(ctl, t, [ '192.0.2.2', 30 ]);
		ctl.tick(t, { rx: 0, tx: 0 });
	}

	c.eq('gone: a reflector not probed for a minute is forgotten', map(ctl.status(t).reflectors, (r) => r.target), [ '192.0.2.2' ]);
}

// ---- a reflector that stops answering ----------------------------------
{
	let l = line(good, { cap: (d, t) => (d == 'dl' ? (t < 20000 ? 60000 : 10000) : 20000), load: (d) => d == 'dl',
		silent: (who, t) => who == '192.0.2.2' && t > 5000 });

	l.run(20000);
	let st = l.ctl.status(l.now());
	let r2 = filter(st.reflectors, (r) => r.target == '192.0.2.2')[0];

	c.eq('silent reflector: shunned', r2?.state, 'shunned');
	c.ok(`silent reflector: reason ${r2?.why}`, match(r2?.why ?? '', /5 of its last [0-9]+ probes unanswered/));
	c.ok('silent reflector: the others still used', length(filter(st.reflectors, (r) => r.state == 'used')) == 3);
	c.ok('silent reflector: shunning is a decision', length(filter(st.decisions, (x) => x.target == '192.0.2.2')) == 1);
	c.eq('silent reflector: raising went on', l.ctl.rate('dl'), 40000);

	l.run(5000);
	c.ok(`silent reflector: the drop is still cut (${l.ctl.rate('dl')})`, l.ctl.rate('dl') <= 11000);
}

// ---- the line drops probes (a full buffer's tail, a lossy radio) ---------
// losses that hit every reflector alike are the line's, not a reflector's:
// none is shunned (the lab's outage check saw one go after the WAN came
// back, its buffer refilling); a dead reflector on that line still is
function lossy(p, seed, dead) {
	let x = seed * 7919;
	let rand = () => { x = (x * 16807) % 2147483647; return x / 2147483647.0; };
	let l = line(good, { cap: (d) => (d == 'dl' ? 16000 : 20000), load: (d) => d == 'dl',
		silent: (who, t) => t > 2000 && (who == dead || rand() < p) });

	l.run(30000);

	return map(filter(l.ctl.status(l.now()).reflectors, (r) => r.state != 'used'), (r) => r.target);
}

for (let p in [ 0.1, 0.2, 0.3, 0.4 ]) {
	let runs = 0;

	for (let seed = 1; seed <= 20; seed++)
		if (length(lossy(p, seed)))
			runs++;

	c.eq(`line loss ${p * 100} %, every reflector alike, 20 runs of 30 s: runs that shunned one`, runs, 0);
}

for (let p in [ 0, 0.1, 0.3 ]) {
	let missed = 0;

	for (let seed = 1; seed <= 10; seed++)
		if (lossy(p, seed, '192.0.2.2') + '' != [ '192.0.2.2' ] + '')
			missed++;

	c.eq(`a dead reflector on a line losing ${p * 100} %, 10 runs: runs where it alone was not shunned`, missed, 0);
}

// ---- a reflector that answers late on its own ----------------------------
{
	let l = line(good, { cap: (d) => (d == 'dl' ? 60000 : 20000), load: (d) => d == 'dl',
		late: (who, t) => (who == '192.0.2.4' && t > 3000 && int(t / 800) % 2 == 0) ? 80 : 0 });

	l.run(20000);
	let st = l.ctl.status(l.now());
	let r4 = filter(st.reflectors, (r) => r.target == '192.0.2.4')[0];

	c.eq('late reflector: shunned', r4?.state, 'shunned');
	c.ok(`late reflector: reason ${r4?.why}`, match(r4?.why ?? '', /answered late on its own/));
	c.eq('late reflector: its lateness cut nothing', length(filter(l.out.changes, (x) => x.to < x.from)), 0);
	c.eq('late reflector: raised to max anyway', l.ctl.rate('dl'), 40000);
}

// a queue that comes and goes (the line dips, a cut drains it) is seen by
// every reflector in turn: the last high answers before it drained are
// followed by low ones, which is no reflector's fault (the lab's walk lost
// three of its four reflectors so, for 10 minutes, and with them the
// one-way delays and the second reflector a cut needs)
{
	let ctl = A.create(good, 0), who = keys(REFL);

	for (let t = 0, i = 0; t < 30000; t += 200, i++) {
		let queued = (t % 3000) >= 1000 && (t % 3000) < 1800;

		ctl.probe(who[i % 4], REFL[who[i % 4]] + (queued ? 45 : 0), t, null);
	}

	let st = ctl.status(30000);

	c.eq(`queue that comes and goes: no reflector shunned (${join(', ', map(filter(st.reflectors, (r) => r.state != 'used'), (r) => r.target + ': ' + r.why))})`,
		length(filter(st.reflectors, (r) => r.state != 'used')), 0);
}

// a line whose queue spikes for a moment now and then (new flows' slow
// start after a WAN outage): each spike is short enough to catch one
// probe, so each reflector in turn answers high between low answers of
// the others.  That is the line, seen by all: none is shunned (the lab's
// outage check lost a near hop so, "answered late on its own")
{
	let shunned = [];
	let rf = R.create(15, (t, why, target) => push(shunned, `${target}: ${why}`));
	let N4 = '198.51.100.1', N6 = '2001:db8:100::1', S4 = '203.0.113.10', S6 = '2001:db8:203::10';
	let base = { [N4]: 1, [N6]: 1, [S4]: 20, [S6]: 20 };
	let rd = R.round([ N4, N6 ], [ S4, S6 ], []);

	rf.near([ N4, N6 ]);

	for (let t = 0, i = 0; t < 30000; t += 200, i++) {
		let who = rd[i % length(rd)];

		rf.probe(who, base[who] + ((t % 1500) < 150 ? 60 : 0), t, null);
	}

	c.eq('short spikes of the line, every reflector in turn: none shunned', shunned, []);
}

// a late answer right after a cut (the controller's evidence starts anew:
// clear()) is still judged by the answers before it
{
	let shunned = [];
	let rf = R.create(15, (t, why, target) => push(shunned, target)), who = keys(REFL);

	for (let t = 0, i = 0; t < 20000; t += 200, i++) {
		let late = who[i % 4] == '192.0.2.4' && t > 3000 && i % 8 == 3;

		if (i % 8 == 3)
			rf.clear();

		rf.probe(who[i % 4], REFL[who[i % 4]] + (late ? 80 : 0), t, null);
	}

	c.eq('late reflector right after the evidence starts anew: shunned', shunned, [ '192.0.2.4' ]);
}

// ---- a near hop does not judge the reflectors beyond it -------------------
// a queue beyond the near hop (the lab's upload line): the reflector past
// it answers high while the near hop answers low; that is the path, not
// lateness (the lab's far server was shunned so, and with it its one-way
// delays)
{
	let ctl = A.create(good, 0);

	ctl.near([ '198.51.100.1' ]);

	for (let t = 0; t < 2000; t += 400) {
		ctl.probe('203.0.113.10', 20, t, null);
		ctl.probe('198.51.100.1', 10, t + 200, null);
	}

	for (let t = 2000; t < 20000; t += 400) {
		ctl.probe('203.0.113.10', 20 + 30, t, null);
		ctl.probe('198.51.100.1', 10, t + 200, null);
	}

	let st = ctl.status(20000);

	c.eq(`near hop: the reflector beyond it is not judged by it (${join(', ', map(filter(st.reflectors, (r) => r.state != 'used'), (r) => r.target + ': ' + r.why))})`,
		length(filter(st.reflectors, (r) => r.state != 'used')), 0);
}

// the upload's bottleneck beyond the near hop: still cut, the download not
{
	let l = line(good, { near: [ '192.0.2.1' ], owd: () => true, load: () => true,
		cap: (d, t) => (d == 'ul' && t >= 10000) ? 5000 : ((d == 'dl') ? 60000 : 20000),
		sees: (who, d) => !(who == '192.0.2.1' && d == 'ul') });

	l.run(30000);
	c.ok(`near hop: the upload cut to its line (${l.ctl.rate('ul')})`, l.ctl.rate('ul') <= 5000 * 1.1);
	c.eq('near hop: the download never cut', length(filter(l.out.changes, (x) => x.dir == 'dl' && x.to < x.from)), 0);
}

// a near hop that answers late on its own is still judged by the others
{
	let l = line(good, { near: [ '192.0.2.1' ], cap: (d) => (d == 'dl' ? 60000 : 20000), load: (d) => d == 'dl',
		late: (who, t) => (who == '192.0.2.1' && t > 3000 && int(t / 800) % 2 == 0) ? 80 : 0 });

	l.run(20000);
	c.eq('near hop late on its own: shunned',
		filter(l.ctl.status(l.now()).reflectors, (r) => r.target == '192.0.2.1')[0]?.state, 'shunned');
}

// ---- all reflectors silent: no evidence, no raise ------------------------
{
	let l = line(good, { cap: () => 60000, load: (d) => d == 'dl', silent: () => true });

	l.run(10000);
	c.eq('no answers: no raise without evidence', l.ctl.rate('dl'), 20000);
	c.eq('no answers: status says so', l.ctl.status(l.now()).evidence, false);
}

// ---- the probing round: near hops first, the configured ones the fallback ----
// one-way delays come over IPv4 only, so the families alternate: two IPv6
// probes in a row (RTT only) are two reflectors' bloat with no direction
// in it, and cut both (the lab's walk: the upload cut at 0.86 of its
// maximum in two of three runs with [ n4 n6 n4 S4 n6 n4 n6 S6 ])

function shares(list) {
	let n = {};

	for (let t in list)
		n[t] = (n[t] ?? 0) + 1;

	return map(sort(keys(n)), (t) => [ t, n[t] * 1.0 / length(list) ]);
}

let N4 = '198.51.100.1', N6 = '2001:db8:100::1', S4 = '203.0.113.10', S6 = '2001:db8:203::10';
let rd = R.round([ N4, N6 ], [ S4, S6 ], []);

c.eq('round: near hops 3/8 each, configured 1/8 each', shares(rd), [ [ N4, 0.375 ], [ N6, 0.375 ], [ S6, 0.125 ], [ S4, 0.125 ] ]);
c.ok(`round: the families alternate (${join(' ', rd)})`, length(rd) > 0 &&
	length(filter(rd, (t, i) => (index(t, ':') >= 0) == (index(rd[(i + 1) % length(rd)], ':') >= 0))) == 0);
c.eq('round: one near hop -> every reflector the same share', shares(R.round([ N4 ], [ S4, S6 ], [])),
	[ [ N4, 1.0 / 3 ], [ S6, 1.0 / 3 ], [ S4, 1.0 / 3 ] ]);
c.eq('round: a shunned near hop leaves one -> the same share', shares(R.round([ N4, N6 ], [ S4, S6 ], [ N6 ])),
	[ [ N4, 1.0 / 3 ], [ S6, 1.0 / 3 ], [ S4, 1.0 / 3 ] ]);
c.eq('round: all shunned -> all probed', shares(R.round([ N4 ], [ S4 ], [ N4, S4 ])), [ [ N4, 0.5 ], [ S4, 0.5 ] ]);
c.eq('round: no near hops -> the configured ones in their order', R.round([], [ S4, S6, '192.0.2.1' ], []),
	[ S4, S6, '192.0.2.1' ]);
c.eq('round: three near hops over one family, one configured: 1 in 4', shares(R.round([ N4, '198.51.100.9', '198.51.100.17' ], [ S4 ], [])),
	[ [ N4, 0.25 ], [ '198.51.100.17', 0.25 ], [ '198.51.100.9', 0.25 ], [ S4, 0.25 ] ]);

c.done();
