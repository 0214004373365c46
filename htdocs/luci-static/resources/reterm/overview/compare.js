'use strict';
'require baseclass';
'require dom';
'require rpc';
'require reterm.latency as monitor';
'require reterm.guided as testrun';
'require reterm.overview.result as overviewresult';
'require reterm.errtext as errtext';

/*
 * The Overview's before/after panel: two stored results side by side
 * (grades, added latency per phase, RPM, throughput and what changed),
 * from `reterm results` (the list) and `reterm results {id}` (one in
 * full, cached: results do not change).
 * Use as: 'require reterm.overview.compare as overviewcompare';
 *
 *   overviewcompare.list()            → Promise of the results reply
 *   overviewcompare.newest(status, listReply) → Promise of the newest
 *       result in full (from the test status when it has one) or null
 *   const c = overviewcompare.create({list: listReply, known: [result…]});
 *   c.node, c.remember(result), c.refresh(newTest) → Promise,
 *   c.update(reset) → Promise (picks the default pair when reset)
 */

const callResults = rpc.declare({ object: 'reterm.latency', method: 'results', params: [ 'id' ] });

const { note, ms, rate, pct } = testrun;

function resultsOf(reply) {
	return (reply && Array.isArray(reply.results))
		? reply.results.filter((r) => r && typeof r === 'object' && r.id != null) : [];
}

const num = (text, cls) => E('td', { 'class': 'td reterm-ov-num' + (cls ? ' ' + cls : '') }, [ text ]);
const better = (good) => good ? 'reterm-ov-better' : 'reterm-ov-worse';

/* a change cell: ± and fmt(|v|), coloured by whether it is better */
function change(v, fmt, lowerIsBetter) {
	if (v === null || v === undefined)
		return num('–');

	return num((v > 0 ? '+' : v < 0 ? '−' : '±') + fmt(Math.abs(v)), v === 0 ? '' : better(lowerIsBetter ? v < 0 : v > 0));
}

function row(label, before, after, last) {
	return E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td' }, [ label ]), num(before), num(after), last ]);
}

function gradeRow(g) {
	const steps = g.steps,
	    text = steps === null ? '–' : steps === 0 ? _('same')
	    	: steps > 0 ? N_(steps, 'better by %d grade', 'better by %d grades').format(steps)
	    	: N_(-steps, 'worse by %d grade', 'worse by %d grades').format(-steps);

	return row(g.label, overviewresult.gradeSpan(g.before), overviewresult.gradeSpan(g.after),
		num(text, steps ? better(steps > 0) : ''));
}

const orDash = (v) => v != null ? String(v) : '–';

function comparison(c) {
	const rpm = c.rpm,
	    rows = c.grades.map(gradeRow)
		.concat(c.latency.map((l) => row(_('Added latency: %s').format(l.label),
			ms(l.before, true), ms(l.after, true), change(l.change, ms, true))))
		.concat([ row(_('Responsiveness (RPM)'), orDash(rpm.before), orDash(rpm.after),
			change(rpm.before != null && rpm.after != null ? rpm.after - rpm.before : null, String, false)) ])
		.concat(c.throughput.map((t) => row(t.label, rate(t.before), rate(t.after),
			change(t.change, pct, false))));

	return [
		E('p', { 'class': 'reterm-ov-compare-text' }, [ monitor.compareText(c) ]),
		(c.before.inconclusive || c.after.inconclusive)
			? note('warning', _('At least one of these results is inconclusive: compare with care.')) : '',
		E('table', { 'class': 'table reterm-ov-compare-table' }, [
			E('tr', { 'class': 'tr table-titles' }, [
				E('th', { 'class': 'th' }, [ '' ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Before: %s').format(monitor.when(c.before.time)) ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('After: %s').format(monitor.when(c.after.time)) ]),
				E('th', { 'class': 'th reterm-ov-num' }, [ _('Change') ])
			])
		].concat(rows))
	];
}

/* one stored result in full, or an Error */
function fetchResult(id) {
	return testrun.settle(callResults(id)).then((reply) => {
		if (reply.result && typeof reply.result === 'object')
			return reply.result;

		throw new Error(reply.error ? (reply.message || reply.error) : _('no result'));
	});
}

const ComparePanel = baseclass.extend({
	__init__(opts) {
		this.results = resultsOf(opts.list);
		this.full = {};
		(opts.known || []).forEach((r) => this.remember(r));

		const select = (id) => E('select', { 'class': 'cbi-input-select', 'id': id, 'change': () => this.handleCompare() });

		this.el = {
			before: select('reterm-compare-before'),
			after: select('reterm-compare-after'),
			out: E('div', { 'class': 'reterm-ov-compare-out' })
		};
		this.el.pick = E('div', { 'class': 'reterm-ov-pick' }, [
			E('label', { 'for': 'reterm-compare-before' }, [ _('Before'), this.el.before ]),
			E('label', { 'for': 'reterm-compare-after' }, [ _('After'), this.el.after ])
		]);
		this.node = E('div', { 'class': 'cbi-section reterm-ov-compare' }, [
			E('h3', {}, [ _('Before and after') ]),
			E('div', { 'class': 'cbi-section-descr' }, [
				_('Compare two stored results, for example before and after enabling shaping. The router keeps the last 10 results.') ]),
			this.el.pick,
			this.el.out
		]);
	},

	remember(r) {
		if (r && typeof r === 'object' && r.id != null)
			this.full[r.id] = r;
	},

	/* full result by id (cached; they do not change) */
	fetch(id) {
		if (this.full[id])
			return Promise.resolve(this.full[id]);

		return fetchResult(id).then((r) => {
			this.full[id] = r;
			return r;
		});
	},

	fillSelects(pair) {
		const list = this.results.slice().reverse();

		[ [ this.el.before, pair[0] ], [ this.el.after, pair[1] ] ].forEach(([ sel, id ]) => {
			dom.content(sel, list.map((r) => E('option', { 'value': String(r.id), 'selected': String(r.id) === id ? '' : null },
				[ monitor.resultLabel(r) ])));
			sel.value = id;
		});
	},

	handleCompare() {
		return this.compareIds(this.el.before.value, this.el.after.value);
	},

	compareIds(a, b) {
		return Promise.all([ this.fetch(a), this.fetch(b) ]).then((rs) => {
			const c = monitor.compare(rs[0], rs[1]);

			dom.content(this.el.out, c ? comparison(c) : []);
		}).catch((e) => {
			dom.content(this.el.out, note('warning', _('Could not load the results: %s').format(errtext.of(e))));
		});
	},

	/* reload the results list; newTest: select the newest as "after" */
	refresh(newTest) {
		return testrun.settle(callResults()).then((reply) => {
			if (!reply.error)
				this.results = resultsOf(reply);

			return this.update(newTest);
		});
	},

	update(reset) {
		const enough = this.results.length >= 2;

		this.el.pick.style.display = enough ? '' : 'none';

		if (!enough) {
			dom.content(this.el.out, [ E('p', { 'class': 'reterm-ov-note' }, [
				this.results.length ? _('Run one more test to compare two results.') : _('No stored results yet: run a test.') ]) ]);
			return Promise.resolve();
		}

		const ids = this.results.map((r) => String(r.id)),
		    cur = [ this.el.before.value, this.el.after.value ],
		    pair = (!reset && cur.every((id) => ids.indexOf(id) >= 0)) ? cur : monitor.defaultPair(this.results);

		this.fillSelects(pair);

		return this.compareIds(pair[0], pair[1]);
	}
});

return baseclass.extend({
	__name__: 'reterm.overview.compare',

	list: () => testrun.settle(callResults()),

	newest(status, listReply) {
		const list = resultsOf(listReply);

		if (status && status.result && typeof status.result === 'object')
			return Promise.resolve(status.result);

		return list.length ? fetchResult(list[list.length - 1].id).catch(() => null) : Promise.resolve(null);
	},

	create: (opts) => new ComparePanel(opts || {})
});
