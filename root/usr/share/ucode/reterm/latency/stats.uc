// SPDX-License-Identifier: Apache-2.0
//
// Latency statistics of the sampler and the guided test.  Pure functions,
// no I/O.  The grade scale, RPM classes, phase statistics and the
// inconclusive rule are the same as htdocs/luci-static/resources/reterm/
// grade.js (same bounds, same nearest-rank percentile, same 400 ms peak
// window, same order of floating point operations), checked against
// tests/fixtures/grade-vectors.json which is generated from grade.js.
//
// Conventions: times and latencies in ms, rates in bit/s, loss a fraction
// 0..1.  A "number" is an int or double that is finite and >= 0; anything
// else is "no value" and gives the documented null result.
//
// ucode note: int / int is an integer division, so every division that
// must be a real one has a double operand (1.0 * x).

'use strict';

// Grade scale on the mean ADDED latency, upper bounds exclusive: a value
// exactly on a bound gets the worse grade.
const GRADES = [
	{ grade: 'A+', below: 5 },
	{ grade: 'A', below: 30 },
	{ grade: 'B', below: 60 },
	{ grade: 'C', below: 200 },
	{ grade: 'D', below: 400 },
	{ grade: 'F', below: null }	// no upper bound
];

export const RPM_FAIR = 300, RPM_GOOD = 1000, RPM_EXCELLENT = 6000;
export const MIN_SHAPER_SHARE = 0.8, MAX_LOSS = 0.025;
const PEAK_WINDOW_MS = 400;

// finite number >= 0, else null
function num(v) {
	let t = type(v);

	if (t == 'int')
		return (v >= 0) ? v : null;

	if (t == 'double' && v == v && v != Infinity && v >= 0)
		return v;

	return null;
};

// smallest integer >= x, for x >= 0
function ceil_pos(x) {
	let i = int(x);

	return (i < x) ? i + 1 : i;
}

// round to one decimal (the wire and results format): 23.04 -> 23.0
export function round1(v) {
	return (num(v) == null) ? null : +sprintf('%.1f', v);
};

export function grade(added_ms) {
	let v = num(added_ms);

	if (v == null)
		return null;

	for (let g in GRADES)
		if (g.below == null || v < g.below)
			return g.grade;
};

function grade_index(g) {
	for (let i = 0; i < length(GRADES); i++)
		if (GRADES[i].grade === g)
			return i;

	return -1;
};

// the worse of two grades; null unless both are grades
export function overall(a, b) {
	let i = grade_index(a), j = grade_index(b);

	return (i < 0 || j < 0) ? null : GRADES[max(i, j)].grade;
};

// round trips per minute, 60000 / RTT; null for 0 or bad input
export function rpm(rtt_ms) {
	let v = num(rtt_ms);

	return (v == null || v == 0) ? null : 60000.0 / v;
};

// 'poor' [0, 300), 'fair' [300, 1000), 'good' [1000, 6000], 'excellent'
export function rpm_class(r) {
	let v = num(r);

	if (v == null)
		return null;

	if (v < RPM_FAIR)
		return 'poor';

	if (v < RPM_GOOD)
		return 'fair';

	return (v <= RPM_EXCELLENT) ? 'good' : 'excellent';
};

function asc(a, b) {
	return (a < b) ? -1 : (a > b) ? 1 : 0;
}

// nearest rank of an ascending array, p in 0..100
function rank_percentile(sorted, p) {
	let n = length(sorted);

	if (!n)
		return null;

	let rank = ceil_pos(p / 100.0 * n);

	return sorted[min(n, max(1, rank)) - 1];
}

// Nearest-rank percentile: the smallest value with at least p % of the
// values at or below it.  Values that are not numbers are skipped.
export function percentile(values, p) {
	if (type(values) != 'array' || num(p) == null || p > 100)
		return null;

	return rank_percentile(sort(filter(values, x => num(x) != null), asc), p);
};

// P(X >= k), X binomial over n tries at p
export function tail(n, k, p) {
	let sum = 0;

	for (let i = k; i <= n; i++) {
		let c = 1;

		for (let j = 1; j <= i; j++)
			c = c * (n - i + j) / j;

		for (let j = 0; j < i; j++)
			c *= p;

		for (let j = 0; j < n - i; j++)
			c *= 1 - p;

		sum += c;
	}

	return sum;
};

// Median (mean of the two middle values for an even count); null if empty.
export function median(values) {
	let v = sort(filter(values ?? [], x => num(x) != null), asc), n = length(v);

	if (!n)
		return null;

	return (n % 2) ? v[n >> 1] : (v[(n >> 1) - 1] + v[n >> 1]) / 2.0;
};

// min / median / max of one interval's RTTs, one decimal; null if empty
export function aggregate(rtts) {
	let v = sort(filter(rtts ?? [], x => num(x) != null), asc), n = length(v);

	if (!n)
		return null;

	return { min: round1(v[0]), med: round1(median(v)), max: round1(v[n - 1]) };
};

// A probe sample as [t, rtt] or {t, rtt}; rtt null / bad = lost.
function read_sample(s) {
	let t, rtt;

	if (type(s) == 'array') {
		t = s[0];
		rtt = s[1];
	}
	else if (type(s) == 'object') {
		t = s.t;
		rtt = s.rtt;
	}
	else {
		return null;
	}

	if ((type(t) != 'int' && type(t) != 'double') || t != t || t == Infinity || t == -Infinity)
		return null;

	return { t, rtt: num(rtt) };
}

// Statistics of one test phase, as grade.js phaseStats(): mean, p95 and
// peak (highest 400 ms moving average) ADDED latency above baseline_ms,
// never below 0; loss; sent, lost; rtt {mean, p95, min, max} raw.  Every
// probe lost: mean/p95/peak/rtt null, loss 1.  null for no valid sample
// or a bad baseline.
export function phase_stats(samples, baseline_ms) {
	let base = num(baseline_ms);

	if (type(samples) != 'array' || base == null)
		return null;

	let all = [];

	for (let i = 0; i < length(samples); i++) {
		let s = read_sample(samples[i]);

		if (s != null) {
			s.i = i;	// stable sort, as JavaScript's
			push(all, s);
		}
	}

	if (!length(all))
		return null;

	all = sort(all, (a, b) => asc(a.t, b.t) || (a.i - b.i));

	let got = filter(all, s => s.rtt != null);
	let lost = length(all) - length(got);
	let res = { mean: null, p95: null, peak: null, loss: lost / (1.0 * length(all)),
	            sent: length(all), lost, rtt: null };

	if (!length(got))
		return res;

	let sum = 0.0, rtts = [];

	for (let s in got) {
		sum += s.rtt;
		push(rtts, s.rtt);
	}

	rtts = sort(rtts, asc);

	let mean = sum / length(got), p95 = rank_percentile(rtts, 95);

	// median probe spacing (upper middle), to tell full windows from the ramp-in
	let gaps = [];

	for (let j = 1; j < length(all); j++)
		push(gaps, all[j].t - all[j - 1].t);

	gaps = sort(gaps, asc);

	let spacing = length(gaps) ? gaps[length(gaps) >> 1] : 0;
	let first_full = all[0].t + PEAK_WINDOW_MS - spacing;
	let peak = null, wsum = 0.0, lo = 0;

	for (let k = 0; k < length(got); k++) {
		wsum += got[k].rtt;

		while (got[lo].t <= got[k].t - PEAK_WINDOW_MS)
			wsum -= got[lo++].rtt;

		if (got[k].t >= first_full) {
			let avg = wsum / (k - lo + 1);

			if (peak == null || avg > peak)
				peak = avg;
		}
	}

	// shorter than one window: the whole phase is the window
	if (peak == null)
		peak = mean;

	res.mean = max(0, mean - base);
	res.p95 = max(0, p95 - base);
	res.peak = max(0, peak - base);
	res.rtt = { mean, p95, min: rtts[0], max: rtts[-1] };

	return res;
};

// grade.js inconclusive(): throughput below 80 % of the shaper rate, or
// probe loss above 2.5 %.  Fields may be null (unknown: rule skipped;
// shaper_bps 0 = no shaper).  Returns {inconclusive, reasons} or null for
// a bad field.
export function inconclusive(r) {
	if (type(r) != 'object')
		return null;

	let tp = r.throughput_bps, sh = r.shaper_bps, loss = r.loss;

	if ((tp != null && num(tp) == null) || (sh != null && num(sh) == null) ||
	    (loss != null && (num(loss) == null || loss > 1)))
		return null;

	let reasons = [];

	if (tp != null && sh != null && sh > 0 && tp < MIN_SHAPER_SHARE * sh)
		push(reasons, 'throughput');

	if (loss != null && loss > MAX_LOSS)
		push(reasons, 'loss');

	return { inconclusive: length(reasons) > 0, reasons };
};

// Baseline RTT: a slowly rising, fast falling moving minimum (as
// cake-autorate).  A sample below the baseline pulls it down by `fall`
// (0.9) of the difference at once; a sample above raises it by
// dt / rise_ms of the difference (time based, so the probe rate does not
// matter; default time constant 5 minutes: 60 s of +300 ms load move it
// by ~55 ms).  After a gap longer than reset_ms (the sampler slept) the
// next sample starts afresh.
export function baseline(opts) {
	let fall = opts?.fall ?? 0.9, rise_ms = opts?.rise_ms ?? 300000, reset_ms = opts?.reset_ms ?? 60000;
	let value = null, last = null;

	return {
		update: function(rtt, t_ms) {
			if (num(rtt) == null)
				return value;

			if (value == null || last == null || t_ms - last > reset_ms)
				value = 1.0 * rtt;
			else if (rtt < value)
				value += (rtt - value) * fall;
			else
				value += (rtt - value) * min(1.0, max(0, t_ms - last) / (1.0 * rise_ms));

			last = t_ms;

			return value;
		},

		value: () => value,

		reset: function() {
			value = null;
			last = null;
		}
	};
};
