'use strict';
'require baseclass';

/*
 * What the pages draw from latencies: the grade of the live view's added
 * latency and the grade bands of its graph, grade letters and their CSS
 * keys, RPM class labels, percentiles and CDFs. Pure functions, no DOM.
 * A guided test's grades, RPM, phase statistics and the inconclusive rule
 * are reterm-latencyd's (reterm.latency.stats): the pages show its result.
 * Use as: 'require reterm.grade as grade';
 *
 * Conventions:
 *  - Times are milliseconds.
 *  - Numbers must be JavaScript numbers, finite and >= 0; strings are
 *    not parsed. Bad input (NaN, Infinity, negative, wrong type, empty)
 *    gives the documented null result; nothing here throws.
 *  - Grade letters ('A+' … 'F') are not translated (they are the
 *    DSLReports/Waveform scale); labels for RPM classes are, through _().
 */

/* Grade scale on the mean ADDED latency (loaded − idle), upper bounds
 * exclusive: a value exactly on a bound gets the worse grade
 * (5 ms → A, 30 → B, 60 → C, 200 → D, 400 → F); the daemon's
 * (reterm.latency.stats), held equal by tests/fixtures/grade-vectors.json */
const GRADES = [
	{ grade: 'A+', key: 'aplus', below: 5 },
	{ grade: 'A', key: 'a', below: 30 },
	{ grade: 'B', key: 'b', below: 60 },
	{ grade: 'C', key: 'c', below: 200 },
	{ grade: 'D', key: 'd', below: 400 },
	{ grade: 'F', key: 'f', below: Infinity }
];

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
	 * Translated label of an RPM class key ('poor' → "Poor").
	 * @param {string} key the rpm_class of reterm-latencyd's result
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
