'use strict';
'require baseclass';
'require reterm.grade as grade';

/*
 * Small SVG charts for the reterm dashboard (no chart library).
 * Use as: 'require reterm.graph as graph';
 *
 *   var strip = graph.latencyStrip();          // also: throughput, cake,
 *   container.appendChild(strip.node);         //   phases, cdf
 *   strip.update(ring.points(), { from: r.from, to: r.to, base: 22.8 });
 *
 * Every chart is { node, svg, table, update(data, opts) }: `node` is a
 * <div class="reterm-graph …"> holding an HTML legend, the <svg
 * role="img" aria-label="…summary…"> and a visually hidden <table> of the
 * plotted numbers for screen readers. update() reuses the existing
 * elements (path `d` strings are built with arrays + join, table rows
 * are diffed by content), so a live redraw of 600 points stays cheap.
 * Empty or unusable data draws an empty state ("No data yet"), never
 * throws.
 *
 * Charts and their data (times in epoch seconds, latencies in ms, rates
 * in bit/s; points as reterm/ring.js gives them):
 *   latencyStrip().update(points, {from, to, base, step, span})
 *   throughput().update(points, {from, to, shaper: {rx, tx}, step, span})
 *   cake().update(points, {from, to, step, span})
 *   phases().update({phases: [{name, start, end}], samples, baseline})
 *   cdf().update([{name, label?, values}], {xLabel})
 * Options of the constructors: {width, height, title}.
 *
 * Colours come from graph.css (classes reterm-s-*, reterm-band-<grade>,
 * reterm-phase-<name>) through CSS custom properties and currentColor,
 * so the charts follow LuCI's light and dark bootstrap themes. The first
 * chart links graph.css (L.resource('reterm/graph.css')) once per page.
 *
 * Geometry helpers are exported and pure: scale(), ticks(), tickStep(),
 * timeTicks(), linePath(), bandPath(), stepPath(), gradeBands().
 */

var SVG_NS = 'http://www.w3.org/2000/svg';

var seq = 0;

/* ---- pure geometry ------------------------------------------------ */

function finite(v) {
	return typeof v === 'number' && isFinite(v);
}

/* round to 0.1 px: short `d` strings, no visible difference */
function r1(v) {
	return Math.round(v * 10) / 10;
}

/* strip float noise: 0.30000000000000004 → 0.3 */
function clean(v) {
	return +v.toPrecision(12);
}

/**
 * A "nice" tick step (1, 2 or 5 × 10^k) giving about `count` ticks.
 * @returns {number} 0 when the interval is empty or invalid
 */
function tickStep(lo, hi, count) {
	var span = Math.abs(hi - lo), n = (finite(count) && count >= 1) ? count : 5;

	if (!finite(span) || span === 0)
		return 0;

	var raw = span / n,
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

	var a = Math.min(lo, hi), b = Math.max(lo, hi), step = tickStep(a, b, count);

	if (step === 0)
		return [a];

	var out = [], first = Math.ceil(clean(a / step)), last = Math.floor(clean(b / step));

	for (var i = first; i <= last; i++)
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
	var d = Array.isArray(domain) ? domain : [],
	    r = Array.isArray(range) ? range : [],
	    d0 = d[0], d1 = d[1], r0 = r[0], r1_ = r[1];

	if (!finite(d0) || !finite(d1)) { d0 = 0; d1 = 1; }
	if (!finite(r0) || !finite(r1_)) { r0 = 0; r1_ = 1; }

	var k = (d1 !== d0) ? (r1_ - r0) / (d1 - d0) : 0,
	    mid = (r0 + r1_) / 2;

	var s = function(v) {
		return k ? r0 + (v - d0) * k : mid;
	};

	s.domain = [d0, d1];
	s.range = [r0, r1_];
	s.invert = function(px) { return k ? d0 + (px - r0) / k : d0; };
	s.ticks = function(n) { return ticks(d0, d1, n); };
	s.nice = function(n) {
		var step = tickStep(d0, d1, n);

		if (step === 0)
			return scale([d0, d1], [r0, r1_]);

		var lo = Math.min(d0, d1), hi = Math.max(d0, d1),
		    nd = [clean(Math.floor(clean(lo / step)) * step), clean(Math.ceil(clean(hi / step)) * step)];

		return scale(d0 <= d1 ? nd : nd.reverse(), [r0, r1_]);
	};

	return s;
}

var TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

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

	var n = (finite(count) && count >= 1) ? count : 6,
	    step = TIME_STEPS[TIME_STEPS.length - 1],
	    a = finite(anchor) ? anchor : to,
	    values = [];

	for (var i = 0; i < TIME_STEPS.length; i++) {
		if ((to - from) / TIME_STEPS[i] <= n) {
			step = TIME_STEPS[i];
			break;
		}
	}

	for (var k = Math.ceil(clean((from - a) / step)); a + k * step <= to; k++)
		values.push(clean(a + k * step));

	return { step: step, values: values };
}

function valueOf(p, acc) {
	var v = (typeof acc === 'function') ? acc(p) : (p != null ? p[acc] : null);

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
	var out = [], start = -1, prevX = null, gap = finite(maxGap) ? maxGap : Infinity;

	if (!Array.isArray(points))
		return out;

	for (var i = 0; i < points.length; i++) {
		var x = valueOf(points[i], fx), ok = x !== null;

		for (var j = 0; ok && j < fys.length; j++)
			ok = valueOf(points[i], fys[j]) !== null;

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
	var rs = runs(points, fx, [fy], maxGap), d = [];

	for (var i = 0; i < rs.length; i++) {
		var a = rs[i][0], b = rs[i][1];

		d.push('M' + r1(sx(valueOf(points[a], fx))) + ',' + r1(sy(valueOf(points[a], fy))));

		for (var k = a + 1; k <= b; k++)
			d.push('L' + r1(sx(valueOf(points[k], fx))) + ',' + r1(sy(valueOf(points[k], fy))));

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
	var rs = runs(points, fx, [flo, fhi], maxGap), d = [];

	for (var i = 0; i < rs.length; i++) {
		var a = rs[i][0], b = rs[i][1], k;

		if (a === b)
			continue;

		for (k = a; k <= b; k++)
			d.push((k === a ? 'M' : 'L') + r1(sx(valueOf(points[k], fx))) + ',' + r1(sy(valueOf(points[k], fhi))));

		for (k = b; k >= a; k--)
			d.push('L' + r1(sx(valueOf(points[k], fx))) + ',' + r1(sy(valueOf(points[k], flo))));

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

	var d = ['M' + r1(sx(cdf[0].x)) + ',' + r1(sy(0))], prev = 0;

	for (var i = 0; i < cdf.length; i++) {
		var x = r1(sx(cdf[i].x));

		if (i)
			d.push('H' + x);

		if (cdf[i].p !== prev)
			d.push('V' + r1(sy(cdf[i].p)));

		prev = cdf[i].p;
	}

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
	var lo = Math.min(sy.domain[0], sy.domain[1]), hi = Math.max(sy.domain[0], sy.domain[1]);

	return grade.bands().map(function(b) {
		var from = Math.min(hi, Math.max(lo, base + b.from)),
		    to = Math.min(hi, Math.max(lo, base + b.to)),
		    y0 = sy(from), y1 = sy(to);

		return { grade: b.grade, key: b.key, from: from, to: to,
		         y: r1(Math.min(y0, y1)), height: r1(Math.abs(y0 - y1)) };
	});
}

/* largest (sign 1) or smallest (sign -1) finite value of the given
 * fields, or null */
function extreme(points, fields, sign) {
	var m = null;

	for (var i = 0; i < points.length; i++)
		for (var j = 0; j < fields.length; j++) {
			var v = valueOf(points[i], fields[j]);

			if (v !== null && (m === null || (v - m) * sign > 0))
				m = v;
		}

	return m;
}

function maxOf(points, fields) {
	return extreme(points, fields, 1);
}

/* ---- formatting --------------------------------------------------- */

function pad2(n) {
	return (n < 10 ? '0' : '') + n;
}

/* epoch seconds → local "HH:MM:SS" */
function clock(t) {
	var d = new Date(t * 1000);

	return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());
}

function ms(v) {
	return finite(v) ? v.toFixed(1) : '–';
}

/* tick label: as many decimals as the step needs */
function tickLabel(v, step) {
	var dec = (step > 0 && step < 1) ? Math.min(6, Math.ceil(-Math.log10(step) - 1e-9)) : 0;

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
	var step = tickStep(s.domain[0], s.domain[1], count);

	return function(v) { return tickLabel(v, step); };
}

/* bit/s → unit for an axis whose top is `max` */
function rateUnit(max) {
	if (max >= 1e9)
		return { div: 1e9, name: _('Gbit/s') };

	if (max >= 1e6)
		return { div: 1e6, name: _('Mbit/s') };

	if (max >= 1e3)
		return { div: 1e3, name: _('kbit/s') };

	return { div: 1, name: _('bit/s') };
}

/* "4.5", "18", "17.25": up to 2 decimals below 10, 1 above, no trailing zeros */
function rateText(v, unit) {
	if (!finite(v))
		return '–';

	var x = v / unit.div;

	return x.toFixed(x < 10 ? 2 : 1).replace(/\.?0+$/, '');
}

/* ---- DOM helpers -------------------------------------------------- */

function setAttrs(el, attrs) {
	for (var k in attrs)
		if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] != null)
			el.setAttribute(k, attrs[k]);

	return el;
}

/* set an attribute only when it changed (cached on the element) */
function attr(el, name, value) {
	var cache = el.__reterm || (el.__reterm = {});

	value = String(value);

	if (cache[name] !== value) {
		cache[name] = value;
		el.setAttribute(name, value);
	}
}

function svgEl(tag, attrs, parent) {
	/* document.createElementNS is in every browser; the plain
	 * createElement fallback serves minimal test DOMs */
	var el = document.createElementNS ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);

	setAttrs(el, attrs || {});

	if (parent)
		parent.appendChild(el);

	return el;
}

function htmlEl(tag, attrs, text, parent) {
	var el = setAttrs(document.createElement(tag), attrs || {});

	if (text != null)
		el.textContent = text;

	if (parent)
		parent.appendChild(el);

	return el;
}

/* keep exactly n children of `tag` (class cls) in group; returns them */
function pool(group, list, n, tag, cls) {
	while (list.length < n)
		list.push(svgEl(tag, { 'class': cls }, group));

	while (list.length > n)
		group.removeChild(list.pop());

	return list;
}

function hide(el, hidden) {
	attr(el, 'display', hidden ? 'none' : 'inline');
}

/* link graph.css once per page (LuCI serves it next to this module) */
function ensureStyle() {
	if (!document.head || !document.querySelector || typeof L === 'undefined' || !L || typeof L.resource !== 'function')
		return;

	if (document.querySelector('link[data-reterm-graph]'))
		return;

	document.head.appendChild(setAttrs(document.createElement('link'), {
		rel: 'stylesheet', href: L.resource('reterm/graph.css'), 'data-reterm-graph': '1'
	}));
}

/* ---- chart base --------------------------------------------------- */

var Chart = baseclass.extend({
	__name__: 'reterm.graph.Chart',

	/** chart kind, part of the class name: reterm-graph-<kind> */
	kind: 'chart',

	margin: { top: 22, right: 14, bottom: 24, left: 46 },

	/**
	 * @param {Object} [opts]
	 * @param {number} [opts.width=720] viewBox width (scales with the page)
	 * @param {number} [opts.height=180] viewBox height
	 * @param {string} [opts.title] accessible name and table caption
	 */
	__init__: function(opts) {
		opts = opts || {};

		this.opts = opts;
		this.width = (finite(opts.width) && opts.width >= 100) ? opts.width : 720;
		this.height = (finite(opts.height) && opts.height >= 60) ? opts.height : 180;
		this.title = opts.title || this.defaultTitle();
		this.uid = 'reterm-graph-' + (++seq);

		var m = this.margin;

		this.plot = { x0: m.left, x1: this.width - m.right, y0: this.height - m.bottom, y1: m.top };

		ensureStyle();

		this.node = htmlEl('div', { 'class': 'reterm-graph reterm-graph-' + this.kind });
		this.legend = htmlEl('div', { 'class': 'reterm-legend', 'aria-hidden': 'true' }, null, this.node);

		this.svg = svgEl('svg', {
			'class': 'reterm-graph-svg', viewBox: '0 0 ' + this.width + ' ' + this.height,
			preserveAspectRatio: 'xMidYMid meet', role: 'img', 'aria-label': this.title, focusable: 'false'
		}, this.node);

		var defs = svgEl('defs', null, this.svg),
		    clip = svgEl('clipPath', { id: this.uid + '-clip' }, defs);

		svgEl('rect', { x: this.plot.x0, y: this.plot.y1, width: this.plot.x1 - this.plot.x0,
		                height: this.plot.y0 - this.plot.y1 }, clip);

		this.gBack = svgEl('g', { 'class': 'reterm-back' }, this.svg);
		this.gGrid = svgEl('g', { 'class': 'reterm-grid' }, this.svg);
		this.gData = svgEl('g', { 'class': 'reterm-data', 'clip-path': 'url(#' + this.uid + '-clip)' }, this.svg);
		this.gAxes = svgEl('g', { 'class': 'reterm-axes' }, this.svg);

		svgEl('line', { 'class': 'reterm-axis-line', x1: this.plot.x0, x2: this.plot.x1,
		                y1: this.plot.y0, y2: this.plot.y0 }, this.gAxes);

		this.yUnit = svgEl('text', { 'class': 'reterm-unit', x: 4, y: this.plot.y1 - 10 }, this.gAxes);
		this.emptyText = svgEl('text', {
			'class': 'reterm-empty', x: (this.plot.x0 + this.plot.x1) / 2, y: (this.plot.y0 + this.plot.y1) / 2,
			'text-anchor': 'middle', display: 'none'
		}, this.svg);
		this.emptyText.textContent = _('No data yet');

		this._grid = [];
		this._yLabels = [];
		this._xTicks = [];
		this._xLabels = [];
		this._rows = [];

		/* the wrapper keeps the table off-screen but in the accessibility
		 * tree; graph.css lets the browser skip its layout (a 600-row
		 * table would otherwise dominate the redraw) */
		this.tableWrap = htmlEl('div', { 'class': 'reterm-sr-table' }, null, this.node);
		this.table = htmlEl('table', null, null, this.tableWrap);
		htmlEl('caption', null, this.title, this.table);

		var hr = htmlEl('tr', null, null, htmlEl('thead', null, null, this.table));

		this.columns().forEach(function(c) {
			htmlEl('th', { scope: 'col' }, c, hr);
		});

		this.tbody = htmlEl('tbody', null, null, this.table);

		this.setup();
		this.update(null, {});
	},

	/** translated default title; charts override */
	defaultTitle: function() {
		return _('Chart');
	},

	/** table column headers; charts override */
	columns: function() {
		return [];
	},

	/** create chart-specific elements; charts override */
	setup: function() {},

	/** redraw with new data; charts override */
	update: function(data, opts) {},

	/** legend entries: [[cssKey, label], …] */
	_legend: function(items) {
		var leg = this.legend;

		leg.textContent = '';

		items.forEach(function(it) {
			htmlEl('span', { 'class': 'reterm-key reterm-key-' + it[0] }, it[1], leg);
		});
	},

	_empty: function(isEmpty, message) {
		this.node.classList.toggle('reterm-graph-empty', !!isEmpty);
		hide(this.emptyText, !isEmpty);

		if (isEmpty && message && this.emptyText.textContent !== message)
			this.emptyText.textContent = message;
	},

	_label: function(text) {
		attr(this.svg, 'aria-label', text ? this.title + ': ' + text : this.title);
	},

	/* horizontal grid lines and left labels for y ticks */
	_yAxis: function(sy, values, fmt, unit) {
		var p = this.plot,
		    lines = pool(this.gGrid, this._grid, values.length, 'line', 'reterm-gridline'),
		    labels = pool(this.gAxes, this._yLabels, values.length, 'text', 'reterm-tick reterm-tick-y');

		for (var i = 0; i < values.length; i++) {
			var y = r1(sy(values[i]));

			attr(lines[i], 'x1', p.x0);
			attr(lines[i], 'x2', p.x1);
			attr(lines[i], 'y1', y);
			attr(lines[i], 'y2', y);
			attr(labels[i], 'x', p.x0 - 6);
			attr(labels[i], 'y', y + 3.5);

			var t = fmt(values[i]);

			if (labels[i].textContent !== t)
				labels[i].textContent = t;
		}

		if (this.yUnit.textContent !== (unit || ''))
			this.yUnit.textContent = unit || '';
	},

	/* x tick marks and labels */
	_xAxis: function(sx, values, label) {
		var p = this.plot,
		    marks = pool(this.gAxes, this._xTicks, values.length, 'line', 'reterm-tickmark'),
		    labels = pool(this.gAxes, this._xLabels, values.length, 'text', 'reterm-tick reterm-tick-x');

		for (var i = 0; i < values.length; i++) {
			var x = r1(sx(values[i])), t = label(values[i]);

			attr(marks[i], 'x1', x);
			attr(marks[i], 'x2', x);
			attr(marks[i], 'y1', p.y0);
			attr(marks[i], 'y2', p.y0 + 4);
			attr(labels[i], 'x', x);
			attr(labels[i], 'y', p.y0 + 15);
			/* keep the outermost labels inside the viewBox */
			attr(labels[i], 'text-anchor', x > p.x1 - 20 ? 'end' : (x < p.x0 + 20 ? 'start' : 'middle'));

			if (labels[i].textContent !== t)
				labels[i].textContent = t;
		}
	},

	/**
	 * Sync the table body with rows (arrays of cell strings; the first
	 * cell is a row header). Rows are matched by content: when the data
	 * only moved on (old rows dropped in front, new ones appended), only
	 * those rows are touched.
	 */
	_table: function(rows) {
		var old = this._rows, keys = new Array(rows.length), i;

		for (i = 0; i < rows.length; i++)
			keys[i] = rows[i].join('\u0001');

		if (!rows.length) {
			this.tbody.textContent = '';
			this._rows = [];

			var tr = htmlEl('tr', null, null, this.tbody);

			htmlEl('td', { colspan: this.columns().length || 1 }, _('No data yet'), tr);

			return;
		}

		if (old.length === 0)
			this.tbody.textContent = '';

		/* drop leading rows until the first new row lines up */
		var shift = 0;

		if (old.length && keys.length) {
			for (shift = 0; shift < old.length && old[shift].key !== keys[0]; shift++);

			if (shift === old.length)
				shift = 0;
		}

		for (i = 0; i < shift; i++)
			this.tbody.removeChild(old[i].tr);

		old = old.slice(shift);

		while (old.length > rows.length)
			this.tbody.removeChild(old.pop().tr);

		for (i = 0; i < rows.length; i++) {
			if (i < old.length) {
				if (old[i].key === keys[i])
					continue;

				var cells = old[i].tr.children;

				for (var c = 0; c < rows[i].length; c++)
					if (cells[c] && cells[c].textContent !== rows[i][c])
						cells[c].textContent = rows[i][c];

				old[i].key = keys[i];
			}
			else {
				var row = htmlEl('tr', null, null, this.tbody);

				for (var j = 0; j < rows[i].length; j++)
					htmlEl(j ? 'td' : 'th', j ? null : { scope: 'row' }, rows[i][j], row);

				old.push({ key: keys[i], tr: row });
			}
		}

		this._rows = old;
	}
});

/* x range for time-series charts: opts.from/to, else the points' span */
function timeRange(points, opts, span) {
	var to = finite(opts.to) ? opts.to : (points.length ? points[points.length - 1].t : 0),
	    from = finite(opts.from) ? opts.from : to - span;

	if (!(from < to))
		from = to - span;

	return { from: from, to: to };
}

function usable(points) {
	return Array.isArray(points) ? points.filter(function(p) { return p != null && finite(p.t); }) : [];
}

/* what every time-series chart's update() starts from: the usable points,
 * the step (s, default 1) and the x range (default span 600 s) */
function timeSeries(points, opts) {
	var pts = usable(points);

	return {
		pts: pts,
		step: (finite(opts.step) && opts.step > 0) ? opts.step : 1,
		tr: timeRange(pts, opts, finite(opts.span) ? opts.span : 600)
	};
}

/* ---- latency strip ------------------------------------------------ */

var LatencyStrip = Chart.extend({
	__name__: 'reterm.graph.LatencyStrip',
	kind: 'latency',

	defaultTitle: function() { return _('Latency'); },

	columns: function() {
		return [_('Time'), _('Min (ms)'), _('Median (ms)'), _('Max (ms)')];
	},

	setup: function() {
		var self = this;

		this.bands = grade.bands().map(function(b) {
			return svgEl('rect', { 'class': 'reterm-band reterm-band-' + b.key, x: self.plot.x0,
			                       width: self.plot.x1 - self.plot.x0, y: 0, height: 0 }, self.gBack);
		});
		this.bandLabels = grade.bands().map(function(b) {
			var t = svgEl('text', { 'class': 'reterm-band-label reterm-band-label-' + b.key,
			                        x: self.plot.x1 - 4, 'text-anchor': 'end' }, self.gBack);

			t.textContent = b.grade;

			return t;
		});
		this.range = svgEl('path', { 'class': 'reterm-s-range', d: '' }, this.gData);
		this.median = svgEl('path', { 'class': 'reterm-s-med', d: '' }, this.gData);
		this.baseline = svgEl('line', { 'class': 'reterm-s-base', x1: this.plot.x0, x2: this.plot.x1 }, this.gData);
		this._legend([['med', _('Median')], ['range', _('Min–max')], ['base', _('Baseline')], ['bands', _('Grade bands')]]);
	},

	/**
	 * @param {Object[]} points ring points {t, min, med, max, base?}
	 * @param {Object} [opts]
	 * @param {number} [opts.from], [opts.to] x range, epoch s (default:
	 *   the last `span` seconds up to the newest point)
	 * @param {number} [opts.span=600] seconds shown when from is unknown
	 * @param {number} [opts.step=1] seconds per point (gap detection)
	 * @param {number} [opts.base] baseline RTT ms (default: the newest
	 *   point's base, else the lowest min)
	 */
	update: function(points, opts) {
		opts = opts || {};

		var ts = timeSeries(points, opts),
		    pts = ts.pts, step = ts.step, tr = ts.tr,
		    p = this.plot,
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    top = maxOf(pts, ['max', 'med', 'min']),
		    base = finite(opts.base) ? opts.base : null;

		for (var i = pts.length - 1; base === null && i >= 0; i--)
			if (finite(pts[i].base))
				base = pts[i].base;

		if (base === null)
			base = extreme(pts, ['min', 'med'], -1);

		var empty = top === null,
		    yTop = Math.max(top || 0, (base || 0) + 40, 10),
		    sy = scale([0, yTop], [p.y0, p.y1]).nice(4),
		    yt = sy.ticks(4),
		    xt = timeTicks(tr.from, tr.to, 6);

		this._yAxis(sy, yt, stepLabel(sy, 4), _('ms'));
		this._xAxis(sx, xt.values, function(t) { return agoLabel(Math.round(tr.to - t)); });

		var gb = base === null ? [] : gradeBands(sy, base);

		for (var b = 0; b < this.bands.length; b++) {
			var band = gb[b] || { y: 0, height: 0 };

			attr(this.bands[b], 'y', band.y);
			attr(this.bands[b], 'height', band.height);
			/* label a band when there is room for the text */
			hide(this.bandLabels[b], band.height < 11);
			attr(this.bandLabels[b], 'y', r1(band.y + Math.min(band.height, 40) / 2 + 3.5));
		}

		attr(this.median, 'd', linePath(pts, 't', 'med', sx, sy, 1.5 * step));
		attr(this.range, 'd', bandPath(pts, 't', 'min', 'max', sx, sy, 1.5 * step));

		hide(this.baseline, base === null);

		if (base !== null) {
			attr(this.baseline, 'y1', r1(sy(base)));
			attr(this.baseline, 'y2', r1(sy(base)));
		}

		this._empty(empty);

		var rows = [];

		/* one row per point; '–' marks a second whose probes were lost */
		for (var k = 0; k < pts.length; k++)
			rows.push([clock(pts[k].t), ms(pts[k].min), ms(pts[k].med), ms(pts[k].max)]);

		this._table(rows);

		var last = null;

		for (var j = pts.length - 1; last === null && j >= 0; j--)
			if (finite(pts[j].med))
				last = pts[j].med;

		this._label(empty ? _('no data yet') :
			_('median now %s ms, baseline %s ms, highest %s ms').format(ms(last), ms(base), ms(top)));
	}
});

/* ---- throughput --------------------------------------------------- */

var Throughput = Chart.extend({
	__name__: 'reterm.graph.Throughput',
	kind: 'throughput',

	defaultTitle: function() { return _('WAN throughput'); },

	columns: function() {
		return [_('Time'), _('Download'), _('Upload')];
	},

	setup: function() {
		this.rxArea = svgEl('path', { 'class': 'reterm-s-rx-area', d: '' }, this.gData);
		this.rx = svgEl('path', { 'class': 'reterm-s-rx', d: '' }, this.gData);
		this.tx = svgEl('path', { 'class': 'reterm-s-tx', d: '' }, this.gData);
		this.shaperRx = svgEl('line', { 'class': 'reterm-s-shaper reterm-s-shaper-rx', x1: this.plot.x0, x2: this.plot.x1 }, this.gData);
		this.shaperTx = svgEl('line', { 'class': 'reterm-s-shaper reterm-s-shaper-tx', x1: this.plot.x0, x2: this.plot.x1 }, this.gData);
		this.shaperRxLabel = svgEl('text', { 'class': 'reterm-shaper-label reterm-shaper-label-rx', x: this.plot.x0 + 4 }, this.gAxes);
		this.shaperTxLabel = svgEl('text', { 'class': 'reterm-shaper-label reterm-shaper-label-tx', x: this.plot.x0 + 4 }, this.gAxes);
		this._legend([['rx', _('Download')], ['tx', _('Upload')], ['shaper', _('Shaper rate')]]);
	},

	/**
	 * @param {Object[]} points ring points {t, rx_bps, tx_bps}
	 * @param {Object} [opts] from, to, span, step as LatencyStrip;
	 *   shaper: {rx, tx} configured rates in bit/s (null/0 = none)
	 */
	update: function(points, opts) {
		opts = opts || {};

		var ts = timeSeries(points, opts),
		    pts = ts.pts, step = ts.step, tr = ts.tr,
		    p = this.plot,
		    sh = opts.shaper || {},
		    srx = (finite(sh.rx) && sh.rx > 0) ? sh.rx : null,
		    stx = (finite(sh.tx) && sh.tx > 0) ? sh.tx : null,
		    top = maxOf(pts, ['rx_bps', 'tx_bps']),
		    yTop = Math.max(top || 0, srx || 0, stx || 0) * 1.08 || 1e6,
		    unit = rateUnit(yTop),
		    sy = scale([0, yTop / unit.div], [p.y0, p.y1]).nice(4),
		    sb = function(v) { return sy(v / unit.div); },
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    xt = timeTicks(tr.from, tr.to, 6),
		    gap = 1.5 * step;

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), unit.name);
		this._xAxis(sx, xt.values, function(t) { return agoLabel(Math.round(tr.to - t)); });

		var rxLine = linePath(pts, 't', 'rx_bps', sx, sb, gap),
		    zero = function() { return 0; };

		attr(this.rx, 'd', rxLine);
		attr(this.rxArea, 'd', bandPath(pts, 't', zero, 'rx_bps', sx, sb, gap));
		attr(this.tx, 'd', linePath(pts, 't', 'tx_bps', sx, sb, gap));

		var lines = [[this.shaperRx, this.shaperRxLabel, srx, _('Shaper ↓ %s')],
		             [this.shaperTx, this.shaperTxLabel, stx, _('Shaper ↑ %s')]];

		for (var i = 0; i < lines.length; i++) {
			var l = lines[i], y = l[2] === null ? 0 : r1(sb(l[2]));

			hide(l[0], l[2] === null);
			hide(l[1], l[2] === null);

			if (l[2] === null)
				continue;

			attr(l[0], 'y1', y);
			attr(l[0], 'y2', y);
			attr(l[1], 'y', y - 3);

			var txt = l[3].format(rateText(l[2], unit) + ' ' + unit.name);

			if (l[1].textContent !== txt)
				l[1].textContent = txt;
		}

		/* two shaper labels too close: put the upload one below its line */
		if (srx !== null && stx !== null && Math.abs(sb(srx) - sb(stx)) < 12)
			attr(this.shaperTxLabel, 'y', r1(sb(stx) + 11));

		this._empty(top === null);

		var rows = [];

		for (var k = 0; k < pts.length; k++)
			rows.push([clock(pts[k].t), rateText(pts[k].rx_bps, unit) + ' ' + unit.name,
			           rateText(pts[k].tx_bps, unit) + ' ' + unit.name]);

		this._table(rows);

		var last = pts.length ? pts[pts.length - 1] : {};

		this._label(top === null ? _('no data yet') :
			_('download now %s, upload now %s, highest %s').format(
				rateText(last.rx_bps, unit) + ' ' + unit.name, rateText(last.tx_bps, unit) + ' ' + unit.name,
				rateText(top, unit) + ' ' + unit.name));
	}
});

/* ---- CAKE delay and drops ----------------------------------------- */

var Cake = Chart.extend({
	__name__: 'reterm.graph.Cake',
	kind: 'cake',

	margin: { top: 22, right: 58, bottom: 24, left: 46 },

	defaultTitle: function() { return _('CAKE delay and drops'); },

	columns: function() {
		return [_('Time'), _('Download delay (ms)'), _('Upload delay (ms)'), _('Drops'), _('ECN marks')];
	},

	setup: function() {
		this.drops = svgEl('path', { 'class': 'reterm-s-drops', d: '' }, this.gData);
		this.dl = svgEl('path', { 'class': 'reterm-s-dl', d: '' }, this.gData);
		this.ul = svgEl('path', { 'class': 'reterm-s-ul', d: '' }, this.gData);
		this.dropMax = svgEl('text', { 'class': 'reterm-tick reterm-tick-drops', x: this.plot.x1 + 4,
		                               y: this.plot.y0 - 2 }, this.gAxes);
		this._legend([['dl', _('Download delay')], ['ul', _('Upload delay')], ['drops', _('Drops')]]);
	},

	/**
	 * @param {Object[]} points ring points {t, dl_pk, ul_pk, dl_drop,
	 *   ul_drop, dl_ecn, ul_ecn}
	 * @param {Object} [opts] from, to, span, step as LatencyStrip
	 */
	update: function(points, opts) {
		opts = opts || {};

		var ts = timeSeries(points, opts),
		    pts = ts.pts, step = ts.step, tr = ts.tr,
		    p = this.plot,
		    top = maxOf(pts, ['dl_pk', 'ul_pk']),
		    sy = scale([0, Math.max(top || 0, 5)], [p.y0, p.y1]).nice(4),
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    xt = timeTicks(tr.from, tr.to, 6),
		    sum = function(a, b) {
			    return function(q) {
				    return (finite(q[a]) || finite(q[b])) ? (q[a] || 0) + (q[b] || 0) : null;
			    };
		    },
		    drops = sum('dl_drop', 'ul_drop'), marks = sum('dl_ecn', 'ul_ecn'),
		    dTop = maxOf(pts, [drops]) || 0,
		    /* drops use the lower third of the plot, their own scale */
		    sd = scale([0, Math.max(dTop, 1)], [p.y0, p.y0 - (p.y0 - p.y1) / 3]);

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), _('ms'));
		this._xAxis(sx, xt.values, function(t) { return agoLabel(Math.round(tr.to - t)); });

		attr(this.dl, 'd', linePath(pts, 't', 'dl_pk', sx, sy, 1.5 * step));
		attr(this.ul, 'd', linePath(pts, 't', 'ul_pk', sx, sy, 1.5 * step));

		var bars = [];

		for (var i = 0; i < pts.length; i++) {
			var dv = drops(pts[i]);

			if (dv)
				bars.push('M' + r1(sx(pts[i].t)) + ',' + r1(p.y0) + 'V' + r1(sd(dv)));
		}

		attr(this.drops, 'd', bars.join(''));

		var dm = dTop ? N_(dTop, '%d drop', '%d drops').format(dTop) : '';

		if (this.dropMax.textContent !== dm)
			this.dropMax.textContent = dm;

		attr(this.dropMax, 'y', r1(sd(Math.max(dTop, 1)) + 3.5));

		var empty = top === null && !dTop;

		this._empty(empty);

		var rows = [];

		for (var k = 0; k < pts.length; k++) {
			var q = pts[k], dq = drops(q), mq = marks(q);

			rows.push([clock(q.t), ms(q.dl_pk), ms(q.ul_pk), dq === null ? '–' : String(dq), mq === null ? '–' : String(mq)]);
		}

		this._table(rows);

		this._label(empty ? _('no data yet') :
			_('highest delay %s ms, at most %d drops per interval').format(ms(top), dTop));
	}
});

/* ---- test result: phases on one time axis ------------------------- */

var PHASES = {
	idle: function() { return _('Idle'); },
	download: function() { return _('Download'); },
	upload: function() { return _('Upload'); },
	both: function() { return _('Both'); },
	cooldown: function() { return _('Cooldown'); }
};

function phaseLabel(name) {
	return PHASES[name] ? PHASES[name]() : String(name);
}

function phaseKey(name) {
	return PHASES[name] ? name : 'other';
}

/* a probe sample as {t: seconds, rtt} (input {t: ms, rtt} or [t, rtt]) */
function probe(s) {
	var t = Array.isArray(s) ? s[0] : (s ? s.t : null),
	    rtt = Array.isArray(s) ? s[1] : (s ? s.rtt : null);

	return finite(t) ? { t: t / 1000, rtt: (finite(rtt) && rtt >= 0) ? rtt : null } : null;
}

var Phases = Chart.extend({
	__name__: 'reterm.graph.Phases',
	kind: 'phases',

	defaultTitle: function() { return _('Latency during the test'); },

	columns: function() {
		return [_('Phase'), _('Time (s)'), _('Mean added (ms)'), _('95th percentile added (ms)'),
		        _('Peak added (ms)'), _('Probe loss')];
	},

	setup: function() {
		this._shades = [];
		this._shadeLabels = [];
		this.line = svgEl('path', { 'class': 'reterm-s-probe', d: '' }, this.gData);
		this.baseline = svgEl('line', { 'class': 'reterm-s-base', x1: this.plot.x0, x2: this.plot.x1 }, this.gData);
		this._legend([['probe', _('Probe RTT')], ['base', _('Idle baseline')]]);
	},

	/**
	 * @param {Object} result
	 * @param {Object[]} result.phases [{name: 'idle'|'download'|'upload'|
	 *   'both'|'cooldown', start, end}] seconds from the test start
	 * @param {Array} result.samples probe samples {t: ms from the test
	 *   start, rtt: ms|null} or [t, rtt]; null rtt = lost
	 * @param {number} result.baseline idle RTT, ms
	 */
	update: function(result) {
		var res = (result && typeof result === 'object') ? result : {},
		    phases = Array.isArray(res.phases) ? res.phases.filter(function(ph) {
			    return ph && finite(ph.start) && finite(ph.end) && ph.end > ph.start;
		    }) : [],
		    samples = (Array.isArray(res.samples) ? res.samples : []).map(probe).filter(Boolean),
		    base = (finite(res.baseline) && res.baseline >= 0) ? res.baseline : null,
		    p = this.plot;

		samples.sort(function(a, b) { return a.t - b.t; });

		var end = Math.max(phases.length ? phases[phases.length - 1].end : 0,
		                   samples.length ? samples[samples.length - 1].t : 0, 1),
		    top = maxOf(samples, ['rtt']),
		    sx = scale([0, end], [p.x0, p.x1]),
		    sy = scale([0, Math.max(top || 0, (base || 0) + 40, 10)], [p.y0, p.y1]).nice(4),
		    spacing = [];

		for (var i = 1; i < samples.length; i++)
			spacing.push(samples[i].t - samples[i - 1].t);

		spacing.sort(function(a, b) { return a - b; });

		var gap = spacing.length ? 1.5 * spacing[spacing.length >> 1] : Infinity,
		    shades = pool(this.gBack, this._shades, phases.length, 'rect', 'reterm-phase'),
		    labels = pool(this.gBack, this._shadeLabels, phases.length, 'text', 'reterm-phase-label');

		for (var j = 0; j < phases.length; j++) {
			var x0 = r1(sx(phases[j].start)), x1 = r1(sx(phases[j].end)), txt = phaseLabel(phases[j].name);

			attr(shades[j], 'class', 'reterm-phase reterm-phase-' + phaseKey(phases[j].name));
			attr(shades[j], 'x', x0);
			attr(shades[j], 'width', r1(x1 - x0));
			attr(shades[j], 'y', p.y1);
			attr(shades[j], 'height', p.y0 - p.y1);
			attr(labels[j], 'x', r1((x0 + x1) / 2));
			attr(labels[j], 'y', p.y1 + 11);
			attr(labels[j], 'text-anchor', 'middle');
			/* narrow phases (2 s idle) keep their shade, not their label */
			hide(labels[j], x1 - x0 < txt.length * 6);

			if (labels[j].textContent !== txt)
				labels[j].textContent = txt;
		}

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), _('ms'));
		this._xAxis(sx, timeTicks(0, end, 8, 0).values, function(t) { return _('%d s').format(t); });

		attr(this.line, 'd', linePath(samples, 't', 'rtt', sx, sy, gap));
		hide(this.baseline, base === null);

		if (base !== null) {
			attr(this.baseline, 'y1', r1(sy(base)));
			attr(this.baseline, 'y2', r1(sy(base)));
		}

		this._empty(top === null);

		var rows = [], summary = [];

		for (var k = 0; k < phases.length; k++) {
			var ph = phases[k],
			    inPhase = samples.filter(function(s) { return s.t >= ph.start && s.t < ph.end; })
			                     .map(function(s) { return [s.t * 1000, s.rtt]; }),
			    st = base === null ? null : grade.phaseStats(inPhase, base);

			rows.push([phaseLabel(ph.name), '%s–%s'.format(ph.start, ph.end),
			           ms(st && st.mean), ms(st && st.p95), ms(st && st.peak),
			           st ? '%.1f%%'.format(st.loss * 100) : '–']);

			if (st && st.mean !== null && ph.name !== 'idle' && ph.name !== 'cooldown')
				summary.push(_('%s +%s ms').format(phaseLabel(ph.name), ms(st.mean)));
		}

		this._table(rows);
		this._label(top === null ? _('no data yet') :
			_('idle baseline %s ms; mean added latency: %s').format(ms(base), summary.join(', ') || '–'));
	}
});

/* ---- latency CDF per phase ---------------------------------------- */

var Cdf = Chart.extend({
	__name__: 'reterm.graph.Cdf',
	kind: 'cdf',

	defaultTitle: function() { return _('Latency distribution per phase'); },

	columns: function() {
		return [_('Phase'), _('Median (ms)'), _('90th percentile (ms)'), _('95th percentile (ms)'),
		        _('99th percentile (ms)'), _('Max (ms)')];
	},

	setup: function() {
		this._lines = [];
		this.xUnit = svgEl('text', { 'class': 'reterm-unit reterm-unit-x', x: this.plot.x1 - 2,
		                             y: this.plot.y0 - 5, 'text-anchor': 'end' }, this.gAxes);
	},

	/**
	 * @param {Object[]} series [{name: phase name, label?: string,
	 *   values: number[] (added latency, ms)}]
	 * @param {Object} [opts] {xLabel: axis unit, default "ms"}
	 */
	update: function(series, opts) {
		opts = opts || {};

		var list = (Array.isArray(series) ? series : []).filter(function(s) { return s && typeof s === 'object'; })
			.map(function(s) {
				return { name: String(s.name), label: s.label || phaseLabel(s.name), values: s.values,
				         cdf: grade.cdf(s.values) };
			}),
		    drawn = list.filter(function(s) { return s.cdf; }),
		    top = 0,
		    p = this.plot;

		drawn.forEach(function(s) { top = Math.max(top, s.cdf[s.cdf.length - 1].x); });

		var sx = scale([0, Math.max(top, 1)], [p.x0, p.x1]).nice(6),
		    sy = scale([0, 1], [p.y0, p.y1]),
		    xStep = tickStep(sx.domain[0], sx.domain[1], 6),
		    lines = pool(this.gData, this._lines, drawn.length, 'path', 'reterm-s-cdf');

		this._yAxis(sy, [0, 0.25, 0.5, 0.75, 1], function(v) { return (v * 100) + '%'; }, '');
		this._xAxis(sx, sx.ticks(6), function(v) { return tickLabel(v, xStep); });

		var xu = opts.xLabel || _('ms above idle');

		if (this.xUnit.textContent !== xu)
			this.xUnit.textContent = xu;

		for (var i = 0; i < drawn.length; i++) {
			attr(lines[i], 'class', 'reterm-s-cdf reterm-s-cdf-' + phaseKey(drawn[i].name));
			attr(lines[i], 'd', stepPath(drawn[i].cdf, sx, sy));
		}

		this._legend(drawn.map(function(s) { return ['cdf-' + phaseKey(s.name), s.label]; }));

		this._empty(!drawn.length);

		var pc = function(s, q) { return ms(grade.percentile(s.values, q)); };

		this._table(list.map(function(s) {
			return [s.label, pc(s, 50), pc(s, 90), pc(s, 95), pc(s, 99), pc(s, 100)];
		}));

		this._label(!drawn.length ? _('no data yet') : drawn.map(function(s) {
			return _('%s: median %s ms, 95th percentile %s ms').format(s.label, pc(s, 50), pc(s, 95));
		}).join('; '));
	}
});

return baseclass.extend({
	__name__: 'reterm.graph',

	SVG_NS: SVG_NS,

	/* pure geometry */
	scale: scale,
	ticks: ticks,
	tickStep: tickStep,
	timeTicks: timeTicks,
	runs: runs,
	linePath: linePath,
	bandPath: bandPath,
	stepPath: stepPath,
	gradeBands: gradeBands,
	clock: clock,
	agoLabel: agoLabel,

	/* chart classes, for subclassing */
	Chart: Chart,
	LatencyStrip: LatencyStrip,
	Throughput: Throughput,
	Cake: Cake,
	Phases: Phases,
	Cdf: Cdf,

	/** Latency strip: median line, min–max band, baseline, grade bands. */
	latencyStrip: function(opts) { return new LatencyStrip(opts); },

	/** Download/upload throughput with dashed shaper-rate lines. */
	throughput: function(opts) { return new Throughput(opts); },

	/** CAKE peak delay per direction and drops. */
	cake: function(opts) { return new Cake(opts); },

	/** Test result: latency over the test with the phases shaded. */
	phases: function(opts) { return new Phases(opts); },

	/** Latency CDF, one line per phase. */
	cdf: function(opts) { return new Cdf(opts); }
});
