// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping: the controller that moves CAKE's bandwidth with the
// line (reterm.latency.autorate.shaper applies what it decides).  Pure: probe
// results, WAN rates and the clock in, decisions out; no I/O, so the
// tests drive it on a simulated clock.
//
// Per direction (dl = download, the IFB's CAKE; ul = upload, the WAN's):
//   cut    the recent probes show bloat (BLOAT_OF of the last WINDOW
//          deltas above delay_ms, from two reflectors when two are in
//          use, or one answer whose one-way delays put SOLO_OF x
//          delay_ms in this direction: a reflector slow to answer shows
//          its delay in neither part, so that is the path's queue) and
//          the direction carries at least CUT_SHARE of its rate:
//          rate = max(min, min(rate, line) * f), f = 1 - worst /
//          DRAIN_SPAN_MS with the worst delay charged to it (at most
//          ODD_OF x the second worst: one answer held up on its own does
//          not set the depth), kept within DRAIN_FACTOR..CUT_FACTOR: the
//          queue behind that delay drains in about DRAIN_SPAN_MS at what
//          the line delivers (a small overshoot costs a small cut, a
//          standing queue still drains in a fraction of a second, not
//          ten); line = the lower of the achieved rate and the newest
//          reading's (the window still holds the line before it fell);
//          no second cut while the queue drains, that is within DRAIN_MS
//          + 3 x the cut's delay while the line delivers more than our
//          rate (a download shaper sits behind the line; its output while
//          the queue holds is the line's capacity: the edge) or the delay
//          stays below DRAIN_GROW x the cut's, unless a probe came back
//          low since the cut (below CALM_SHARE x delay_ms in this
//          direction: the queue is gone, a new bloat is the line falling
//          again, judged on the answers after the low one); then no other
//          cut for CUT_HOLD_MS unless the cut fell short (the line
//          delivers less than the new rate and the delay grew to
//          SHORT_GROW x the cut's), no raise for RAISE_HOLD_MS
//          (DRAINED_HOLD_MS once the queue drained), and the delta window
//          starts again (a cut needs fresh evidence)
//   raise  the direction carries at least RAISE_SHARE of its rate and
//          at most RAISE_SPIKES delta since the queue drained is above
//          delay_ms (CAKE's own queue and the probes' jitter keep a few
//          ms anyway: the rate climbs until the delay reaches the
//          threshold): rate = min(max, rate * RAISE_FACTOR) once a tick
//          while the line delivers at least FAST_SHARE of it (the shaper
//          limits), NEAR_FACTOR below that (the line may be the limit: a
//          rate far above it only makes the next bloat bigger); within
//          NEAR_SHARE of the rate the last bloat came at NEAR_FACTOR
//          (probe the edge gently), while calm CALM_NEAR_FACTOR, the step
//          doubling each CALM_DOUBLE_MS the calm lasts, up to
//          RAISE_FACTOR: calm = the line delivers at least CALM_LOAD of
//          our rate (it limits nothing) and at most CALM_SPIKES delta in
//          this direction since the drain is above CALM_SHARE x delay_ms
//          plus CALM_MTUS packets' time at our rate (CAKE holds a probe
//          behind the packets it is sending: 3 ms each at 4 Mbit/s): no
//          queue forming, it may have risen
//   decay  the direction carries less than IDLE_SHARE: the rate moves
//          DECAY of the way to base each tick
//   blind  no probe answered for STALE_MS (a WAN outage, an ICMP loss
//          burst): what the line does is unknown, so both directions go
//          back to base at once and stay there until answers come back
//   hold   anything else
//
// A delta is a probe's delay above its reflector's baseline, split into
// one-way parts where ICMP timestamps gave them (reterm.latency.autorate.reflectors,
// which also judges the reflectors); the parts say which direction a
// delay is in:
//   spared   the bloat's probes that carry one-way delays all show less
//            than ATTRIB_SHARE of their delay in this direction: it is
//            the other direction's queue, this one is not cut (and may
//            still be raised when its own probes stay low).  Probes
//            without them (IPv6, echo-only reflectors) count for both
//            directions.
// Decisions and their reasons are kept (the last KEEP_DECISIONS).

'use strict';

import * as stats from 'reterm.latency.stats';
import * as reflectors from 'reterm.latency.autorate.reflectors';
import { matches } from 'reterm.validate';

export const BLOAT_OF = 2, STALE_MS = 2000, WINDOW_MS = 2000;
export const CUT_SHARE = 0.15, CUT_FACTOR = 0.9, DRAIN_FACTOR = 0.5, DRAIN_SPAN_MS = 250,
	DRAIN_MS = 3000, DRAIN_GROW = 1.25, CUT_HOLD_MS = 800, RAISE_HOLD_MS = 1500, SHORT_GROW = 2, ODD_OF = 2,
	SOLO_OF = 2;
export const RAISE_SHARE = 0.75, FAST_SHARE = 0.85, RAISE_SPIKES = 1, RAISE_FACTOR = 1.04, NEAR_FACTOR = 1.005, NEAR_SHARE = 0.9;
export const CALM_SHARE = 0.5, CALM_LOAD = 0.9, CALM_NEAR_FACTOR = 1.01, CALM_DOUBLE_MS = 1000, DRAINED_HOLD_MS = 800,
	CALM_SPIKES = 1, CALM_MTUS = 2, MTU_BITS = 1514 * 8;
export const IDLE_SHARE = 0.3, DECAY = 0.02;
export const ATTRIB_SHARE = 0.33, KEEP_DECISIONS = 20;

// bounds of the settings (kbit/s and ms)
export const MIN_KBIT = 64, MAX_KBIT = 10000000, MIN_DELAY_MS = 5, MAX_DELAY_MS = 200;
export const DIRS = [ 'dl', 'ul' ];

// the depth of a cut (see the top): 1 - worst / DRAIN_SPAN_MS, between
// DRAIN_FACTOR and CUT_FACTOR
export function cut_factor(worst) {
	return max(DRAIN_FACTOR, min(CUT_FACTOR, 1 - worst / (1.0 * DRAIN_SPAN_MS)));
};

function kind(why) {
	return (index(why, 'delay') == 0) ? 'cut' : (index(why, 'no answer') == 0) ? 'blind' :
		(index(why, 'idle') > 0) ? 'decay' : 'raise';
}

function whole(v) {
	if (type(v) == 'int')
		return v;

	if (matches(v, /^[0-9]{1,9}$/))
		return +v;

	return null;
}

// Settings as uci holds them (strings) or as ubus passes them (numbers):
//   { dl_min, dl_base, dl_max, ul_min, ul_base, ul_max } kbit/s,
//   delay_ms (added delay that counts as bloat; default 15)
// -> { settings } or { error: 'invalid_settings', message } naming the
// first bad value; nothing is half taken.
export function check_settings(s) {
	if (type(s) != 'object')
		return { error: 'invalid_settings', message: 'autorate settings must be an object' };

	let out = { delay_ms: 15 };

	for (let d in DIRS) {
		for (let k in [ 'min', 'base', 'max' ]) {
			let name = `${d}_${k}`, v = whole(s[name]);

			if (v == null)
				return { error: 'invalid_settings', message: sprintf('%s must be a whole number of kbit/s', name) };

			if (v < MIN_KBIT || v > MAX_KBIT)
				return { error: 'invalid_settings',
					message: sprintf('%s %d kbit/s is outside %d..%d', name, v, MIN_KBIT, MAX_KBIT) };

			out[name] = v;
		}

		if (out[`${d}_min`] > out[`${d}_base`] || out[`${d}_base`] > out[`${d}_max`])
			return { error: 'invalid_settings',
				message: sprintf('%s: minimum %d <= base %d <= maximum %d kbit/s does not hold', d,
					out[`${d}_min`], out[`${d}_base`], out[`${d}_max`]) };
	}

	if (s.delay_ms != null) {
		let v = whole(s.delay_ms);

		if (v == null || v < MIN_DELAY_MS || v > MAX_DELAY_MS)
			return { error: 'invalid_settings',
				message: sprintf('delay_ms must be %d..%d', MIN_DELAY_MS, MAX_DELAY_MS) };

		out.delay_ms = v;
	}

	return { settings: out };
};

// set: check_settings(...).settings; now: mono ms
export function create(set, now) {
	let dirs = {};
	let decisions = [];

	for (let d in DIRS)
		dirs[d] = { rate: set[`${d}_base`], last_cut: null, bloat_rate: null, achieved: null, share: null };

	function note(t, d, from, to, why, extra) {
		push(decisions, { t, dir: d, from, to, reason: why, ...(extra ?? {}) });

		if (length(decisions) > KEEP_DECISIONS)
			splice(decisions, 0, length(decisions) - KEEP_DECISIONS);
	}

	let refl = reflectors.create(set.delay_ms, (t, why, target) => note(t, null, null, null, why, { target }));
	let count = reflectors.count;

	// recent: the answers of the last WINDOW_MS; since: only answers
	// sent after it (mono ms) count
	function bloat(recent, since) {
		if (since != null)
			recent = filter(recent, (w) => w.t > since);

		let high = filter(recent, (w) => w.delta > set.delay_ms);
		let who = {}, n_who = 0, live = {}, n_live = 0;

		for (let w in high)
			if (!who[w.target]) {
				who[w.target] = true;
				n_who++;
			}

		for (let w in recent)
			if (!live[w.target]) {
				live[w.target] = true;
				n_live++;
			}

		return length(high) >= BLOAT_OF && n_who >= min(2, n_live) ? high : null;
	}

	// the part of a probe's delay that lies in direction d (all of it
	// without one-way delays)
	function part(w, d) {
		return (w.dir != null) ? w.dir[d] : w.delta;
	}

	// a delay above delay_ms that counts against direction d
	function charged(w, d) {
		return w.delta > set.delay_ms && (w.dir == null || w.dir[d] >= ATTRIB_SHARE * w.delta);
	}

	// the bloat's one-way delays put it all in the other direction
	function spared(high, d) {
		let ow = filter(high ?? [], (w) => w.dir != null);

		return length(ow) > 0 && count(ow, (w) => charged(w, d)) == 0;
	}

	return {
		// one probe result (reterm.latency.autorate.reflectors' probe()); returns
		// its delta: above delay_ms, tick(now, rates, true) may cut now
		probe: (target, rtt, t, owd) => refl.probe(target, rtt, t, owd),

		// one controller step: rates achieved over the last interval in
		// bit/s { rx, tx } (rx = download), optionally now: { rx, tx } over
		// the newest reading only (a cut starts from it where it is
		// lower); react: between the counters' ticks (an answer above the
		// threshold came), only cuts are decided; returns the changes
		// [ { dir, from, to, reason } ] (kbit/s) to apply
		tick: function(t, achieved, react) {
			refl.prune(t);

			let changes = [];
			let last_answer = refl.last_answer();
			let stale = last_answer == null || t - last_answer > STALE_MS;
			// the answers kept, and those of the last WINDOW_MS (no
			// probe comes in during a tick)
			let kept = refl.recent(t, null), win = refl.recent(t, WINDOW_MS);
			let all_high = stale ? null : bloat(win);
			let cut_any = false;

			for (let d in DIRS) {
				let s = dirs[d], key = (d == 'dl') ? 'rx' : 'tx', bps = achieved?.[key];
				let kbit = (bps != null) ? bps / 1000.0 : null;
				let now_kbit = (achieved?.now?.[key] != null) ? achieved.now[key] / 1000.0 : null;
				let share = (kbit != null) ? kbit / s.rate : null;
				let lo = set[`${d}_min`], hi = set[`${d}_max`], base = set[`${d}_base`];
				let to = s.rate, why = null;

				s.achieved = kbit;
				s.share = share;

				if (share == null && !stale)
					continue;

				// a low answer since the last cut: its queue is gone (its
				// time kept), only what came after it is a new bloat
				if (s.last_cut != null && s.drained == null)
					s.drained = filter(kept, (w) => w.t > s.last_cut &&
						part(w, d) < CALM_SHARE * set.delay_ms)[0]?.t;

				let high = (s.drained != null && all_high != null) ? bloat(win, s.drained) : all_high;

				// one answer whose one-way delays put SOLO_OF x delay_ms
				// in this direction is a bloat on its own (a reflector slow
				// to answer shows its delay in neither part)
				if (!high && !stale) {
					let solo = filter(win, (w) => (s.drained == null || w.t > s.drained) &&
						w.dir != null && w.delta > set.delay_ms && w.dir[d] > SOLO_OF * set.delay_ms);

					high = length(solo) ? solo : null;
				}
				let spare = spared(high, d);
				let calm_raise = false;
				// what the climb looks at: the recent answers, since the
				// drain (the ones before it were the old queue's)
				let fresh = (s.drained == null) ? win : filter(win, (w) => w.t >= s.drained);

				if (stale) {
					// blind: base is what sqm would hold without us
					to = base;
					why = sprintf('no answer from any reflector for %d s: %s back to base', STALE_MS / 1000, d);
				}
				else if (high && share >= CUT_SHARE && !spare) {
					// the worst delay that counts against this direction,
					// as the worst two answers agree on it (one held up on
					// its own does not set the depth)
					let mine = filter(high, (w) => charged(w, d));
					let deltas = sort(map(mine, (w) => w.delta), (a, b) => b - a);
					let worst = stats.round1((length(deltas) > 1) ? min(deltas[0], ODD_OF * deltas[1]) : deltas[0]);
					// the line's newest reading, where it is below the
					// window's (the window still holds it before it fell)
					let line = (now_kbit != null) ? min(kbit, now_kbit) : kbit;
					// a queue still draining from the last cut is no
					// reason for another one (see the top); the senders
					// slow down a round trip later, a long one with the
					// line's buffer full
					let recent = s.last_cut != null && s.drained == null && t - s.last_cut < DRAIN_MS + 3 * s.cut_delay;
					let behind = recent && s.rate < kbit;
					let draining = behind || (recent && worst < DRAIN_GROW * s.cut_delay);

					if (behind)
						s.bloat_rate = min(s.bloat_rate ?? kbit, kbit);

					// a cut that fell short: the rate still above what the
					// line delivers and its queue grown to SHORT_GROW x
					let short = s.last_cut != null && line < s.rate && worst >= SHORT_GROW * s.cut_delay;

					if ((s.last_cut == null || t - s.last_cut >= CUT_HOLD_MS || short) && !draining) {
						let f = cut_factor(worst);

						to = max(lo, int(min(s.rate, line) * f));
						s.bloat_rate = min(s.rate, line);
						s.cut_delay = worst;
						s.drained = null;
						why = sprintf('delay +%s ms with %s at %d %% of its rate', worst, d, int(share * 100 + 0.5));

						let ow = filter(mine, (w) => w.dir != null);

						if (length(ow))
							why += sprintf(', +%s ms of it one way %s', stats.round1(max(...map(ow, (w) => w.dir[d]))),
								(d == 'dl') ? 'down' : 'up');
						s.last_cut = t;
						cut_any = true;
					}
				}
				else if (!react && !stale && (!high || spare) && share >= RAISE_SHARE &&
				         (s.last_cut == null || t - s.last_cut >= RAISE_HOLD_MS ||
				          (s.drained != null && t - s.last_cut >= DRAINED_HOLD_MS)) &&
				         count(fresh, (w) => charged(w, d)) <= RAISE_SPIKES) {
					let near = s.bloat_rate != null && s.rate >= NEAR_SHARE * s.bloat_rate && s.rate <= s.bloat_rate / NEAR_SHARE;

					// CAKE itself holds a probe behind a packet or two
					// being sent: CALM_MTUS of them at our rate more
					let calm_ms = CALM_SHARE * set.delay_ms + CALM_MTUS * MTU_BITS / (1.0 * s.rate);
					let calm = share >= CALM_LOAD && count(fresh, (w) => part(w, d) > calm_ms) <= CALM_SPIKES;
					let f = near ? NEAR_FACTOR : (share >= FAST_SHARE) ? RAISE_FACTOR : NEAR_FACTOR;

					// calm near the edge: the step doubles each
					// CALM_DOUBLE_MS the calm lasts, up to the fast one
					if (near && calm) {
						s.calm_since ??= t;
						f = 1 + min(RAISE_FACTOR - 1, (CALM_NEAR_FACTOR - 1) * 2 ** ((t - s.calm_since) / CALM_DOUBLE_MS));
						calm_raise = true;
					}

					to = min(hi, int(s.rate * f + 1));
					why = sprintf('%s loaded (%d %%), delay low', d, int(share * 100 + 0.5));
				}
				else if (!react && share < IDLE_SHARE && s.rate != base) {
					let step = (base - s.rate) * DECAY;

					to = (s.rate - base < base / 100 && base - s.rate < base / 100) ? base : int(s.rate + step);
					why = sprintf('%s idle, back towards base', d);
				}

				to = min(hi, max(lo, to));

				if (!calm_raise)
					s.calm_since = null;

				if (to != s.rate) {
					push(changes, { dir: d, from: s.rate, to, reason: why });

					// raises and decays are many small steps: only cuts
					// and the first step of a run are kept as decisions
					let last = null;

					for (let i = length(decisions) - 1; i >= 0 && last == null; i--)
						if (decisions[i].dir == d)
							last = decisions[i];

					if (index(why, 'delay') == 0 || last == null || last.kind != kind(why))
						note(t, d, s.rate, to, why, { kind: kind(why) });
					else {
						last.to = to;
						last.t_end = t;
					}

					s.rate = to;
				}
			}

			if (cut_any)
				refl.clear();	// the next cut needs fresh evidence

			return changes;
		},

		// the qdisc reports another rate than ours (sqm restarted, or
		// someone else changed it): ours is set again; null = no CAKE
		// there (WAN down): nothing to set, ours is kept
		observed: function(d, kbit) {
			let s = dirs[d];

			return (kbit != null && (kbit - s.rate > 1 || s.rate - kbit > 1)) ? s.rate : null;
		},

		rate: (d) => dirs[d].rate,

		// the reflectors that are near hops (reterm.latency.autorate.reflectors)
		near: (list) => refl.near(list),

		// the reflectors shunned now (t: mono now)
		shunned: (t) => refl.shunned(t),

		// for autorate_status (t: mono now)
		status: function(t) {
			let rates = {}, last = refl.last_answer();

			for (let d in DIRS)
				rates[d] = { rate_kbit: dirs[d].rate, achieved_kbit: (dirs[d].achieved != null) ? int(dirs[d].achieved) : null,
					share: (dirs[d].share != null) ? stats.round1(dirs[d].share * 100) : null };

			return { rates, reflectors: refl.status(t), decisions: [ ...decisions ],
				evidence: last != null && t - last <= STALE_MS };
		}
	};
};
