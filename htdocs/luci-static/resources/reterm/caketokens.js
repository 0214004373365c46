'use strict';
'require baseclass';

/*
 * The words of a CAKE option string as tc reads them and as we let them
 * through to sqm-scripts, which expands them UNQUOTED in a shell: the
 * word grammar, keywords with an argument, numbers and times, and the
 * check of a whole free-text string. Pure, no DOM. Use as:
 * 'require reterm.caketokens as caketokens';
 *
 *   caketokens.tokenize(' rtt  45ms ')  → ['rtt', '45ms']
 *   caketokens.timeMs('45ms')          → 45
 *   caketokens.checkOpts('nat; reboot') → a translated message
 */

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

return baseclass.extend({
	__name__: 'reterm.caketokens',

	ARG_KEYWORDS: ARG_KEYWORDS,
	ARG_CHECK: ARG_CHECK,
	has: has,
	toInt: toInt,
	timeMs: timeMs,
	tokenize: tokenize,
	isToken: isToken,
	checkOpts: checkOpts
});
