// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping when the reflectors fall silent (issue 30 item 2), in
// the sampler service on a simulated clock: a line cut to its minimum,
// then an ICMP loss burst under load, a WAN outage, and a partial loss
// on every reflector.  What the spec promises (docs/adaptive-shaping.md):
// without any answer the rates go back to their base within seconds;
// reflectors that fall silent all at once are the line, not theirs, so
// none is shunned; once answers come back they are used within seconds.

'use strict';

import { checker } from 'sim';
import { config, world } from 'autorate_world';

let c = checker('latency/autorate-blind');
let cf = config();

// "within seconds": the docs' 2 s without an answer, and the 200 ms tick
// that sees it, with a second to spare
const WITHIN_MS = 3000;
const BASE = { ifb4eth1: 18000, eth1: 4500 }, MIN = { ifb4eth1: 4000, eth1: 1000 };

let good = cf.settings("config autorate 'eth1'\n\toption enabled '1'\n\toption dl_min '4000'\n\toption dl_base '18000'\n" +
	"\toption dl_max '30000'\n\toption ul_min '1000'\n\toption ul_base '4500'\n\toption ul_max '6000'\n");

function rates(w) {
	return { ifb4eth1: w.bw.ifb4eth1, eth1: w.bw.eth1 };
}

function same(a, b) {
	return sprintf('%J', a) == sprintf('%J', b);
}

// a world loaded in both directions at whatever CAKE passes (`on`:
// the WAN carries it), its line bloated (+80 ms) until both directions
// are cut to their minimum
function cut_to_min() {
	let w = world(good), on = true, pump = null;

	pump = w.s.timer(0, function() {
		w.rate.rx = on ? w.bw.ifb4eth1 * 1000 : 0;
		w.rate.tx = on ? w.bw.eth1 * 1000 : 0;
		pump.set(200);
	});

	w.s.advance(5000);
	w.set_rtt(80);
	w.s.advance(30000);

	return { w, carry: (v) => (on = v) };
}

// advance in 200 ms steps until cond() holds, at most ms; the ms it took
// (null: never)
function until(w, ms, cond) {
	for (let t = 0; t <= ms; t += 200) {
		if (cond())
			return t;

		w.s.advance(200);
	}

	return null;
}

// a cut of the download decided at or after wall second since
function cut_since(w, since) {
	return length(filter(w.svc.methods.autorate_status({}).decisions, (d) =>
		d.kind == 'cut' && d.dir == 'dl' && d.time >= since)) > 0;
}

function shunned(w) {
	return map(filter(w.svc.methods.autorate_status({}).reflectors, (r) => r.state != 'used'), (r) => r.target);
}

// silent: every reflector silent for ms (carry: the WAN carries the
// load meanwhile); then answers again, still +80 ms (the line still
// bloats at the base rate)
function blind(name, ms, carry) {
	let x = cut_to_min(), w = x.w;

	c.ok(`${name}: before, the line is cut to its minimum (${sprintf('%J', rates(w))})`, same(rates(w), MIN));

	w.set_silent('*', true);
	x.carry(carry);

	let back = until(w, WITHIN_MS, () => same(rates(w), BASE));

	c.ok(`${name}: no answer -> both directions at their base within ${WITHIN_MS} ms (after ${back} ms: ${sprintf('%J', rates(w))})`,
		back != null);

	let n = length(w.changes);

	w.s.advance(ms - (back ?? WITHIN_MS));
	c.ok(`${name}: held at the base while silent (${sprintf('%J', rates(w))}, ${length(w.changes) - n} changes)`,
		same(rates(w), BASE) && length(w.changes) == n);
	c.eq(`${name}: silent all at once: no reflector shunned`, shunned(w), []);
	c.eq(`${name}: every reflector still probed`, sort(uniq(w.env.prober.targets)), [ '192.0.2.1', '192.0.2.2' ]);

	w.set_silent('*', false);
	x.carry(true);

	let since = int(w.env.clock.wall() / 1000), cut = until(w, WITHIN_MS, () => cut_since(w, since));
	let st = w.svc.methods.autorate_status({});

	c.ok(`${name}: answers again -> used: the bloat cut within ${WITHIN_MS} ms (after ${cut} ms: dl ${w.bw.ifb4eth1})`,
		cut != null);
	c.ok(`${name}: answers again -> evidence, every reflector used`, st.evidence &&
		length(filter(st.reflectors, (r) => r.state == 'used')) == 2);
	c.ok(`${name}: the return to base is a decision with its reason`, length(filter(st.decisions, (d) =>
		d.kind == 'blind' && d.to == 18000 && match(d.reason, /no answer/))) >= 1);
	w.svc.shutdown();
}

// an ICMP loss burst: the WAN carries the load, no probe is answered
blind('ICMP loss burst', 30000, true);

// a WAN outage: nothing is carried, nothing answers, for a minute
blind('WAN outage of 60 s', 60000, false);

// ---- a partial loss on every reflector: the line's, not theirs ------------
// about 6 probes in 10 lost, on every reflector alike, for 30 s under
// load: the reflectors are not to blame, at least one stays in use
{
	let x = cut_to_min(), w = x.w, seed = 7;

	w.set_rtt(0);
	w.set_lossy(function() {
		seed = (seed * 1103515245 + 12345) % 2147483648;

		return seed % 10 < 6;
	});
	w.s.advance(30000);

	let off = shunned(w);

	c.ok(`partial loss on every reflector: not all shunned (${join(' ', off)})`, length(off) < 2);

	w.set_lossy(null);
	w.set_rtt(80);

	let since = int(w.env.clock.wall() / 1000), cut = until(w, WITHIN_MS, () => cut_since(w, since));

	c.ok(`partial loss on every reflector: after it, a bloat is cut within ${WITHIN_MS} ms (${cut})`, cut != null);
	w.svc.shutdown();
}

cf.remove();
c.done();
