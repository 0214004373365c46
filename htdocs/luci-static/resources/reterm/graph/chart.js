'use strict';
'require baseclass';
'require reterm.graph.geom as geom';

/*
 * The base of the reterm charts (small SVG charts, no chart library):
 * the chart's DOM, its axes and legend, the empty state, and the
 * visually hidden table of the plotted numbers that screen readers
 * read. Use as: 'require reterm.graph.chart as chart';
 *
 * Every chart is { node, svg, table, update(data, opts) }: `node` is a
 * <div class="reterm-graph reterm-graph-<kind>"> holding an HTML legend,
 * the <svg role="img" aria-label="…summary…"> and the table.
 * update() reuses the existing elements (table rows are diffed by
 * content), so a live redraw of 600 points stays cheap. Empty or
 * unusable data draws an empty state ("No data yet"), never throws.
 *
 * Colours come from graph.css (classes reterm-s-*, reterm-band-<grade>,
 * reterm-phase-<name>) through CSS custom properties and currentColor,
 * so the charts follow LuCI's light and dark bootstrap themes. The first
 * chart links graph.css (L.resource('reterm/graph.css')) once per page.
 *
 * A chart kind extends Chart with kind, defaultTitle(), columns(),
 * setup() (its own elements) and update(); the DOM helpers svgEl(),
 * htmlEl(), attr(), hide(), pool() and setText() are exported for them.
 * linkStyle(file) links one of the app's style sheets once per page
 * (the views use it for their own, e.g. 'reterm/overview.css').
 * The live charts are in reterm.graph.live, the result charts in
 * reterm.graph.result.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

let seq = 0;

function setAttrs(el, attrs) {
	for (const k in attrs)
		if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] != null)
			el.setAttribute(k, attrs[k]);

	return el;
}

/* set an attribute only when it changed (cached on the element) */
function attr(el, name, value) {
	const cache = el.__reterm || (el.__reterm = {}), v = String(value);

	if (cache[name] !== v) {
		cache[name] = v;
		el.setAttribute(name, v);
	}
}

function svgEl(tag, attrs, parent) {
	/* document.createElementNS is in every browser; the plain
	 * createElement fallback serves minimal test DOMs */
	const el = document.createElementNS ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);

	setAttrs(el, attrs || {});

	if (parent)
		parent.appendChild(el);

	return el;
}

function htmlEl(tag, attrs, text, parent) {
	const el = setAttrs(document.createElement(tag), attrs || {});

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

function setText(el, text) {
	if (el.textContent !== text)
		el.textContent = text;
}

/* link a style sheet of this app once per page (LuCI serves it next to
 * the modules): linkStyle('reterm/graph.css') */
function linkStyle(file) {
	if (!document.head || !document.querySelector || typeof L === 'undefined' || !L || typeof L.resource !== 'function')
		return;

	if (document.querySelector('link[data-reterm-css="' + file + '"]'))
		return;

	document.head.appendChild(setAttrs(document.createElement('link'), {
		rel: 'stylesheet', href: L.resource(file), 'data-reterm-css': file
	}));
}

const Chart = baseclass.extend({
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
	__init__(opts) {
		const o = opts || {}, m = this.margin, finite = geom.finite;

		this.opts = o;
		this.width = (finite(o.width) && o.width >= 100) ? o.width : 720;
		this.height = (finite(o.height) && o.height >= 60) ? o.height : 180;
		this.title = o.title || this.defaultTitle();
		this.uid = 'reterm-graph-' + (++seq);
		this.plot = { x0: m.left, x1: this.width - m.right, y0: this.height - m.bottom, y1: m.top };

		linkStyle('reterm/graph.css');

		const p = this.plot;

		this.node = htmlEl('div', { 'class': 'reterm-graph reterm-graph-' + this.kind });
		this.legend = htmlEl('div', { 'class': 'reterm-legend', 'aria-hidden': 'true' }, null, this.node);
		this.svg = svgEl('svg', {
			'class': 'reterm-graph-svg', viewBox: '0 0 ' + this.width + ' ' + this.height,
			preserveAspectRatio: 'xMidYMid meet', role: 'img', 'aria-label': this.title, focusable: 'false'
		}, this.node);

		const clip = svgEl('clipPath', { id: this.uid + '-clip' }, svgEl('defs', null, this.svg));

		svgEl('rect', { x: p.x0, y: p.y1, width: p.x1 - p.x0, height: p.y0 - p.y1 }, clip);

		this.gBack = svgEl('g', { 'class': 'reterm-back' }, this.svg);
		this.gGrid = svgEl('g', { 'class': 'reterm-grid' }, this.svg);
		this.gData = svgEl('g', { 'class': 'reterm-data', 'clip-path': 'url(#' + this.uid + '-clip)' }, this.svg);
		this.gAxes = svgEl('g', { 'class': 'reterm-axes' }, this.svg);

		svgEl('line', { 'class': 'reterm-axis-line', x1: p.x0, x2: p.x1, y1: p.y0, y2: p.y0 }, this.gAxes);

		this.yUnit = svgEl('text', { 'class': 'reterm-unit', x: 4, y: p.y1 - 10 }, this.gAxes);
		this.emptyText = svgEl('text', {
			'class': 'reterm-empty', x: (p.x0 + p.x1) / 2, y: (p.y0 + p.y1) / 2,
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

		const hr = htmlEl('tr', null, null, htmlEl('thead', null, null, this.table));

		this.columns().forEach((c) => htmlEl('th', { scope: 'col' }, c, hr));
		this.tbody = htmlEl('tbody', null, null, this.table);

		this.setup();
		this.update(null, {});
	},

	/** translated default title; charts override */
	defaultTitle() {
		return _('Chart');
	},

	/** table column headers; charts override */
	columns() {
		return [];
	},

	/** create chart-specific elements; charts override */
	setup() {},

	/** redraw with new data; charts override */
	update(data, opts) {},

	/** legend entries: [[cssKey, label], …] */
	_legend(items) {
		this.legend.textContent = '';

		items.forEach((it) => htmlEl('span', { 'class': 'reterm-key reterm-key-' + it[0] }, it[1], this.legend));
	},

	_empty(isEmpty, message) {
		this.node.classList.toggle('reterm-graph-empty', !!isEmpty);
		hide(this.emptyText, !isEmpty);

		if (isEmpty && message)
			setText(this.emptyText, message);
	},

	_label(text) {
		attr(this.svg, 'aria-label', text ? this.title + ': ' + text : this.title);
	},

	/* horizontal grid lines and left labels for y ticks */
	_yAxis(sy, values, fmt, unit) {
		const p = this.plot,
		    lines = pool(this.gGrid, this._grid, values.length, 'line', 'reterm-gridline'),
		    labels = pool(this.gAxes, this._yLabels, values.length, 'text', 'reterm-tick reterm-tick-y');

		values.forEach((v, i) => {
			const y = geom.r1(sy(v));

			attr(lines[i], 'x1', p.x0);
			attr(lines[i], 'x2', p.x1);
			attr(lines[i], 'y1', y);
			attr(lines[i], 'y2', y);
			attr(labels[i], 'x', p.x0 - 6);
			attr(labels[i], 'y', y + 3.5);
			setText(labels[i], fmt(v));
		});

		setText(this.yUnit, unit || '');
	},

	/* x tick marks and labels */
	_xAxis(sx, values, label) {
		const p = this.plot,
		    marks = pool(this.gAxes, this._xTicks, values.length, 'line', 'reterm-tickmark'),
		    labels = pool(this.gAxes, this._xLabels, values.length, 'text', 'reterm-tick reterm-tick-x');

		values.forEach((v, i) => {
			const x = geom.r1(sx(v));

			attr(marks[i], 'x1', x);
			attr(marks[i], 'x2', x);
			attr(marks[i], 'y1', p.y0);
			attr(marks[i], 'y2', p.y0 + 4);
			attr(labels[i], 'x', x);
			attr(labels[i], 'y', p.y0 + 15);
			/* keep the outermost labels inside the viewBox */
			attr(labels[i], 'text-anchor', x > p.x1 - 20 ? 'end' : (x < p.x0 + 20 ? 'start' : 'middle'));
			setText(labels[i], label(v));
		});
	},

	/* x axis of a live chart: "now" at the right end, "−2 min" … */
	_agoAxis(sx, tr) {
		this._xAxis(sx, geom.timeTicks(tr.from, tr.to, 6).values, (t) => geom.agoLabel(Math.round(tr.to - t)));
	},

	/**
	 * Sync the table body with rows (arrays of cell strings; the first
	 * cell is a row header). Rows are matched by content: when the data
	 * only moved on (old rows dropped in front, new ones appended), only
	 * those rows are touched.
	 */
	_table(rows) {
		const keys = rows.map((r) => r.join('\u0001'));
		let old = this._rows;

		if (!rows.length) {
			this.tbody.textContent = '';
			this._rows = [];
			htmlEl('td', { colspan: this.columns().length || 1 }, _('No data yet'), htmlEl('tr', null, null, this.tbody));
			return;
		}

		if (old.length === 0)
			this.tbody.textContent = '';

		/* drop leading rows until the first new row lines up */
		let shift = old.findIndex((o) => o.key === keys[0]);

		if (shift < 0)
			shift = 0;

		old.slice(0, shift).forEach((o) => this.tbody.removeChild(o.tr));
		old = old.slice(shift);

		while (old.length > rows.length)
			this.tbody.removeChild(old.pop().tr);

		rows.forEach((row, i) => {
			if (i >= old.length) {
				const tr = htmlEl('tr', null, null, this.tbody);

				row.forEach((cell, j) => htmlEl(j ? 'td' : 'th', j ? null : { scope: 'row' }, cell, tr));
				old.push({ key: keys[i], tr: tr });
			}
			else if (old[i].key !== keys[i]) {
				const cells = old[i].tr.children;

				row.forEach((cell, c) => { if (cells[c]) setText(cells[c], cell); });
				old[i].key = keys[i];
			}
		});

		this._rows = old;
	}
});

return baseclass.extend({
	__name__: 'reterm.graph.chart',

	SVG_NS, Chart, svgEl, htmlEl, attr, hide, pool, setText, linkStyle
});
