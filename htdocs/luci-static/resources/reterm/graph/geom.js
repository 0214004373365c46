'use strict';
'require baseclass';
'require reterm.grade as grade';

/*
 * The pure part of the reterm charts: scales, ticks, SVG path strings,
 * grade bands and the labels of time axes. No DOM; every function is
 * total (bad input gives an empty result, never an exception).
 * Use as: 'require reterm.graph.geom as geom';
 *
 *   scale(domain, range)          linear scale: s(v), s.invert(px),
 *                                 s.ticks(n), s.nice(n), s.domain, s.range
 *   ticks(lo, hi, n), tickStep(lo, hi, n)   "nice" ticks (1, 2, 5 × 10^k)
 *   timeTicks(from, to, n, anchor)          time ticks (1 s … 1 day steps)
 *   runs(points, fx, fys, maxGap)           drawable runs between gaps
 *   linePath(), bandPath(), stepPath()      SVG path `d` strings
 *   gradeBands(sy, base)                    grade bands behind a latency plot
 *   extreme(points, fields, sign), maxOf(points, fields)
 *   timeSeries(points, opts)                usable points, step, x range
 *   clock(t), agoLabel(secs), tickLabel(v, step), stepLabel(s, n), ms(v)
 *   finite(v), r1(v)
 */

const finite = (v) => typeof v === 'number' && isFinite(v);

/* round to 0.1 px: short `d` strings, no visible difference */
const r1 = (v) => Math.round(v * 10) / 10;

/* strip float noise: 0.30000000000000004 → 0.3 */
const clean = (v) => +v.toPrecision(12);

/**
 * A "nice" tick step (1, 2 or 5 × 10^k) giving about `count` ticks.
 * @returns {number} 0 when the interval is empty or invalid
 */
function tickStep(lo, hi, count) {
	const span = Math.abs(hi - lo), n = (finite(count) && count >= 1) ? count : 5;

	if (!finite(span) || span === 0)
		return 0;

	const raw = span / n,
	    pow = Math.pow(10, Math.floor(Math.log10(raw))),
	    err = raw / pow;

	return clean((err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1) * pow);
}

/**
 * Nice tick values within [lo, hi] (either order), ascending.
 * ticks(0, 100, 5) = [0, 20, 40, 60, 80, 100]. A zero-width interval
 * gives [lo]; an invalid one [].
 */
function ticks(lo, hi, count) {
	if (!finite(lo) || !finite(hi))
		return [];

	const a = Math.min(lo, hi), b = Math.max(lo, hi), step = tickStep(a, b, count);

	if (step === 0)
		return [a];

	const out = [], first = Math.ceil(clean(a / step)), last = Math.floor(clean(b / step));

	for (let i = first; i <= last; i++)
		out.push(clean(i * step));

	return out;
}

/**
 * Linear scale. s(v) maps domain → range; s.invert(px) the reverse;
 * s.ticks(n) nice ticks within the domain; s.nice(n) a new scale whose
 * domain is widened to tick multiples. A zero-width domain maps every
 * value to the middle of the range; a non-finite domain or range is
 * replaced by [0, 1].
 *
 * @param {number[]} domain [d0, d1]
 * @param {number[]} range [r0, r1] (pixels; r0 > r1 for a y axis)
 * @returns {Function}
 */
function scale(domain, range) {
	const d = Array.isArray(domain) ? domain : [],
	    r = Array.isArray(range) ? range : [];
	let d0 = d[0], d1 = d[1], r0 = r[0], rEnd = r[1];

	if (!finite(d0) || !finite(d1)) { d0 = 0; d1 = 1; }
	if (!finite(r0) || !finite(rEnd)) { r0 = 0; rEnd = 1; }

	const k = (d1 !== d0) ? (rEnd - r0) / (d1 - d0) : 0,
	    mid = (r0 + rEnd) / 2,
	    s = (v) => k ? r0 + (v - d0) * k : mid;

	s.domain = [d0, d1];
	s.range = [r0, rEnd];
	s.invert = (px) => k ? d0 + (px - r0) / k : d0;
	s.ticks = (n) => ticks(d0, d1, n);
	s.nice = (n) => {
		const step = tickStep(d0, d1, n);

		if (step === 0)
			return scale([d0, d1], [r0, rEnd]);

		const lo = Math.min(d0, d1), hi = Math.max(d0, d1),
		    nd = [clean(Math.floor(clean(lo / step)) * step), clean(Math.ceil(clean(hi / step)) * step)];

		return scale(d0 <= d1 ? nd : nd.reverse(), [r0, rEnd]);
	};

	return s;
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * Time ticks (seconds) for [from, to]: at most about `count` ticks at
 * anchor + k × step, step from 1 s … 1 day (1, 2, 5, 10, 15, 30 s,
 * 1, 2, 5, 10, 15, 30 min, …). anchor defaults to `to` (a live strip:
 * "now", "−2 min", …); pass `from` for an axis starting at 0.
 * @returns {{step: number, values: number[]}}
 */
function timeTicks(from, to, count, anchor) {
	if (!finite(from) || !finite(to) || to <= from)
		return { step: 0, values: [] };

	const n = (finite(count) && count >= 1) ? count : 6,
	    a = finite(anchor) ? anchor : to,
	    step = TIME_STEPS.find((s) => (to - from) / s <= n) || TIME_STEPS[TIME_STEPS.length - 1],
	    values = [];

	for (let k = Math.ceil(clean((from - a) / step)); a + k * step <= to; k++)
		values.push(clean(a + k * step));

	return { step: step, values: values };
}

function valueOf(p, acc) {
	const v = (typeof acc === 'function') ? acc(p) : (p != null ? p[acc] : null);

	return finite(v) ? v : null;
}

/**
 * Split points into drawable runs: a run ends where x or y is missing
 * (null, undefined, NaN) or the x distance to the next point exceeds
 * maxGap (e.g. 1.5 × the sample step). Missing points are never
 * interpolated.
 *
 * @param {Array} points
 * @param {string|Function} fx x field name or accessor
 * @param {Array<string|Function>} fys y fields/accessors that must all
 *   be present
 * @param {number} [maxGap=Infinity]
 * @returns {Array<number[]>} runs as [firstIndex, lastIndex] (inclusive)
 */
function runs(points, fx, fys, maxGap) {
	const out = [], gap = finite(maxGap) ? maxGap : Infinity;
	let start = -1, prevX = null;

	if (!Array.isArray(points))
		return out;

	for (let i = 0; i < points.length; i++) {
		const x = valueOf(points[i], fx),
		    ok = x !== null && fys.every((f) => valueOf(points[i], f) !== null);

		if (ok && start >= 0 && x - prevX > gap) {
			out.push([start, i - 1]);
			start = -1;
		}

		if (!ok) {
			if (start >= 0)
				out.push([start, i - 1]);
			start = -1;
			continue;
		}

		if (start < 0)
			start = i;

		prevX = x;
	}

	if (start >= 0)
		out.push([start, points.length - 1]);

	return out;
}

/**
 * SVG path `d` of a polyline broken into separate subpaths at gaps (see
 * runs()). A run of one point becomes a zero-length subpath ("h0"),
 * drawn as a dot with round line caps.
 *
 * @param {Array} points
 * @param {string|Function} fx, fy field names or accessors
 * @param {Function} sx, sy scales (data → px)
 * @param {number} [maxGap]
 * @returns {string} '' when nothing is drawable
 */
function linePath(points, fx, fy, sx, sy, maxGap) {
	const d = [],
	    at = (k) => r1(sx(valueOf(points[k], fx))) + ',' + r1(sy(valueOf(points[k], fy)));

	for (const [a, b] of runs(points, fx, [fy], maxGap)) {
		d.push('M' + at(a));

		for (let k = a + 1; k <= b; k++)
			d.push('L' + at(k));

		if (a === b)
			d.push('h0');
	}

	return d.join('');
}

/**
 * SVG path `d` of a band between a low and a high series (min–max):
 * one closed polygon per run of points where both are present; runs of
 * a single point are left out (no area).
 */
function bandPath(points, fx, flo, fhi, sx, sy, maxGap) {
	const d = [],
	    at = (k, f) => r1(sx(valueOf(points[k], fx))) + ',' + r1(sy(valueOf(points[k], f)));

	for (const [a, b] of runs(points, fx, [flo, fhi], maxGap)) {
		if (a === b)
			continue;

		for (let k = a; k <= b; k++)
			d.push((k === a ? 'M' : 'L') + at(k, fhi));

		for (let k = b; k >= a; k--)
			d.push('L' + at(k, flo));

		d.push('Z');
	}

	return d.join('');
}

/**
 * Step path of an empirical CDF ([{x, p}] ascending, as grade.cdf()):
 * starts at (x0, 0), rises at each x.
 */
function stepPath(cdf, sx, sy) {
	if (!Array.isArray(cdf) || !cdf.length)
		return '';

	const d = ['M' + r1(sx(cdf[0].x)) + ',' + r1(sy(0))];
	let prev = 0;

	cdf.forEach((c, i) => {
		if (i)
			d.push('H' + r1(sx(c.x)));

		if (c.p !== prev)
			d.push('V' + r1(sy(c.p)));

		prev = c.p;
	});

	return d.join('');
}

/**
 * Pixel rectangles of the grade bands behind a latency plot: band
 * [base + from, base + to) of each grade, clipped to the y domain.
 * Bands entirely outside the domain are returned with height 0.
 *
 * @param {Function} sy y scale (ms → px, the domain's low end at the
 *   bottom)
 * @param {number} base baseline RTT in ms
 * @returns {Array<{grade, key, from, to, y, height}>} from/to in ms RTT
 */
function gradeBands(sy, base) {
	const lo = Math.min(sy.domain[0], sy.domain[1]), hi = Math.max(sy.domain[0], sy.domain[1]),
	    clip = (v) => Math.min(hi, Math.max(lo, v));

	return grade.bands().map((b) => {
		const from = clip(base + b.from), to = clip(base + b.to), y0 = sy(from), y1 = sy(to);

		return { grade: b.grade, key: b.key, from: from, to: to,
		         y: r1(Math.min(y0, y1)), height: r1(Math.abs(y0 - y1)) };
	});
}

/* largest (sign 1) or smallest (sign -1) finite value of the given
 * fields, or null */
function extreme(points, fields, sign) {
	let m = null;

	for (const p of points)
		for (const f of fields) {
			const v = valueOf(p, f);

			if (v !== null && (m === null || (v - m) * sign > 0))
				m = v;
		}

	return m;
}

const maxOf = (points, fields) => extreme(points, fields, 1);

/* what every time-series chart's update() starts from: the usable points
 * (with a finite t), the step (s, default 1) and the x range: opts.from/to,
 * else the last `span` seconds (default 600) up to the newest point */
function timeSeries(points, opts) {
	const pts = Array.isArray(points) ? points.filter((p) => p != null && finite(p.t)) : [],
	    span = finite(opts.span) ? opts.span : 600,
	    to = finite(opts.to) ? opts.to : (pts.length ? pts[pts.length - 1].t : 0);
	let from = finite(opts.from) ? opts.from : to - span;

	if (!(from < to))
		from = to - span;

	return { pts: pts, step: (finite(opts.step) && opts.step > 0) ? opts.step : 1, tr: { from: from, to: to } };
}

/* ---- labels ------------------------------------------------------- */

const pad2 = (n) => (n < 10 ? '0' : '') + n;

/* epoch seconds → local "HH:MM:SS" */
function clock(t) {
	const d = new Date(t * 1000);

	return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
}

/* a table cell in ms (the unit is in the column header) */
const ms = (v) => finite(v) ? v.toFixed(1) : '–';

/* tick label: as many decimals as the step needs */
function tickLabel(v, step) {
	const dec = (step > 0 && step < 1) ? Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)) : 0;

	return v.toFixed(dec);
}

/* relative time label for a live axis: "now", "−30 s", "−2 min", "−6 h" */
function agoLabel(secs) {
	if (secs <= 0)
		return _('now');

	if (secs < 60 || secs % 60)
		return _('−%d s').format(secs);

	if (secs < 7200 || secs % 3600)
		return _('−%d min').format(secs / 60);

	return _('−%d h').format(secs / 3600);
}

/* tick formatter for a scale's nice ticks */
function stepLabel(s, count) {
	const step = tickStep(s.domain[0], s.domain[1], count);

	return (v) => tickLabel(v, step);
}

return baseclass.extend({
	__name__: 'reterm.graph.geom',

	finite, r1, scale, ticks, tickStep, timeTicks, runs, linePath, bandPath, stepPath,
	gradeBands, extreme, maxOf, timeSeries, clock, ms, tickLabel, agoLabel, stepLabel
});
