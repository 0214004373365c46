// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping's reflectors (reterm.latency.autorate.controller reads them): each
// probe's delay above its reflector's own baseline, split into one-way
// parts where the prober gave them, and which reflectors can be trusted.
// Pure, like the controller: probes and the clock in, no I/O.
//
// A delta is a probe's RTT minus its reflector's own baseline (slowly
// rising, quickly falling minimum), so reflectors at any distance count
// alike.  Where the prober split the round trip into one-way delays (ICMP
// timestamps: up and down, each with the clocks' offset in it), each
// gets its own baseline too, and the parts (dir: { dl, ul }) say which
// direction a delay is in.  Parts that do not fit in the RTT's delta
// (fits(): the reflector's clock is not one) give no split and do not
// move the one-way baselines, so one odd reply (corrupt, spoofed, a clock
// step) cannot pull them down; OWD_MISFITS in a row start them anew.
//
// Reflectors are judged as they answer:
//   lost     LOST_OF of its last HEALTH_N probes lost while the others
//            answered, and more of them lost than the line explains:
//            not used for SHUN_MS, then tried again.  A loss counts
//            against its reflector only when the probe sent to another
//            reflector just before it (within LOSS_SPAN_MS) was
//            answered; it is judged once every probe sent before it has
//            reported (SETTLE_MS later: the prober's timeout is shorter).
//            Reflectors silent all at once (a WAN outage, an ICMP loss
//            burst) are the line, not theirs: within such a silence
//            only its first loss has an answered neighbour.  A line that
//            drops probes now and then (a full buffer's tail, a lossy
//            radio) loses some of every reflector's: its losses must be
//            unlikely (at most LINE_P) at the loss rate the other
//            reflectors in use saw over the same probes' time.  The last
//            reflector in use is never shunned for losses
//   erratic  ERRATIC_OF times in STRIKE_MS a delta above delay_ms that
//            the other reflectors' answers contradict: low ones (at most
//            delay_ms / 3) within JUDGE_MS before and after it, and no
//            other high one in between (it answers late on its own, e.g.
//            ICMP rate limiting), while no other reflector answered high
//            since JUDGE_MS before its first strike: not used for
//            SHUN_MS.  A queue that comes and goes is seen by every
//            reflector in turn, so its last high answers followed by low
//            ones are no strike, and the line's short spikes (one probe
//            each) strike every reflector in turn, none alone.  A
//            near hop (near()) contradicts only other near hops: the
//            queue may lie beyond it.  A bloat needs two reflectors
//            anyway, so one late reflector never cuts alone
// A reflector not probed for GONE_MS (after its shun, if shunned) is
// forgotten; while it is probed its baselines are kept however long it
// stays silent (KEEP: a WAN outage must not make the first answers after
// it, the line's queue refilling, the new baseline).  The newest WINDOW
// deltas of healthy reflectors are kept for the controller:
// [ { t, target, delta, dir: { dl, ul } | null } ].

'use strict';

import * as stats from 'reterm.latency.stats';

export const WINDOW = 6, OWD_TOL_MS = 5, OWD_MISFITS = 5;
export const HEALTH_N = 10, LOST_OF = 5, SHUN_MS = 600000, GONE_MS = 60000;
export const FALLBACK_EVERY = 4;
export const JUDGE_MS = 1000, ERRATIC_OF = 4, STRIKE_MS = 20000;
export const LOSS_SPAN_MS = 2000, SETTLE_MS = 3000, LINE_P = 0.0001;

// At most this many configured reflectors (reterm.latency.settings
// refuses the rest): at the idle probe rate (one a second), while near
// hops leave the configured ones one probe in FALLBACK_EVERY, each of 12
// is still probed every 48 s, before GONE_MS forgets its baseline; and a
// round stays short (its building is quadratic in the targets)
export const MAX_REFLECTORS = 12;
const DAY_MS = 86400000, KEEP = { reset_ms: DAY_MS };

// one-way parts of a delay: each within the whole of it, and together
// most of it (their baselines' sum is at most the RTT's)
function fits(dir, delta) {
	return dir.ul >= -OWD_TOL_MS && dir.dl >= -OWD_TOL_MS && dir.ul <= delta + OWD_TOL_MS &&
		dir.dl <= delta + OWD_TOL_MS && dir.ul + dir.dl >= delta - max(OWD_TOL_MS, delta / 2);
};

// a smooth weighted round robin over [ [ key, weight ], ... ]: each call
// the next key; in every run of sum(weights) calls each key comes up
// weight times, spread out (ties: the first listed)
function picker(ws) {
	let total = 0, cw = map(ws, () => 0);

	for (let x in ws)
		total += x[1];

	return function() {
		let best = 0;

		for (let i = 0; i < length(ws); i++) {
			cw[i] += ws[i][1];

			if (cw[i] > cw[best])
				best = i;
		}

		cw[best] -= total;

		return ws[best][0];
	};
}

function gcd(a, b) {
	return b ? gcd(b, a % b) : a;
}

// The probing round, one turn of the prober's round robin over near hops
// (the scan's) and the configured reflectors, without the ones shunned
// (off; all of them if that leaves none).  While two near hops or more
// are in use the configured ones (anycast DNS by default) are the
// fallback: together one probe in FALLBACK_EVERY, the near hops share
// the rest.  With one near hop they are the second opinion a cut wants:
// every reflector the same share.  Each target is spread over the round
// and the families alternate as far as their shares allow: one-way
// delays (ICMP timestamps) come over IPv4 only, and IPv6 probes in a row
// from two reflectors are a bloat that names no direction.  Only the
// first MAX_REFLECTORS configured ones, whoever passes more.
export function round(near, configured, off) {
	let conf = filter(slice(configured, 0, MAX_REFLECTORS), (t) => index(near, t) < 0);
	let on = (list) => filter(list, (t) => index(off ?? [], t) < 0);
	let n = on(near), c = on(conf);

	if (!length(n) && !length(c)) {
		n = near;
		c = conf;
	}

	let fallback = length(n) >= 2 && length(c) > 0, all = [ ...n, ...c ], w = {}, g = 0, total = 0;

	for (let t in all) {
		w[t] = !fallback ? 1 : (index(n, t) >= 0) ? (FALLBACK_EVERY - 1) * length(c) : length(n);
		g = gcd(w[t], g);
	}

	let fams = [], in_fam = {};

	for (let f in [ 4, 6 ]) {
		let ts = filter(all, (t) => (index(t, ':') >= 0) == (f == 6)), sum = 0;

		for (let t in ts)
			sum += w[t] / g;

		if (length(ts)) {
			push(fams, [ f, sum ]);
			in_fam[f] = picker(map(ts, (t) => [ t, w[t] / g ]));
			total += sum;
		}
	}

	let fam = picker(fams), out = [];

	for (let i = 0; i < total; i++)
		push(out, in_fam[fam()]());

	return out;
};

function isnum(v) {
	return type(v) == 'int' || type(v) == 'double';
}

export function count(list, f) {
	let n = 0;

	for (let x in list)
		if (f(x))
			n++;

	return n;
};

// delay_ms: the delay that counts as high; note(t, why, target): a
// reflector was shunned (the controller keeps it as a decision)
export function create(delay_ms, note) {
	let refl = {};		// target -> { base, ow: { dl, ul, misfits } | null, hist: [ { w: 'a' | 'x' | 'l', t } ], shunned_until, why, last }
	let window = [];	// newest last
	let results = [];	// { t, target, ok } sent in the last SETTLE_MS + LOSS_SPAN_MS (the losses' neighbours)
	let pending = [];	// { t, target } losses not judged yet
	let newest = null;	// the latest send time of a result
	let seen = [];		// { t, target, delta } of the last 2 x JUDGE_MS, for judge() (clear() keeps it)
	let highs = [];		// { t, target } of the high answers of the last STRIKE_MS + JUDGE_MS
	let last_answer = null;
	let near_hops = {};	// target -> true: found by the near-hop scan

	function healthy(target, t) {
		let r = refl[target];

		return r == null || r.shunned_until == null || t >= r.shunned_until;
	}

	function shun(target, t, why) {
		let r = refl[target];

		r.shunned_until = t + SHUN_MS;
		r.why = why;
		r.hist = [];
		r.base.reset();
		r.ow = null;
		window = filter(window, (w) => w.target != target);
		seen = filter(seen, (w) => w.target != target);
		highs = filter(highs, (w) => w.target != target);
		pending = filter(pending, (w) => w.target != target);
		note(t, sprintf('reflector %s not used for %d min: %s', target, SHUN_MS / 60000, why), target);
	}

	// a low answer judges the other reflectors' high ones of the last
	// JUDGE_MS: one that had low answers of others before it (within
	// JUDGE_MS) and no other high one since them is a strike.  A near
	// hop's low answers judge only near hops
	function judge(target, delta, t) {
		seen = filter(seen, (x) => t - x.t <= 2 * JUDGE_MS);
		push(seen, { t, target, delta });
		highs = filter(highs, (x) => t - x.t <= STRIKE_MS + JUDGE_MS);

		if (delta > delay_ms)
			push(highs, { t, target });

		if (delta > delay_ms / 3)
			return null;

		let judges = (x, of) => x.target != of && x.delta <= delay_ms / 3 && (!near_hops[x.target] || near_hops[of]);

		for (let w in seen) {
			if (w.judged || w.target == target || w.delta <= delay_ms || t - w.t > JUDGE_MS ||
			    (near_hops[target] && !near_hops[w.target]))
				continue;

			// the others' answers around it: low before, none high
			let around = filter(seen, (x) => x.target != w.target && x.t >= w.t - JUDGE_MS);

			if (!length(filter(around, (x) => x.t < w.t && judges(x, w.target))) ||
			    length(filter(around, (x) => x.delta > delay_ms)))
				continue;

			w.judged = true;

			let r = refl[w.target];

			r.strikes = filter([ ...(r.strikes ?? []), t ], (x) => t - x <= STRIKE_MS);

			// and the others never high meanwhile: the line's short
			// spikes catch one probe each, every reflector's in turn
			let since = r.strikes[0] - JUDGE_MS;

			if (length(r.strikes) >= ERRATIC_OF && !length(filter(highs, (x) => x.target != w.target && x.t >= since)))
				return w.target;
		}

		return null;
	}

	// a judged probe of target (sent at t): 'a' answered, 'x' lost while
	// the others answered, 'l' lost with the others (the line)
	function record(target, what, t) {
		let r = refl[target];

		push(r.hist, { w: what, t });

		if (length(r.hist) > HEALTH_N)
			shift(r.hist);
	}

	// the share of their probes sent from since to until that the other
	// reflectors in use lost (t: mono now; a probe lost and one answered
	// counted in: a few probes say little).  A loss is in hist SETTLE_MS
	// after an answer would be: until is a loss's time, judged by now
	function line_loss(target, since, until, t) {
		let lost = 1, all = 2;

		for (let x, r in refl)
			if (x != target && healthy(x, t))
				for (let h in r.hist)
					if (h.t >= since && h.t <= until) {
						all++;
						lost += (h.w != 'a');
					}

		return lost / (1.0 * all);
	}

	// another reflector in use besides target (t: mono now)
	function others_in_use(target, t) {
		for (let x in refl)
			if (x != target && healthy(x, t))
				return true;

		return false;
	}

	// a probe's result (t: sent); the losses all probes before which
	// have reported are judged: against their reflector when the probe
	// to another one just before was answered
	function result(target, t, ok) {
		newest = max(newest ?? t, t);
		push(results, { t, target, ok });

		if (!ok)
			push(pending, { t, target });

		let due = filter(pending, (l) => newest - l.t >= SETTLE_MS);

		pending = filter(pending, (l) => newest - l.t < SETTLE_MS);

		for (let l in due) {
			let r = refl[l.target], prev = null;

			if (r == null || !healthy(l.target, newest))
				continue;

			for (let x in results)
				if (x.target != l.target && x.t < l.t && (prev == null || x.t > prev.t))
					prev = x;

			record(l.target, (prev?.ok && l.t - prev.t <= LOSS_SPAN_MS) ? 'x' : 'l', l.t);

			if (count(r.hist, (x) => x.w == 'x') < LOST_OF || !others_in_use(l.target, l.t))
				continue;

			let lost = count(r.hist, (x) => x.w != 'a'), p = line_loss(l.target, r.hist[0].t, l.t, newest);

			if (stats.tail(length(r.hist), lost, p) <= LINE_P)
				shun(l.target, newest, sprintf('%d of its last %d probes unanswered while the others lost %d %%',
					lost, length(r.hist), int(p * 100 + 0.5)));
		}

		// the neighbours the next losses due may need
		results = filter(results, (x) => newest - x.t <= SETTLE_MS + LOSS_SPAN_MS);
	}

	// the one-way parts of an answer's delta, or null
	function split(r, delta, owd, t) {
		// the offset may make them negative; the baselines take
		// numbers >= 0 (a day is more than any offset: +-12 h)
		let up = owd.up + DAY_MS, down = owd.down + DAY_MS;

		r.ow ??= { ul: stats.baseline(KEEP), dl: stats.baseline(KEEP), misfits: 0 };

		// judged before the sample moves the baselines
		if (r.ow.ul.value() != null && !fits({ ul: up - r.ow.ul.value(), dl: down - r.ow.dl.value() }, delta)) {
			if (++r.ow.misfits >= OWD_MISFITS)
				r.ow = null;

			return null;
		}

		let dir = { ul: up - r.ow.ul.update(up, t), dl: down - r.ow.dl.update(down, t) };

		r.ow.misfits = 0;

		return fits(dir, delta) ? dir : null;
	}

	return {
		// one probe result: rtt in ms, or null when it was not answered
		// (t: mono ms it was sent); owd: { up, down } (ms, offsets in
		// them) or null.  Returns its delta (null: none, or not used)
		probe: function(target, rtt, t, owd) {
			if (!healthy(target, t))
				return;

			let r = refl[target];

			if (r == null || r.shunned_until != null)
				r = refl[target] = { base: stats.baseline(KEEP), hist: [], shunned_until: null, why: null };

			r.last = t;

			let delta = null, dir = null;

			if (rtt != null) {
				delta = rtt - r.base.update(rtt, t);
				last_answer = t;
			}

			if (delta != null && isnum(owd?.up) && isnum(owd?.down))
				dir = split(r, delta, owd, t);

			if (delta != null) {
				r.one_way = dir != null;	// its last answer split the delay
				record(target, 'a', t);
			}

			result(target, t, delta != null);

			if (delta == null || !healthy(target, t))
				return null;

			let odd = judge(target, delta, t);

			if (odd != null)
				shun(odd, t, sprintf('answered late on its own %d times', ERRATIC_OF));

			push(window, { t, target, delta, dir });

			if (length(window) > WINDOW)
				shift(window);

			return delta;
		},

		// the deltas of the last ms (all kept ones without ms)
		recent: (t, ms) => filter(window, (w) => ms == null || t - w.t <= ms),

		// the next cut needs fresh evidence
		clear: function() {
			window = [];
		},

		last_answer: () => last_answer,

		// the reflectors that are near hops (the scan's; the others are
		// taken to lie beyond them)
		near: function(list) {
			near_hops = {};

			for (let a in list ?? [])
				near_hops[a] = true;
		},

		// forget the ones no longer probed (a near hop the scan replaced)
		prune: function(t) {
			for (let target, r in refl)
				if (t - (r.shunned_until ?? r.last) > GONE_MS)
					delete refl[target];
		},

		// the targets not used now (t: mono now), sorted: the prober
		// leaves them alone until their shun ends
		shunned: function(t) {
			let out = [];

			for (let target, r in refl)
				if (!healthy(target, t))
					push(out, target);

			return sort(out);
		},

		// for autorate_status (t: mono now)
		status: function(t) {
			let rl = [];

			for (let target, r in refl) {
				let off = r.shunned_until != null && t < r.shunned_until;

				push(rl, { target, state: off ? 'shunned' : 'used', why: off ? r.why : null,
					baseline_ms: stats.round1(r.base.value()), one_way: r.one_way == true,
					answered: count(r.hist, (x) => x.w == 'a'), probes: length(r.hist) });
			}

			return rl;
		}
	};
};
