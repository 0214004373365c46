'use strict';
'require view';
'require form';
'require uci';
'require ui';
'require reterm.notify as notify';
'require dom';
'require poll';
'require reterm.devices.rows as devices';
'require reterm.devices.add as deviceadd';
'require reterm.devices.live as devicelive';
'require reterm.devices.auditrun as auditrun';
'require reterm.errtext as errtext';

/*
 * Network → Re-termination → Devices: which LAN devices get their TCP
 * re-terminated.
 *
 * One table row per MAC: the LAN hosts the router knows (ubus "reterm
 * hosts") merged with the `device` sections of /etc/config/reterm as
 * LuCI holds them (saved and staged changes included; they win over what
 * the router answered). Consoles and handhelds first. The row fields
 * (re-terminate, ports, custom ports) are virtual: after every field
 * parsed, commit() turns them into UCI changes with reterm.devices.rows
 * plan(): a device switched on for the first time gets a section (name
 * from its host name, mac, enabled, ports), switching off sets enabled 0
 * and keeps the section, "Remove" deletes it. Everything goes through the
 * Map's normal save (staged UCI changes) and Save & Apply (with
 * rollback); an invalid field rejects the save before anything is
 * written. Adding a device by MAC stages the new section at once, like
 * LuCI's own "Add" buttons (TypedSection.handleAdd).
 *
 * The global switch (main.enabled) is an ordinary field at the top; it is
 * never flipped behind the user's back: while it is off and a device is
 * switched on, a note says so and offers a button that ticks it (saved
 * with everything else).
 *
 * Live numbers of re-terminated devices come from ubus "reterm
 * device_stats" every poll interval while the page is open; a router
 * without that method answers through "hosts" (rwnd-limited share only).
 * What the router is asked: reterm.devices.live; the add-by-MAC box:
 * reterm.devices.add.
 */

function valid(fn) {
	return function(sid, value) {
		const err = fn.call(this, sid, value);
		return (err == null) ? true : err;
	};
}

/* a Map that turns the row fields into UCI changes once all parsed */
const DevicesMap = form.Map.extend({
	/* luci-base before 2025-09 (OpenWrt 24.10.0-24.10.2) put 'hidden' on the
	   table cell of an option with depends and never took it off: the Ports
	   columns stayed empty on themes whose .hidden wins over table cells.
	   Depends still hide the field inside the cell. */
	renderContents() {
		return Promise.resolve(this.super('renderContents', arguments)).then((node) => {
			node.querySelectorAll('.td.cbi-value-field.hidden').forEach((td) => td.classList.remove('hidden'));
			return node;
		});
	},

	parse() {
		const owner = this.owner;

		return this.super('parse', arguments).then(() => {
			return owner.commit();
		});
	}
});

/* one row per merged host instead of per UCI section */
const HostSection = form.TableSection.extend({
	cfgsections() {
		return this.map.owner.rowKeys();
	}
});

return view.extend({
	load() {
		return Promise.all([
			uci.load('reterm'),
			devicelive.hosts().then((hosts) => {
				return { hosts: hosts };
			}, (e) => {
				return { error: errtext.of(e) };
			})
		]);
	},

	rowKeys() {
		const index = {};

		this.rows = devices.merge(this.hosts, uci.sections('reterm', 'device'));
		this.rows.forEach((r) => { index[r.key] = r });
		this.rowIndex = index;

		return this.rows.map((r) => r.key);
	},

	row(key) {
		return (this.rowIndex && this.rowIndex[key]) || null;
	},

	/* a field's current value; null when it is not shown for that row */
	fieldValue(o, sid) {
		let m = this.map;

		if (!m || !m.root || !m.findElement('id', o.cbid(sid)) || !o.isActive(sid))
			return null;

		return o.formvalue(sid);
	},

	/* re-terminated now, as far as LuCI knows: has live numbers */
	isLive(r) {
		return r.section !== null && r.enabled && !this.removed[r.key];
	},

	/* the row edits of the form → UCI changes; called by the Map's parse */
	commit() {
		const self = this, rows = this.rows || [], edits = {};

		rows.forEach((r) => {
			const en = self.fieldValue(self.fields.enabled, r.key),
			    choice = self.fieldValue(self.fields.ports, r.key),
			    ports = (choice === 'custom') ? self.fieldValue(self.fields.custom, r.key) : choice;

			if (en !== null || ports !== null || self.removed[r.key])
				edits[r.key] = { enabled: (en === null) ? null : (en === '1'), ports: ports, remove: !!self.removed[r.key] };
		});

		const p = devices.plan(rows, edits);

		if (p.error)
			return Promise.reject(new TypeError(p.error));

		p.ops.forEach((op) => {
			if (op.op === 'remove')
				return uci.remove('reterm', op.section);

			const sid = (op.op === 'add') ? uci.add('reterm', 'device') : op.section;

			for (const k in op.values)
				uci.set('reterm', sid, k, op.values[k]);
		});

		this.removed = {};

		return Promise.resolve();
	},

	/* is any row field marked invalid? */
	formInvalid() {
		const self = this;

		return (this.rows || []).some((r) => {
			return [ self.fields.enabled, self.fields.ports, self.fields.custom ].some((o) => {
				return self.fieldValue(o, r.key) !== null && !o.isValid(r.key);
			});
		});
	},

	renderHost(r) {
		const b = devices.badge(r.class), addrs = r.ipv4.concat(r.ipv6), tags = [];

		if (b)
			tags.push(' ', E('span', { 'class': b.cls }, [ b.text ]));

		if (!r.online && !this.hostsError)
			tags.push(' ', E('span', { 'class': 'label reterm-offline' }, [ r.known ? _('offline') : _('not seen') ]));

		return E('div', { 'class': 'reterm-host' }, [
			E('strong', {}, [ r.name || _('Unnamed device') ])
		].concat(tags, [
			E('div', { 'class': 'reterm-host-mac' }, [ r.mac ]),
			E('div', { 'class': 'reterm-host-addr' }, [ addrs.length ? addrs.join(', ') : _('No address known') ]),
			r.vendor ? E('div', { 'class': 'reterm-host-vendor' }, [ r.vendor ]) : ''
		]));
	},

	/* the audit's hint, and its button or progress (reterm.devices.auditrun) */
	renderAudit(sid) {
		const r = this.row(sid);

		return E('div', { 'id': 'reterm-audit-' + sid }, r ? this.audits.cell(r, r.known) : []);
	},

	/* a run's news: that device's cell again */
	auditChanged(mac) {
		for (const r of this.rows || [])
			if (r.mac === mac) {
				const cell = this.map.findElement('id', 'reterm-audit-' + r.key);

				if (cell)
					dom.content(cell, this.audits.cell(r, r.known));
			}
	},

	liveContent(r) {
		if (!this.isLive(r))
			return [];

		if (this.liveError)
			return [ E('em', {}, [ _('unavailable') ]) ];

		if (!this.liveData)
			return [ E('em', {}, [ _('waiting for data…') ]) ];

		return devices.liveLines(this.liveData[r.mac] || null).map((l) => {
			return E('div', {}, [ l ]);
		});
	},

	renderRemove(key) {
		const r = this.row(key);

		if (!r || r.section === null)
			return [];

		if (this.removed[key])
			return [
				E('em', {}, [ _('Removed when saved') ]), ' ',
				E('button', { 'class': 'btn cbi-button', 'click': ui.createHandlerFn(this, 'toggleRemove', key) }, [ _('Undo') ])
			];

		return [ E('button', {
			'class': 'btn cbi-button cbi-button-remove',
			'title': _('Forget this device\'s re-termination settings'),
			'click': ui.createHandlerFn(this, 'toggleRemove', key)
		}, [ _('Remove') ]) ];
	},

	toggleRemove(key) {
		const node = this.map.findElement('id', 'reterm-remove-' + key);

		this.removed[key] = !this.removed[key];

		if (node)
			dom.content(node, this.renderRemove(key));

		this.refreshNotes();
	},

	/* notes above the table: global switch, ignored sections, empty list */
	refreshNotes() {
		const self = this, notes = [], rows = this.rows || [];

		let mainOn = this.fieldValue(this.fields.main, 'main');

		if (mainOn === null)
			mainOn = uci.get('reterm', 'main', 'enabled');

		const anyOn = rows.some((r) => {
			const v = self.fieldValue(self.fields.enabled, r.key);
			return !self.removed[r.key] && ((v === null) ? (r.section !== null && r.enabled) : (v === '1'));
		});

		if (anyOn && mainOn !== '1')
			notes.push(E('div', { 'class': 'alert-message warning', 'id': 'reterm-main-note' }, [
				E('p', {}, [ _('Re-termination is switched off, so the devices switched on below are not re-terminated yet. Switch it on as well?') ]),
				E('button', { 'class': 'btn cbi-button cbi-button-action', 'click': ui.createHandlerFn(this, 'handleMainOn') },
					[ _('Switch re-termination on') ])
			]));

		devices.invalidSections(uci.sections('reterm', 'device')).forEach((s) => {
			notes.push(E('div', { 'class': 'alert-message warning' }, [
				_('The device section "%s" has no valid MAC address (%s) and is ignored. Fix or delete it in /etc/config/reterm.')
					.format(s.section, s.mac || _('none'))
			]));
		});

		if (!rows.length && !this.hostsError)
			notes.push(E('p', { 'class': 'reterm-empty' }, [
				_('No LAN devices known yet. Devices appear here once they get a DHCP lease or talk to the router; you can also add one by its MAC address below.')
			]));

		dom.content(this.notesNode, notes);

		this.ensurePoll();
	},

	handleMainOn() {
		const node = this.map.findElement('id', this.fields.main.cbid('main'));

		if (node)
			dom.callClassMethod(node, 'setValue', '1');

		this.map.checkDepends();
		this.refreshNotes();
	},

	/* ---- live numbers ---- */

	pollLive() {
		const self = this, live = (this.rows || []).filter((r) => self.isLive(r));

		if (!live.length)
			return Promise.resolve();

		return this.stats.fetch().then((st) => {
			self.liveData = st;
			self.liveError = null;
		}, (e) => {
			if (!self.liveError)
				notify.show(null, E('p', {}, [
					_('Live numbers of the re-terminated devices are unavailable: %s. Retrying while this page is open.').format(errtext.of(e))
				]), 'warning');

			self.liveError = errtext.of(e);
		}).then(() => {
			live.forEach((r) => {
				const node = self.map.findElement('id', 'reterm-live-' + r.key);

				if (node)
					dom.content(node, self.liveContent(r));
			});
		});
	},

	/* poll while re-terminated devices are listed (only while this view is open) */
	ensurePoll() {
		const self = this;

		if (this.pollFn || !(this.rows || []).some((r) => self.isLive(r)))
			return;

		this.pollFn = L.bind(this.pollLive, this);
		poll.add(this.pollFn);
	},

	/* ---- errors ---- */

	showHostsError() {
		this.hostsNote = notify.show(_('Cannot list the LAN devices'), [
			E('p', {}, [ _('The router did not answer "reterm hosts": %s. Devices already configured are shown; the others appear once the list loads.').format(this.hostsError) ]),
			E('button', { 'class': 'btn cbi-button cbi-button-action', 'click': ui.createHandlerFn(this, 'handleRetry') }, [ _('Retry') ])
		], 'danger');
	},

	dropHostsError() {
		if (this.hostsNote && this.hostsNote.parentNode)
			this.hostsNote.parentNode.removeChild(this.hostsNote);

		this.hostsNote = null;
	},

	/* fetch the host list again and redraw the table (unsaved edits are redrawn from the saved state) */
	handleRetry() {
		const self = this;

		return devicelive.hosts().then((hosts) => {
			self.hosts = hosts;
			self.hostsError = null;
			self.dropHostsError();

			return self.map.load().then(() => self.map.renderContents()).then(() => {
				self.refreshNotes();
			});
		}, (e) => {
			self.hostsError = errtext.of(e);
			self.dropHostsError();
			self.showHostsError();
		});
	},

	/* ---- page ---- */

	handleSave(ev) {
		const self = this;

		return this.super('handleSave', [ ev ]).then((r) => {
			self.refreshNotes();
			return r;
		});
	},

	handleReset(ev) {
		const self = this;

		this.removed = {};

		return Promise.resolve(this.super('handleReset', [ ev ])).then((r) => {
			self.refreshNotes();
			return r;
		});
	},

	render(data) {
		let self = this, m, s, o, f = {};

		this.hosts = data[1].hosts || [];
		this.hostsError = data[1].error || null;
		this.removed = {};
		this.fields = f;
		this.stats = devicelive.stats();
		this.audits = auditrun.create((mac) => self.auditChanged(mac));
		this.liveData = null;
		this.liveError = null;
		this.notesNode = E('div', { 'class': 'reterm-devices-notes' });

		/* the global switch needs its section; staged only on save */
		if (!uci.get('reterm', 'main'))
			uci.add('reterm', 'reterm', 'main');

		function refresh() {
			self.refreshNotes();
		}

		/* a row field backed by the merged row instead of a UCI option */
		function virtual(opt, get) {
			opt.load = (sid) => {
				const r = self.row(sid);
				return r ? get(r) : null;
			};
			opt.write = () => {};
			opt.remove = () => {};
			return opt;
		}

		m = new DevicesMap('reterm', _('Devices'),
			_('Re-termination lets the router take over the TCP connections of the devices you switch on here: the device talks only to the nearby router, while the router carries each connection over the long path with its own large buffers. Consoles and handhelds with small receive windows (Nintendo 3DS, PlayStation 4 while it runs a game) download several times faster. Changes take effect with Save & Apply.'));
		m.owner = this;
		this.map = m;

		s = m.section(form.NamedSection, 'main', 'reterm');
		s.anonymous = true;
		s.addremove = false;

		o = f.main = s.option(form.Flag, 'enabled', _('Re-termination'),
			_('Divert the TCP connections of the devices switched on below through the router\'s proxy. When off, no device is re-terminated.'));
		o.rmempty = false;
		o.onchange = refresh;

		s = m.section(HostSection, 'device', _('LAN devices'),
			_('Consoles and handhelds are listed first. The window audit tells whether a device\'s TCP receive window limits its downloads: without window scaling a connection can never carry more than its window per round trip.'));
		s.anonymous = true;
		s.addremove = false;

		o = s.option(form.DummyValue, '_host', _('Device'));
		o.renderWidget = (sid) => self.renderHost(self.row(sid));

		o = s.option(form.DummyValue, '_audit', _('Window audit'));
		o.renderWidget = (sid) => self.renderAudit(sid);

		o = f.enabled = virtual(s.option(form.Flag, 'enabled', _('Re-terminate')),
			(r) => (r.section !== null && r.enabled) ? '1' : '0');
		o.onchange = refresh;

		o = f.ports = virtual(s.option(form.ListValue, 'ports', _('Ports')),
			(r) => devices.portsChoice(r.ports).choice);
		o.value('all', _('All TCP ports'));
		o.value('web', _('Web (80 and 443)'));
		o.value('custom', _('Custom list…'));
		o.depends('enabled', '1');

		o = f.custom = virtual(s.option(form.Value, '_ports_custom', _('Custom ports')),
			(r) => devices.portsChoice(r.ports).custom);
		o.placeholder = '80 443 8080-8090';
		o.rmempty = false;
		o.depends({ enabled: '1', ports: 'custom' });
		o.validate = valid((sid, v) => devices.validatePorts(v));

		o = s.option(form.DummyValue, '_live', _('Live'));
		o.renderWidget = (sid) => {
			return E('div', { 'class': 'reterm-live', 'id': 'reterm-live-' + sid }, self.liveContent(self.row(sid)));
		};

		o = s.option(form.DummyValue, '_remove', '');
		o.renderWidget = (sid) => {
			return E('div', { 'id': 'reterm-remove-' + sid }, self.renderRemove(sid));
		};

		if (this.hostsError)
			this.showHostsError();

		return m.render().then((node) => {
			self.adder = deviceadd.create({
				rows() { return self.rows },
				invalid() { return self.formInvalid() },
				save() { return self.map.save(null, true) },
				saved() { self.refreshNotes() }
			});

			const page = E([ self.notesNode, node, self.adder.node ]);

			self.refreshNotes();

			return page;
		});
	}
});
