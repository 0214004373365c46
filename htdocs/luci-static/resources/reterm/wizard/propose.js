'use strict';
'require baseclass';
'require reterm.grade as grade';
'require reterm.shaping.cake as cake';
'require reterm.shaping.sqm as shaping';
'require reterm.units as units';

/*
 * The setup wizard's proposal, pure (no DOM, no RPC, no UCI): the sqm
 * rates, rtt and overhead from the "before" measurement, the checks of a
 * measured rate and of an edited proposal, the sqm section values.
 * Use as: 'require reterm.wizard.propose as propose';
 */

/* fraction of the measured throughput the shaper gets */
const SHARE = 0.9;

/* sanity limits of a measured rate (checkRate()) */
const MAX_PLAUSIBLE_BPS = 10e9, MAX_RATIO = 20, LINK_SLACK = 1.05, MIN_SECS = 3, MIN_BYTES = 100000, RAMP_SECS = 2;

/* the rate moved more than this within or between phases: propose
 * adaptive shaping (variability()) */
const VARIED = 0.3;

/* sqm stores whole kbit/s; the Shaping page allows up to 100000 Mbit/s */
const MAX_KBIT = 100000000;

/* the rtt presets the proposal chooses from, in ms */
const RTT_STEPS = [ [ 'internet', 100 ], [ 'oceanic', 300 ], [ 'satellite', 1000 ] ];
const RTT_FLOOR_MS = 30;
const RTT_PERCENTILE = 98;

const PPP_PROTOS = { pppoe: true, pppoa: true };

const num = (v) => (typeof v === 'number' && isFinite(v)) ? v : null;
const str = (v) => (v == null) ? '' : String(v);
const clone = (v) => (v == null) ? v : JSON.parse(JSON.stringify(v));
const round1 = (v) => Math.round(v * 10) / 10;
const dir = (result, name) => (result && typeof result === 'object' && result[name] && typeof result[name] === 'object') ? result[name] : null;

return baseclass.extend({
	__name__: 'reterm.wizard.propose',

	SHARE,
	MAX_KBIT,
	RTT_FLOOR_MS,

	/**
	 * Shaper rate for one direction: 90 % of the measured throughput.
	 * kbit/s = round(bps × 0.9 / 1000), at least 1 (a measured direction
	 * is never proposed as 0 = unshaped), at most MAX_KBIT (100 Gbit/s,
	 * the Shaping page's limit).
	 * @returns {number|null} null when not measured (null, NaN, ≤ 0)
	 */
	bandwidthKbit(bps) {
		if (num(bps) === null || bps <= 0)
			return null;

		return Math.min(MAX_KBIT, Math.max(1, Math.round(bps * SHARE / 1000)));
	},

	/**
	 * Sanity check of a measured rate: is it a rate the line can have?
	 * Not when it comes from a loaded phase of under 3 s or 100 kB
	 * (short), is above the WAN port's link speed (link, +5 %), above
	 * 10 Gbit/s (max: beyond what CAKE shapes on a router; e.g. 11 Gbit/s
	 * counted on a line shaped at 9 Mbit/s, issue 12), or more than 20
	 * times the rate the shaper had (ratio).
	 * @param {number} bps measured rate
	 * @param {{secs, bytes, linkMbit, currentKbit}} ctx what is known:
	 *   the phase's measured window and volume (phaseVolume()), the link
	 *   speed in Mbit/s, the enabled shaper's rate in kbit/s
	 * @returns {{reason: string, limit: number}|null} null = plausible;
	 *   limit in bit/s (short: limit = ctx.secs)
	 */
	checkRate(bps, ctx) {
		const c = ctx || {}, link = num(c.linkMbit), cur = num(c.currentKbit);

		if (num(bps) === null || bps <= 0)
			return null;

		if (num(c.secs) !== null && (c.secs < MIN_SECS || num(c.bytes) !== null && c.bytes < MIN_BYTES))
			return { reason: 'short', limit: c.secs };

		if (link !== null && link > 0 && bps > link * 1e6 * LINK_SLACK)
			return { reason: 'link', limit: link * 1e6 };

		if (bps > MAX_PLAUSIBLE_BPS)
			return { reason: 'max', limit: MAX_PLAUSIBLE_BPS };

		if (cur !== null && cur > 0 && bps > cur * 1000 * MAX_RATIO)
			return { reason: 'ratio', limit: cur * 1000 * MAX_RATIO };

		return null;
	},

	/**
	 * The measured window of a loaded phase and what moved in it: the
	 * first phase of that name in result.phases, minus the 2 s ramp the
	 * router leaves out (at most half the phase).
	 * @returns {{secs: number, bytes: number|null}|null} null without
	 *   phase data
	 */
	/**
	 * How much the measured throughput moved: within a phase (reterm-latencyd's
	 * rx_spread/tx_spread of its whole seconds) or between the phase of
	 * one direction and the "both" phase.
	 * @returns {{varied: boolean, share: number|null, where: string|null}}
	 *   share: the largest movement (0–1); varied when above 30 %
	 */
	variability(result) {
		const phases = (result && Array.isArray(result.phases)) ? result.phases : [],
		      get = (n) => phases.filter((p) => p && p.name === n)[0] || {};
		let share = null, where = null;

		const take = (v, w) => {
			if (num(v) !== null && v >= 0 && (share === null || v > share)) {
				share = v;
				where = w;
			}
		};

		take(num(get('download').rx_spread), 'download');
		take(num(get('upload').tx_spread), 'upload');
		take(num(get('both').rx_spread), 'both');
		take(num(get('both').tx_spread), 'both');

		[ [ 'download', 'rx_bps' ], [ 'upload', 'tx_bps' ] ].forEach(([ n, k ]) => {
			const a = num(get(n)[k]), b = num(get('both')[k]);

			if (a !== null && b !== null && Math.max(a, b) > 0)
				take(Math.round(Math.abs(a - b) * 100 / Math.max(a, b)) / 100, 'between');
		});

		return { varied: share !== null && share > VARIED, share, where };
	},

	phaseVolume(result, name, bps) {
		const ph = (result && Array.isArray(result.phases) ? result.phases : [])
			.filter((p) => p && p.name === name && num(p.start) !== null && num(p.end) !== null)[0];

		if (!ph)
			return null;

		const len = Math.max(0, ph.end - ph.start), secs = len - Math.min(RAMP_SECS, len / 2);

		return { secs, bytes: (num(bps) !== null) ? Math.round(bps * secs / 8) : null };
	},

	/**
	 * The rtt to propose, from RTTs in ms the router measured while the
	 * link was idle: `reflectors` (each reflector's idle median from the
	 * test, else result.idle_rtt) and `servers` (RTTs of connections to
	 * the servers the devices talk to). Non-finite and ≤ 0 values are
	 * ignored.
	 *
	 * Rule: P = 98th percentile (nearest rank, grade.percentile) of all
	 * inputs together. No inputs, or P ≤ 100 ms → internet (100 ms,
	 * CAKE's default); above, the next preset up that covers P: oceanic
	 * (300 ms), satellite (1000 ms). Never below 30 ms (regional, see
	 * clampRtt()): anycast reflectors are closer than game and download
	 * servers.
	 * @param {{reflectors: number[], servers: number[]}} input
	 * @returns {{rtt: string, ms: number, p98: number|null, samples: number}}
	 */
	proposeRtt(input) {
		const all = [].concat((input && input.reflectors) || [], (input && input.servers) || [])
			.filter((v) => num(v) !== null && v > 0);

		const p = all.length ? grade.percentile(all, RTT_PERCENTILE) : null;
		let pick = RTT_STEPS[0];

		if (p !== null && p > RTT_STEPS[0][1])
			pick = RTT_STEPS.filter((s) => s[1] >= p)[0] || RTT_STEPS[RTT_STEPS.length - 1];

		return { rtt: pick[0], ms: pick[1], p98: p, samples: all.length };
	},

	/**
	 * An rtt as the user set it, raised to at least 30 ms.
	 * @param {string|number} rtt preset name or ms
	 * @returns {string|number|null} the preset name / ms to use; null if
	 *   not an rtt
	 */
	clampRtt(rtt) {
		const ms = cake.rttMs(rtt);

		if (ms == null || !isFinite(ms))
			return null;

		return (ms < RTT_FLOOR_MS) ? 'regional' : rtt;
	},

	/**
	 * CAKE overhead keyword from the WAN protocol: docsis when the user
	 * says cable modem, pppoe-ptm (PPPoE over VDSL2) for pppoe/pppoa,
	 * else ethernet. The user can change it in the proposal.
	 * @returns {string}
	 */
	overheadFor(proto, docsis) {
		if (docsis)
			return 'docsis';

		return PPP_PROTOS[str(proto)] ? 'pppoe-ptm' : 'ethernet';
	},

	/** Server RTTs (ms) from the server_rtts reply: the finite values > 0. */
	serverRtts(reply) {
		return (reply && Array.isArray(reply.rtts) ? reply.rtts : []).filter((v) => num(v) !== null && v > 0);
	},

	/** idle RTTs (ms) of a test result: per reflector, else the idle_rtt */
	reflectorRtts(result) {
		const out = [];

		if (result && Array.isArray(result.reflector_idle))
			result.reflector_idle.forEach((r) => {
				if (r && num(r.rtt) !== null)
					out.push(r.rtt);
			});

		if (!out.length && result && num(result.idle_rtt) !== null)
			out.push(result.idle_rtt);

		return out;
	},

	/* why a measured rate is not proposed, and what the field holds instead */
	rejectNote(name, bps, why, vol, currentKbit) {
		const d = (name === 'download') ? _('download') : _('upload'), rate = units.formatRate(bps, 3);
		let text;

		switch (why.reason) {
		case 'short': text = _('The measured %s rate of %s rests on too little data (%s in %s s), so it is not proposed.').format(d, rate, units.formatBytes(vol.bytes, 2), round1(vol.secs)); break;
		case 'link': text = _('The measured %s rate of %s is more than the WAN port\'s link speed (%s), so it is not proposed.').format(d, rate, units.formatRate(why.limit, 3)); break;
		case 'max': text = _('The measured %s rate of %s is above 10 Gbit/s, beyond what CAKE can shape on a router, so it is not proposed.').format(d, rate); break;
		default: text = _('The measured %s rate of %s is more than %d times the current shaper rate (%s), so it is not proposed.').format(d, rate, MAX_RATIO, units.formatRate(currentKbit * 1000, 3));
		}

		return text + ' ' + (currentKbit > 0
			? _('The %s field keeps the current rate (%s). Measure again with nothing else using the line, or type the rate your line can do.').format(d, units.formatRate(currentKbit * 1000, 3))
			: _('The %s field stays at 0 (unshaped). Measure again with nothing else using the line, or type the rate your line can do.').format(d));
	},

	/**
	 * The proposal.
	 * @param {Object} input { result: the "before" test result, device:
	 *   the WAN device to shape, proto: WAN protocol, docsis: cable
	 *   modem, servers: server RTTs in ms, queue: the sqm queue's values
	 *   before the wizard (its rates are the current ones; when enabled,
	 *   the shaper rate for checkRate()), linkMbit: the WAN link speed,
	 *   adaptiveOn: adaptive shaping is on for that queue now }
	 * @returns {{device, download, upload, rtt, overhead, rttInfo,
	 *   notes: string[], rejected: {download, upload}, ok: boolean,
	 *   autorate: boolean (the rate moved > 30 %: adaptive shaping is
	 *   proposed, with a note), adaptive: boolean (the box's first state:
	 *   proposed, or on for the queue already (input.adaptiveOn), and
	 *   both directions shaped)}}
	 *   download/upload kbit/s (0 = not measured, left unshaped; a rate
	 *   that fails checkRate() is not proposed: the queue's current rate
	 *   or 0 instead, rejected names the reason); ok false when neither
	 *   direction was measured
	 */
	propose(input) {
		input = input || {};

		const r = input.result, q = input.queue || {}, notes = [], rejected = {}, rates = {},
		      rtt = this.proposeRtt({ reflectors: this.reflectorRtts(r), servers: input.servers });
		let measured = false;

		[ 'download', 'upload' ].forEach((name) => {
			const bps = (dir(r, name) || {}).throughput_bps, kbit = this.bandwidthKbit(bps),
			      cur = /^[0-9]+$/.test(str(q[name])) ? +q[name] : 0,
			      vol = this.phaseVolume(r, name, bps) || {},
			      why = (kbit === null) ? null : this.checkRate(bps, { secs: vol.secs, bytes: vol.bytes, linkMbit: input.linkMbit,
			      	currentKbit: str(q.enabled) === '1' ? cur : null });

			rejected[name] = why ? why.reason : null;
			rates[name] = why ? cur : (kbit || 0);
			measured = measured || kbit !== null;

			if (kbit === null)
				notes.push(name === 'download' ? _('The download throughput was not measured, so the download is left unshaped (0).')
					: _('The upload throughput was not measured, so the upload is left unshaped (0).'));
			else if (why)
				notes.push(this.rejectNote(name, bps, why, vol, cur));
		});

		const vary = this.variability(r);

		if (vary.varied)
			notes.push(_('The throughput moved by %d %% during the measurement (%s). A line like this is a candidate for adaptive shaping: it follows the line instead of one fixed rate (the box below; the Shaping page has its settings).')
				.format(Math.round(vary.share * 100), (vary.where === 'between') ? _('between the phases') : _('within a phase')));

		if (r && (r.inconclusive || dir(r, 'download') && dir(r, 'download').inconclusive || dir(r, 'upload') && dir(r, 'upload').inconclusive))
			notes.push(_('The measurement was inconclusive; check the rates before applying.'));

		return {
			device: str(input.device), download: rates.download, upload: rates.upload,
			rtt: rtt.rtt, overhead: this.overheadFor(input.proto, input.docsis),
			rttInfo: rtt, notes, rejected, ok: measured, autorate: vary.varied,
			adaptive: !!(vary.varied || input.adaptiveOn) && rates.download > 0 && rates.upload > 0
		};
	},

	/**
	 * What the proposal's fields are based on, for their descriptions.
	 * @param {Object} p propose() result
	 * @param {Object} before the "before" test result
	 * @param {number} servers how many server RTTs went into the rtt rule
	 * @returns {{download: string, upload: string, rtt: string}}
	 */
	explain(p, before, servers) {
		const ri = (p && p.rttInfo) || {}, rej = (p && p.rejected) || {},
		      to = servers ? N_(servers, 'to the test reflectors and to %d server of open connections', 'to the test reflectors and to %d servers of open connections').format(servers)
		      	: _('to the test reflectors'),
		      rate = (name) => {
		      	const bps = (dir(before, name) || {}).throughput_bps, m = (num(bps) !== null) ? units.formatRate(bps, 3) : '–';

		      	return rej[name] ? _('Not proposed: the measured %s is not plausible (see above). 0 leaves this direction unshaped.').format(m)
		      		: (name === 'download') ? _('90 %% of the measured %s; 0 leaves the download unshaped.').format(m)
		      		: _('90 %% of the measured %s; 0 leaves the upload unshaped.').format(m);
		      };

		return {
			download: rate('download'), upload: rate('upload'),
			rtt: (ri.p98 != null)
				? N_(ri.samples, 'The %d round-trip time the router measured (%s) is %s; proposed: the smallest preset from 100 ms up that covers it.',
					'98 %% of the %d round-trip times the router measured (%s) are at most %s; proposed: the smallest preset from 100 ms up that covers them.')
					.format(ri.samples, to, units.formatMs(ri.p98))
				: _('No round-trip times were measured; CAKE\'s default.')
		};
	},

	/**
	 * Check an edited proposal.
	 * @returns {string|null} a translated message or null
	 */
	validateProposal(p) {
		if (!p || typeof p !== 'object')
			return _('No proposal');

		const e = shaping.validateDevice(p.device);

		if (e)
			return e;

		for (const k of [ 'download', 'upload' ])
			if (num(p[k]) === null || p[k] < 0 || p[k] > MAX_KBIT || p[k] % 1)
				return _('The %s rate must be a whole number of kbit/s from 0 to %d').format(k === 'download' ? _('download') : _('upload'), MAX_KBIT);

		if (!p.download && !p.upload)
			return _('Download and upload are 0: nothing would be shaped.');

		if (this.clampRtt(p.rtt) === null)
			return _('Unknown round-trip time "%s"').format(p.rtt);

		if (cake.OVERHEAD_PRESETS.indexOf(p.overhead) < 0)
			return _('Unknown link overhead "%s"').format(p.overhead);

		if (p.adaptive && !(p.download > 0 && p.upload > 0))
			return _('Adaptive shaping moves both rates: it needs a download and an upload rate above 0.');

		return null;
	},

	/**
	 * The sqm values for a proposal: the existing queue section's values
	 * (or a new section for the device) with enabled, interface, rates and
	 * the CAKE options (recommended defaults + proposed rtt and overhead)
	 * set. Words of the existing option strings we do not manage stay.
	 * @param {Object} p proposal (validated)
	 * @param {Object|null} current values of the queue section, or null
	 * @returns {Object<string,string>|null} the full section values
	 */
	sqmValues(p, current) {
		if (this.validateProposal(p) !== null)
			return null;

		const base = current ? clone(current) : shaping.newSection(p.device),
		      st = shaping.sectionState(base) || shaping.sectionState({}),
		      m = Object.assign(cake.defaults(), {});

		/* keep what the user set on the Shaping page, except what we propose */
		if (current && st)
			[ 'nat', 'isolation', 'diffserv', 'ackFilter' ].forEach((k) => {
				if (st.model[k] != null)
					m[k] = st.model[k];
			});

		m.rtt = this.clampRtt(p.rtt);
		m.overhead = p.overhead === 'none' ? null : p.overhead;
		m.ingress = true;

		const ch = shaping.changes(base, m, current && st ? st.unknown : undefined);

		if (ch === null)
			return null;

		const out = Object.assign(base, ch, {
			enabled: '1', interface: p.device, download: String(p.download), upload: String(p.upload)
		});

		/* what the view will write (the values that differ): only what
		 * sqm may source as root (shaping.sqmValueError) */
		for (const k in out)
			if (k.charAt(0) !== '.' && (!current || str(current[k]) !== out[k]) && shaping.sqmValueError(k, out[k]) !== null)
				return null;

		return out;
	}
});
