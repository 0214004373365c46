'use strict';
'require baseclass';
'require dom';
'require reterm.grade as grade';
'require reterm.latency as monitor';
'require reterm.guided as testrun';
'require reterm.graph.result as graphresult';

/*
 * How the Overview shows a guided test result: grade tiles per direction
 * and overall, responsiveness (RPM), the phase table, the latency chart
 * with the phases shaded and the CDF per phase, with the notes on a
 * failed, stopped or inconclusive test.
 * Use as: 'require reterm.overview.result as overviewresult';
 *
 *   const view = overviewresult.create();   // {node, show(result), setStale(bool)}
 *   view.show(result);        // a result as test_status / results {id} give it
 *   view.setStale(true);      // a new test runs: "Previous result, …", faded
 *   overviewresult.gradeSpan('A+')  // a grade letter in its colour
 */

const { note, ms, rate, pct } = testrun;

/* RPM class → the grade colour it shares */
const RPM_COLOUR = { poor: 'd', fair: 'c', good: 'a', excellent: 'aplus' };

const gradeClass = (key) => key ? ' reterm-ov-g-' + key : '';

function gradeSpan(g) {
	return E('span', { 'class': 'reterm-ov-grade' + gradeClass(grade.gradeKey(g)) }, [ g || '–' ]);
}

function tile(label, letter, details, opts) {
	const o = opts || {};

	return E('div', { 'class': 'reterm-ov-tile' + (o.main ? ' reterm-ov-tile-main' : '') + (o.cls ? ' ' + o.cls : '') + gradeClass(o.key),
		'data-grade': o.grade }, [
		E('div', { 'class': 'reterm-ov-tile-label' }, [ label ]),
		E('div', { 'class': 'reterm-ov-letter' }, [ letter || '–' ]),
		E('div', { 'class': 'reterm-ov-tile-detail' }, details)
	]);
}

const gradeTile = (label, g, details, main) =>
	tile(label, g, details, { main: main, key: grade.gradeKey(g), grade: g || '' });

function dirDetails(d) {
	if (!d)
		return [ _('not measured') ];

	const tp = (d.share !== null)
		? _('%s (%d %% of %s)').format(rate(d.throughput), Math.round(d.share * 100), rate(d.shaper))
		: rate(d.throughput);

	return [ _('%s added (mean)').format(ms(d.added, true)), E('br'), tp ];
}

function notes(s) {
	const out = [];

	if (s.failed)
		out.push(note('danger', _('The test could not grade the line: %s').format(s.failed)));

	if (s.loadFailed)
		out.push(note('danger', [
			E('strong', {}, [ _('The test server could not load the line.') ]), ' ',
			_('The daemon reported: %s. Check that both URLs work from the router, for example with "wget -O /dev/null URL" on its shell.').format(s.errors.join('; ')) ]));
	else if (s.errors.length)
		out.push(note('warning', _('Some load connections failed: %s').format(s.errors.join('; '))));

	if (s.stopped)
		out.push(note('notice', _('Stopped after %s s: phases that did not run have no numbers.').format(s.duration != null ? s.duration : '–')));

	if (s.inconclusive && s.reasons.length && !s.loadFailed)
		out.push(note('warning', [
			E('strong', {}, [ _('Inconclusive.') ]),
			E('ul', { 'class': 'reterm-ov-reasons' }, s.reasons.map((t) => E('li', {}, [ t ])))
		]));

	return out;
}

const num = (cells) => cells.map((c) => E('td', { 'class': 'td reterm-ov-num' }, [ c ]));

function phaseTable(r) {
	const rows = monitor.phaseRows(r).filter((p) => [ 'download', 'upload', 'both' ].indexOf(p.name) >= 0),
	    head = [ _('Mean added'), _('95th percentile'), _('Peak (400 ms)'), _('Probe loss'), _('Download'), _('Upload') ];

	return E('table', { 'class': 'table reterm-ov-phases' }, [
		E('tr', { 'class': 'tr table-titles' }, [ E('th', { 'class': 'th' }, [ _('Phase') ]) ]
			.concat(head.map((h) => E('th', { 'class': 'th reterm-ov-num' }, [ h ]))))
	].concat(rows.map((p) => E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td' }, [ monitor.phaseName(p.name) ]) ]
		.concat(num([ ms(p.mean, true), ms(p.p95, true), ms(p.peak, true), pct(p.loss), rate(p.rx), rate(p.tx) ]))))));
}

const ResultView = baseclass.extend({
	__init__() {
		this.charts = {
			phases: graphresult.phases({ height: 190, title: _('Latency during the test') }),
			cdf: graphresult.cdf({ height: 180, title: _('Added latency per phase') })
		};
		this.node = E('div', { 'class': 'reterm-ov-result' });
		this.stale = false;
		this.titleNode = null;
		this.time = null;
	},

	setStale(stale) {
		this.stale = stale;
		this.node.classList.toggle('reterm-ov-stale', stale);
		this.title();
	},

	/* the shown result is the previous one while a test runs */
	title() {
		if (this.titleNode)
			dom.content(this.titleNode, [ (this.stale ? _('Previous result, %s') : _('Result of %s')).format(monitor.when(this.time)) ]);
	},

	show(r) {
		const s = monitor.summary(r);

		if (!s) {
			dom.content(this.node, []);
			return;
		}

		const hasSamples = Array.isArray(r.samples) && r.samples.length > 0,
		    chart = (title, c) => hasSamples ? [ E('h4', {}, [ title ]), c.node ] : [];

		this.charts.phases.update({ phases: r.phases, samples: r.samples, baseline: r.baseline });
		this.charts.cdf.update(monitor.cdfSeries(r));
		this.titleNode = E('h4', { 'class': 'reterm-ov-result-title' });
		this.time = s.time;
		this.title();

		dom.content(this.node, [
			this.titleNode,
			E('div', {}, notes(s)),
			E('div', { 'class': 'reterm-ov-tiles' }, [
				gradeTile(_('Overall'), s.grade, [ _('the worse direction'), E('br'), _('idle RTT %s').format(ms(s.baseline)) ], true),
				gradeTile(_('Download'), s.download && s.download.grade, dirDetails(s.download)),
				gradeTile(_('Upload'), s.upload && s.upload.grade, dirDetails(s.upload)),
				tile(_('Responsiveness'), s.rpm != null ? String(s.rpm) : '–',
					[ E('strong', {}, [ s.rpmLabel || '–' ]), E('br'), _('round trips per minute under load') ],
					{ cls: 'reterm-ov-rpm', key: RPM_COLOUR[s.rpmClass] })
			]),
			phaseTable(r)
		].concat(chart(_('Latency during the test'), this.charts.phases), chart(_('Added latency per phase'), this.charts.cdf)));
	}
});

return baseclass.extend({
	__name__: 'reterm.overview.result',

	gradeSpan: gradeSpan,

	create: () => new ResultView()
});
