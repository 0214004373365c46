'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.graph.geom as geom';
'require reterm.graph.chart as chart';

/*
 * The charts of a guided test result (latencies in ms).
 * Use as: 'require reterm.graph.result as graphresult';
 *
 *   phases().update({phases: [{name, start, end}], samples, baseline})
 *       latency over the test with the phases shaded on one time axis
 *   cdf().update([{name, label?, values}], {xLabel})
 *       the distribution of the added latency, one line per phase
 *
 * Options of the constructors: {width, height, title}. See
 * reterm.graph.chart for what every chart has in common.
 */

const { svgEl, attr, hide, pool, setText } = chart;
const { finite, r1, scale, tickStep, timeTicks, linePath, stepPath, maxOf, ms, tickLabel, stepLabel } = geom;

const PHASES = {
	idle: () => _('Idle'),
	download: () => _('Download'),
	upload: () => _('Upload'),
	both: () => _('Both'),
	cooldown: () => _('Cooldown')
};

const phaseLabel = (name) => PHASES[name] ? PHASES[name]() : String(name);
const phaseKey = (name) => PHASES[name] ? name : 'other';

/* a probe sample as {t: seconds, rtt} (input {t: ms, rtt} or [t, rtt]) */
function probe(s) {
	const t = Array.isArray(s) ? s[0] : (s ? s.t : null),
	    rtt = Array.isArray(s) ? s[1] : (s ? s.rtt : null);

	return finite(t) ? { t: t / 1000, rtt: (finite(rtt) && rtt >= 0) ? rtt : null } : null;
}

/* 1.5 × the median spacing of the samples: a longer gap breaks the line */
function sampleGap(samples) {
	const spacing = samples.slice(1).map((s, i) => s.t - samples[i].t).sort((a, b) => a - b);

	return spacing.length ? 1.5 * spacing[spacing.length >> 1] : Infinity;
}

const Phases = chart.Chart.extend({
	__name__: 'reterm.graph.Phases',
	kind: 'phases',

	defaultTitle() { return _('Latency during the test'); },

	columns() {
		return [_('Phase'), _('Time (s)'), _('Mean added (ms)'), _('95th percentile added (ms)'),
		        _('Peak added (ms)'), _('Probe loss')];
	},

	setup() {
		this._shades = [];
		this._shadeLabels = [];
		this.line = svgEl('path', { 'class': 'reterm-s-probe', d: '' }, this.gData);
		this.baseline = svgEl('line', { 'class': 'reterm-s-base', x1: this.plot.x0, x2: this.plot.x1 }, this.gData);
		this._legend([['probe', _('Probe RTT')], ['base', _('Idle baseline')]]);
	},

	/**
	 * @param {Object} result
	 * @param {Object[]} result.phases [{name: 'idle'|'download'|'upload'|
	 *   'both'|'cooldown', start, end, mean, p95, peak, loss}] start and
	 *   end in seconds from the test start, the added latencies (ms) and
	 *   the loss (0…1) as reterm-latencyd computed them
	 * @param {Array} result.samples probe samples {t: ms from the test
	 *   start, rtt: ms|null} or [t, rtt]; null rtt = lost
	 * @param {number} result.baseline idle RTT, ms
	 */
	update(result) {
		const res = (result && typeof result === 'object') ? result : {},
		    phases = Array.isArray(res.phases)
		    	? res.phases.filter((ph) => ph && finite(ph.start) && finite(ph.end) && ph.end > ph.start) : [],
		    samples = (Array.isArray(res.samples) ? res.samples : []).map(probe).filter(Boolean).sort((a, b) => a.t - b.t),
		    base = (finite(res.baseline) && res.baseline >= 0) ? res.baseline : null,
		    p = this.plot,
		    end = Math.max(phases.length ? phases[phases.length - 1].end : 0,
		                   samples.length ? samples[samples.length - 1].t : 0, 1),
		    top = maxOf(samples, ['rtt']),
		    sx = scale([0, end], [p.x0, p.x1]),
		    sy = scale([0, Math.max(top || 0, (base || 0) + 40, 10)], [p.y0, p.y1]).nice(4),
		    shades = pool(this.gBack, this._shades, phases.length, 'rect', 'reterm-phase'),
		    labels = pool(this.gBack, this._shadeLabels, phases.length, 'text', 'reterm-phase-label');

		phases.forEach((ph, j) => {
			const x0 = r1(sx(ph.start)), x1 = r1(sx(ph.end)), txt = phaseLabel(ph.name);

			attr(shades[j], 'class', 'reterm-phase reterm-phase-' + phaseKey(ph.name));
			attr(shades[j], 'x', x0);
			attr(shades[j], 'width', r1(x1 - x0));
			attr(shades[j], 'y', p.y1);
			attr(shades[j], 'height', p.y0 - p.y1);
			attr(labels[j], 'x', r1((x0 + x1) / 2));
			attr(labels[j], 'y', p.y1 + 11);
			attr(labels[j], 'text-anchor', 'middle');
			/* narrow phases (2 s idle) keep their shade, not their label */
			hide(labels[j], x1 - x0 < txt.length * 6);
			setText(labels[j], txt);
		});

		this._yAxis(sy, sy.ticks(4), stepLabel(sy, 4), _('ms'));
		this._xAxis(sx, timeTicks(0, end, 8, 0).values, (t) => _('%d s').format(t));

		attr(this.line, 'd', linePath(samples, 't', 'rtt', sx, sy, sampleGap(samples)));
		hide(this.baseline, base === null);

		if (base !== null) {
			attr(this.baseline, 'y1', r1(sy(base)));
			attr(this.baseline, 'y2', r1(sy(base)));
		}

		this._empty(top === null);

		const summary = [];

		this._table(phases.map((ph) => {
			const fig = (v) => (finite(v) && v >= 0) ? v : null, mean = fig(ph.mean), loss = fig(ph.loss);

			if (mean !== null && ph.name !== 'idle' && ph.name !== 'cooldown')
				summary.push(_('%s +%s ms').format(phaseLabel(ph.name), ms(mean)));

			return [phaseLabel(ph.name), '%s–%s'.format(ph.start, ph.end),
			        ms(mean), ms(fig(ph.p95)), ms(fig(ph.peak)),
			        loss !== null ? '%.1f%%'.format(loss * 100) : '–'];
		}));

		this._label(top === null ? _('no data yet') :
			_('idle baseline %s ms; mean added latency: %s').format(ms(base), summary.join(', ') || '–'));
	}
});

const Cdf = chart.Chart.extend({
	__name__: 'reterm.graph.Cdf',
	kind: 'cdf',

	defaultTitle() { return _('Latency distribution per phase'); },

	columns() {
		return [_('Phase'), _('Median (ms)'), _('90th percentile (ms)'), _('95th percentile (ms)'),
		        _('99th percentile (ms)'), _('Max (ms)')];
	},

	setup() {
		this._lines = [];
		this.xUnit = svgEl('text', { 'class': 'reterm-unit reterm-unit-x', x: this.plot.x1 - 2,
			y: this.plot.y0 - 5, 'text-anchor': 'end' }, this.gAxes);
	},

	/**
	 * @param {Object[]} series [{name: phase name, label?: string,
	 *   values: number[] (added latency, ms)}]
	 * @param {Object} [opts] {xLabel: axis unit, default "ms above idle"}
	 */
	update(series, opts) {
		const o = opts || {},
		    list = (Array.isArray(series) ? series : []).filter((s) => s && typeof s === 'object').map((s) => ({
		    	name: String(s.name), label: s.label || phaseLabel(s.name), values: s.values, cdf: grade.cdf(s.values)
		    })),
		    drawn = list.filter((s) => s.cdf),
		    top = drawn.reduce((m, s) => Math.max(m, s.cdf[s.cdf.length - 1].x), 0),
		    p = this.plot,
		    sx = scale([0, Math.max(top, 1)], [p.x0, p.x1]).nice(6),
		    sy = scale([0, 1], [p.y0, p.y1]),
		    xStep = tickStep(sx.domain[0], sx.domain[1], 6),
		    lines = pool(this.gData, this._lines, drawn.length, 'path', 'reterm-s-cdf'),
		    pc = (s, q) => ms(grade.percentile(s.values, q));

		this._yAxis(sy, [0, 0.25, 0.5, 0.75, 1], (v) => (v * 100) + '%', '');
		this._xAxis(sx, sx.ticks(6), (v) => tickLabel(v, xStep));
		setText(this.xUnit, o.xLabel || _('ms above idle'));

		drawn.forEach((s, i) => {
			attr(lines[i], 'class', 'reterm-s-cdf reterm-s-cdf-' + phaseKey(s.name));
			attr(lines[i], 'd', stepPath(s.cdf, sx, sy));
		});

		this._legend(drawn.map((s) => ['cdf-' + phaseKey(s.name), s.label]));
		this._empty(!drawn.length);
		this._table(list.map((s) => [s.label, pc(s, 50), pc(s, 90), pc(s, 95), pc(s, 99), pc(s, 100)]));
		this._label(!drawn.length ? _('no data yet') : drawn.map((s) =>
			_('%s: median %s ms, 95th percentile %s ms').format(s.label, pc(s, 50), pc(s, 95))).join('; '));
	}
});

return baseclass.extend({
	__name__: 'reterm.graph.result',

	Phases, Cdf,

	/** Test result: latency over the test with the phases shaded. */
	phases: (opts) => new Phases(opts),

	/** Latency CDF, one line per phase. */
	cdf: (opts) => new Cdf(opts)
});
