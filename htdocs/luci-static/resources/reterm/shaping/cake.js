'use strict';
'require baseclass';
'require reterm.shaping.cakeopts as cakeopts';

/*
 * The CAKE option model <-> sqm-scripts' iqdisc_opts / eqdisc_opts.
 * Pure functions, no DOM. Use as: 'require reterm.shaping.cake as cake';
 * (The option words, reading one side and the model checks are
 * reterm.shaping.cakeopts.)
 *
 * sqm-scripts has no rtt/nat/isolation options: everything CAKE-specific
 * travels as free text in iqdisc_opts (download: the IFB side) and
 * eqdisc_opts (upload: the WAN device), appended last to the tc command
 * line, where CAKE keeps the last of competing keywords. sqm expands
 * those strings UNQUOTED in a shell, so every token is checked against a
 * strict grammar before we emit it.
 *
 * Model (one for both directions; null = "no keyword", CAKE/sqm default):
 *   rtt           'lan'|'metro'|'regional'|'internet'|'oceanic'|'satellite'
 *                 (also 'datacentre'|'interplanetary' when read from a
 *                 hand-written string) or an integer of ms, 1…1000 ->
 *                 "rtt 45ms"
 *   overhead      framing keyword: 'ethernet'|'docsis'|'pppoe-ptm'|
 *                 'bridged-ptm'|'atm'|'raw' (or any other CAKE framing
 *                 keyword read from a string); null/'none' = no keyword;
 *                 'custom' = framing tokens kept as typed (overheadTokens)
 *   overheadBytes integer -64…256 -> "overhead N" (after the keyword)
 *   mpu           integer 0…256   -> "mpu N"
 *   vlan          0…2             -> "ether-vlan" repeated (+4 bytes each)
 *   nat           true -> "nat", false -> "nonat" (both directions)
 *   isolation     'dual' -> egress "dual-srchost", ingress "dual-dsthost";
 *                 'host' -> "srchost"/"dsthost"; 'triple-isolate',
 *                 'flows', 'hosts', 'flowblind' as is (both directions)
 *   diffserv      'besteffort'|'diffserv3'|'diffserv4'|'diffserv8'|
 *                 'precedence' (egress only)
 *   ackFilter     true -> "ack-filter", 'aggressive' ->
 *                 "ack-filter-aggressive", false -> "no-ack-filter" (egress)
 *   ingress       true -> "ingress", false -> "egress" (ingress side only)
 *
 * Strings are built in a fixed order (rtt, diffserv, isolation, nat,
 * ack-filter, framing, overhead, mpu, ether-vlan, ingress), followed by
 * the tokens we do not manage, in their original order. parse() of our
 * own output gives back the same model and tokens, so build(parse(x)) is
 * exact for our output and a fixed point after one pass for hand-written
 * strings. The overhead keywords are order-sensitive (a later "ethernet"
 * resets an earlier "overhead 40"); when a string does not have them in
 * the canonical order they are kept verbatim (overhead 'custom').
 *
 * Conventions as in reterm.units: bad input gives null (build, parse) or
 * a translated message (validate*); nothing throws.
 */

const { has, toInt, tokenize, isToken, checkOpts } = cakeopts;
const { RTT_KEYWORDS, FRAMING, DIFFSERV, checkExtra } = cakeopts;
const parseSide = cakeopts.side;
const { ISOLATION, same, validInt } = cakeopts;
const checkModel = cakeopts.model;

const RTT_PRESETS = { lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300, satellite: 1000 };
const OVERHEAD_PRESETS = [ 'ethernet', 'docsis', 'pppoe-ptm', 'bridged-ptm', 'atm', 'raw', 'none' ];

const ISOLATION_KEYWORD = {
	egress: { dual: 'dual-srchost', host: 'srchost' },
	ingress: { dual: 'dual-dsthost', host: 'dsthost' }
};

function clone(v) {
	return v == null ? v : JSON.parse(JSON.stringify(v));
}

function emptyModel() {
	return {
		rtt: null, overhead: null, overheadBytes: null, mpu: null, vlan: 0,
		nat: null, isolation: null, diffserv: null, ackFilter: null, ingress: null
	};
}

function familyOf(f) {
	return {
		overhead: (f.overhead == null) ? null : f.overhead,
		overheadBytes: (f.overheadBytes == null) ? null : f.overheadBytes,
		mpu: (f.mpu == null) ? null : f.mpu,
		vlan: f.vlan || 0,
		overheadTokens: f.overheadTokens || null
	};
}

/* managed tokens of one side, in canonical order */
function emit(m, side) {
	let out = [];

	if (m.rtt != null)
		out.push.apply(out, typeof m.rtt === 'number' ? [ 'rtt', m.rtt + 'ms' ] : [ m.rtt ]);

	if (side === 'egress' && m.diffserv != null)
		out.push(m.diffserv);

	if (m.isolation != null)
		out.push(ISOLATION_KEYWORD[side][m.isolation] || m.isolation);

	if (m.nat != null)
		out.push(m.nat ? 'nat' : 'nonat');

	if (side === 'egress' && m.ackFilter != null)
		out.push(m.ackFilter === 'aggressive' ? 'ack-filter-aggressive' : m.ackFilter ? 'ack-filter' : 'no-ack-filter');

	if (m.overhead === 'custom') {
		out.push.apply(out, m.overheadTokens);
	}
	else {
		if (m.overhead != null && m.overhead !== 'none')
			out.push(m.overhead);

		if (m.overheadBytes != null)
			out.push('overhead', String(m.overheadBytes));

		if (m.mpu != null)
			out.push('mpu', String(m.mpu));

		for (let i = 0; i < (m.vlan || 0); i++)
			out.push('ether-vlan');
	}

	if (side === 'ingress' && m.ingress != null)
		out.push(m.ingress ? 'ingress' : 'egress');

	return out;
}

return baseclass.extend({
	__name__: 'reterm.shaping.cake',

	/** rtt presets in ms, in the order the UI lists them */
	RTT_PRESETS: RTT_PRESETS,

	/** overhead presets the UI offers ('none' = no keyword) */
	OVERHEAD_PRESETS: OVERHEAD_PRESETS,

	/** every CAKE framing keyword and what it stands for */
	FRAMING: FRAMING,

	/** diffserv keywords the model accepts (UI: the first three) */
	DIFFSERV: DIFFSERV,

	/** isolation values the model accepts (UI: dual, triple-isolate, flows) */
	ISOLATION: ISOLATION,

	/**
	 * The settings we recommend for a NAT router's WAN link: rtt 100 ms,
	 * Ethernet framing, NAT-aware per-host fairness, "ingress" on the IFB
	 * side. diffserv is left to the sqm script (piece_of_cake.qos: one
	 * best-effort tin).
	 * @returns {Object} a fresh model
	 */
	defaults() {
		return Object.assign(emptyModel(), {
			rtt: 'internet', overhead: 'ethernet', nat: true, isolation: 'dual',
			diffserv: null, ackFilter: null, ingress: true
		});
	},

	/** a model with every field unset (no keyword at all) */
	empty() {
		return emptyModel();
	},

	/**
	 * Build sqm's option strings.
	 *
	 * @param {Object} model see the top of this file
	 * @param {{ingress: string[], egress: string[]}} [unknown] tokens we
	 *   do not manage, appended after ours in their order (from parse())
	 * @returns {{iqdisc_opts: string, eqdisc_opts: string}|null} null if
	 *   the model or an extra token is invalid
	 */
	build(model, unknown) {
		if (checkModel(model) !== null)
			return null;

		let extra = { ingress: [], egress: [] };

		if (unknown != null) {
			if (typeof unknown !== 'object')
				return null;

			for (const side in extra) {
				let list = unknown[side];

				if (list == null)
					continue;

				if (!Array.isArray(list))
					return null;

				for (let i = 0; i < list.length; i++)
					if (!isToken(list[i]))
						return null;

				if (checkExtra(side, list) !== null)
					return null;

				extra[side] = list.slice();
			}
		}

		let iq = emit(model, 'ingress').concat(extra.ingress).join(' '),
		    eq = emit(model, 'egress').concat(extra.egress).join(' ');

		if (checkOpts(iq) !== null || checkOpts(eq) !== null)
			return null;

		return { iqdisc_opts: iq, eqdisc_opts: eq };
	},

	/**
	 * Read sqm's option strings back into a model.
	 *
	 * Both directions share rtt, overhead, nat and isolation: when the
	 * strings disagree, the upload (egress) value wins and the field is
	 * listed in `mismatch` (building writes it to both sides).
	 *
	 * @param {string} iq iqdisc_opts (null/undefined = empty)
	 * @param {string} eq eqdisc_opts (null/undefined = empty)
	 * @returns {{model: Object, unknown: {ingress: string[], egress:
	 *   string[]}, mismatch: string[], invalid: string[]}|null} `invalid`
	 *   lists words that break the grammar (kept in `unknown`; build()
	 *   refuses them); null for non-string input
	 */
	parse(iq, eq) {
		if ((iq != null && typeof iq !== 'string') || (eq != null && typeof eq !== 'string'))
			return null;

		let i = parseSide(iq == null ? '' : iq, 'ingress'),
		    e = parseSide(eq == null ? '' : eq, 'egress'),
		    model = emptyModel(),
		    mismatch = [];

		function shared(name, ev, iv) {
			if (!same(ev, iv))
				mismatch.push(name);
			return (ev != null) ? ev : (iv != null) ? iv : null;
		}

		model.rtt = shared('rtt', e.fields.rtt, i.fields.rtt);
		model.nat = shared('nat', e.fields.nat, i.fields.nat);
		model.isolation = shared('isolation', e.fields.isolation, i.fields.isolation);

		if ((e.fields.reversed || i.fields.reversed) && mismatch.indexOf('isolation') < 0)
			mismatch.push('isolation');

		let ef = familyOf(e.fields), inf = familyOf(i.fields),
		    ehas = (ef.overhead != null || ef.overheadBytes != null || ef.mpu != null || ef.vlan > 0),
		    fam = ehas ? ef : inf;

		if (!same(ef, inf))
			mismatch.push('overhead');

		model.overhead = fam.overhead;
		model.overheadBytes = fam.overheadBytes;
		model.mpu = fam.mpu;
		model.vlan = fam.vlan;

		if (fam.overhead === 'custom')
			model.overheadTokens = fam.overheadTokens.slice();

		model.diffserv = (e.fields.diffserv != null) ? e.fields.diffserv : null;
		model.ackFilter = (e.fields.ackFilter != null) ? e.fields.ackFilter : null;
		model.ingress = (i.fields.ingress != null) ? i.fields.ingress : null;

		return {
			model: model,
			unknown: { ingress: i.unknown, egress: e.unknown },
			mismatch: mismatch,
			invalid: i.invalid.concat(e.invalid)
		};
	},

	/**
	 * Check a whole model (as build() does).
	 * @returns {string|null} null if valid, else a translated message
	 */
	validateModel(model) {
		return checkModel(model);
	},

	/** Custom RTT in ms as typed: a whole number 1…1000; null if valid, else a message. */
	validateRtt: cakeopts.rtt,

	/** Per-packet overhead in bytes: a whole number -64…256 (tc-cake(8)). */
	validateOverhead: cakeopts.overhead,

	/** Minimum packet unit in bytes: a whole number 0…256 (tc-cake(8)). */
	validateMpu: cakeopts.mpu,

	/**
	 * One option word as it may reach sqm's shell.
	 * @returns {string|null}
	 */
	validateToken(token) {
		if (!isToken(token))
			return _('"%s" is not a valid CAKE option word').format(String(token).substring(0, 40));

		return null;
	},

	/**
	 * A whole iqdisc_opts / eqdisc_opts string: allowed characters only,
	 * every word valid, keywords that take a value have one.
	 * @returns {string|null}
	 */
	validateOpts(str) {
		return checkOpts(str);
	},

	/**
	 * Extra options typed by hand for one direction: valid words, and
	 * none of the keywords that have their own field.
	 * @param {'ingress'|'egress'} side
	 * @param {string} str blank-separated words
	 * @returns {string|null}
	 */
	validateExtra(side, str) {
		if (side !== 'ingress' && side !== 'egress')
			return _('Invalid direction');

		if (str == null || str === '')
			return null;

		let err = checkOpts(str);

		return err !== null ? err : checkExtra(side, tokenize(str));
	},

	/**
	 * Split a string into option words (blank-separated).
	 * @returns {string[]|null}
	 */
	tokens(str) {
		if (str == null)
			return [];

		return (typeof str === 'string') ? tokenize(str) : null;
	},

	/**
	 * Milliseconds for an rtt value of the model (preset or number).
	 * @returns {number|null}
	 */
	rttMs(rtt) {
		if (typeof rtt === 'string' && has(RTT_KEYWORDS, rtt))
			return RTT_KEYWORDS[rtt];

		return validInt(rtt, 1, 1000) ? rtt : null;
	},

	/** deep copy of a model or token list */
	clone(v) {
		return clone(v);
	},

	/** structural equality of two models or token lists */
	same(a, b) {
		return same(a, b);
	}
});
