'use strict';
'require baseclass';
'require dom';
'require poll';
'require rpc';
'require reterm.ring as ring';
'require reterm.grade as grade';
'require reterm.units as units';
'require reterm.latency as monitor';
'require reterm.guided as testrun';
'require reterm.graph.live as graphlive';
'require reterm.overview.result as overviewresult';
'require reterm.overview.autorate as autorateview';

/*
 * The Overview's live panel: latency, WAN throughput against the sqm
 * shaper rates and CAKE's delay and drops, from reterm-latencyd's per-second
 * ring (`reterm samples {since, step}`), merged into a reterm.ring every
 * 2 s while the page is visible (the daemon sleeps without callers and
 * the first poll wakes it), with the key figures of the newest second
 * and the monitor's state in words.
 * Use as: 'require reterm.overview.live as overviewlive';
 *
 *   overviewlive.first()              → Promise of the first samples reply
 *   const live = overviewlive.create({shaper, samples});
 *       shaper: monitor.shaperFromSqm() or null (no sqm-scripts);
 *       samples: the reply of first()
 *   live.node, live.ring (the reterm.ring), live.setVisible(bool),
 *   live.poll() → Promise (one poll, as the timer runs it)
 */

const callSamples = rpc.declare({ object: 'reterm.latency', method: 'samples', params: [ 'since', 'step' ] });

const INTERVAL = 2;
const CAKE_FIELDS = [ 'dl_pk', 'ul_pk', 'dl_drop', 'ul_drop' ];

const { note, ms, rate } = testrun;

function stat(label, value) {
	return E('div', { 'class': 'reterm-ov-stat' }, [
		E('span', { 'class': 'reterm-ov-stat-label' }, [ label ]),
		E('span', { 'class': 'reterm-ov-stat-value' }, Array.isArray(value) ? value : [ value ])
	]);
}

/* the newest point with a value in one of `fields` */
function newest(pts, fields) {
	for (let i = pts.length - 1; i >= 0; i--)
		if (fields.some((k) => pts[i][k] != null))
			return pts[i];

	return null;
}

const LivePanel = baseclass.extend({
	__init__(opts) {
		this.shaper = opts.shaper;
		this.ring = ring.create({ step: 1, span: 600 });
		this.err = null;
		this.drawn = false;
		this.fn = () => this.poll();
		this.polls = 0;
		this.autorate = autorateview.create();
		this.charts = {
			strip: graphlive.latencyStrip({ height: 200, title: _('Latency') }),
			tput: graphlive.throughput({ height: 170, title: _('WAN throughput') }),
			cake: graphlive.cake({ height: 150, title: _('CAKE delay and drops') })
		};
		this.el = {
			state: E('div', { 'class': 'reterm-ov-live-state' }),
			now: E('div', { 'class': 'reterm-ov-now' }),
			shaperNote: E('div', { 'class': 'reterm-ov-note' }),
			cakeNote: E('div', { 'class': 'reterm-ov-note' }),
			cake: E('div', { 'class': 'reterm-ov-cake' }, [ E('h4', {}, [ _('CAKE delay and drops') ]), this.charts.cake.node ])
		};
		this.node = E('div', { 'class': 'cbi-section reterm-ov-live' }, [
			E('h3', {}, [ _('Live latency') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Round-trip time to a few public reflectors, per second, with the WAN throughput. Shaded bands are the grades of the added latency above the baseline (the dashed line): while the line is busy, good shaping keeps the median in the A+ or A band.') ]),
			this.el.state,
			this.el.now,
			E('h4', {}, [ _('Latency') ]), this.charts.strip.node,
			E('h4', {}, [ _('WAN throughput') ]), this.charts.tput.node,
			this.el.shaperNote,
			this.autorate.node,
			this.el.cake,
			this.el.cakeNote
		]);

		this.showShaper();
		this.onSamples(opts.samples);
	},

	setVisible(visible) {
		if (visible)
			poll.add(this.fn, INTERVAL);
		else
			poll.remove(this.fn);
	},

	/* samples every 2 s; adaptive shaping's state every 4 s (the shaper
	 * note says whose rates the dashed lines are) */
	poll() {
		const ar = (this.polls++ % 2 === 0) ? this.autorate.poll().then(() => {
			if (!!this.autorate.on !== !!this.autorateOn) {
				this.autorateOn = this.autorate.on;
				this.showShaper();
			}
		}) : Promise.resolve();

		return Promise.all([ testrun.settle(callSamples(this.ring.since(), 1)).then((reply) => this.onSamples(reply)), ar ])
			.then((r) => r[0]);
	},

	/* merge a samples reply and redraw what changed */
	onSamples(reply) {
		this.err = reply && reply.error ? reply : null;

		const added = this.err ? 0 : this.ring.merge(reply);

		if (added || !this.drawn)
			this.draw();

		this.showState();

		return added;
	},

	draw() {
		const pts = this.ring.points(), r = this.ring.range(), sh = this.shaper,
		    hasCake = newest(pts, CAKE_FIELDS) !== null;

		this.drawn = true;
		this.charts.strip.update(pts, { from: r.from, to: r.to, base: this.ring.info.base, step: 1 });
		this.charts.tput.update(pts, { from: r.from, to: r.to, step: 1,
			shaper: (sh && sh.enabled) ? { rx: sh.rx, tx: sh.tx } : null });

		if (hasCake)
			this.charts.cake.update(pts, { from: r.from, to: r.to, step: 1 });

		this.el.cake.style.display = hasCake ? '' : 'none';
		dom.content(this.el.cakeNote, hasCake ? [] : [
			_('No CAKE statistics: they appear when sqm shapes the WAN with CAKE (Network → Re-termination → Shaping).') ]);

		this.showNow(pts);
	},

	/* key figures of the newest second */
	showNow(pts) {
		const info = this.ring.info,
		    last = newest(pts, [ 'med' ]), lastRate = newest(pts, [ 'rx_bps', 'tx_bps' ]),
		    base = (typeof info.base === 'number') ? info.base : null,
		    added = (last && base !== null) ? Math.max(0, last.med - base) : null;

		dom.content(this.el.now, [
			stat(_('Latency now'), ms(last ? last.med : null)),
			stat(_('Baseline'), ms(base)),
			stat(_('Added'), added === null ? '–' : [ ms(added, true), ' ', overviewresult.gradeSpan(grade.grade(added)) ]),
			stat(_('Download'), rate(lastRate ? lastRate.rx_bps : null)),
			stat(_('Upload'), rate(lastRate ? lastRate.tx_bps : null)),
			stat(_('Prober'), info.probe ? String(info.probe) : '–')
		]);
	},

	showState() {
		const err = this.err,
		    state = monitor.liveState(err, this.ring.latest(), this.ring.info.now, 1);
		let text = null, level = 'notice';

		if (state === 'no_daemon') {
			text = monitor.notRunningText();
			level = 'danger';
		}
		else if (state === 'error') {
			text = _('No live data: %s').format(err.text);
			level = 'warning';
		}
		else if (state === 'waking') {
			text = monitor.wakingText();
		}

		this.el.state.setAttribute('data-state', state);
		dom.content(this.el.state, text ? note(level, text) : []);
	},

	showShaper() {
		const sh = this.shaper, rateOr = (v) => v ? units.formatRate(v) : _('not shaped');

		dom.content(this.el.shaperNote, [
			(sh === null) ? _('sqm-scripts has no queue here: there is no shaper rate to compare the throughput with.')
			: !sh.enabled ? _('Shaping is off (no enabled sqm queue): the throughput has no shaper rate to compare with.')
			: this.autorateOn ? _('Dashed lines: the shaper rates on %s as adaptive shaping moves them (sqm\'s own: download %s, upload %s).').format(sh.iface, rateOr(sh.rx), rateOr(sh.tx))
			: _('Dashed lines: the sqm shaper rates on %s (download %s, upload %s).').format(sh.iface, rateOr(sh.rx), rateOr(sh.tx))
		]);
	}
});

return baseclass.extend({
	__name__: 'reterm.overview.live',

	first: () => testrun.settle(callSamples(0, 1)),

	create: (opts) => new LivePanel(opts || {})
});
