'use strict';
'require baseclass';

/*
 * Latency-under-load math: grades, RPM, per-phase statistics, the
 * inconclusive rule and CDFs. Pure functions, no DOM.
 * Use as: 'require reterm.grade as grade';
 *
 * Conventions:
 *  - Times are milliseconds, rates bit/s, loss a fraction 0…1.
 *  - Numbers must be JavaScript numbers, finite and >= 0; strings are
 *    not parsed. Bad input (NaN, Infinity, negative, wrong type, empty)
 *    gives the documented null result; nothing here throws.
 *  - Grade letters ('A+' … 'F') are not translated (they are the
 *    DSLReports/Waveform scale); labels for RPM classes and the reasons
 *    of an inconclusive test are, through _().
 */

/* Grade scale on the mean ADDED latency (loaded − idle), upper bounds
 * exclusive: a value exactly on a bound gets the worse grade
 * (5 ms → A, 30 → B, 60 → C, 200 → D, 400 → F). */
const GRADES = [
	{ grade: 'A+', key: 'aplus', below: 5 },
	{ grade: 'A', key: 'a', below: 30 },
	{ grade: 'B', key: 'b', below: 60 },
	{ grade: 'C', key: 'c', below: 200 },
	{ grade: 'D', key: 'd', below: 400 },
	{ grade: 'F', key: 'f', below: Infinity }
];

/* RPM classes (IETF responsiveness draft). Lower bounds inclusive except
 * Excellent: Poor [0, 300), Fair [300, 1000), Good [1000, 6000],
 * Excellent (6000, ∞). */
const RPM_FAIR = 300, RPM_GOOD = 1000, RPM_EXCELLENT = 6000;

/* inconclusive when throughput < 80 % of the shaper or loss > 2.5 % */
const MIN_SHAPER_SHARE = 0.8, MAX_LOSS = 0.025;

/* the peak is the highest moving average over this window */
const PEAK_WINDOW_MS = 400;

function num(v) {
	return (typeof v === 'number' && isFinite(v) && v >= 0) ? v : null;
}

function gradeIndex(g) {
	for (let i = 0; i < GRADES.length; i++)
		if (GRADES[i].grade === g)
			return i;

	return -1;
}

/* nearest-rank percentile of an ascending array (p in 0…100) */
function rankPercentile(sorted, p) {
	if (!sorted.length)
		return null;

	const rank = Math.ceil(p / 100 * sorted.length);

	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/* a sample as {t, rtt} or [t, rtt]; rtt null/undefined/NaN = lost */
function readSample(s) {
	let t, rtt;

	if (Array.isArray(s)) {
		t = s[0];
		rtt = s[1];
	}
	else if (s !== null && typeof s === 'object') {
		t = s.t;
		rtt = s.rtt;
	}
	else {
		return null;
	}

	if (typeof t !== 'number' || !isFinite(t))
		return null;

	return { t: t, rtt: num(rtt) };
}

function clampAdded(v, baseline) {
	return Math.max(0, v - baseline);
}

return baseclass.extend({
	__name__: 'reterm.grade',

	/** Grade letters from best to worst. */
	GRADES: GRADES.map((g) => g.grade),

	/**
	 * Grade for a mean added latency.
	 * grade(4.9) = 'A+', grade(5) = 'A', grade(29.99) = 'A',
	 * grade(30) = 'B', grade(60) = 'C', grade(200) = 'D', grade(400) = 'F'.
	 *
	 * @param {number} addedMs mean added latency (loaded − idle) in ms
	 * @returns {string|null} 'A+', 'A', 'B', 'C', 'D' or 'F'; null for
	 *   NaN, Infinity, negative or non-number input
	 */
	grade(addedMs) {
		const v = num(addedMs);

		if (v === null)
			return null;

		for (let i = 0; i < GRADES.length; i++)
			if (v < GRADES[i].below)
				return GRADES[i].grade;

		return null;
	},

	/**
	 * The grade bands as added-latency intervals [from, to), for graphs:
	 * [{grade: 'A+', key: 'aplus', from: 0, to: 5}, …,
	 *  {grade: 'F', key: 'f', from: 400, to: Infinity}].
	 * `key` names the CSS class (reterm-band-<key>).
	 *
	 * @returns {Array<{grade: string, key: string, from: number, to: number}>}
	 */
	bands() {
		return GRADES.map((g, i) => {
			return { grade: g.grade, key: g.key, from: i ? GRADES[i - 1].below : 0, to: g.below };
		});
	},

	/**
	 * CSS key of a grade: 'A+' → 'aplus', 'A' → 'a', …, 'F' → 'f'.
	 * @param {string} g
	 * @returns {string|null} null for anything that is not a grade
	 */
	gradeKey(g) {
		let i = gradeIndex(g);

		return i < 0 ? null : GRADES[i].key;
	},

	/**
	 * Overall grade of a test: the worse of the two directions.
	 * overall('A+', 'C') = 'C'.
	 *
	 * @param {string} gradeA grade of one direction
	 * @param {string} gradeB grade of the other direction
	 * @returns {string|null} the worse grade; null unless both are grades
	 *   ('A+' … 'F')
	 */
	overall(gradeA, gradeB) {
		const a = gradeIndex(gradeA), b = gradeIndex(gradeB);

		if (a < 0 || b < 0)
			return null;

		return GRADES[Math.max(a, b)].grade;
	},

	/**
	 * Round trips per minute: 60000 / RTT. rpm(60) = 1000.
	 *
	 * @param {number} rttMs round-trip time in ms (> 0)
	 * @returns {number|null} RPM, not rounded; null for 0, negative, NaN,
	 *   Infinity or non-number input
	 */
	rpm(rttMs) {
		const v = num(rttMs);

		return (v === null || v === 0) ? null : 60000 / v;
	},

	/**
	 * Responsiveness class of an RPM value: 'poor' [0, 300),
	 * 'fair' [300, 1000), 'good' [1000, 6000], 'excellent' above 6000.
	 *
	 * @param {number} rpm
	 * @returns {string|null} class key, null for bad input
	 */
	rpmClass(rpm) {
		const v = num(rpm);

		if (v === null)
			return null;

		if (v < RPM_FAIR)
			return 'poor';

		if (v < RPM_GOOD)
			return 'fair';

		return (v <= RPM_EXCELLENT) ? 'good' : 'excellent';
	},

	/**
	 * Translated label of an RPM class key ('poor' → "Poor").
	 * @param {string} key as returned by rpmClass()
	 * @returns {string|null}
	 */
	rpmLabel(key) {
		switch (key) {
		case 'poor': return _('Poor');
		case 'fair': return _('Fair');
		case 'good': return _('Good');
		case 'excellent': return _('Excellent');
		}

		return null;
	},

	/**
	 * Nearest-rank percentile: the smallest value with at least p % of
	 * the values at or below it. Non-finite and negative values are
	 * skipped.
	 *
	 * @param {number[]} values
	 * @param {number} p 0 … 100
	 * @returns {number|null} null for no usable values or a bad p
	 */
	percentile(values, p) {
		if (!Array.isArray(values) || num(p) === null || p > 100)
			return null;

		const v = values.filter((x) => num(x) !== null);

		v.sort((a, b) => a - b);

		return rankPercentile(v, p);
	},

	/**
	 * Statistics of one test phase from its probe samples.
	 *
	 * A sample is {t, rtt} or [t, rtt]: t its send time in ms (any
	 * origin), rtt the round trip in ms, or null/undefined/NaN/negative
	 * when the probe was lost. Samples without a finite t are ignored.
	 *
	 * Returned latencies are ADDED latency (above baselineMs), in ms,
	 * never below 0 (a loaded phase that measures under the idle
	 * baseline is noise, not negative delay):
	 *  - mean: mean RTT − baseline
	 *  - p95:  95th percentile (nearest rank) RTT − baseline
	 *  - peak: highest moving average RTT − baseline. The average at a
	 *    sample covers the answered probes sent in the 400 ms up to and
	 *    including it; windows are counted once 400 ms of the phase have
	 *    been seen (allowing one probe interval, the median spacing), so
	 *    a lone spike in the first probe is smoothed like any other. A
	 *    phase shorter than that has one window: all of it.
	 *  - loss: lost / sent (0 … 1)
	 *  - sent, lost: counts; rtt: {mean, p95, min, max} raw RTTs in ms
	 * When every probe was lost, mean/p95/peak/rtt are null and loss 1.
	 *
	 * @param {Array<Object|Array>} samples probe samples of the phase
	 * @param {number} baselineMs idle RTT in ms (>= 0)
	 * @returns {Object|null} null when samples is not a non-empty array
	 *   holding at least one valid sample, or baselineMs is bad
	 */
	phaseStats(samples, baselineMs) {
		const base = num(baselineMs);

		if (!Array.isArray(samples) || base === null)
			return null;

		const all = [];

		for (let i = 0; i < samples.length; i++) {
			const s = readSample(samples[i]);

			if (s !== null)
				all.push(s);
		}

		if (!all.length)
			return null;

		all.sort((a, b) => a.t - b.t);

		const got = all.filter((s) => s.rtt !== null),
		    lost = all.length - got.length,
		    res = { mean: null, p95: null, peak: null, loss: lost / all.length,
		            sent: all.length, lost: lost, rtt: null };

		if (!got.length)
			return res;

		let sum = 0, rtts = got.map((s) => { sum += s.rtt; return s.rtt; });

		rtts.sort((a, b) => a - b);

		const mean = sum / got.length,
		    p95 = rankPercentile(rtts, 95);

		/* median probe spacing, to tell complete windows from the ramp-in */
		const gaps = [];

		for (let j = 1; j < all.length; j++)
			gaps.push(all[j].t - all[j - 1].t);

		gaps.sort((a, b) => a - b);

		let spacing = gaps.length ? gaps[gaps.length >> 1] : 0,
		    firstFull = all[0].t + PEAK_WINDOW_MS - spacing,
		    peak = -Infinity, wsum = 0, lo = 0;

		for (let k = 0; k < got.length; k++) {
			wsum += got[k].rtt;

			while (got[lo].t <= got[k].t - PEAK_WINDOW_MS)
				wsum -= got[lo++].rtt;

			if (got[k].t >= firstFull)
				peak = Math.max(peak, wsum / (k - lo + 1));
		}

		/* shorter than one window: the whole phase is the window */
		if (peak === -Infinity)
			peak = mean;

		res.mean = clampAdded(mean, base);
		res.p95 = clampAdded(p95, base);
		res.peak = clampAdded(peak, base);
		res.rtt = { mean: mean, p95: p95, min: rtts[0], max: rtts[rtts.length - 1] };

		return res;
	},

	/**
	 * Whether a test direction is inconclusive: throughput stayed below
	 * 80 % of the shaper rate, or probe loss exceeded 2.5 %. Exactly 80 %
	 * and exactly 2.5 % are conclusive.
	 *
	 * Each field is optional: null/undefined means unknown and skips its
	 * rule (no shaper configured, shaperBps 0 = shaping off, skips the
	 * throughput rule too).
	 *
	 * @param {Object} r
	 * @param {number} [r.throughputBps] measured throughput, bit/s
	 * @param {number} [r.shaperBps] configured shaper rate, bit/s
	 * @param {number} [r.loss] probe loss, fraction 0 … 1
	 * @returns {{inconclusive: boolean, reasons: string[], messages: string[]}|null}
	 *   reasons are 'throughput' and/or 'loss', messages their translated
	 *   explanations; null when r is not an object or a given field is
	 *   not a finite number >= 0 (loss also <= 1)
	 */
	inconclusive(r) {
		if (r === null || typeof r !== 'object' || Array.isArray(r))
			return null;

		const given = (v) => v !== null && v !== undefined,
		    tp = r.throughputBps, sh = r.shaperBps, loss = r.loss;

		if ((given(tp) && num(tp) === null) || (given(sh) && num(sh) === null) ||
		    (given(loss) && (num(loss) === null || loss > 1)))
			return null;

		const res = { inconclusive: false, reasons: [], messages: [] };

		if (given(tp) && given(sh) && sh > 0 && tp < MIN_SHAPER_SHARE * sh) {
			res.reasons.push('throughput');
			res.messages.push(_('Throughput reached only %d%% of the shaper rate (at least %d%% needed).')
				.format(Math.floor(tp / sh * 100), MIN_SHAPER_SHARE * 100));
		}

		if (given(loss) && loss > MAX_LOSS) {
			res.reasons.push('loss');
			res.messages.push(_('%.1f%% of the probes were lost (at most %.1f%% allowed).')
				.format(loss * 100, MAX_LOSS * 100));
		}

		res.inconclusive = res.reasons.length > 0;

		return res;
	},

	/**
	 * Empirical CDF for a latency CDF chart: one point per distinct
	 * value, p = share of values <= x. cdf([3, 1, 2, 2]) =
	 * [{x: 1, p: 0.25}, {x: 2, p: 0.75}, {x: 3, p: 1}].
	 * Non-finite and negative values are skipped.
	 *
	 * @param {number[]} values
	 * @returns {Array<{x: number, p: number}>|null} ascending by x; null
	 *   when values is not an array or holds no usable value
	 */
	cdf(values) {
		if (!Array.isArray(values))
			return null;

		const v = values.filter((x) => num(x) !== null);

		if (!v.length)
			return null;

		v.sort((a, b) => a - b);

		const out = [];

		for (let i = 0; i < v.length; i++) {
			if (i + 1 < v.length && v[i + 1] === v[i])
				continue;

			out.push({ x: v[i], p: (i + 1) / v.length });
		}

		return out;
	}
});
