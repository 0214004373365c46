'use strict';
'require baseclass';
'require dom';
'require reterm.wizard.state as wizard';
'require reterm.wizard.steps as steps';
'require reterm.wizard.propose as propose';
'require reterm.shaping.sqm as shaping';
'require reterm.shaping.preview as tcpreview';
'require reterm.devices.rows as devices';
'require reterm.graph.result as graphresult';
'require reterm.graph.chart as graphchart';
'require reterm.guided as testrun';

/*
 * What the setup wizard's steps show, built from what the view hands in
 * (no RPC, no UCI, no state of its own): the router facts and devices of
 * step 1, a test result, the proposal form of step 3, the before/after
 * table of step 4 and the device offers of step 5; and wizard.css, linked
 * once per page. Use as: 'require reterm.wizard.panels as panels';
 */

const note = testrun.note;

function cell(tag, cls, text) {
	return E(tag, { 'class': cls }, [ text ]);
}

function labelled(id, label, field, desc) {
	return E('div', { 'class': 'cbi-value' }, [ E('label', { 'class': 'cbi-value-title', 'for': id }, [ label ]),
		E('div', { 'class': 'cbi-value-field' }, [ field, E('div', { 'class': 'cbi-value-description' }, [ desc ]) ]) ]);
}

return baseclass.extend({
	__name__: 'reterm.wizard.panels',

	/** link wizard.css once per page */
	style() {
		graphchart.linkStyle('reterm/wizard.css');
	},

	button(cls, label, fn) {
		return E('button', { 'class': 'cbi-button ' + cls, 'click': fn }, [ label ]);
	},

	/* ---- step 1 ------------------------------------------------------------ */

	/**
	 * The router as the wizard finds it.
	 * @param {Object} c the view's context
	 * @param {Node} docsis the cable modem checkbox
	 */
	look(c, docsis) {
		const out = [], rate = (kbit) => testrun.rate(+kbit * 1000), rows = [
			[ _('Internet (WAN) device'), c.device
				? ((c.proto === 'pppoe' || c.proto === 'pppoa') ? _('%s (PPPoE on %s)').format(c.device, c.wan.device || '?') : _('%s (%s)').format(c.device, c.proto || '?'))
				: _('not found') ],
			[ _('Shaping (sqm)'), c.queue
				? (c.queue.enabled === '1' ? _('on: %s down, %s up').format(rate(c.queue.download), rate(c.queue.upload)) : _('configured, off'))
				: (c.shapingOn ? _('on, for another device') : _('off')) ],
			[ _('Flow offloading'), c.offloadHw ? _('hardware (bypasses shaping)') : c.offload ? _('software (fine)') : _('off') ]
		];

		if (!c.sqmInstalled)
			out.push(note('danger', _('sqm-scripts is not installed (/etc/config/sqm is missing). Install the sqm-scripts package to use shaping; you can still set up the devices.')));

		out.push(E('table', { 'class': 'table reterm-wizard-facts' }, rows.map((r) =>
			E('tr', { 'class': 'tr' }, [ cell('td', 'td left', r[0]), cell('td', 'td left', r[1]) ]))));

		if (!c.device)
			out.push(note('warning', _('No WAN device was found. Check Network → Interfaces, or set up shaping by hand on the Shaping page.')));

		if (c.offloadHw)
			out.push(note('warning', _('Hardware flow offloading is on (Network → Firewall). Offloaded connections bypass the queue, so shaping cannot work. Turn hardware offloading off; software offloading is fine.')));

		out.push(E('p', {}, [ E('label', {}, [ docsis, ' ', _('My Internet comes through a cable (DOCSIS) modem') ]) ]));
		out.push(E('h4', {}, [ _('Devices on your network') ]));

		if (c.hosts === null)
			out.push(note('info', _('The host list is not available (is the reterm service installed?).')));
		else if (!c.hosts.length)
			out.push(E('p', {}, [ _('No devices found yet.') ]));
		else
			out.push(E('ul', { 'class': 'reterm-wizard-hosts' }, wizard.sortHosts(c.hosts).map((h) => {
				const b = devices.badge(h['class']);

				return E('li', {}, [ b ? E('span', { 'class': b.cls }, [ b.text ]) : '', b ? ' ' : '',
					h.name || h.mac, ' ', E('small', {}, [ (h.ipv4 || [])[0] || '' ]) ]);
			})));

		return out;
	},

	/* ---- steps 2 and 4 ------------------------------------------------------ */

	/** A test result: the grade line and the latency chart. */
	result(r) {
		const chart = graphresult.phases({ title: _('Latency during the test') }),
		      d = r.download || {}, u = r.upload || {};

		chart.update(r);

		return E('div', { 'class': 'reterm-wizard-result' }, [
			E('p', { 'class': 'reterm-wizard-grade' }, [
				E('strong', {}, [ _('Grade %s').format(r.grade || '–') ]), ' · ',
				_('download %s, %s added').format(testrun.rate(d.throughput_bps), testrun.ms(d.added_ms)), ' · ',
				_('upload %s, %s added').format(testrun.rate(u.throughput_bps), testrun.ms(u.added_ms))
			]),
			chart.node
		]);
	},

	/** The before/after table and what it means. */
	comparison(st) {
		const p = st.proposal || {},
		      rows = [ [ '', _('Before'), _('After') ] ].concat(steps.compareRows(st.before, st.after)),
		      off = steps.unshapedText(steps.unshaped(st.after, st.shaper || { rx: p.download * 1000, tx: p.upload * 1000 }));

		return E('div', { 'class': 'reterm-wizard-compare' }, [
			E('table', { 'class': 'table' }, rows.map((r, i) =>
				E('tr', { 'class': i ? 'tr' : 'tr table-titles' }, r.map((t, j) => cell(i ? 'td' : 'th', !i ? 'th' : j ? 'td' : 'td left', t))))),
			off ? note('danger', off)
			: steps.gradeNotImproved(st.before, st.after)
				? note('warning', _('The grade did not improve. Try lower rates on the Shaping page, or check that hardware flow offloading is off.')) : ''
		]);
	},

	/* ---- step 3 ------------------------------------------------------------ */

	/** What the proposal rests on, and its notes. */
	proposalNotes(st, p) {
		return [
			st.measuredAsIs ? note('info', _('Measured with shaping on: the rates below are 90 % of the rates measured through the current shaper, so they stay below its settings. Measure with shaping off to start from what the line can do.')) : '',
			E('p', {}, [ _('Shaping at 90 % of the measured speed keeps the queue in the router, where CAKE keeps it short. Adjust if you like.') ])
		].concat(p.notes.map((n) => note('warning', n)));
	},

	/**
	 * The proposal's fields.
	 * @param {Object} p the proposal
	 * @param {Object} why reterm.wizard.propose explain()
	 * @param {string} proto the WAN protocol
	 * @param {Function} changed called on every edit
	 * @returns {Node[]}
	 */
	proposalFields(p, why, proto, changed) {
		const text = (id, label, value, desc) =>
			labelled(id, label, E('input', { 'type': 'text', 'class': 'cbi-input-text', 'id': id, 'value': value, 'input': changed }), desc);
		const select = (id, label, value, choices, desc) =>
			labelled(id, label, E('select', { 'id': id, 'change': changed }, choices.map((c) =>
				E('option', { 'value': c[0], 'selected': (c[0] === value) ? '' : null }, [ c[1] ]))), desc);

		return [
			text('reterm-wizard-down', _('Download (Mbit/s)'), shaping.mbitText(p.download), why.download),
			text('reterm-wizard-up', _('Upload (Mbit/s)'), shaping.mbitText(p.upload), why.upload),
			select('reterm-wizard-rtt', _('Round-trip time'), p.rtt, [
				[ 'regional', _('regional – 30 ms') ], [ 'internet', _('internet – 100 ms (default)') ],
				[ 'oceanic', _('oceanic – 300 ms') ], [ 'satellite', _('satellite – 1000 ms') ]
			], why.rtt),
			select('reterm-wizard-overhead', _('Link overhead'), p.overhead, [
				[ 'ethernet', _('ethernet – fibre / Ethernet (38 bytes)') ], [ 'docsis', _('docsis – cable (18 bytes)') ],
				[ 'pppoe-ptm', _('pppoe-ptm – VDSL2 with PPPoE (30 bytes)') ], [ 'bridged-ptm', _('bridged-ptm – VDSL2 without PPPoE (22 bytes)') ]
			], _('From the WAN protocol (%s).').format(proto || '?')),
			labelled('reterm-wizard-adaptive', _('Adaptive shaping'), E('input', { 'type': 'checkbox', 'id': 'reterm-wizard-adaptive',
				'checked': p.adaptive ? '' : null, 'change': changed }), p.autorate
				? _('Proposed: the throughput moved by more than 30 % while measuring. reterm-latencyd then moves both rates with the line, between a quarter and twice the rates above, starting from them; a fixed rate suits a line whose speed holds (DSL, fibre). Its settings are on the Shaping page.')
				: _('reterm-latencyd moves both rates with the line, between a quarter and twice the rates above, starting from them. For lines whose speed changes (LTE/5G, Starlink, busy cable); a fixed rate suits a line whose speed holds (DSL, fibre). Its settings are on the Shaping page.'))
		];
	},

	/**
	 * The proposal as the fields show it now.
	 * @param {Node} root where proposalFields() are
	 * @param {Object} base the proposal they started from
	 * @returns {{proposal: Object, error: string|null}}
	 */
	readProposal(root, base) {
		const q = Object.assign({}, base), $ = (id) => root.querySelector('#reterm-wizard-' + id);
		let err = null;

		if ($('down') && $('up')) {
			[ [ 'download', $('down').value ], [ 'upload', $('up').value ] ].forEach((x) => {
				const k = shaping.kbitText(String(x[1]).trim());

				if (k === null)
					err = err || shaping.validateMbit(x[1]);
				else
					q[x[0]] = +k;
			});
			q.rtt = $('rtt').value;
			q.overhead = $('overhead').value;
			q.adaptive = !!($('adaptive') && $('adaptive').checked);
		}

		return { proposal: q, error: err || propose.validateProposal(q) };
	},

	/** The commands sqm-scripts will run for these sqm values, or why not. */
	preview(node, values, profile) {
		const res = tcpreview.commands(values, { sqm: profile });

		dom.content(node, (res && res.ok) ? [ E('pre', { 'class': 'reterm-tc-preview' }, [ res.commands.join('\n') ]) ]
			: (res ? res.errors : []).map((t) => note('danger', t)));
	},

	/* ---- step 5 ------------------------------------------------------------ */

	/** The devices to offer, each with a checkbox (input.reterm-wizard-offer). */
	offers(offers) {
		return E('ul', { 'class': 'reterm-wizard-offers' }, offers.map((o) => {
			const b = devices.badge(o['class']);

			return E('li', {}, [ E('label', {}, [
				E('input', { 'type': 'checkbox', 'class': 'reterm-wizard-offer', 'value': o.mac, 'checked': o.active ? null : '', 'disabled': o.active ? '' : null }),
				' ', b ? E('span', { 'class': b.cls }, [ b.text ]) : '', ' ', E('strong', {}, [ o.name || o.mac ]),
				o.active ? ' ' + _('(re-terminated already)') : ''
			]), E('div', { 'class': 'cbi-value-description' }, [ o.evidence ]) ]);
		}));
	},

	/** The last step when done; close() forgets the wizard. */
	done(st, close) {
		return [
			note('success', st.applied.devices
				? _('Done. The chosen devices are re-terminated: the router talks to far servers for them with large TCP windows.')
				: _('Done.')),
			E('a', { 'class': 'cbi-button', 'href': L.url('admin/network/reterm/devices') }, [ _('Go to the Devices page') ]), ' ',
			(st.applied.devices || st.applied.shaping) ? E('p', {}, [ _('"Cancel wizard" still takes the changes back; "Close" keeps them.') ]) : '',
			this.button('cbi-button-neutral reterm-wizard-close', _('Close'), close)
		];
	},

	/** The MACs chosen in offers(). */
	chosen(root) {
		return Array.prototype.slice.call(root.querySelectorAll('input.reterm-wizard-offer'))
			.filter((i) => i.checked && !i.disabled).map((i) => i.value);
	}
});
