'use strict';
'require baseclass';

/*
 * CAKE's option language as sqm-scripts passes it to tc: the words of an
 * option string (sqm expands them UNQUOTED in a shell: the word grammar,
 * keywords with an argument, numbers and times), reading one side of
 * sqm's option strings (iqdisc_opts: ingress, eqdisc_opts: egress) into
 * the fields of the model reterm.shaping.cake keeps, and the checks of
 * that model and of its number fields as typed (null when valid, else a
 * translated message; nothing throws). Pure, no DOM. Use as:
 * 'require reterm.shaping.cakeopts as cakeopts';
 *
 *   cakeopts.tokenize(' rtt  45ms ')  → ['rtt', '45ms']
 *   cakeopts.timeMs('45ms')          → 45
 *   cakeopts.checkOpts('nat; reboot') → a translated message
 *   cakeopts.side('rtt 45ms nat foo', 'egress')
 *     → {fields: {rtt: 45, nat: true, …}, unknown: ['foo'], invalid: []}
 */

/* ---- words ---- */

/* keywords taking the next word as their argument (tc q_cake.c) */
const ARG_KEYWORDS = { rtt: true, overhead: true, mpu: true, memlimit: true, fwmark: true, bandwidth: true };

/* one shell word that cannot do anything but be an argument of tc:
 * letters, digits, '.', '_', '-' (a leading '-' only before digits, as
 * in "overhead -4"); no quotes, $, `, ;, |, &, braces, globs, blanks */
const TOKEN_RE = /^(?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+)$/;
const TOKEN_MAX = 32;
const OPTS_MAX = 256;

const INT_RE = /^-?[0-9]+$/;

/* arguments of the keywords we keep without managing them */
const ARG_CHECK = {
	memlimit: /^[0-9]+(?:\.[0-9]+)?[A-Za-z]{0,5}$/,
	bandwidth: /^[0-9]+(?:\.[0-9]+)?[A-Za-z]{0,8}$/,
	fwmark: /^(?:0x[0-9A-Fa-f]{1,8}|[0-9]{1,10})$/
};
const TIME_RE = /^([0-9]+(?:\.[0-9]+)?)(s|sec|secs|ms|msec|msecs|us|usec|usecs)?$/;
const TIME_MS = { s: 1000, sec: 1000, secs: 1000, ms: 1, msec: 1, msecs: 1, us: 0.001, usec: 0.001, usecs: 0.001 };

function has(obj, key) {
	return Object.prototype.hasOwnProperty.call(obj, key);
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
	let m = TIME_RE.exec(s || '');

	if (!m)
		return null;

	let ms = +m[1] * (m[2] ? TIME_MS[m[2]] : 0.001);

	return +ms.toFixed(6);
}

function tokenize(str) {
	let s = String(str).trim();

	return s === '' ? [] : s.split(/\s+/);
}

function isToken(t) {
	return typeof t === 'string' && t.length <= TOKEN_MAX && TOKEN_RE.test(t);
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

	let tokens = tokenize(str);

	for (let i = 0; i < tokens.length; i++) {
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

/* ---- reading one side ---- */

const RTT_KEYWORDS = { datacentre: 0.1, lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300,
	satellite: 1000, interplanetary: 3600000 };

/* framing keywords and what they set (tc-cake(8), "Overhead compensation") */
const FRAMING = {
	'raw': 'no compensation (default)', 'conservative': 'overhead 48 atm',
	'ethernet': 'overhead 38 mpu 84 noatm', 'docsis': 'overhead 18 mpu 64 noatm',
	'pppoe-ptm': 'overhead 30 ptm', 'bridged-ptm': 'overhead 22 ptm',
	'pppoa-vcmux': 'overhead 10 atm', 'pppoa-llc': 'overhead 14 atm',
	'pppoe-vcmux': 'overhead 32 atm', 'pppoe-llcsnap': 'overhead 40 atm',
	'bridged-vcmux': 'overhead 24 atm', 'bridged-llcsnap': 'overhead 32 atm',
	'ipoa-vcmux': 'overhead 8 atm', 'ipoa-llcsnap': 'overhead 16 atm',
	'atm': 'ATM cell framing', 'ptm': 'PTM 64b/65b framing', 'noatm': 'no ATM/PTM framing'
};

const DIFFSERV = [ 'besteffort', 'diffserv3', 'diffserv4', 'diffserv8', 'precedence' ];

/* keyword -> [logical value, written for the other direction?] */
const ISOLATION_PARSE = {
	egress: { 'dual-srchost': [ 'dual', false ], 'srchost': [ 'host', false ],
		'dual-dsthost': [ 'dual', true ], 'dsthost': [ 'host', true ] },
	ingress: { 'dual-dsthost': [ 'dual', false ], 'dsthost': [ 'host', false ],
		'dual-srchost': [ 'dual', true ], 'srchost': [ 'host', true ] },
	both: { 'triple-isolate': 'triple-isolate', 'flows': 'flows', 'hosts': 'hosts', 'flowblind': 'flowblind' }
};

/* one side: classify tokens. Managed keywords end up in `fields` (the
 * last one of each group wins, as in CAKE); the overhead family is
 * collected in order; everything else goes to `unknown`. */
function parseSide(str, side) {
	let tokens = tokenize(str),
	    fields = { reversed: false },
	    family = [],
	    unknown = [],
	    invalid = [];

	for (let i = 0; i < tokens.length; i++) {
		let t = tokens[i], arg = null, n;

		if (!isToken(t)) {
			invalid.push(t);
			unknown.push(t);
			continue;
		}

		if (has(ARG_KEYWORDS, t)) {
			arg = (i + 1 < tokens.length) ? tokens[i + 1] : null;

			let ok = (arg !== null && isToken(arg));

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
	let kinds = family.map((f) => f.kind).join('');

	if (family.length && /^F?O?M?V{0,2}$/.test(kinds)) {
		family.forEach((f) => {
			if (f.kind === 'F') fields.overhead = f.value;
			else if (f.kind === 'O') fields.overheadBytes = f.value;
			else if (f.kind === 'M') fields.mpu = f.value;
			else fields.vlan = (fields.vlan || 0) + 1;
		});
	}
	else if (family.length) {
		fields.overhead = 'custom';
		fields.overheadTokens = [];
		family.forEach((f) => { fields.overheadTokens.push.apply(fields.overheadTokens, f.tokens) });
	}

	return { fields: fields, unknown: unknown, invalid: invalid };
}

/* check one side's extra tokens: grammar, arguments, nothing managed */
function checkExtra(side, tokens) {
	for (let i = 0; i < tokens.length; i++) {
		let t = tokens[i];

		if (!isToken(t))
			return _('"%s" is not allowed: use only letters, digits, ".", "_" and "-"').format(String(t).substring(0, 40));

		if (has(ARG_KEYWORDS, t)) {
			let arg = tokens[i + 1];

			if (!has(ARG_CHECK, t))
				return _('"%s" has its own field above; remove it here').format(t);

			if (!isToken(arg) || !ARG_CHECK[t].test(arg))
				return (t === 'fwmark')
					? _('"fwmark" needs a mask, e.g. "fwmark 0xff"')
					: _('"%s" needs a size or rate, e.g. "%s 32mb"').format(t, t);

			i++;
			continue;
		}

		let probe = parseSide(t, side);

		if (probe.unknown.length === 0)
			return _('"%s" has its own field above; remove it here').format(t);
	}

	return null;
}

/* ---- checks ---- */

const ISOLATION = [ 'dual', 'host', 'triple-isolate', 'flows', 'hosts', 'flowblind' ];

function same(a, b) {
	return JSON.stringify(a == null ? null : a) === JSON.stringify(b == null ? null : b);
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

		let side = parseSide(m.overheadTokens.join(' '), 'egress');

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

/* a typed whole number within min…max: null, else `enter` (not a whole
 * number) or `range` (outside) */
function wholeIn(value, min, max, enter, range) {
	const n = toInt(value);

	return n === null ? enter : (n < min || n > max) ? range : null;
}

/* custom RTT in milliseconds, 1…1000 */
const rtt = (value) => wholeIn(value, 1, 1000,
	_('Enter the RTT as a whole number of milliseconds'), _('The RTT must be between 1 and 1000 ms'));

/* per-packet overhead in bytes, -64…256 (tc-cake(8)) */
const overhead = (value) => wholeIn(value, -64, 256,
	_('Enter the overhead as a whole number of bytes'), _('The overhead must be between -64 and 256 bytes'));

/* minimum packet unit in bytes, 0…256 (tc-cake(8)) */
const mpu = (value) => wholeIn(value, 0, 256,
	_('Enter the MPU as a whole number of bytes'), _('The MPU must be between 0 and 256 bytes'));

return baseclass.extend({
	__name__: 'reterm.shaping.cakeopts',

	ARG_KEYWORDS: ARG_KEYWORDS,
	ARG_CHECK: ARG_CHECK,
	has: has,
	toInt: toInt,
	timeMs: timeMs,
	tokenize: tokenize,
	isToken: isToken,
	checkOpts: checkOpts,

	RTT_KEYWORDS: RTT_KEYWORDS,
	FRAMING: FRAMING,
	DIFFSERV: DIFFSERV,
	side: parseSide,
	checkExtra: checkExtra,

	ISOLATION: ISOLATION,
	same: same,
	validInt: validInt,
	model: checkModel,
	rtt: rtt,
	overhead: overhead,
	mpu: mpu
});
