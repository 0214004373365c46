'use strict';
'require baseclass';
'require dom';
'require rpc';
'require reterm.units as units';
'require reterm.guided as testrun';

/*
 * The Overview's adaptive shaping box: the rates reterm-latencyd sets on CAKE now,
 * the probe rate, the reflectors in use, and the controller's decisions
 * as events (newest first), from `reterm autorate_status`. Hidden while
 * adaptive shaping is off; a warning when its settings were refused.
 *
 *   const box = autorateview.create();
 *   box.node; box.poll() → Promise; box.update(reply)
 *   autorateview.events(reply) → [[time, direction, change, reason]]
 */

const callStatus = rpc.declare({ object: 'reterm.latency', method: 'autorate_status' });

const { note } = testrun;

const kbitRate = (k) => (typeof k === 'number') ? units.formatRate(k * 1000) : '–';
const dirName = (d) => (d === 'dl') ? _('Download') : (d === 'ul') ? _('Upload') : _('Reflector');
const clock = (t) => (typeof t === 'number') ? new Date(t * 1000).toLocaleTimeString() : '–';

/* the decisions as table rows, newest first */
function events(st) {
	const list = (st && Array.isArray(st.decisions)) ? st.decisions.slice().reverse() : [];

	return list.map((d) => [
		clock(d.time_end || d.time),
		dirName(d.dir),
		(d.from != null && d.to != null) ? '%s → %s'.format(kbitRate(d.from), kbitRate(d.to)) : '–',
		String(d.reason || '')
	]);
}

// near hops (the scan's routers) are named as such, and the ones whose
// ICMP timestamps tell which direction a delay is in
function reflector(x) {
	if (x.state !== 'used')
		return _('%s (not used: %s)').format(x.target, x.why);

	if (x.one_way === true)
		return (x.hop != null) ? _('%s (hop %d, one-way delays)').format(x.target, x.hop) : _('%s (one-way delays)').format(x.target);

	return (x.hop != null) ? _('%s (hop %d)').format(x.target, x.hop) : x.target;
}

function summary(st) {
	const r = st.rates || {}, s = st.settings || {},
	    one = (d, label) => _('%s %s (%s–%s, base %s)').format(label, kbitRate(r[d] && r[d].rate_kbit),
		kbitRate(s[d + '_min']), kbitRate(s[d + '_max']), kbitRate(s[d + '_base']));

	return [
		one('dl', _('Download')), E('br'), one('ul', _('Upload')), E('br'),
		_('%s probes/s; reflectors: %s').format(String(st.probes_per_s != null ? st.probes_per_s : '–'),
			(st.reflectors || []).map(reflector).join(', ') || '–')
	];
}

const Box = baseclass.extend({
	__init__() {
		this.body = E('div');
		this.node = E('div', { 'class': 'reterm-ov-autorate', 'style': 'display:none' }, [
			E('h4', {}, [ _('Adaptive shaping') ]),
			this.body
		]);
	},

	poll() {
		return testrun.settle(callStatus()).then((reply) => this.update(reply));
	},

	update(st) {
		const on = st && st.enabled === true, refused = st && st.enabled === false && st.reason;

		this.on = !!on;
		this.node.style.display = (on || refused) ? '' : 'none';

		if (refused) {
			dom.content(this.body, note('warning', _('Adaptive shaping is not running: %s').format(st.reason)));
			return;
		}

		if (!on)
			return;

		const rows = events(st);

		dom.content(this.body, [
			E('p', { 'class': 'reterm-ov-note' }, summary(st)),
			rows.length ? E('table', { 'class': 'table reterm-ov-autorate-events' }, [
				E('tr', { 'class': 'tr table-titles' }, [ _('Time'), _('Direction'), _('Rate'), _('Why') ].map((t) => E('th', { 'class': 'th' }, [ t ]))),
				...rows.map((row) => E('tr', { 'class': 'tr' }, row.map((c) => E('td', { 'class': 'td' }, [ c ]))))
			]) : E('p', {}, [ _('No decision yet.') ])
		]);
	}
});

return baseclass.extend({
	__name__: 'reterm.overview.autorate',
	events,
	create: () => new Box()
});
