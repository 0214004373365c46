'use strict';
'require baseclass';

/*
 * The CAKE option model <-> sqm-scripts' iqdisc_opts / eqdisc_opts.
 * Pure functions, no DOM. Use as: 'require reterm.cake as cake';
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

var RTT_PRESETS = { lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300, satellite: 1000 };
var RTT_KEYWORDS = { datacentre: 0.1, lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300,
	satellite: 1000, interplanetary: 3600000 };

/* framing keywords and what they set (tc-cake(8), "Overhead compensation") */
var FRAMING = {
	'raw': 'no compensation (default)', 'conservative': 'overhead 48 atm',
	'ethernet': 'overhead 38 mpu 84 noatm', 'docsis': 'overhead 18 mpu 64 noatm',
	'pppoe-ptm': 'overhead 30 ptm', 'bridged-ptm': 'overhead 22 ptm',
	'pppoa-vcmux': 'overhead 10 atm', 'pppoa-llc': 'overhead 14 atm',
	'pppoe-vcmux': 'overhead 32 atm', 'pppoe-llcsnap': 'overhead 40 atm',
	'bridged-vcmux': 'overhead 24 atm', 'bridged-llcsnap': 'overhead 32 atm',
	'ipoa-vcmux': 'overhead 8 atm', 'ipoa-llcsnap': 'overhead 16 atm',
	'atm': 'ATM cell framing', 'ptm': 'PTM 64b/65b framing', 'noatm': 'no ATM/PTM framing'
};

var OVERHEAD_PRESETS = [ 'ethernet', 'docsis', 'pppoe-ptm', 'bridged-ptm', 'atm', 'raw', 'none' ];
var DIFFSERV = [ 'besteffort', 'diffserv3', 'diffserv4', 'diffserv8', 'precedence' ];
var ISOLATION = [ 'dual', 'host', 'triple-isolate', 'flows', 'hosts', 'flowblind' ];

var ISOLATION_KEYWORD = {
	egress: { dual: 'dual-srchost', host: 'srchost' },
	ingress: { dual: 'dual-dsthost', host: 'dsthost' }
};

/* keyword -> [logical value, written for the other direction?] */
var ISOLATION_PARSE = {
	egress: { 'dual-srchost': [ 'dual', false ], 'srchost': [ 'host', false ],
		'dual-dsthost': [ 'dual', true ], 'dsthost': [ 'host', true ] },
	ingress: { 'dual-dsthost': [ 'dual', false ], 'dsthost': [ 'host', false ],
		'dual-srchost': [ 'dual', true ], 'srchost': [ 'host', true ] },
	both: { 'triple-isolate': 'triple-isolate', 'flows': 'flows', 'hosts': 'hosts', 'flowblind': 'flowblind' }
};

/* keywords taking the next word as their argument (tc q_cake.c) */
var ARG_KEYWORDS = { rtt: true, overhead: true, mpu: true, memlimit: true, fwmark: true, bandwidth: true };

/* one shell word that cannot do anything but be an argument of tc:
 * letters, digits, '.', '_', '-' (a leading '-' only before digits, as
 * in "overhead -4"); no quotes, $, `, ;, |, &, braces, globs, blanks */
var TOKEN_RE = /^(?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+)$/;
var TOKEN_MAX = 32;
var OPTS_MAX = 256;

var INT_RE = /^-?[0-9]+$/;

/* arguments of the keywords we keep without managing them */
var ARG_CHECK = {
	memlimit: /^[0-9]+(?:\.[0-9]+)?[A-Za-z]{0,5}$/,
	bandwidth: /^[0-9]+(?:\.[0-9]+)?[A-Za-z]{0,8}$/,
	fwmark: /^(?:0x[0-9A-Fa-f]{1,8}|[0-9]{1,10})$/
};
var TIME_RE = /^([0-9]+(?:\.[0-9]+)?)(s|sec|secs|ms|msec|msecs|us|usec|usecs)?$/;
var TIME_MS = { s: 1000, sec: 1000, secs: 1000, ms: 1, msec: 1, msecs: 1, us: 0.001, usec: 0.001, usecs: 0.001 };

function has(obj, key) {
	return Object.prototype.hasOwnProperty.call(obj, key);
}

function clone(v) {
	return v == null ? v : JSON.parse(JSON.stringify(v));
}

function same(a, b) {
	return JSON.stringify(a == null ? null : a) === JSON.stringify(b == null ? null : b);
}

/* integer from a JS integer or a strict decimal string (no blanks, no
 * sign other than '-', no exponent), else null */
function toInt(v) {
	if (typeof v === 'number')
		return (isFinite(v) && v % 1 === 0) ? v : null;

	if (typeof v === 'string' && INT_RE.test(v) && v.length <= 12)
		return +v;

	return null;
}

/* tc get_time(): a number with an optional unit; no unit = microseconds */
function timeMs(s) {
	var m = TIME_RE.exec(s || '');

	if (!m)
		return null;

	var ms = +m[1] * (m[2] ? TIME_MS[m[2]] : 0.001);

	return +ms.toFixed(6);
}

function tokenize(str) {
	var s = String(str).trim();

	return s === '' ? [] : s.split(/\s+/);
}

function isToken(t) {
	return typeof t === 'string' && t.length <= TOKEN_MAX && TOKEN_RE.test(t);
}

function emptyModel() {
	return {
		rtt: null, overhead: null, overheadBytes: null, mpu: null, vlan: 0,
		nat: null, isolation: null, diffserv: null, ackFilter: null, ingress: null
	};
}

/* one side: classify tokens. Managed keywords end up in `fields` (the
 * last one of each group wins, as in CAKE); the overhead family is
 * collected in order; everything else goes to `unknown`. */
function parseSide(str, side) {
	var tokens = tokenize(str),
	    fields = { reversed: false },
	    family = [],
	    unknown = [],
	    invalid = [];

	for (var i = 0; i < tokens.length; i++) {
		var t = tokens[i], arg = null, n;

		if (!isToken(t)) {
			invalid.push(t);
			unknown.push(t);
			continue;
		}

		if (has(ARG_KEYWORDS, t)) {
			arg = (i + 1 < tokens.length) ? tokens[i + 1] : null;

			var ok = (arg !== null && isToken(arg));

			if (ok && t === 'rtt' && (n = timeMs(arg)) !== null) {
				fields.rtt = n;
			}
			else if (ok && (t === 'overhead' || t === 'mpu') && (n = toInt(arg)) !== null) {
				family.push({ kind: (t === 'overhead') ? 'O' : 'M', value: n, tokens: [ t, arg ] });
			}
			else if (ok && has(ARG_CHECK, t) && ARG_CHECK[t].test(arg)) {
				unknown.push(t, arg);
			}
			else {
				/* keyword without a usable argument: keep it, flag it */
				invalid.push(arg === null ? t : t + ' ' + arg);
				unknown.push(t);

				if (arg !== null)
					unknown.push(arg);
			}

			if (arg !== null)
				i++;

			continue;
		}

		if (has(RTT_KEYWORDS, t)) {
			fields.rtt = t;
		}
		else if (has(FRAMING, t)) {
			family.push({ kind: 'F', value: t, tokens: [ t ] });
		}
		else if (t === 'ether-vlan') {
			family.push({ kind: 'V', value: 1, tokens: [ t ] });
		}
		else if (t === 'nat' || t === 'nonat') {
			fields.nat = (t === 'nat');
		}
		else if (has(ISOLATION_PARSE.both, t)) {
			fields.isolation = ISOLATION_PARSE.both[t];
			fields.reversed = false;
		}
		else if (has(ISOLATION_PARSE[side], t)) {
			fields.isolation = ISOLATION_PARSE[side][t][0];
			fields.reversed = ISOLATION_PARSE[side][t][1];
		}
		else if (side === 'egress' && DIFFSERV.indexOf(t) > -1) {
			fields.diffserv = t;
		}
		else if (side === 'egress' && (t === 'ack-filter' || t === 'ack-filter-aggressive' || t === 'no-ack-filter')) {
			fields.ackFilter = (t === 'ack-filter') ? true : (t === 'no-ack-filter') ? false : 'aggressive';
		}
		else if (side === 'ingress' && (t === 'ingress' || t === 'egress')) {
			fields.ingress = (t === 'ingress');
		}
		else {
			unknown.push(t);
		}
	}

	/* canonical overhead family: [framing] [overhead N] [mpu N] [ether-vlan]{0,2} */
	var kinds = family.map(function(f) { return f.kind }).join('');

	if (family.length && /^F?O?M?V{0,2}$/.test(kinds)) {
		family.forEach(function(f) {
			if (f.kind === 'F') fields.overhead = f.value;
			else if (f.kind === 'O') fields.overheadBytes = f.value;
			else if (f.kind === 'M') fields.mpu = f.value;
			else fields.vlan = (fields.vlan || 0) + 1;
		});
	}
	else if (family.length) {
		fields.overhead = 'custom';
		fields.overheadTokens = [];
		family.forEach(function(f) { fields.overheadTokens.push.apply(fields.overheadTokens, f.tokens) });
	}

	return { fields: fields, unknown: unknown, invalid: invalid };
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

function validInt(v, min, max) {
	return typeof v === 'number' && isFinite(v) && v % 1 === 0 && v >= min && v <= max;
}

function checkModel(m) {
	if (m == null || typeof m !== 'object' || Array.isArray(m))
		return _('Invalid CAKE settings');

	if (m.rtt != null && !has(RTT_KEYWORDS, m.rtt) && !validInt(m.rtt, 1, 1000))
		return _('The RTT must be a whole number of milliseconds between 1 and 1000, or a preset');

	if (m.overhead != null && m.overhead !== 'none' && m.overhead !== 'custom' && !has(FRAMING, m.overhead))
		return _('Unknown link overhead preset');

	if (m.overhead === 'custom') {
		if (!Array.isArray(m.overheadTokens) || !m.overheadTokens.length)
			return _('Custom overhead keywords are missing');

		var side = parseSide(m.overheadTokens.join(' '), 'egress');

		if (side.invalid.length || side.unknown.length || side.fields.overhead !== 'custom' ||
		    !same(side.fields.overheadTokens, m.overheadTokens))
			return _('Custom overhead keywords must be CAKE framing keywords, "overhead N", "mpu N" or "ether-vlan"');
	}

	if (m.overheadBytes != null && !validInt(m.overheadBytes, -64, 256))
		return _('The per-packet overhead must be a whole number of bytes between -64 and 256');

	if (m.mpu != null && !validInt(m.mpu, 0, 256))
		return _('The minimum packet unit (MPU) must be a whole number of bytes between 0 and 256');

	if (m.vlan != null && !validInt(m.vlan, 0, 2))
		return _('The number of VLAN tags must be 0, 1 or 2');

	if (m.nat != null && typeof m.nat !== 'boolean')
		return _('Invalid NAT setting');

	if (m.isolation != null && ISOLATION.indexOf(m.isolation) < 0)
		return _('Unknown flow isolation mode');

	if (m.diffserv != null && DIFFSERV.indexOf(m.diffserv) < 0)
		return _('Unknown priority (diffserv) mode');

	if (m.ackFilter != null && typeof m.ackFilter !== 'boolean' && m.ackFilter !== 'aggressive')
		return _('Invalid ACK filter setting');

	if (m.ingress != null && typeof m.ingress !== 'boolean')
		return _('Invalid ingress setting');

	return null;
}

/* managed tokens of one side, in canonical order */
function emit(m, side) {
	var out = [];

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

		for (var i = 0; i < (m.vlan || 0); i++)
			out.push('ether-vlan');
	}

	if (side === 'ingress' && m.ingress != null)
		out.push(m.ingress ? 'ingress' : 'egress');

	return out;
}

/* check one side's extra tokens: grammar, arguments, nothing managed */
function checkExtra(side, tokens) {
	for (var i = 0; i < tokens.length; i++) {
		var t = tokens[i];

		if (!isToken(t))
			return _('"%s" is not allowed: use only letters, digits, ".", "_" and "-"').format(String(t).substring(0, 40));

		if (has(ARG_KEYWORDS, t)) {
			var arg = tokens[i + 1];

			if (!has(ARG_CHECK, t))
				return _('"%s" has its own field above; remove it here').format(t);

			if (!isToken(arg) || !ARG_CHECK[t].test(arg))
				return (t === 'fwmark')
					? _('"fwmark" needs a mask, e.g. "fwmark 0xff"')
					: _('"%s" needs a size or rate, e.g. "%s 32mb"').format(t, t);

			i++;
			continue;
		}

		var probe = parseSide(t, side);

		if (probe.unknown.length === 0)
			return _('"%s" has its own field above; remove it here').format(t);
	}

	return null;
}

function checkOpts(str) {
	if (str == null)
		return null;

	if (typeof str !== 'string')
		return _('Invalid option string');

	if (str.length > OPTS_MAX)
		return _('The option string is too long (at most %d characters)').format(OPTS_MAX);

	if (/[^\x20\x09A-Za-z0-9._-]/.test(str))
		return _('The option string may only contain letters, digits, ".", "_", "-" and blanks');

	var tokens = tokenize(str);

	for (var i = 0; i < tokens.length; i++) {
		if (!isToken(tokens[i]))
			return _('"%s" is not a valid CAKE option word').format(tokens[i].substring(0, 40));

		if (has(ARG_KEYWORDS, tokens[i])) {
			if (i + 1 >= tokens.length || !isToken(tokens[i + 1]))
				return _('"%s" needs a value').format(tokens[i]);
			i++;
		}
	}

	return null;
}

return baseclass.extend({
	__name__: 'reterm.cake',

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
	defaults: function() {
		return Object.assign(emptyModel(), {
			rtt: 'internet', overhead: 'ethernet', nat: true, isolation: 'dual',
			diffserv: null, ackFilter: null, ingress: true
		});
	},

	/** a model with every field unset (no keyword at all) */
	empty: function() {
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
	build: function(model, unknown) {
		if (checkModel(model) !== null)
			return null;

		var extra = { ingress: [], egress: [] };

		if (unknown != null) {
			if (typeof unknown !== 'object')
				return null;

			for (var side in extra) {
				var list = unknown[side];

				if (list == null)
					continue;

				if (!Array.isArray(list))
					return null;

				for (var i = 0; i < list.length; i++)
					if (!isToken(list[i]))
						return null;

				if (checkExtra(side, list) !== null)
					return null;

				extra[side] = list.slice();
			}
		}

		var iq = emit(model, 'ingress').concat(extra.ingress).join(' '),
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
	parse: function(iq, eq) {
		if ((iq != null && typeof iq !== 'string') || (eq != null && typeof eq !== 'string'))
			return null;

		var i = parseSide(iq == null ? '' : iq, 'ingress'),
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

		var ef = familyOf(e.fields), inf = familyOf(i.fields),
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
	validateModel: function(model) {
		return checkModel(model);
	},

	/**
	 * Custom RTT in milliseconds: a whole number 1…1000.
	 * @param {string|number} value e.g. "45"
	 * @returns {string|null} null if valid, else a translated message
	 */
	validateRtt: function(value) {
		var n = toInt(value);

		if (n === null)
			return _('Enter the RTT as a whole number of milliseconds');

		if (n < 1 || n > 1000)
			return _('The RTT must be between 1 and 1000 ms');

		return null;
	},

	/**
	 * Per-packet overhead in bytes: a whole number -64…256 (tc-cake(8)).
	 * @returns {string|null}
	 */
	validateOverhead: function(value) {
		var n = toInt(value);

		if (n === null)
			return _('Enter the overhead as a whole number of bytes');

		if (n < -64 || n > 256)
			return _('The overhead must be between -64 and 256 bytes');

		return null;
	},

	/**
	 * Minimum packet unit in bytes: a whole number 0…256 (tc-cake(8)).
	 * @returns {string|null}
	 */
	validateMpu: function(value) {
		var n = toInt(value);

		if (n === null)
			return _('Enter the MPU as a whole number of bytes');

		if (n < 0 || n > 256)
			return _('The MPU must be between 0 and 256 bytes');

		return null;
	},

	/**
	 * One option word as it may reach sqm's shell.
	 * @returns {string|null}
	 */
	validateToken: function(token) {
		if (!isToken(token))
			return _('"%s" is not a valid CAKE option word').format(String(token).substring(0, 40));

		return null;
	},

	/**
	 * A whole iqdisc_opts / eqdisc_opts string: allowed characters only,
	 * every word valid, keywords that take a value have one.
	 * @returns {string|null}
	 */
	validateOpts: function(str) {
		return checkOpts(str);
	},

	/**
	 * Extra options typed by hand for one direction: valid words, and
	 * none of the keywords that have their own field.
	 * @param {'ingress'|'egress'} side
	 * @param {string} str blank-separated words
	 * @returns {string|null}
	 */
	validateExtra: function(side, str) {
		if (side !== 'ingress' && side !== 'egress')
			return _('Invalid direction');

		if (str == null || str === '')
			return null;

		var err = checkOpts(str);

		return err !== null ? err : checkExtra(side, tokenize(str));
	},

	/**
	 * Split a string into option words (blank-separated).
	 * @returns {string[]|null}
	 */
	tokens: function(str) {
		if (str == null)
			return [];

		return (typeof str === 'string') ? tokenize(str) : null;
	},

	/**
	 * Milliseconds for an rtt value of the model (preset or number).
	 * @returns {number|null}
	 */
	rttMs: function(rtt) {
		if (typeof rtt === 'string' && has(RTT_KEYWORDS, rtt))
			return RTT_KEYWORDS[rtt];

		return validInt(rtt, 1, 1000) ? rtt : null;
	},

	/** deep copy of a model or token list */
	clone: function(v) {
		return clone(v);
	},

	/** structural equality of two models or token lists */
	same: function(a, b) {
		return same(a, b);
	}
});
