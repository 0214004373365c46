'use strict';
'require baseclass';
'require reterm.units as units';
'require reterm.shaping.cake as cake';
'require reterm.shaping.preview as tcpreview';
'require reterm.shaping.wan as wandetect';

/*
 * Shaping logic shared by the Shaping view and its tests: what a queue
 * section means as a CAKE model, what saving it writes, and which
 * warnings apply (which device is the WAN: reterm.shaping.wan). Pure: the
 * view collects UCI sections and passes them in as plain objects.
 * Use as: 'require reterm.shaping.sqm as shaping';
 */

const MBIT_RE = /^[0-9]{1,6}(?:\.[0-9]{1,3})?$/;
const MBIT_MAX = 100000;

function str(v) {
	return (v == null) ? '' : Array.isArray(v) ? v.join(' ') : String(v);
}

const validDevice = wandetect.validDevice;

/*
 * What this app may store in a queue section of /etc/config/sqm.
 * sqm-scripts exports every option into its environment and writes them
 * as VAR="value" lines into /var/run/sqm/<device>.state, which it later
 * sources as root (run-openwrt.sh, stop_statefile): a stored ", $, `, \
 * or newline would run commands, and SCRIPT names a file it runs. So
 * every value we write is one of these grammars, nothing else.
 */
const KBIT_RE = /^(?:0|[1-9][0-9]{0,8})$/;

/* a whole number as the form's numeric CAKE fields take it */
function isInt(v) {
	return /^-?[0-9]{1,6}$/.test(v);
}

const SQM_VALUES = {
	enabled(v) { return v === '0' || v === '1' },
	interface: validDevice,
	download(v) { return KBIT_RE.test(v) && +v <= MBIT_MAX * 1000 },
	upload(v) { return KBIT_RE.test(v) && +v <= MBIT_MAX * 1000 },
	qdisc(v) { return v === 'cake' },
	script(v) { return v === 'piece_of_cake.qos' || v === 'layer_cake.qos' },
	linklayer(v) { return v === 'none' },
	qdisc_advanced(v) { return v === '1' },
	qdisc_really_really_advanced(v) { return v === '1' },
	iqdisc_opts(v) { return cakeOpts(v, 'ingress') },
	eqdisc_opts(v) { return cakeOpts(v, 'egress') }
};

/* an option string of CAKE words as cake.build() writes them: allowed
 * characters, valid words, keywords with their values, no word the
 * parser calls invalid */
function cakeOpts(v, side) {
	if (cake.validateOpts(v) !== null)
		return false;

	const p = (side === 'ingress') ? cake.parse(v, null) : cake.parse(null, v);

	return p !== null && p.invalid.length === 0;
}

const SCRIPT_BY_DIFFSERV = {
	besteffort: 'piece_of_cake.qos', diffserv3: 'layer_cake.qos', diffserv4: 'layer_cake.qos',
	diffserv8: 'layer_cake.qos', precedence: 'layer_cake.qos'
};

return baseclass.extend({
	__name__: 'reterm.shaping.sqm',

	/**
	 * What a queue section would be after saving the form's values.
	 * @param {Object} st sectionState() of the saved section
	 * @param {Object} saved the saved section's options
	 * @param {function(string): ({value: string, changed: boolean,
	 *   title: string}|null)} field a form field by key (enabled, iface,
	 *   download, upload, rtt, rttCustom, overhead, overheadBytes, mpu,
	 *   vlan, nat, isolation, diffserv, ackFilter, extraIngress,
	 *   extraEgress): its value, whether it differs from the saved one,
	 *   its title; null when inactive
	 * @returns {{model, unknown, changed: boolean, changes: Object|null,
	 *   values: Object, error: string|null}} changes: the options to
	 *   write; values: the section for the preview
	 */
	pending(st, saved, field) {
		let m = cake.clone(st.model), unk = cake.clone(st.unknown),
		    sec = Object.assign({}, saved), error = null;
		const fv = (k) => { const x = field(k); return x ? x.value : null; },
		    changed = (k) => { const x = field(k); return !!(x && x.changed); },
		    num = (v) => (v == null || v === '') ? null : isInt(v) ? +v : v;

		if (changed('rtt') || changed('rttCustom'))
			m.rtt = (fv('rtt') === 'custom') ? (isInt(fv('rttCustom')) ? +fv('rttCustom') : fv('rttCustom')) : fv('rtt');

		if ([ 'overhead', 'overheadBytes', 'mpu', 'vlan' ].some(changed) && fv('overhead') !== 'custom') {
			m.overhead = (fv('overhead') == null || fv('overhead') === 'none') ? null : fv('overhead');
			m.overheadBytes = num(fv('overheadBytes'));
			m.mpu = num(fv('mpu'));
			m.vlan = isInt(fv('vlan')) ? +fv('vlan') : 0;
			delete m.overheadTokens;
		}

		if (changed('nat'))
			m.nat = (fv('nat') === '1');

		if (changed('isolation'))
			m.isolation = fv('isolation');

		if (changed('diffserv'))
			m.diffserv = fv('diffserv');

		if (changed('ackFilter'))
			m.ackFilter = (fv('ackFilter') === '1') ? true : null;

		if (changed('extraIngress'))
			unk.ingress = cake.tokens(fv('extraIngress')) || [];

		if (changed('extraEgress'))
			unk.egress = cake.tokens(fv('extraEgress')) || [];

		const isChanged = !cake.same(m, st.model) || !cake.same(unk, st.unknown);

		/* CAKE's ingress mode belongs on the IFB: add it when rewriting */
		if (isChanged && m.ingress == null)
			m.ingress = true;

		[ [ 'enabled', 'enabled' ], [ 'interface', 'iface' ] ].forEach((e) => {
			if (fv(e[1]) !== null)
				sec[e[0]] = fv(e[1]);
		});

		[ 'download', 'upload' ].forEach(L.bind(function(k) {
			const v = fv(k);

			if (v === null)
				return;

			if (v !== '' && this.validateMbit(v) !== null)
				error = error || '%s: %s'.format(field(k).title, this.validateMbit(v));
			else
				sec[k] = (v === '') ? '' : this.kbitText(v);
		}, this));

		const changes = isChanged ? this.changes(sec, m, unk) : {};

		if (changes === null)
			error = error || cake.validateModel(m) || cake.validateExtra('ingress', unk.ingress.join(' ')) ||
				cake.validateExtra('egress', unk.egress.join(' ')) || _('Invalid CAKE settings');
		else
			Object.assign(sec, changes);

		return { model: m, unknown: unk, changed: isChanged, changes: changes, values: sec, error: error };
	},

	/**
	 * The CAKE model of a queue section. Link layer settings sqm would
	 * add (linklayer ethernet/atm with overhead and tcMPU) are read as the
	 * equivalent CAKE keywords, so saving with linklayer 'none' keeps the
	 * same accounting.
	 * @param {Object} section uci values of the queue section
	 * @returns {{model, unknown, mismatch, invalid, migrated: boolean,
	 *   script: string, supported: boolean}|null}
	 */
	sectionState(section) {
		if (section == null || typeof section !== 'object')
			return null;

		let ll = str(section.linklayer) || 'none',
		    llam = str(section.linklayer_adaptation_mechanism) || 'default',
		    oh = str(section.overhead) || '0',
		    mpu = str(section.tcMPU) || '0',
		    prefix = '', migrated = false;

		if ((ll === 'ethernet' || ll === 'atm') && /^(?:default|cake|tc_stab)$/.test(llam) &&
		    /^-?[0-9]{1,4}$/.test(oh) && /^[0-9]{1,4}$/.test(mpu)) {
			prefix = ((ll === 'atm') ? 'atm ' : '') + 'overhead ' + oh + ' mpu ' + mpu + ' ';
			migrated = true;
		}

		const p = cake.parse(prefix + str(section.iqdisc_opts), prefix + str(section.eqdisc_opts));

		if (p === null)
			return null;

		const script = str(section.script);

		return {
			model: p.model, unknown: p.unknown, mismatch: p.mismatch, invalid: p.invalid,
			migrated: migrated, script: script,
			supported: Object.prototype.hasOwnProperty.call(tcpreview.SCRIPTS, script)
		};
	},

	/**
	 * sqm script for a priority mode: besteffort -> piece_of_cake.qos,
	 * diffserv* -> layer_cake.qos; unset keeps a CAKE script.
	 * @returns {string}
	 */
	scriptFor(diffserv, current) {
		if (SCRIPT_BY_DIFFSERV[diffserv])
			return SCRIPT_BY_DIFFSERV[diffserv];

		return (current === 'layer_cake.qos') ? current : 'piece_of_cake.qos';
	},

	/**
	 * Which sqm script carries a model's priority mode, and the model to
	 * write with it: the script's own mode (besteffort for
	 * piece_of_cake.qos, diffserv3 for layer_cake.qos) is not repeated in
	 * the option string; other modes (diffserv4, ...) are.
	 * @returns {{model: Object, script: string}}
	 */
	forScript(model, current) {
		const m = cake.clone(model),
		    script = this.scriptFor(m.diffserv, current);

		if ((m.diffserv === 'besteffort' && script === 'piece_of_cake.qos') ||
		    (m.diffserv === 'diffserv3' && script === 'layer_cake.qos'))
			m.diffserv = null;

		return { model: m, script: script };
	},

	/**
	 * The options to write when the CAKE model of a section changed:
	 * both option strings, qdisc cake, the script for the priority mode,
	 * linklayer none (CAKE's own overhead keywords in the strings do the
	 * link layer accounting; sqm's linklayer would add a second, earlier
	 * "overhead N mpu N") and luci-app-sqm's *_advanced flags, without
	 * which that page would drop the option strings when saved.
	 * @returns {Object<string,string>|null} only the values that differ
	 *   from `section`; null if the model or tokens are invalid
	 */
	changes(section, model, unknown) {
		if (section == null || typeof section !== 'object' || model == null || typeof model !== 'object')
			return null;

		const fs = this.forScript(model, str(section.script)),
		    built = cake.build(fs.model, unknown);

		if (built === null)
			return null;

		const want = {
			qdisc: 'cake',
			script: fs.script,
			linklayer: 'none',
			qdisc_advanced: '1',
			qdisc_really_really_advanced: '1',
			iqdisc_opts: built.iqdisc_opts,
			eqdisc_opts: built.eqdisc_opts
		}, out = {};

		for (const k in want)
			if (str(section[k]) !== want[k])
				out[k] = want[k];

		return out;
	},

	/**
	 * Values of a new queue section for a WAN device: disabled until the
	 * user enables it and enters the rates, recommended CAKE settings.
	 * @returns {Object<string,string>|null}
	 */
	newSection(dev) {
		if (!validDevice(dev))
			return null;

		const built = cake.build(cake.defaults());

		return {
			enabled: '0', interface: dev, qdisc: 'cake', script: 'piece_of_cake.qos', linklayer: 'none',
			qdisc_advanced: '1', qdisc_really_really_advanced: '1',
			iqdisc_opts: built.iqdisc_opts, eqdisc_opts: built.eqdisc_opts
		};
	},

	/**
	 * A rate in Mbit/s as typed: 0…100000 with at most 3 decimals (sqm
	 * stores whole kbit/s).
	 * @returns {string|null} null if valid, else a translated message
	 */
	validateMbit(value) {
		const s = str(value).trim();

		if (!MBIT_RE.test(s))
			return _('Enter a rate in Mbit/s, e.g. 18 or 18.5 (up to 3 decimals)');

		if (+s > MBIT_MAX)
			return _('At most %d Mbit/s').format(MBIT_MAX);

		return null;
	},

	/**
	 * The last check before a value goes into /etc/config/sqm: only the
	 * options this app writes, each in its strict grammar (device names,
	 * whole kbit/s up to 100 Gbit/s, fixed qdisc/script/linklayer, CAKE
	 * words; see SQM_VALUES). sqm-scripts sources these values as root.
	 * @param {string} option
	 * @param {string} value
	 * @returns {string|null} null if it may be stored, else a translated
	 *   message
	 */
	sqmValueError(option, value) {
		if (Object.prototype.hasOwnProperty.call(SQM_VALUES, option) && typeof value === 'string' &&
		    SQM_VALUES[option](value))
			return null;

		return _('Not saved: %s %s is not a value this page may store for sqm').format(String(option),
			JSON.stringify(value === undefined ? null : value).substring(0, 40));
	},

	/**
	 * A network device name as sqm passes it to tc and ip unquoted.
	 * @returns {string|null}
	 */
	validateDevice(value) {
		if (!validDevice(value))
			return _('Enter a device name: up to 15 letters, digits, ".", "_" or "-"');

		return null;
	},

	/** adaptive shaping's rates: the bounds reterm-latencyd checks (kbit/s) */
	AUTORATE_MIN_KBIT: 64,
	AUTORATE_MAX_KBIT: 10000000,

	/**
	 * What reterm-latencyd takes for a direction whose adaptive-shaping rates are
	 * not given, from its sqm rate q (kbit/s): q as base, a quarter of it
	 * as minimum, twice as maximum, within the bounds; null when q is no rate.
	 */
	autorateDefaults(q) {
		const within = (v) => Math.min(this.AUTORATE_MAX_KBIT, Math.max(this.AUTORATE_MIN_KBIT, v));

		q = +q;

		return (q > 0) ? { min: within(Math.floor(q / 4)), base: within(q), max: within(q * 2) } : null;
	},

	/** kbit/s as stored by sqm -> Mbit/s text for the form ('' if unset) */
	mbitText(kbit) {
		if (kbit == null || kbit === '')
			return '';

		const m = units.mbitFromKbit(kbit);

		return (m === null) ? str(kbit) : String(m);
	},

	/** Mbit/s text -> kbit/s string for sqm (null if invalid) */
	kbitText(mbit) {
		if (this.validateMbit(mbit) !== null)
			return null;

		const k = units.kbitFromMbit(str(mbit).trim());

		return (k === null) ? null : String(k);
	},

	/**
	 * Warnings for the whole page.
	 * @param {Object} ctx
	 * @param {boolean} ctx.sqmInstalled /etc/config/sqm exists
	 * @param {boolean} ctx.offloadHw hardware flow offloading is on
	 * @param {boolean|null} ctx.initEnabled the sqm init script is
	 *   enabled (null: unknown)
	 * @param {string[]|null} ctx.qdiscs names in
	 *   /var/run/sqm/available_qdiscs (sqm's own probe of working qdiscs),
	 *   null when that directory does not exist
	 * @returns {Array<{level: string, text: string}>} level 'danger',
	 *   'warning' or 'info'
	 */
	globalWarnings(ctx) {
		const out = [];

		ctx = ctx || {};

		if (!ctx.sqmInstalled)
			out.push({ level: 'danger', text: _('sqm-scripts is not installed (/etc/config/sqm is missing). Install the sqm-scripts package to use shaping.') });

		if (ctx.offloadHw)
			out.push({ level: 'warning', text: _('Hardware flow offloading is enabled (Network → Firewall). Offloaded connections bypass the queue, so CAKE cannot shape them. Disable hardware offloading; software offloading is fine.') });

		if (ctx.sqmInstalled && Array.isArray(ctx.qdiscs) && ctx.qdiscs.indexOf('cake') < 0)
			out.push({ level: 'danger', text: _('CAKE is not available: sqm found no working "cake" qdisc on this router. Install kmod-sched-cake, then restart sqm.') });

		if (ctx.sqmInstalled && ctx.initEnabled === false)
			out.push({ level: 'warning', text: _('The sqm service is disabled, so no queue is started at boot or after saving. Enable and start it under System → Startup.') });

		if (ctx.sqmInstalled && ctx.qdiscs == null && ctx.initEnabled !== false)
			out.push({ level: 'info', text: _('sqm has not checked which queue disciplines work since boot, so CAKE support is unknown. Is the sqm service enabled (System → Startup)?') });

		return out;
	},

	/**
	 * Warnings for one queue section, from the values it would have after
	 * saving (the form's current values).
	 * @param {Object} values uci values (download/upload in kbit/s)
	 * @param {Object} state sectionState() of the saved section
	 * @param {Object} ctx {wanDevices: string[], lanDevices: string[]}
	 * @returns {Array<{level: string, text: string}>}
	 */
	sectionWarnings(values, state, ctx) {
		const out = [], dev = str(values && values.interface),
		    down = str(values && values.download), up = str(values && values.upload),
		    wans = (ctx && ctx.wanDevices) || [], lans = (ctx && ctx.lanDevices) || [];

		values = values || {};
		state = state || {};

		if (dev !== '' && lans.indexOf(dev) > -1)
			out.push({ level: 'warning', text: _('%s is a LAN device: shaping it limits traffic between the router and your LAN, not the Internet link. Choose the WAN device (%s).').format(dev, wans.join(', ') || _('none found')) });
		else if (dev !== '' && wans.length && wans.indexOf(dev) < 0)
			out.push({ level: 'info', text: _('%s is not a WAN device of this router (WAN: %s).').format(dev, wans.join(', ')) });

		const downOff = (down === '' || +down === 0), upOff = (up === '' || +up === 0);

		if (downOff && upOff)
			out.push({ level: 'warning', text: _('Download and upload are 0: nothing is shaped.') });
		else if (downOff)
			out.push({ level: 'warning', text: _('Download is 0: the download direction is not shaped.') });
		else if (upOff)
			out.push({ level: 'warning', text: _('Upload is 0: the upload direction is not shaped.') });

		if (str(values.enabled) !== '1')
			out.push({ level: 'info', text: _('This queue is disabled; sqm applies it once it is enabled and saved.') });

		if (state.script && !state.supported)
			out.push({ level: 'info', text: _('This queue uses the sqm script "%s". Changing a CAKE setting here switches it to piece_of_cake.qos or layer_cake.qos.').format(state.script) });

		if (state.mismatch && state.mismatch.length)
			out.push({ level: 'info', text: _('The download and upload options differ in: %s. The fields show the upload values; saving a change applies them to both directions.').format(state.mismatch.join(', ')) });

		if (state.migrated)
			out.push({ level: 'info', text: _('The link layer settings of this queue are shown as CAKE overhead options; saving a change writes them that way (linklayer none).') });

		if (state.invalid && state.invalid.length)
			out.push({ level: 'warning', text: _('The stored options contain words that are not allowed: %s. Remove them under the extra options.').format(state.invalid.join(' ')) });

		return out;
	}
});
