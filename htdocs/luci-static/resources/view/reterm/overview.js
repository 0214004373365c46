'use strict';
'require view';
'require dom';
'require poll';
'require rpc';
'require uci';
'require ui';
'require reterm.graph as graph';
'require reterm.ring as ring';
'require reterm.grade as grade';
'require reterm.units as units';
'require reterm.monitor as monitor';

/*
 * Network → Re-termination → Overview: latency under load.
 *
 * Live graphs from retermd's per-second ring (`reterm samples {since}`,
 * merged into a reterm.ring every 2 s while the page is visible; the
 * daemon sleeps without callers and the first poll wakes it), the
 * guided bufferbloat test (`test_start` / `test_status` / `test_stop`)
 * and a before/after comparison of stored results (`results`).
 * The test URLs and streams are kept in uci reterm.monitor (staged when
 * a test starts; applied with the other changes). Pure logic lives in
 * reterm.monitor, charts in reterm.graph.
 */

var callSamples = rpc.declare({ object: 'reterm', method: 'samples', params: [ 'since', 'step' ] });
var callTestStart = rpc.declare({ object: 'reterm', method: 'test_start', params: [ 'download_url', 'upload_url', 'streams' ] });
var callTestStatus = rpc.declare({ object: 'reterm', method: 'test_status' });
var callTestStop = rpc.declare({ object: 'reterm', method: 'test_stop' });
var callResults = rpc.declare({ object: 'reterm', method: 'results', params: [ 'id' ] });

var LIVE_INTERVAL = 2, TEST_INTERVAL = 1;

/* RPM class → the grade colour it shares */
var RPM_COLOUR = { poor: 'd', fair: 'c', good: 'a', excellent: 'aplus' };

var CSS = [
	'.reterm-ov { --reterm-ov-aplus: #15803d; --reterm-ov-a: #4d7c0f; --reterm-ov-b: #a16207; --reterm-ov-c: #c2410c;',
	'  --reterm-ov-d: #b91c1c; --reterm-ov-f: #881337; --reterm-ov-line: rgba(127,127,127,.3); }',
	'[data-darkmode="true"] .reterm-ov { --reterm-ov-aplus: #4ade80; --reterm-ov-a: #a3e635; --reterm-ov-b: #facc15;',
	'  --reterm-ov-c: #fb923c; --reterm-ov-d: #f87171; --reterm-ov-f: #fb7185; }',
	'.reterm-ov h4 { margin: 1em 0 .2em; font-size: 1em; }',
	'.reterm-ov-now { display: flex; flex-wrap: wrap; gap: .4em 2.2em; margin: .4em 0 .6em; }',
	'.reterm-ov-stat { display: flex; flex-direction: column; min-width: 6em; }',
	'.reterm-ov-stat-label { font-size: 12px; opacity: .7; }',
	'.reterm-ov-stat-value { font-size: 1.3em; font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }',
	'.reterm-ov-note { margin: .3em 0 .2em; font-size: 12px; opacity: .8; }',
	'.reterm-ov-actions { margin: .8em 0; display: flex; gap: .6em; align-items: center; flex-wrap: wrap; }',
	'.reterm-ov-progress { margin: .6em 0 1em; }',
	'.reterm-ov-progress .cbi-progressbar { max-width: none; }',
	'.reterm-ov-progress-text { margin-top: .3em; font-variant-numeric: tabular-nums; }',
	'.reterm-ov-tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: .6em 0 1em; }',
	'.reterm-ov-tile { flex: 1 1 10em; border: 1px solid var(--reterm-ov-line); border-left: 5px solid var(--reterm-ov-g, var(--reterm-ov-line));',
	'  border-radius: 5px; padding: .5em .9em .6em; min-width: 9em; }',
	'.reterm-ov-tile-label { font-size: 12px; opacity: .75; }',
	'.reterm-ov-letter { font-size: 2.4em; font-weight: 700; line-height: 1.1; color: var(--reterm-ov-g, inherit); }',
	'.reterm-ov-tile-main .reterm-ov-letter { font-size: 3em; }',
	'.reterm-ov-tile-detail { font-size: 12px; font-variant-numeric: tabular-nums; }',
	'.reterm-ov-g-aplus { --reterm-ov-g: var(--reterm-ov-aplus); }',
	'.reterm-ov-g-a { --reterm-ov-g: var(--reterm-ov-a); }',
	'.reterm-ov-g-b { --reterm-ov-g: var(--reterm-ov-b); }',
	'.reterm-ov-g-c { --reterm-ov-g: var(--reterm-ov-c); }',
	'.reterm-ov-g-d { --reterm-ov-g: var(--reterm-ov-d); }',
	'.reterm-ov-g-f { --reterm-ov-g: var(--reterm-ov-f); }',
	'.reterm-ov-grade { font-weight: 700; color: var(--reterm-ov-g, inherit); }',
	'.reterm-ov table.table { width: 100%; margin: .4em 0 .8em; }',
	'.reterm-ov td.reterm-ov-num, .reterm-ov th.reterm-ov-num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }',
	'.reterm-ov-pick { display: flex; flex-wrap: wrap; gap: .6em 1.5em; align-items: center; margin: .4em 0 .8em; }',
	'.reterm-ov-pick label { display: flex; gap: .5em; align-items: center; }',
	'.reterm-ov-better { color: var(--reterm-ov-aplus); }',
	'.reterm-ov-worse { color: var(--reterm-ov-d); }',
	'.reterm-ov ul.reterm-ov-reasons { margin: .3em 0 0 1.2em; }',
	'.reterm-ov-stale { opacity: .45; }'
].join('\n');

/* an RPC call that never rejects: transport failures become {error} */
function settle(p) {
	return Promise.resolve(p).catch(function(e) {
		return { error: 'rpc', message: (e && e.message) ? e.message : String(e) };
	});
}

function resultsOf(reply) {
	return (reply && Array.isArray(reply.results)) ? reply.results.filter(function(r) {
		return r && typeof r === 'object' && r.id != null;
	}) : [];
}

function ms(v, signed) {
	if (typeof v !== 'number' || !isFinite(v))
		return '–';

	return (signed && v >= 0 ? '+' : '') + v.toFixed(1) + ' ' + _('ms');
}

function rate(v) {
	return (typeof v === 'number' && isFinite(v) && v >= 0) ? units.formatRate(v) : '–';
}

function pct(v) {
	return (typeof v === 'number' && isFinite(v)) ? (v * 100).toFixed(1) + ' %' : '–';
}

function gradeSpan(g) {
	var key = grade.gradeKey(g);

	return E('span', { 'class': 'reterm-ov-grade' + (key ? ' reterm-ov-g-' + key : '') }, [ g || '–' ]);
}

function note(level, text) {
	return E('div', { 'class': 'alert-message ' + level }, Array.isArray(text) ? text : [ text ]);
}

function stat(label, value, cls) {
	return E('div', { 'class': 'reterm-ov-stat' + (cls ? ' ' + cls : '') }, [
		E('span', { 'class': 'reterm-ov-stat-label' }, [ label ]),
		E('span', { 'class': 'reterm-ov-stat-value' }, Array.isArray(value) ? value : [ value ])
	]);
}

/* a form row as LuCI's form.js draws it (ui widgets put the input at
 * id "widget.<id>") */
function field(id, title, widget, description) {
	return E('div', { 'class': 'cbi-value' }, [
		E('label', { 'class': 'cbi-value-title', 'for': 'widget.' + id }, [ title ]),
		E('div', { 'class': 'cbi-value-field' }, [
			widget,
			E('div', { 'class': 'cbi-value-description' }, [ description ])
		])
	]);
}

return view.extend({
	handleSaveApply: null,
	handleSave: null,
	handleReset: null,

	load: function() {
		return Promise.all([
			L.resolveDefault(uci.load('reterm'), null),
			L.resolveDefault(uci.load('sqm'), null),
			settle(callSamples(0, 1)),
			settle(callTestStatus()),
			settle(callResults())
		]).then(function(data) {
			var st = data[3], list = resultsOf(data[4]);

			/* the newest result in full: its graphs need the samples */
			if (st && st.result && typeof st.result === 'object')
				data.push(st.result);
			else if (list.length)
				return settle(callResults(list[list.length - 1].id)).then(function(r) {
					data.push((r && r.result) ? r.result : null);
					return data;
				});
			else
				data.push(null);

			return data;
		});
	},

	/* ---- live graphs -------------------------------------------------- */

	renderLive: function() {
		this.charts = {
			strip: graph.latencyStrip({ height: 200, title: _('Latency') }),
			tput: graph.throughput({ height: 170, title: _('WAN throughput') }),
			cake: graph.cake({ height: 150, title: _('CAKE delay and drops') })
		};

		this.el.liveNote = E('div', { 'class': 'reterm-ov-live-state' });
		this.el.now = E('div', { 'class': 'reterm-ov-now' });
		this.el.shaperNote = E('div', { 'class': 'reterm-ov-note' });
		this.el.cakeNote = E('div', { 'class': 'reterm-ov-note' });
		this.el.cake = E('div', { 'class': 'reterm-ov-cake' }, [
			E('h4', {}, [ _('CAKE delay and drops') ]), this.charts.cake.node ]);

		return E('div', { 'class': 'cbi-section reterm-ov-live' }, [
			E('h3', {}, [ _('Live latency') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Round-trip time to a few public reflectors, per second, with the WAN throughput. Shaded bands are the grades of the added latency above the baseline (the dashed line): while the line is busy, good shaping keeps the median in the A+ or A band.') ]),
			this.el.liveNote,
			this.el.now,
			E('h4', {}, [ _('Latency') ]), this.charts.strip.node,
			E('h4', {}, [ _('WAN throughput') ]), this.charts.tput.node,
			this.el.shaperNote,
			this.el.cake,
			this.el.cakeNote
		]);
	},

	/* merge a samples reply and redraw what changed */
	onSamples: function(reply) {
		var err = monitor.replyError(reply), added = 0;

		this.liveErr = err;

		if (!err)
			added = this.live.merge(reply);

		if (added || !this.drawn)
			this.drawLive();

		this.updateLiveState();

		return added;
	},

	pollLive: function() {
		return settle(callSamples(this.live.since(), 1)).then(L.bind(this.onSamples, this));
	},

	drawLive: function() {
		var pts = this.live.points(), r = this.live.range(), info = this.live.info,
		    sh = this.shaper, hasCake = false;

		this.drawn = true;
		this.charts.strip.update(pts, { from: r.from, to: r.to, base: info.base, step: 1 });
		this.charts.tput.update(pts, { from: r.from, to: r.to, step: 1,
			shaper: (sh && sh.enabled) ? { rx: sh.rx, tx: sh.tx } : null });

		for (var i = pts.length - 1; i >= 0 && !hasCake; i--)
			hasCake = [ 'dl_pk', 'ul_pk', 'dl_drop', 'ul_drop' ].some(function(k) { return pts[i][k] != null; });

		if (hasCake)
			this.charts.cake.update(pts, { from: r.from, to: r.to, step: 1 });

		this.el.cake.style.display = hasCake ? '' : 'none';
		dom.content(this.el.cakeNote, hasCake ? [] : [
			_('No CAKE statistics: they appear when sqm shapes the WAN with CAKE (Network → Re-termination → Shaping).') ]);

		this.updateNow();
	},

	/* key figures of the newest second */
	updateNow: function() {
		var pts = this.live.points(), info = this.live.info, last = null, lastRate = null;

		for (var i = pts.length - 1; i >= 0 && (last === null || lastRate === null); i--) {
			if (last === null && pts[i].med != null)
				last = pts[i];

			if (lastRate === null && (pts[i].rx_bps != null || pts[i].tx_bps != null))
				lastRate = pts[i];
		}

		var base = (typeof info.base === 'number') ? info.base : null,
		    added = (last && base !== null) ? Math.max(0, last.med - base) : null,
		    g = added !== null ? grade.grade(added) : null;

		dom.content(this.el.now, [
			stat(_('Latency now'), ms(last ? last.med : null)),
			stat(_('Baseline'), ms(base)),
			stat(_('Added'), added === null ? '–' : [ ms(added, true), ' ', gradeSpan(g) ]),
			stat(_('Download'), rate(lastRate ? lastRate.rx_bps : null)),
			stat(_('Upload'), rate(lastRate ? lastRate.tx_bps : null)),
			stat(_('Prober'), info.probe ? String(info.probe) : '–')
		]);
	},

	updateLiveState: function() {
		var err = this.liveErr,
		    state = monitor.liveState(err, this.live.latest(), this.live.info.now, 1),
		    text = null, level = 'notice';

		if (state === 'not_running') {
			text = monitor.notRunningText();
			level = 'danger';
		}
		else if (state === 'error') {
			text = _('No live data: %s').format(err.error === 'rpc'
				? _('the router did not answer (%s).').format(err.message)
				: monitor.startError(err));
			level = 'warning';
		}
		else if (state === 'waking') {
			text = monitor.wakingText();
		}

		this.liveState = state;
		this.el.liveNote.setAttribute('data-state', state);
		dom.content(this.el.liveNote, text ? note(level, text) : []);
	},

	updateShaperNote: function() {
		var sh = this.shaper, text;

		if (sh === null)
			text = _('sqm-scripts has no queue here: there is no shaper rate to compare the throughput with.');
		else if (!sh.enabled)
			text = _('Shaping is off (no enabled sqm queue): the throughput has no shaper rate to compare with.');
		else
			text = _('Dashed lines: the sqm shaper rates on %s (download %s, upload %s).')
				.format(sh.iface, sh.rx ? units.formatRate(sh.rx) : _('not shaped'), sh.tx ? units.formatRate(sh.tx) : _('not shaped'));

		dom.content(this.el.shaperNote, [ text ]);
	},

	/* ---- the guided test ----------------------------------------------- */

	renderTest: function() {
		var cfg = uci.get('reterm', 'monitor') || {};

		this.fields = {
			dl: new ui.Textfield(cfg.download_url || '', {
				id: 'reterm-download-url', placeholder: 'http://192.0.2.10/bytes/1000000000', optional: true,
				validate: function(v) { return monitor.validateUrl(v) || true; }
			}),
			ul: new ui.Textfield(cfg.upload_url || '', {
				id: 'reterm-upload-url', placeholder: 'http://192.0.2.10/upload', optional: true,
				validate: function(v) { return monitor.validateUrl(v) || true; }
			}),
			streams: new ui.Textfield(cfg.streams || String(monitor.DEFAULT_STREAMS), {
				id: 'reterm-streams', placeholder: String(monitor.DEFAULT_STREAMS),
				validate: function(v) { return monitor.validateStreams(v) || true; }
			})
		};

		/* plain listeners, not ui.createHandlerFn: that one re-enables
		 * the button when the handler ends, Start must stay disabled
		 * while the test runs */
		this.el.start = E('button', { 'class': 'cbi-button cbi-button-apply reterm-ov-start',
			'click': L.bind(this.handleStart, this) }, [ _('Start test') ]);
		this.el.stop = E('button', { 'class': 'cbi-button cbi-button-reset reterm-ov-stop', 'disabled': '',
			'click': L.bind(this.handleStop, this) }, [ _('Stop') ]);
		this.el.testMsg = E('div', { 'class': 'reterm-ov-test-msg' });
		this.el.bar = E('div');
		this.el.bar.style.width = '0%';
		this.el.barWrap = E('div', { 'class': 'cbi-progressbar', 'title': '0%', 'role': 'progressbar',
			'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, [ this.el.bar ]);
		this.el.progressText = E('div', { 'class': 'reterm-ov-progress-text', 'aria-live': 'polite' });
		this.el.progress = E('div', { 'class': 'reterm-ov-progress' }, [ this.el.barWrap, this.el.progressText ]);
		this.el.progress.style.display = 'none';

		this.charts.phases = graph.phases({ height: 190, title: _('Latency during the test') });
		this.charts.cdf = graph.cdf({ height: 180, title: _('Added latency per phase') });
		this.el.result = E('div', { 'class': 'reterm-ov-result' });

		return E('div', { 'class': 'cbi-section reterm-ov-test' }, [
			E('h3', {}, [ _('Bufferbloat test') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Loads the line for 44 seconds – download, upload, then both, with short pauses – while probing the latency every 50 ms, and grades how much latency the load adds (A+ below 5 ms, F from 400 ms). The router itself downloads from and uploads to a plain-HTTP test server with more capacity than your line, for example one on a VPS or one your ISP offers; https:// does not work, the router\'s test client has no TLS.') ]),
			field('reterm-download-url', _('Download URL'), this.fields.dl.render(),
				_('A large file the router downloads (HTTP GET); fetched again whenever it ends.')),
			field('reterm-upload-url', _('Upload URL'), this.fields.ul.render(),
				_('An address that accepts a large HTTP POST and discards it.')),
			field('reterm-streams', _('Streams'), this.fields.streams.render(),
				_('Parallel connections per direction, 1 to 16. Four fill most lines; try 8 on fast or long paths.')),
			E('div', { 'class': 'reterm-ov-actions' }, [ this.el.start, this.el.stop ]),
			this.el.testMsg,
			this.el.progress,
			this.el.result
		]);
	},

	showTestMessage: function(level, text) {
		dom.content(this.el.testMsg, text ? note(level, text) : []);
	},

	setRunning: function(running) {
		this.running = running;
		this.el.start.disabled = running;
		this.el.stop.disabled = !running;
		this.el.result.classList.toggle('reterm-ov-stale', running);
		this.titleResult();
	},

	/* the shown result is the previous one while a test runs */
	titleResult: function() {
		if (this.el.resultTitle)
			dom.content(this.el.resultTitle, [ (this.running ? _('Previous result, %s') : _('Result of %s'))
				.format(monitor.when(this.resultTime)) ]);
	},

	startTestPoll: function() {
		this.testPolling = true;

		if (!this.hidden)
			poll.add(this.testFn, TEST_INTERVAL);
	},

	stopTestPoll: function() {
		this.testPolling = false;
		poll.remove(this.testFn);
	},

	updateProgress: function(st) {
		var p = monitor.progress(st), parts = [ p.label ];

		this.el.progress.style.display = (p.state === 'idle') ? 'none' : '';
		this.el.bar.style.width = p.percent + '%';
		this.el.barWrap.setAttribute('title', _('%d%%').format(p.percent));
		this.el.barWrap.setAttribute('aria-valuenow', String(p.percent));

		if (p.running) {
			parts.push(_('%d s of %d s').format(Math.floor(p.elapsed), p.total));

			if (st.rtt != null)
				parts.push(_('RTT %s').format(ms(st.rtt)));

			if (st.rx_bps != null || st.tx_bps != null)
				parts.push(_('↓ %s ↑ %s').format(rate(st.rx_bps), rate(st.tx_bps)));
		}

		dom.content(this.el.progressText, [ parts.join(' · ') ]);

		return p;
	},

	onTestStatus: function(st) {
		var err = monitor.replyError(st);

		if (err) {
			this.stopTestPoll();
			this.setRunning(false);
			this.showTestMessage('danger', monitor.startError(err));
			return Promise.resolve();
		}

		var p = this.updateProgress(st);

		if (p.running) {
			this.setRunning(true);

			if (!this.testPolling)
				this.startTestPoll();

			return Promise.resolve();
		}

		var wasRunning = this.running || this.testPolling;

		this.stopTestPoll();
		this.setRunning(false);

		if (!wasRunning)
			return Promise.resolve();

		if (st.result && typeof st.result === 'object') {
			this.full[st.result.id] = st.result;
			this.showResult(st.result);
		}

		return this.refreshResults(true);
	},

	pollTest: function() {
		return settle(callTestStatus()).then(L.bind(this.onTestStatus, this));
	},

	handleStart: function() {
		var dl = String(this.fields.dl.getValue() || '').trim(),
		    ul = String(this.fields.ul.getValue() || '').trim(),
		    n = String(this.fields.streams.getValue() || '').trim() || String(monitor.DEFAULT_STREAMS),
		    bad = monitor.validateUrl(dl) ? _('Download URL: %s').format(monitor.validateUrl(dl))
		        : monitor.validateUrl(ul) ? _('Upload URL: %s').format(monitor.validateUrl(ul))
		        : monitor.validateStreams(n) ? _('Streams: %s').format(monitor.validateStreams(n)) : null;

		if (bad) {
			this.showTestMessage('danger', bad);
			return Promise.resolve();
		}

		this.showTestMessage(null);
		this.el.start.disabled = true;

		return this.stageSettings({ download_url: dl, upload_url: ul, streams: n }).then(L.bind(function() {
			return settle(callTestStart(dl, ul, +n));
		}, this)).then(L.bind(function(reply) {
			var err = monitor.replyError(reply);

			if (err) {
				this.showTestMessage(err.error === 'busy' ? 'notice' : 'danger', monitor.startError(err));
				this.el.start.disabled = !!this.running;

				if (err.error === 'busy')
					this.startTestPoll();

				return;
			}

			this.setRunning(true);
			this.updateProgress({ state: 'running', total: reply.total, elapsed: 0, progress: 0, phase: 'idle', phase_index: 0 });
			this.startTestPoll();
		}, this));
	},

	handleStop: function() {
		this.el.stop.disabled = true;

		return settle(callTestStop()).then(L.bind(function(reply) {
			var err = monitor.replyError(reply);

			/* no test running (it ended meanwhile) or no daemon: the
			 * status tells which */
			if (err && err.error === 'not_running')
				return this.pollTest();

			return this.onTestStatus(reply);
		}, this));
	},

	/* keep the test settings in uci reterm.monitor (staged, not applied) */
	stageSettings: function(values) {
		var changed = false;

		if (!this.uciOk)
			return Promise.resolve();

		if (!uci.get('reterm', 'monitor'))
			uci.add('reterm', 'monitor', 'monitor');

		for (var k in values) {
			var cur = uci.get('reterm', 'monitor', k);

			/* streams: the default needs no option */
			if (cur == null && k === 'streams')
				cur = String(monitor.DEFAULT_STREAMS);

			if ((cur == null ? '' : String(cur)) !== values[k]) {
				uci.set('reterm', 'monitor', k, values[k]);
				changed = true;
			}
		}

		if (!changed)
			return Promise.resolve();

		return uci.save().then(function() {
			return uci.changes();
		}).then(function(changes) {
			if (ui.changes && typeof ui.changes.renderChangeIndicator === 'function')
				ui.changes.renderChangeIndicator(changes);
		}).catch(function() {});
	},

	tile: function(label, g, details, main) {
		var key = grade.gradeKey(g);

		return E('div', { 'class': 'reterm-ov-tile' + (main ? ' reterm-ov-tile-main' : '') + (key ? ' reterm-ov-g-' + key : ''),
			'data-grade': g || '' }, [
			E('div', { 'class': 'reterm-ov-tile-label' }, [ label ]),
			E('div', { 'class': 'reterm-ov-letter' }, [ g || '–' ]),
			E('div', { 'class': 'reterm-ov-tile-detail' }, details)
		]);
	},

	dirDetails: function(d) {
		if (!d)
			return [ _('not measured') ];

		var tp = rate(d.throughput);

		if (d.share !== null)
			tp = _('%s (%d %% of %s)').format(tp, Math.round(d.share * 100), rate(d.shaper));

		return [ _('%s added (mean)').format(ms(d.added, true)), E('br'), tp ];
	},

	showResult: function(r) {
		var s = monitor.summary(r);

		if (!s) {
			dom.content(this.el.result, []);
			return;
		}

		var notes = [];

		if (s.failed)
			notes.push(note('danger', _('The test could not grade the line: %s').format(s.failed)));

		if (s.loadFailed)
			notes.push(note('danger', [
				E('strong', {}, [ _('The test server could not load the line.') ]), ' ',
				_('The daemon reported: %s. Check that both URLs work from the router, for example with "wget -O /dev/null URL" on its shell.').format(s.errors.join('; ')) ]));
		else if (s.errors.length)
			notes.push(note('warning', _('Some load connections failed: %s').format(s.errors.join('; '))));

		if (s.stopped)
			notes.push(note('notice', _('Stopped after %s s: phases that did not run have no numbers.').format(s.duration != null ? s.duration : '–')));

		if (s.inconclusive && s.reasons.length && !s.loadFailed)
			notes.push(note('warning', [
				E('strong', {}, [ _('Inconclusive.') ]),
				E('ul', { 'class': 'reterm-ov-reasons' }, s.reasons.map(function(t) { return E('li', {}, [ t ]); }))
			]));

		var rows = monitor.phaseRows(r).filter(function(p) {
			return [ 'download', 'upload', 'both' ].indexOf(p.name) >= 0;
		});

		var table = E('table', { 'class': 'table reterm-ov-phases' }, [
			E('tr', { 'class': 'tr table-titles' }, [
				E('th', { 'class': 'th' }, [ _('Phase') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Mean added') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('95th percentile') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Peak (400 ms)') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Probe loss') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Download') ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Upload') ])
			])
		].concat(rows.map(function(p) {
			return E('tr', { 'class': 'tr' }, [
				E('td', { 'class': 'td' }, [ monitor.phaseName(p.name) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ ms(p.mean, true) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ ms(p.p95, true) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ ms(p.peak, true) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ pct(p.loss) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ rate(p.rx) ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ rate(p.tx) ])
			]);
		})));

		this.charts.phases.update({ phases: r.phases, samples: r.samples, baseline: r.baseline });
		this.charts.cdf.update(monitor.cdfSeries(r));

		var hasSamples = Array.isArray(r.samples) && r.samples.length > 0;

		this.el.resultTitle = E('h4', { 'class': 'reterm-ov-result-title' });
		this.resultTime = s.time;
		this.titleResult();

		dom.content(this.el.result, [
			this.el.resultTitle,
			E('div', {}, notes),
			E('div', { 'class': 'reterm-ov-tiles' }, [
				this.tile(_('Overall'), s.grade, [ _('the worse direction'), E('br'), _('idle RTT %s').format(ms(s.baseline)) ], true),
				this.tile(_('Download'), s.download && s.download.grade, this.dirDetails(s.download)),
				this.tile(_('Upload'), s.upload && s.upload.grade, this.dirDetails(s.upload)),
				E('div', { 'class': 'reterm-ov-tile reterm-ov-rpm' + (RPM_COLOUR[s.rpmClass] ? ' reterm-ov-g-' + RPM_COLOUR[s.rpmClass] : '') }, [
					E('div', { 'class': 'reterm-ov-tile-label' }, [ _('Responsiveness') ]),
					E('div', { 'class': 'reterm-ov-letter' }, [ s.rpm != null ? String(s.rpm) : '–' ]),
					E('div', { 'class': 'reterm-ov-tile-detail' }, [
						E('strong', {}, [ s.rpmLabel || '–' ]), E('br'), _('round trips per minute under load') ])
				])
			]),
			table,
			hasSamples ? E('h4', {}, [ _('Latency during the test') ]) : '',
			hasSamples ? this.charts.phases.node : '',
			hasSamples ? E('h4', {}, [ _('Added latency per phase') ]) : '',
			hasSamples ? this.charts.cdf.node : ''
		]);
	},

	/* ---- before / after ------------------------------------------------ */

	renderCompare: function() {
		this.el.before = E('select', { 'class': 'cbi-input-select', 'id': 'reterm-compare-before',
			'change': L.bind(this.handleCompare, this) });
		this.el.after = E('select', { 'class': 'cbi-input-select', 'id': 'reterm-compare-after',
			'change': L.bind(this.handleCompare, this) });
		this.el.compare = E('div', { 'class': 'reterm-ov-compare-out' });
		this.el.pick = E('div', { 'class': 'reterm-ov-pick' }, [
			E('label', { 'for': 'reterm-compare-before' }, [ _('Before'), this.el.before ]),
			E('label', { 'for': 'reterm-compare-after' }, [ _('After'), this.el.after ])
		]);

		return E('div', { 'class': 'cbi-section reterm-ov-compare' }, [
			E('h3', {}, [ _('Before and after') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Compare two stored results, for example before and after enabling shaping. The router keeps the last 10 results.') ]),
			this.el.pick,
			this.el.compare
		]);
	},

	fillSelects: function(pair) {
		var list = this.results.slice().reverse();

		[ [ this.el.before, pair ? pair[0] : null ], [ this.el.after, pair ? pair[1] : null ] ].forEach(function(e) {
			dom.content(e[0], list.map(function(r) {
				return E('option', { 'value': String(r.id), 'selected': String(r.id) === e[1] ? '' : null },
					[ monitor.resultLabel(r) ]);
			}));

			if (e[1] != null)
				e[0].value = e[1];
		});
	},

	/* full result by id (cached; they do not change) */
	fetchResult: function(id) {
		if (this.full[id])
			return Promise.resolve(this.full[id]);

		return settle(callResults(id)).then(L.bind(function(reply) {
			if (reply && reply.result && typeof reply.result === 'object') {
				this.full[id] = reply.result;
				return reply.result;
			}

			var err = monitor.replyError(reply);

			throw new Error(err ? (err.message || err.error) : _('no result'));
		}, this));
	},

	handleCompare: function() {
		return this.compareIds(this.el.before.value, this.el.after.value);
	},

	compareIds: function(a, b) {
		if (!a || !b) {
			dom.content(this.el.compare, []);
			return Promise.resolve();
		}

		return Promise.all([ this.fetchResult(a), this.fetchResult(b) ]).then(L.bind(function(rs) {
			this.showComparison(monitor.compare(rs[0], rs[1]));
		}, this)).catch(L.bind(function(e) {
			dom.content(this.el.compare, note('warning', _('Could not load the results: %s').format(e.message)));
		}, this));
	},

	showComparison: function(c) {
		if (!c) {
			dom.content(this.el.compare, []);
			return;
		}

		var change = function(v, unit, digits, lowerIsBetter) {
			if (v === null || v === undefined)
				return E('td', { 'class': 'td reterm-ov-num' }, [ '–' ]);

			var better = lowerIsBetter ? v < 0 : v > 0,
			    text = (v > 0 ? '+' : v < 0 ? '−' : '±') + Math.abs(v).toFixed(digits) + (unit ? ' ' + unit : '');

			return E('td', { 'class': 'td reterm-ov-num ' + (v === 0 ? '' : better ? 'reterm-ov-better' : 'reterm-ov-worse') }, [ text ]);
		};

		var row = function(label, before, after, last) {
			return E('tr', { 'class': 'tr' }, [
				E('td', { 'class': 'td' }, [ label ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ before ]),
				E('td', { 'class': 'td reterm-ov-num' }, [ after ]),
				last
			]);
		};

		var rows = c.grades.map(function(g) {
			var steps = g.steps, text = steps === null ? '–' : steps === 0 ? _('same')
				: steps > 0 ? N_(steps, 'better by %d grade', 'better by %d grades').format(steps)
				: N_(-steps, 'worse by %d grade', 'worse by %d grades').format(-steps);

			return row(g.label, gradeSpan(g.before), gradeSpan(g.after),
				E('td', { 'class': 'td reterm-ov-num ' + (steps > 0 ? 'reterm-ov-better' : steps < 0 ? 'reterm-ov-worse' : '') }, [ text ]));
		});

		rows = rows.concat(c.latency.map(function(l) {
			return row(_('Added latency: %s').format(l.label),
				ms(l.before, true), ms(l.after, true), change(l.change, _('ms'), 1, true));
		}));

		rows.push(row(_('Responsiveness (RPM)'),
			c.rpm.before != null ? String(c.rpm.before) : '–', c.rpm.after != null ? String(c.rpm.after) : '–',
			change(c.rpm.before != null && c.rpm.after != null ? c.rpm.after - c.rpm.before : null, '', 0, false)));

		rows = rows.concat(c.throughput.map(function(t) {
			return row(t.label, rate(t.before), rate(t.after), change(t.change === null ? null : t.change * 100, '%', 1, false));
		}));

		var caution = (c.before.inconclusive || c.after.inconclusive)
			? note('warning', _('At least one of these results is inconclusive: compare with care.')) : '';

		dom.content(this.el.compare, [
			E('p', { 'class': 'reterm-ov-compare-text' }, [ monitor.compareText(c) ]),
			caution,
			E('table', { 'class': 'table reterm-ov-compare-table' }, [
				E('tr', { 'class': 'tr table-titles' }, [
					E('th', { 'class': 'th' }, [ '' ]),
					E('th', { 'class': 'th reterm-ov-num' }, [ _('Before: %s').format(monitor.when(c.before.time)) ]),
					E('th', { 'class': 'th reterm-ov-num' }, [ _('After: %s').format(monitor.when(c.after.time)) ]),
					E('th', { 'class': 'th reterm-ov-num' }, [ _('Change') ])
				])
			].concat(rows))
		]);
	},

	/* reload the results list; newTest: select the newest as "after" */
	refreshResults: function(newTest) {
		return settle(callResults()).then(L.bind(function(reply) {
			if (!monitor.replyError(reply))
				this.results = resultsOf(reply);

			return this.updateCompare(newTest);
		}, this));
	},

	updateCompare: function(reset) {
		var enough = this.results.length >= 2;

		this.el.pick.style.display = enough ? '' : 'none';

		if (!enough) {
			dom.content(this.el.compare, [ E('p', { 'class': 'reterm-ov-note' }, [
				this.results.length ? _('Run one more test to compare two results.') : _('No stored results yet: run a test.') ]) ]);
			return Promise.resolve();
		}

		var ids = this.results.map(function(r) { return String(r.id); }),
		    pair = (!reset && ids.indexOf(this.el.before.value) >= 0 && ids.indexOf(this.el.after.value) >= 0)
		    	? [ this.el.before.value, this.el.after.value ] : monitor.defaultPair(this.results);

		this.fillSelects(pair);

		return this.compareIds(pair[0], pair[1]);
	},

	/* ---- page ------------------------------------------------------------ */

	setVisible: function(visible) {
		this.hidden = !visible;

		if (visible) {
			poll.add(this.liveFn, LIVE_INTERVAL);

			if (this.testPolling)
				poll.add(this.testFn, TEST_INTERVAL);
		}
		else {
			poll.remove(this.liveFn);
			poll.remove(this.testFn);
		}
	},

	render: function(data) {
		var status = data[3], newest = data[5];

		this.el = {};
		this.full = {};
		this.live = ring.create({ step: 1, span: 600 });
		this.results = resultsOf(data[4]);
		this.uciOk = data[0] !== null;
		this.shaper = data[1] !== null
			? monitor.shaperFromSqm(uci.sections('sqm', 'queue'), uci.get('reterm', 'monitor', 'wan_device'))
			: null;
		this.liveFn = L.bind(this.pollLive, this);
		this.testFn = L.bind(this.pollTest, this);

		var page = E('div', { 'class': 'reterm-ov' }, [
			E('style', {}, [ CSS ]),
			E('h2', {}, [ _('Overview') ]),
			E('div', { 'class': 'cbi-map-descr' }, [
				_('Latency under load (bufferbloat): how much the round-trip time grows while the line is busy, live and by a guided test.') ]),
			this.renderLive(),
			this.renderTest(),
			this.renderCompare()
		]);

		this.updateShaperNote();
		this.onSamples(data[2]);

		if (newest) {
			if (newest.id != null)
				this.full[newest.id] = newest;

			this.showResult(newest);
		}

		if (status && !monitor.replyError(status) && status.state === 'running') {
			this.setRunning(true);
			this.updateProgress(status);
			this.testPolling = true;
		}
		else if (status && status.error === 'not_running') {
			this.showTestMessage('danger', monitor.notRunningText());
		}

		this.setVisible(true);

		if (typeof document.addEventListener === 'function')
			document.addEventListener('visibilitychange', L.bind(function() {
				this.setVisible(document.visibilityState !== 'hidden');
			}, this));

		return this.updateCompare(true).then(function() { return page; });
	}
});
