'use strict';
'require view';
'require form';
'require uci';
'require fs';
'require dom';
'require rpc';
'require reterm.shaping.cake as cake';
'require reterm.shaping.preview as tcpreview';
'require reterm.shaping.sqm as shaping';
'require reterm.shaping.wan as wandetect';
'require reterm.shaping.autorate as autorateform';

/*
 * Network → Re-termination → Shaping: CAKE through sqm-scripts.
 *
 * Edits /etc/config/sqm, one `queue` section per WAN device (created,
 * disabled, when missing). enabled, interface, download and upload are
 * sqm options (rates typed in Mbit/s, stored in kbit/s). The CAKE fields
 * are virtual: sqm has no option for them, so they are read from and
 * written to iqdisc_opts / eqdisc_opts through reterm.shaping.cake, keeping the
 * words we do not manage (shown as "extra options"). A section's option
 * strings are rewritten only when one of its CAKE fields changed; then
 * qdisc, script, linklayer and luci-app-sqm's *_advanced flags are set
 * too (reterm.shaping.sqm changes()). Everything goes through the Map's
 * normal save: staged UCI changes, applied with rollback by Save & Apply.
 * sqm sources the stored values as root, so each one must pass
 * shaping.sqmValueError() first.
 *
 * The WAN and LAN devices and the flow offloading state come from ubus
 * "reterm wan_info": this page never reads uci network or firewall
 * (their secrets stay out of the LuCI session's reach).
 */

function valid(fn) {
	return function(sid, value) {
		const err = fn.call(this, sid, value);
		return (err == null) ? true : err;
	};
}

const callWanInfo = rpc.declare({ object: 'reterm', method: 'wan_info' });

const callInitList = rpc.declare({
	object: 'luci',
	method: 'getInitList',
	params: [ 'name' ],
	expect: { '': {} }
});

/* a Map that writes the CAKE option strings once all fields parsed */
const ShapingMap = form.Map.extend({
	load() {
		this.owner.states = {};
		return this.super('load', arguments);
	},

	parse() {
		const owner = this.owner;

		return this.super('parse', arguments).then(() => {
			return owner.commit();
		});
	}
});

return view.extend({
	load() {
		return Promise.all([
			L.resolveDefault(uci.load('sqm').then(() => true), false),
			L.resolveDefault(callWanInfo(), null),
			L.resolveDefault(fs.list('/var/run/sqm/available_qdiscs'), null),
			L.resolveDefault(fs.read('/usr/lib/sqm/defaults.sh'), null),
			L.resolveDefault(callInitList('sqm'), null),
			/* adaptive shaping's settings (reterm.shaping.autorate) */
			L.resolveDefault(uci.load('reterm'), null)
		]);
	},

	context(data) {
		const net = wandetect.wanInfo(data[1]),
		    qdiscs = Array.isArray(data[2]) ? data[2].map((e) => e.name) : null,
		    profile = tcpreview.profileFromDefaults(data[3]);

		return {
			sqmInstalled: data[0] === true,
			offloadHw: net.offloadHw,
			qdiscs: qdiscs,
			initEnabled: (data[4] && data[4].sqm) ? !!data[4].sqm.enabled : null,
			wanDevices: wandetect.wanDevices(net.wan),
			lanDevices: wandetect.lanDevices(net.lan, net.bridges),
			profile: profile || '1.6',
			profileKnown: profile !== null
		};
	},

	/* the saved CAKE state of a section (cached until the Map reloads) */
	state(sid) {
		if (!this.states[sid])
			this.states[sid] = shaping.sectionState(uci.get('sqm', sid) || {}) ||
				shaping.sectionState({});

		return this.states[sid];
	},

	/*
	 * What the section would be after saving the current form values
	 * (reterm.shaping.sqm pending()).
	 */
	pending(sid) {
		const f = this.fields;

		return shaping.pending(this.state(sid), uci.get('sqm', sid) || {}, (key) => {
			let o = f[key];

			if (!o || !o.isActive(sid))
				return null;

			const v = o.formvalue(sid), c = o.cfgvalue(sid);

			return (v == null) ? null : { value: String(v), changed: String(v) !== ((c == null) ? '' : String(c)), title: o.title };
		});
	},

	/* called by the Map after every field parsed without error: checks
	 * every value first, then writes all of them or nothing */
	commit() {
		const sids = this.section.cfgsections(), writes = [];

		for (let i = 0; i < sids.length; i++) {
			const p = this.pending(sids[i]);

			if (!p.changed)
				continue;

			if (p.changes === null)
				return Promise.reject(new TypeError(_('CAKE settings: %s').format(p.error)));

			for (const k in p.changes) {
				const err = shaping.sqmValueError(k, p.changes[k]);

				if (err !== null)
					return Promise.reject(new TypeError(err));

				writes.push([ sids[i], k, p.changes[k] ]);
			}
		}

		writes.forEach((w) => { uci.set('sqm', w[0], w[1], w[2]) });

		return Promise.resolve();
	},

	renderNotes(list) {
		return list.map((w) => {
			return E('div', { 'class': 'alert-message ' + w.level }, [ w.text ]);
		});
	},

	renderStatus(sid) {
		const p = this.pending(sid);

		return this.renderNotes(shaping.sectionWarnings(p.values, this.state(sid), this.ctx));
	},

	renderPreview(sid) {
		const p = this.pending(sid),
		    profile = this.ctx.profileKnown
		    	? _('as sqm-scripts %s runs them').format(this.ctx.profile)
		    	: _('as sqm-scripts %s runs them (version assumed)').format(this.ctx.profile);

		if (p.error)
			return [ E('div', { 'class': 'alert-message danger' }, [ p.error ]) ];

		const r = tcpreview.commands(p.values, { sqm: this.ctx.profile });

		if (!r.ok)
			return this.renderNotes(r.errors.map((e) => ({ level: 'danger', text: e })));

		return [
			E('pre', { 'class': 'reterm-tc-preview' }, [ r.commands.join('\n') ]),
			E('div', { 'class': 'cbi-value-description' }, [ profile ])
		].concat(r.notes.map((n) => E('div', { 'class': 'cbi-value-description' }, [ n ])));
	},

	/* re-render the live parts of a section after an input changed */
	refresh(sid) {
		const prev = this.map.findElement('id', 'reterm-preview-' + sid),
		    stat = this.map.findElement('id', 'reterm-status-' + sid);

		if (prev)
			dom.content(prev, this.renderPreview(sid));

		if (stat)
			dom.content(stat, this.renderStatus(sid));
	},

	/* create a disabled queue for each WAN device that has none */
	addMissingQueues() {
		const queues = uci.sections('sqm', 'queue');

		this.ctx.wanDevices.forEach((dev) => {
			if (queues.some((q) => q.interface === dev))
				return;

			const vals = shaping.newSection(dev);

			if (vals === null || Object.keys(vals).some((k) => shaping.sqmValueError(k, vals[k]) !== null))
				return;

			const sid = uci.add('sqm', 'queue');

			for (const k in vals)
				uci.set('sqm', sid, k, vals[k]);
		});
	},

	render(data) {
		let self = this, m, s, o, f = {};

		this.ctx = this.context(data);
		this.states = {};
		this.fields = f;

		const notes = this.renderNotes(shaping.globalWarnings(this.ctx));

		if (!this.ctx.sqmInstalled) {
			/* nothing to save: drop the footer buttons */
			this.handleSaveApply = this.handleSave = this.handleReset = null;
			return E([ E('h2', {}, [ _('Shaping') ]) ].concat(notes));
		}

		this.addMissingQueues();

		if (!this.ctx.wanDevices.length)
			notes.push(E('div', { 'class': 'alert-message warning' }, [
				_('No WAN device found. Set the device of each queue below by hand.') ]));

		/* choices found in existing configs beyond the ones we offer */
		const extra = { rtt: [], overhead: [], isolation: [], diffserv: [] };

		uci.sections('sqm', 'queue').forEach((q) => {
			const md = (shaping.sectionState(q) || {}).model || {};

			if (typeof md.rtt === 'string' && !cake.RTT_PRESETS[md.rtt] && extra.rtt.indexOf(md.rtt) < 0)
				extra.rtt.push(md.rtt);
			if (md.overhead != null && cake.OVERHEAD_PRESETS.indexOf(md.overhead) < 0 && extra.overhead.indexOf(md.overhead) < 0)
				extra.overhead.push(md.overhead);
			if (md.isolation != null && [ 'dual', 'triple-isolate', 'flows' ].indexOf(md.isolation) < 0 && extra.isolation.indexOf(md.isolation) < 0)
				extra.isolation.push(md.isolation);
			if (md.diffserv != null && [ 'besteffort', 'diffserv3', 'diffserv4' ].indexOf(md.diffserv) < 0 && extra.diffserv.indexOf(md.diffserv) < 0)
				extra.diffserv.push(md.diffserv);
		});

		function onchange(ev, sid) {
			self.refresh(sid);
		}

		/* a form field backed by the CAKE model instead of a UCI option */
		function virtual(opt, get) {
			opt.load = (sid) => get(self.state(sid), sid);
			opt.write = () => {};
			opt.remove = () => {};
			opt.onchange = onchange;
			return opt;
		}

		m = new ShapingMap('sqm', _('Shaping'),
			_('Smart queue management with CAKE keeps latency low while the link is busy: the router, not your modem or ISP, becomes the bottleneck and CAKE keeps its queue short and shared fairly. These settings are saved in sqm-scripts\' configuration; the CAKE options go into its iqdisc_opts (download) and eqdisc_opts (upload).'));
		m.owner = this;
		this.map = m;

		s = m.section(form.TypedSection, 'queue', _('Queues'));
		s.anonymous = true;
		s.addremove = false;
		this.section = s;

		o = s.option(form.DummyValue, '_status', _('Notes'));
		o.renderWidget = (sid) => {
			return E('div', { id: 'reterm-status-' + sid }, self.renderStatus(sid));
		};

		o = f.enabled = s.option(form.Flag, 'enabled', _('Enable'),
			_('Shape this device with sqm-scripts. The sqm service must also be enabled (System → Startup) to start at boot.'));
		o.rmempty = false;
		o.onchange = onchange;

		o = f.iface = s.option(form.Value, 'interface', _('Device'),
			_('The device that carries your Internet traffic: the WAN device, or pppoe-wan when the WAN connects with PPPoE. Never a LAN device.'));
		this.ctx.wanDevices.forEach((d) => { o.value(d, _('%s (WAN)').format(d)) });
		o.rmempty = false;
		o.validate = valid((sid, v) => shaping.validateDevice(v) || shaping.sqmValueError('interface', v));
		o.onchange = onchange;

		[ [ 'download', _('Download (Mbit/s)'),
		    _('Rate the shaper allows towards your LAN. Use about 90 % of the download speed you measured without shaping (85–95 % is the usual advice); go lower if latency still rises under load. 0 leaves the download unshaped. Stored in kbit/s.') ],
		  [ 'upload', _('Upload (Mbit/s)'),
		    _('Rate the shaper allows towards the Internet. Use about 90 % of the measured upload speed (85–95 %); 0 leaves the upload unshaped. Stored in kbit/s.') ]
		].forEach((d) => {
			o = f[d[0]] = s.option(form.Value, d[0], d[1], d[2]);
			o.placeholder = '18';
			o.load = (sid) => shaping.mbitText(uci.get('sqm', sid, d[0]));
			o.write = (sid, v) => {
				const k = shaping.kbitText(v);

				uci.set('sqm', sid, d[0], (k !== null && shaping.sqmValueError(d[0], k) === null) ? k : null);
			};
			o.validate = valid((sid, v) => {
				if (v === '' || v == null)
					return (f.enabled.formvalue(sid) === '1') ? _('Required when the queue is enabled') : null;
				return shaping.validateMbit(v) || shaping.sqmValueError(d[0], shaping.kbitText(v));
			});
			o.onchange = onchange;
		});

		o = f.rtt = virtual(s.option(form.ListValue, '_rtt', _('Round-trip time'),
			_('The RTT CAKE assumes when it decides that a queue stands too long. Pick about the 98th percentile of the round-trip times your traffic really sees. "internet" (100 ms) also covers paths up to about 280 ms well; where most servers are far away (200 ms and more) use oceanic (300 ms). Shorter values cut latency harder but cost throughput on long paths.')),
			(st) => (typeof st.model.rtt === 'number') ? 'custom' : (st.model.rtt || 'internet'));
		o.value('lan', _('lan – 1 ms (not for Internet links)'));
		o.value('metro', _('metro – 10 ms'));
		o.value('regional', _('regional – 30 ms'));
		o.value('internet', _('internet – 100 ms (default)'));
		o.value('oceanic', _('oceanic – 300 ms'));
		o.value('satellite', _('satellite – 1000 ms'));
		extra.rtt.forEach((k) => { o.value(k, _('%s (as configured)').format(k)) });
		o.value('custom', _('Custom…'));
		o.validate = valid((sid, v) => {
			return (extra.rtt.indexOf(v) > -1) ? _('"%s" is outside 1–1000 ms; choose a preset or a custom value').format(v) : null;
		});

		o = f.rttCustom = virtual(s.option(form.Value, '_rtt_custom', _('Custom RTT (ms)'),
			_('Whole milliseconds, 1 to 1000.')),
			(st) => (typeof st.model.rtt === 'number') ? String(st.model.rtt) : '');
		o.depends('_rtt', 'custom');
		o.placeholder = '100';
		o.rmempty = false;
		o.validate = valid((sid, v) => cake.validateRtt(v));

		o = f.overhead = virtual(s.option(form.ListValue, '_overhead', _('Link overhead'),
			_('How your link frames each packet, so CAKE counts bytes like your modem does. ethernet: fibre, Ethernet hand-off or cable modem in bridge mode (38 bytes, MPU 84); docsis: cable internet (18 bytes, MPU 64); pppoe-ptm: VDSL2 with PPPoE (30 bytes); bridged-ptm: VDSL2 without PPPoE (22 bytes); atm: ADSL (ATM cells; enter the overhead in bytes); raw: no compensation; none: no keyword (CAKE\'s default). These CAKE keywords replace sqm\'s own link layer setting, which is set to none so that the overhead is not counted twice.')),
			(st) => (st.model.overhead == null) ? 'none' : st.model.overhead);
		o.value('ethernet', _('ethernet – fibre / Ethernet (38 bytes, MPU 84)'));
		o.value('docsis', _('docsis – cable (18 bytes, MPU 64)'));
		o.value('pppoe-ptm', _('pppoe-ptm – VDSL2 with PPPoE (30 bytes)'));
		o.value('bridged-ptm', _('bridged-ptm – VDSL2 without PPPoE (22 bytes)'));
		o.value('atm', _('atm – ADSL with ATM cells (overhead below)'));
		o.value('raw', _('raw – no compensation'));
		o.value('none', _('none – no keyword'));
		extra.overhead.forEach((k) => {
			o.value(k, (k === 'custom') ? _('custom – keywords as configured') : _('%s (as configured)').format(k));
		});

		o = f.advanced = virtual(s.option(form.Flag, '_advanced', _('Advanced options'),
			_('Show the per-packet overhead, minimum packet unit, VLAN tags and extra CAKE options.')),
			(st) => {
				const md = st.model;
				return (md.overheadBytes != null || md.mpu != null || md.vlan > 0 ||
					st.unknown.ingress.length || st.unknown.egress.length) ? '1' : '0';
			});

		o = f.overheadBytes = virtual(s.option(form.Value, '_overhead_bytes', _('Overhead (bytes)'),
			_('Per-packet overhead in bytes, -64 to 256; replaces the value of the preset. Required for atm, e.g. 40 for PPPoE over ADSL with LLC/SNAP, 32 for PPPoE with VC-MUX.')),
			(st) => (st.model.overheadBytes == null) ? '' : String(st.model.overheadBytes));
		o.depends({ _advanced: '1', _overhead: /^(?!custom$)/ });
		o.depends('_overhead', 'atm');
		o.validate = valid((sid, v) => {
			if (v === '' || v == null)
				return (f.overhead.formvalue(sid) === 'atm') ? _('ATM framing needs the per-packet overhead') : null;
			return cake.validateOverhead(v);
		});

		o = f.mpu = virtual(s.option(form.Value, '_mpu', _('Minimum packet unit (bytes)'),
			_('Packets are counted as at least this long, 0 to 256. Leave empty for the preset\'s value.')),
			(st) => (st.model.mpu == null) ? '' : String(st.model.mpu));
		o.depends({ _advanced: '1', _overhead: /^(?!custom$)/ });
		o.validate = valid((sid, v) => (v === '' || v == null) ? null : cake.validateMpu(v));

		o = f.vlan = virtual(s.option(form.ListValue, '_vlan', _('VLAN tags'),
			_('VLAN tags your ISP adds on the link (ether-vlan, 4 bytes each).')),
			(st) => String(st.model.vlan || 0));
		o.value('0', _('none'));
		o.value('1', _('one (+4 bytes)'));
		o.value('2', _('two (+8 bytes)'));
		o.depends({ _advanced: '1', _overhead: /^(?!custom$)/ });

		o = f.nat = virtual(s.option(form.Flag, '_nat', _('NAT awareness'),
			_('CAKE looks up connection tracking to see the LAN addresses behind NAT, so per-host fairness works on a NAT router. Turn it on when this router masquerades on this device.')),
			(st) => {
				if (st.model.nat == null)
					return (self.ctx.profile === '1.7') ? '1' : '0';
				return st.model.nat ? '1' : '0';
			});

		o = f.isolation = virtual(s.option(form.ListValue, '_isolation', _('Fairness'),
			_('How CAKE shares the link. Per host: each LAN host gets an equal share first, then its connections share it, so one host with many downloads cannot starve the others (dual-srchost on upload, dual-dsthost on download; needs NAT awareness on a NAT router). Triple isolate: fair over both source and destination hosts (CAKE\'s default). Per flow: per connection only.')),
			(st) => st.model.isolation || 'triple-isolate');
		o.value('dual', _('Per host, then per flow (recommended)'));
		o.value('triple-isolate', _('Triple isolate (CAKE default)'));
		o.value('flows', _('Per flow'));
		extra.isolation.forEach((k) => { o.value(k, _('%s (as configured)').format(k)) });

		o = f.diffserv = virtual(s.option(form.ListValue, '_diffserv', _('Priorities'),
			_('Best effort: one queue for everything (piece_of_cake.qos). diffserv3 / diffserv4: priority tins by DSCP marking on the upload (layer_cake.qos). The download stays best effort (sqm ignores DSCP on ingress by default): marks arriving from the Internet cannot be trusted.')),
			(st) => st.model.diffserv || ((st.script === 'layer_cake.qos') ? 'diffserv3' : 'besteffort'));
		o.value('besteffort', _('Best effort (one tin)'));
		o.value('diffserv3', _('diffserv3 (3 tins)'));
		o.value('diffserv4', _('diffserv4 (4 tins)'));
		extra.diffserv.forEach((k) => { o.value(k, _('%s (as configured)').format(k)) });

		o = f.ackFilter = virtual(s.option(form.Flag, '_ack_filter', _('ACK filter'),
			_('Drops redundant TCP ACKs waiting in the upload queue. Only for very asymmetric links (download 10 times the upload or more), where ACKs alone fill the upload.')),
			(st) => (st.model.ackFilter === true || st.model.ackFilter === 'aggressive') ? '1' : '0');

		[ [ 'extraIngress', '_extra_ingress', 'ingress', _('Extra download options'),
		    _('Other CAKE options for the download side (iqdisc_opts), kept as typed, e.g. "memlimit 32mb". Words that have their own field above are refused.') ],
		  [ 'extraEgress', '_extra_egress', 'egress', _('Extra upload options'),
		    _('Other CAKE options for the upload side (eqdisc_opts), kept as typed, e.g. "wash". Words that have their own field above are refused.') ]
		].forEach((d) => {
			o = f[d[0]] = virtual(s.option(form.Value, d[1], d[3], d[4]),
				(st) => st.unknown[d[2]].join(' '));
			o.depends('_advanced', '1');
			o.validate = valid((sid, v) => cake.validateExtra(d[2], v));
		});

		autorateform.addOptions(s, { onchange: onchange });

		o = s.option(form.DummyValue, '_preview', _('Commands'),
			_('The tc and ip commands sqm-scripts will run for the values above, before you save. Updated as you edit.'));
		o.renderWidget = (sid) => {
			return E('div', { id: 'reterm-preview-' + sid }, self.renderPreview(sid));
		};

		return m.render().then((node) => {
			return E([ E('div', { 'class': 'reterm-shaping-notes' }, notes), node ]);
		});
	}
});
