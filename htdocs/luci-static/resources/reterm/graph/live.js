'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.units as units';
'require reterm.graph.geom as geom';
'require reterm.graph.chart as chart';

/*
 * The live charts of the Overview, fed with reterm.ring points (times in
 * epoch seconds, latencies in ms, rates in bit/s).
 * Use as: 'require reterm.graph.live as graphlive';
 *
 *   const strip = graphlive.latencyStrip({height: 200, title});
 *   container.appendChild(strip.node);
 *   strip.update(ring.points(), {from, to, base, step, span});
 *
 *   latencyStrip().update(points, {from, to, base, step, span})
 *   throughput().update(points, {from, to, shaper: {rx, tx}, step, span})
 *   cake().update(points, {from, to, step, span})
 *
 * from/to: the x range (default: the last `span` s, 600, up to the
 * newest point); step: seconds per point (a longer gap breaks the line).
 * Rates are formatted by reterm.units. See reterm.graph.chart for what
 * every chart has in common.
 */

const { svgEl, attr, hide, setText } = chart;
const { finite, r1, scale, linePath, bandPath, gradeBands, extreme, maxOf, timeSeries, clock, ms, stepLabel } = geom;

const rate = (v) => units.formatRate(finite(v) ? v : null) || '–';

const LatencyStrip = chart.Chart.extend({
	__name__: 'reterm.graph.LatencyStrip',
	kind: 'latency',

	defaultTitle() { return _('Latency'); },

	columns() {
		return [_('Time'), _('Min (ms)'), _('Median (ms)'), _('Max (ms)')];
	},

	setup() {
		const p = this.plot;

		this.bands = grade.bands().map((b) => svgEl('rect', { 'class': 'reterm-band reterm-band-' + b.key,
			x: p.x0, width: p.x1 - p.x0, y: 0, height: 0 }, this.gBack));
		this.bandLabels = grade.bands().map((b) => {
			const t = svgEl('text', { 'class': 'reterm-band-label reterm-band-label-' + b.key,
				x: p.x1 - 4, 'text-anchor': 'end' }, this.gBack);

			t.textContent = b.grade;
			return t;
		});
		this.range = svgEl('path', { 'class': 'reterm-s-range', d: '' }, this.gData);
		this.median = svgEl('path', { 'class': 'reterm-s-med', d: '' }, this.gData);
		this.baseline = svgEl('line', { 'class': 'reterm-s-base', x1: p.x0, x2: p.x1 }, this.gData);
		this._legend([['med', _('Median')], ['range', _('Min–max')], ['base', _('Baseline')], ['bands', _('Grade bands')]]);
	},

	/**
	 * @param {Object[]} points ring points {t, min, med, max, base?}
	 * @param {Object} [opts] from, to, span, step (see above);
	 *   base: baseline RTT ms (default: the newest point's base, else
	 *   the lowest min)
	 */
	update(points, opts) {
		const o = opts || {},
		    { pts, step, tr } = timeSeries(points, o),
		    p = this.plot,
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    top = maxOf(pts, ['max', 'med', 'min']),
		    newest = (field) => { const q = pts.slice().reverse().find((x) => finite(x[field])); return q ? q[field] : null; };
		let base = finite(o.base) ? o.base : newest('base');

		if (base === null)
			base = extreme(pts, ['min', 'med'], -1);

		const empty = top === null,
		    sy = scale([0, Math.max(top || 0, (base || 0) + 40, 10)], [p.y0, p.y1]).nice(4),
		    gb = base === null ? [] : gradeBands(sy, base);

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), _('ms'));
		this._agoAxis(sx, tr);

		this.bands.forEach((rect, b) => {
			const band = gb[b] || { y: 0, height: 0 };

			attr(rect, 'y', band.y);
			attr(rect, 'height', band.height);
			/* label a band when there is room for the text */
			hide(this.bandLabels[b], band.height < 11);
			attr(this.bandLabels[b], 'y', r1(band.y + Math.min(band.height, 40) / 2 + 3.5));
		});

		attr(this.median, 'd', linePath(pts, 't', 'med', sx, sy, 1.5 * step));
		attr(this.range, 'd', bandPath(pts, 't', 'min', 'max', sx, sy, 1.5 * step));
		hide(this.baseline, base === null);

		if (base !== null) {
			attr(this.baseline, 'y1', r1(sy(base)));
			attr(this.baseline, 'y2', r1(sy(base)));
		}

		this._empty(empty);

		/* one row per point; '–' marks a second whose probes were lost */
		this._table(pts.map((q) => [clock(q.t), ms(q.min), ms(q.med), ms(q.max)]));
		this._label(empty ? _('no data yet') :
			_('median now %s ms, baseline %s ms, highest %s ms').format(ms(newest('med')), ms(base), ms(top)));
	}
});

const Throughput = chart.Chart.extend({
	__name__: 'reterm.graph.Throughput',
	kind: 'throughput',

	defaultTitle() { return _('WAN throughput'); },

	columns() {
		return [_('Time'), _('Download'), _('Upload')];
	},

	setup() {
		const p = this.plot, line = (dir) => svgEl('line', { 'class': 'reterm-s-shaper reterm-s-shaper-' + dir, x1: p.x0, x2: p.x1 }, this.gData),
		    label = (dir) => svgEl('text', { 'class': 'reterm-shaper-label reterm-shaper-label-' + dir, x: p.x0 + 4 }, this.gAxes);

		this.rxArea = svgEl('path', { 'class': 'reterm-s-rx-area', d: '' }, this.gData);
		this.rx = svgEl('path', { 'class': 'reterm-s-rx', d: '' }, this.gData);
		this.tx = svgEl('path', { 'class': 'reterm-s-tx', d: '' }, this.gData);
		this.shaperRx = line('rx');
		this.shaperTx = line('tx');
		/* adaptive shaping: the rate per second (sh_rx, sh_tx) */
		this.movingRx = svgEl('path', { 'class': 'reterm-s-shaper reterm-s-shaper-rx reterm-s-moving', d: '' }, this.gData);
		this.movingTx = svgEl('path', { 'class': 'reterm-s-shaper reterm-s-shaper-tx reterm-s-moving', d: '' }, this.gData);
		this.shaperRxLabel = label('rx');
		this.shaperTxLabel = label('tx');
		this._legend([['rx', _('Download')], ['tx', _('Upload')], ['shaper', _('Shaper rate')]]);
	},

	/**
	 * @param {Object[]} points ring points {t, rx_bps, tx_bps}
	 * @param {Object} [opts] from, to, span, step (see above);
	 *   shaper: {rx, tx} configured rates in bit/s (null/0 = none);
	 *   points with sh_rx/sh_tx (adaptive shaping's rate each second)
	 *   draw the shaper rate as it moved instead, labelled with the newest
	 */
	update(points, opts) {
		const o = opts || {},
		    { pts, step, tr } = timeSeries(points, o),
		    p = this.plot,
		    sh = o.shaper || {},
		    moving = maxOf(pts, ['sh_rx', 'sh_tx']) !== null,
		    newestOf = (k) => { const q = pts.filter((x) => finite(x[k])).pop(); return q ? q[k] : null; },
		    srx = moving ? newestOf('sh_rx') : (finite(sh.rx) && sh.rx > 0) ? sh.rx : null,
		    stx = moving ? newestOf('sh_tx') : (finite(sh.tx) && sh.tx > 0) ? sh.tx : null,
		    top = maxOf(pts, ['rx_bps', 'tx_bps']),
		    yTop = Math.max(top || 0, srx || 0, stx || 0, maxOf(pts, ['sh_rx', 'sh_tx']) || 0) * 1.08 || 1e6,
		    unit = units.rateScale(yTop),
		    sy = scale([0, yTop / unit.div], [p.y0, p.y1]).nice(4),
		    sb = (v) => sy(v / unit.div),
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    gap = 1.5 * step;

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), unit.unit);
		this._agoAxis(sx, tr);

		attr(this.rx, 'd', linePath(pts, 't', 'rx_bps', sx, sb, gap));
		attr(this.rxArea, 'd', bandPath(pts, 't', () => 0, 'rx_bps', sx, sb, gap));
		attr(this.tx, 'd', linePath(pts, 't', 'tx_bps', sx, sb, gap));
		attr(this.movingRx, 'd', moving ? linePath(pts, 't', 'sh_rx', sx, sb, gap) : '');
		attr(this.movingTx, 'd', moving ? linePath(pts, 't', 'sh_tx', sx, sb, gap) : '');

		[[this.shaperRx, this.shaperRxLabel, srx, _('Shaper ↓ %s')],
		 [this.shaperTx, this.shaperTxLabel, stx, _('Shaper ↑ %s')]].forEach(([line, label, bps, text]) => {
			hide(line, bps === null || moving);
			hide(label, bps === null);

			if (bps === null)
				return;

			const y = r1(sb(bps));

			attr(line, 'y1', y);
			attr(line, 'y2', y);
			attr(label, 'y', y - 3);
			setText(label, text.format(rate(bps)));
		});

		/* two shaper labels too close: put the upload one below its line */
		if (srx !== null && stx !== null && Math.abs(sb(srx) - sb(stx)) < 12)
			attr(this.shaperTxLabel, 'y', r1(sb(stx) + 11));

		this._empty(top === null);
		this._table(pts.map((q) => [clock(q.t), rate(q.rx_bps), rate(q.tx_bps)]));

		const last = pts.length ? pts[pts.length - 1] : {};

		this._label(top === null ? _('no data yet') :
			_('download now %s, upload now %s, highest %s').format(rate(last.rx_bps), rate(last.tx_bps), rate(top)));
	}
});

/* the sum of two fields of a point, null when both are missing */
const sum = (a, b) => (q) => (finite(q[a]) || finite(q[b])) ? (q[a] || 0) + (q[b] || 0) : null;

const Cake = chart.Chart.extend({
	__name__: 'reterm.graph.Cake',
	kind: 'cake',

	margin: { top: 22, right: 58, bottom: 24, left: 46 },

	defaultTitle() { return _('CAKE delay and drops'); },

	columns() {
		return [_('Time'), _('Download delay (ms)'), _('Upload delay (ms)'), _('Drops'), _('ECN marks')];
	},

	setup() {
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
	 * @param {Object} [opts] from, to, span, step (see above)
	 */
	update(points, opts) {
		const { pts, step, tr } = timeSeries(points, opts || {}),
		    p = this.plot,
		    top = maxOf(pts, ['dl_pk', 'ul_pk']),
		    sy = scale([0, Math.max(top || 0, 5)], [p.y0, p.y1]).nice(4),
		    sx = scale([tr.from, tr.to], [p.x0, p.x1]),
		    drops = sum('dl_drop', 'ul_drop'), marks = sum('dl_ecn', 'ul_ecn'),
		    dTop = maxOf(pts, [drops]) || 0,
		    /* drops use the lower third of the plot, their own scale */
		    sd = scale([0, Math.max(dTop, 1)], [p.y0, p.y0 - (p.y0 - p.y1) / 3]),
		    empty = top === null && !dTop;

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), _('ms'));
		this._agoAxis(sx, tr);

		attr(this.dl, 'd', linePath(pts, 't', 'dl_pk', sx, sy, 1.5 * step));
		attr(this.ul, 'd', linePath(pts, 't', 'ul_pk', sx, sy, 1.5 * step));
		attr(this.drops, 'd', pts.filter((q) => drops(q)).map((q) =>
			'M' + r1(sx(q.t)) + ',' + r1(p.y0) + 'V' + r1(sd(drops(q)))).join(''));

		setText(this.dropMax, dTop ? N_(dTop, '%d drop', '%d drops').format(dTop) : '');
		attr(this.dropMax, 'y', r1(sd(Math.max(dTop, 1)) + 3.5));

		this._empty(empty);

		const count = (v) => v === null ? '–' : String(v);

		this._table(pts.map((q) => [clock(q.t), ms(q.dl_pk), ms(q.ul_pk), count(drops(q)), count(marks(q))]));
		this._label(empty ? _('no data yet') :
			_('highest delay %s ms, at most %d drops per interval').format(ms(top), dTop));
	}
});

return baseclass.extend({
	__name__: 'reterm.graph.live',

	LatencyStrip, Throughput, Cake,

	/** Latency strip: median line, min–max band, baseline, grade bands. */
	latencyStrip: (opts) => new LatencyStrip(opts),

	/** Download/upload throughput with dashed shaper-rate lines. */
	throughput: (opts) => new Throughput(opts),

	/** CAKE peak delay per direction and drops. */
	cake: (opts) => new Cake(opts)
});
