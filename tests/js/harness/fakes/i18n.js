/**
 * Translation helpers `_` / `N_` (identity: tests see the source strings)
 * and a `String.prototype.format` like the one LuCI installs (cbi.js).
 *
 * Supported conversions: `%%`, `%s`, `%d`/`%i`, `%f`, `%e`, `%x`, `%X`,
 * `%o`, `%b`, `%c`, `%q` (JSON-quoted), `%h` (HTML-escaped), `%t`
 * (seconds as "1d 2h 3m 4s"), `%m` (metric like LuCI: the width is the
 * base, `%.2mB` of 1500 → "1.50 KB", `%1024.2mB` of 16384 → "16.00 KiB",
 * values not above the base print as-is: "500 B").
 * `%f` without precision prints the number as JavaScript does.
 * Flags: `-` (left align), `0` (zero pad), `+` (sign); width; `.precision`.
 * `%d` truncates towards zero like LuCI's parseInt-based conversion.
 */

const SPEC = /%(%|([-+0 #]*)(\d*)(?:\.(\d+))?([bcdefhimoqstxX]))/g;

function escapeHTML(s) {
	return String(s).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

function metric(value, base, precision) {
	const units = [' ', ' K', ' M', ' G', ' T', ' P', ' E'];
	let v = Number(value) || 0, i = 0;
	for (; i < units.length && v > base; i++)
		v /= base;
	return i ? v.toFixed(precision) + units[i] + (base === 1024 ? 'i' : '') : `${v} `;
}

function duration(value) {
	let s = Math.trunc(Number(value) || 0), m = 0, h = 0, d = 0;
	if (s > 59) { m = Math.floor(s / 60); s %= 60; }
	if (m > 59) { h = Math.floor(m / 60); m %= 60; }
	if (h > 23) { d = Math.floor(h / 24); h %= 24; }
	return (d > 0 ? `${d}d ` : '') + `${h}h ${m}m ${s}s`;
}

function convert(type, arg, flags, precision, width) {
	const prec = precision === undefined ? undefined : +precision;
	switch (type) {
	case 's': {
		const s = arg == null ? '' : String(arg);
		return prec === undefined ? s : s.substring(0, prec);
	}
	case 'd':
	case 'i': {
		const n = Math.trunc(Number(arg));
		return Number.isFinite(n) ? String(n) : '0';
	}
	case 'f':
		return prec === undefined ? String(Number(arg) || 0) : (Number(arg) || 0).toFixed(prec);
	case 'e':
		return prec === undefined ? (Number(arg) || 0).toExponential() : (Number(arg) || 0).toExponential(prec);
	case 'x':
		return (Math.trunc(Number(arg)) || 0).toString(16);
	case 'X':
		return (Math.trunc(Number(arg)) || 0).toString(16).toUpperCase();
	case 'o':
		return (Math.trunc(Number(arg)) || 0).toString(8);
	case 'b':
		return (Math.trunc(Number(arg)) || 0).toString(2);
	case 't':
		return duration(arg);
	case 'c':
		return String.fromCharCode(Number(arg) || 0);
	case 'q':
		return JSON.stringify(String(arg == null ? '' : arg));
	case 'h':
		return escapeHTML(arg == null ? '' : arg);
	case 'm':
		return metric(arg, width ? +width : 1000, prec === undefined ? 2 : prec);
	}
	return '';
}

/**
 * Format `template` with printf-style conversions (see module comment).
 * @param {string} template
 * @param {...*} args
 * @returns {string}
 */
function format(template, ...args) {
	let next = 0;
	return String(template).replace(SPEC, (all, body, flags, width, precision, type) => {
		if (body === '%')
			return '%';
		const arg = args[next++];
		let out = convert(type, arg, flags, precision, width);
		if (flags.includes('+') && /[dife]/.test(type) && !out.startsWith('-'))
			out = '+' + out;
		if (type !== 'm' && width && out.length < +width) {
			if (flags.includes('-'))
				out = out.padEnd(+width);
			else if (flags.includes('0') && /[dfieoxXb]/.test(type)) {
				const sign = /^[-+]/.test(out) ? out[0] : '';
				out = sign + out.slice(sign.length).padStart(+width - sign.length, '0');
			}
			else
				out = out.padStart(+width);
		}
		return out;
	});
}

/** Install `String.prototype.format` (idempotent). */
function installFormat() {
	if (String.prototype.format !== formatMethod)
		Object.defineProperty(String.prototype, 'format', {
			value: formatMethod, writable: true, configurable: true
		});
}

function formatMethod(...args) {
	return format(String(this), ...args);
}

/** Translate: identity, the context argument is ignored. */
function _(msgid /*, context */) {
	return String(msgid);
}

/** Plural translate, LuCI order: `N_(count, singular, plural, context)`. */
function N_(count, singular, plural /*, context */) {
	return String(Number(count) === 1 ? singular : plural);
}

export { format, installFormat, escapeHTML, _, N_ };
