'use strict';
'require baseclass';

/*
 * Units for rates, sizes and the window/RTT arithmetic behind them.
 * Pure functions, no DOM. Use as: 'require reterm.units as units';
 *
 * Conventions:
 *  - Rates are bits per second (SI: k = 1000). Sizes (TCP windows,
 *    buffers) are bytes with binary prefixes (K = Ki = 1024), shown as
 *    KiB/MiB like LuCI's '%1024mB'. sqm stores kbit/s integers.
 *  - Every function returns null for input it does not accept (wrong
 *    type, negative, NaN/Infinity, empty, junk); none of them throws.
 *  - Accepted number syntax: digits with an optional fraction ("20",
 *    "1.5"); no sign, no exponent, no hex, no thousands separators.
 *    JavaScript numbers are accepted where noted if finite and >= 0.
 *  - Results above Number.MAX_SAFE_INTEGER are refused (null).
 */

const NUMBER = '(\\d+(?:\\.\\d+)?)';

/* rate: number, optional blanks, optional prefix, optional unit */
const RATE_RE = new RegExp('^' + NUMBER + '[ \\t]*(?:([kKmMgGtT])(i)?)?(.*)$');

/* size: number, optional blanks, optional prefix, optional byte unit */
const SIZE_RE = new RegExp('^' + NUMBER + '[ \\t]*(?:([kmgt])(i)?)?(b(?:ytes?)?)?$', 'i');

const RATE_PREFIX = ['', 'k', 'M', 'G', 'T'];
const SIZE_PREFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti'];
const EXPONENT = { '': 0, k: 1, m: 2, g: 3, t: 4 };

/* unit suffix (right after the prefix) → multiplier to bits: 1 for bit
 * units, 8 for byte units, null if unknown. Word units are
 * case-insensitive; for the short forms b, b/s, bps the case of the "b"
 * decides: b = bit, B = byte. */
function rateUnitFactor(unit) {
	if (unit === '' || /^bits?(?:\/s)?$/i.test(unit))
		return 1;

	if (/^bytes?(?:\/s)?$/i.test(unit))
		return 8;

	const m = /^([bB])(?:\/s|ps)?$/i.exec(unit);

	if (m)
		return (m[1] === 'b') ? 1 : 8;

	return null;
}

/* a finite, non-negative number from a JS number or a decimal string */
function toNumber(value) {
	if (typeof value === 'number')
		return (isFinite(value) && value >= 0) ? value : null;

	if (typeof value === 'string' && new RegExp('^' + NUMBER + '$').test(value.trim()))
		return +value.trim();

	return null;
}

function safe(n) {
	return (isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER) ? n : null;
}

/* value with `digits` significant digits, trailing zeros dropped */
function significant(value, digits) {
	if (value === 0)
		return '0';

	const intDigits = Math.floor(Math.log10(Math.abs(value))) + 1,
	    decimals = Math.max(0, Math.min(20, digits - intDigits));

	return value.toFixed(decimals).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/* scale `value` through `prefixes` by `base`, then format */
function scaled(value, base, prefixes, digits, integerBase) {
	let i = 0;

	while (value >= base && i < prefixes.length - 1) {
		value /= base;
		i++;
	}

	const text = (i === 0 && integerBase) ? String(Math.round(value)) : significant(value, digits);

	/* rounding may reach the next unit: 999.96 kbit/s → "1 Mbit/s" */
	if (+text >= base && i < prefixes.length - 1)
		return { text: significant(+text / base, digits), prefix: prefixes[i + 1] };

	return { text: text, prefix: prefixes[i] };
}

function checkDigits(digits) {
	if (digits === undefined)
		return 3;

	return (typeof digits === 'number' && digits % 1 === 0 && digits >= 1 && digits <= 15) ? digits : null;
}

return baseclass.extend({
	__name__: 'reterm.units',

	/**
	 * Parse a rate into bits per second.
	 *
	 * Accepts (case-insensitive unless noted, blanks allowed between the
	 * number and the unit, surrounding whitespace ignored):
	 *  - plain numbers: "800000" → 800000 bit/s
	 *  - SI prefixes k, M, G, T (powers of 1000); "20M", "900k" are bits
	 *  - bit units: "20 Mbit", "20Mbit/s", "20 mbps", "20 Mb/s", "900 kbit"
	 *  - byte units (×8): "12.5MB/s", "12.5 MBps", "500 KB/s", "100 B/s",
	 *    "1 MByte/s". In the short forms b, b/s, bps the case of the b
	 *    decides: b = bit, B = byte ("20 MBPS" is bytes).
	 *  - binary prefixes Ki/Mi/Gi/Ti (powers of 1024): "2 MiB/s", "1 Mibit"
	 * Note: "mbps" means megaBITs here (ISP usage), not tc(8)'s megabytes.
	 *
	 * @param {string|number} str the rate; a JS number is taken as bit/s
	 * @returns {number|null} bit/s rounded to a whole number, or null when
	 *   the input is empty, negative, not a plain decimal, has an unknown
	 *   unit or trailing text, or exceeds Number.MAX_SAFE_INTEGER
	 */
	parseRate(str) {
		if (typeof str === 'number')
			return safe(str) === null ? null : Math.round(str);

		if (typeof str !== 'string' || str.length > 64)
			return null;

		const m = RATE_RE.exec(str.trim());

		if (!m)
			return null;

		const factor = rateUnitFactor(m[4]);

		if (factor === null)
			return null;

		const base = m[3] ? 1024 : 1000,
		    power = m[2] ? EXPONENT[m[2].toLowerCase()] : 0,
		    bits = +m[1] * Math.pow(base, power) * factor;

		return safe(bits) === null ? null : Math.round(bits);
	},

	/**
	 * Format bits per second with SI prefixes: "19.1 Mbit/s",
	 * "950 kbit/s", "1.25 Gbit/s", "0 bit/s".
	 *
	 * @param {number|string} bps bit/s (JS number or decimal string)
	 * @param {number} [digits=3] significant digits (1-15); trailing zeros
	 *   are dropped ("20 Mbit/s", not "20.0 Mbit/s")
	 * @returns {string|null} null for negative/NaN/non-numeric input or a
	 *   bad `digits`
	 */
	formatRate(bps, digits) {
		let n = toNumber(bps), d = checkDigits(digits);

		if (n === null || d === null)
			return null;

		const r = scaled(n, 1000, RATE_PREFIX, d, false);

		return r.text + ' ' + r.prefix + 'bit/s';
	},

	/**
	 * The SI unit for a rate axis or column whose largest value is `bps`:
	 * rateScale(19.4e6) = {div: 1e6, unit: 'Mbit/s'}; values below
	 * 1 kbit/s (and 0) get {div: 1, unit: 'bit/s'}. Prefixes as
	 * formatRate() (k, M, G, T).
	 *
	 * @param {number} bps the largest rate to show, bit/s
	 * @returns {{div: number, unit: string}|null} null for invalid input
	 */
	rateScale(bps) {
		let n = toNumber(typeof bps === 'number' ? bps : null), i = 0;

		if (n === null)
			return null;

		while (n >= 1000 && i < RATE_PREFIX.length - 1) {
			n /= 1000;
			i++;
		}

		return { div: Math.pow(1000, i), unit: RATE_PREFIX[i] + 'bit/s' };
	},

	/**
	 * Parse a size (TCP window, buffer) into bytes. Prefixes are binary
	 * whatever the spelling: "16K" = "16 KB" = "16KiB" = 16384 (the sense
	 * in which a 3DS has a "16 KB" window). Case-insensitive; a trailing
	 * b/B/byte/bytes always means bytes. Plain numbers are bytes.
	 *
	 * @param {string|number} str e.g. "16 KiB", "4M", "6MB", "65535"
	 * @returns {number|null} bytes rounded to a whole byte, or null for
	 *   empty, negative, non-decimal, unknown unit or too large input
	 */
	parseBytes(str) {
		if (typeof str === 'number')
			return safe(str) === null ? null : Math.round(str);

		if (typeof str !== 'string' || str.length > 64)
			return null;

		const m = SIZE_RE.exec(str.trim());

		if (!m)
			return null;

		const power = m[2] ? EXPONENT[m[2].toLowerCase()] : 0,
		    bytes = +m[1] * Math.pow(1024, power);

		return safe(bytes) === null ? null : Math.round(bytes);
	},

	/**
	 * Format bytes with binary prefixes: "16 KiB", "1.5 MiB", "512 B".
	 * Values below 1 KiB are shown as whole bytes.
	 *
	 * @param {number|string} bytes
	 * @param {number} [digits=3] significant digits (1-15)
	 * @returns {string|null} null for invalid input
	 */
	formatBytes(bytes, digits) {
		let n = toNumber(bytes), d = checkDigits(digits);

		if (n === null || d === null)
			return null;

		const r = scaled(n, 1024, SIZE_PREFIX, d, true);

		return r.text + ' ' + r.prefix + 'B';
	},

	/**
	 * Bandwidth-delay product: the bytes in flight needed to fill a path.
	 * bdp(100e6, 150) = 1875000 (≈ 1.8 MiB).
	 *
	 * @param {number} bps path rate in bit/s (>= 0)
	 * @param {number} rttMs round-trip time in milliseconds (>= 0)
	 * @returns {number|null} bytes, rounded up to a whole byte
	 */
	bdp(bps, rttMs) {
		const rate = toNumber(bps), rtt = toNumber(rttMs);

		if (rate === null || rtt === null)
			return null;

		/* round up, but not because of floating-point noise */
		const bytes = rate * rtt / 8000,
		    nearest = Math.round(bytes);

		return safe(Math.abs(bytes - nearest) < 1e-9 * Math.max(1, bytes) ? nearest : Math.ceil(bytes));
	},

	/**
	 * Ceiling of one TCP connection limited by its window: window / RTT.
	 * maxThroughput(16384, 130) ≈ 1008246 bit/s (a 3DS at 130 ms).
	 *
	 * @param {number} windowBytes receive window in bytes (>= 0)
	 * @param {number} rttMs round-trip time in milliseconds (> 0)
	 * @returns {number|null} bit/s (not rounded); null for invalid input
	 *   or an RTT of 0
	 */
	maxThroughput(windowBytes, rttMs) {
		const win = toNumber(windowBytes), rtt = toNumber(rttMs);

		if (win === null || rtt === null || rtt === 0)
			return null;

		return safe(win * 8000 / rtt);
	},

	/**
	 * Milliseconds with one decimal: "14.7 ms"; signed: "+3.0 ms",
	 * "+0.0 ms", "−2.5 ms" (a real minus sign; a value that rounds to
	 * zero gets "+"). The unit goes through the translation ('%s ms').
	 *
	 * @param {number} ms any finite JS number (negative only if signed)
	 * @param {boolean} [signed] show the sign of a change
	 * @returns {string|null} null for non-numbers, NaN/Infinity and, when
	 *   not signed, negative values
	 */
	formatMs(ms, signed) {
		if (typeof ms !== 'number' || !isFinite(ms) || (!signed && ms < 0))
			return null;

		const text = Math.abs(ms).toFixed(1),
		    sign = !signed ? '' : (ms < 0 && +text !== 0) ? '−' : '+';

		return _('%s ms').format(sign + text);
	},

	/**
	 * A fraction as a percentage: 0.284 → "28.4 %" (digits decimals).
	 *
	 * @param {number} fraction any finite JS number (1 = 100 %)
	 * @param {number} [digits=1] decimals, 0-6
	 * @returns {string|null} null for non-numbers, NaN/Infinity or bad
	 *   digits
	 */
	formatPercent(fraction, digits) {
		const d = (digits === undefined) ? 1 : digits;

		if (typeof fraction !== 'number' || !isFinite(fraction) ||
		    typeof d !== 'number' || d % 1 !== 0 || d < 0 || d > 6)
			return null;

		return (fraction * 100).toFixed(d) + ' %';
	},

	/**
	 * Mbit/s → the kbit/s integer sqm stores. Rounds to the nearest
	 * kbit/s, but a positive rate never becomes 0 (which sqm reads as
	 * "shaping off"): 0.0004 → 1. 0 stays 0.
	 *
	 * @param {number|string} mbit e.g. 18 or "18.5"
	 * @returns {number|null} integer kbit/s, or null for invalid input
	 */
	kbitFromMbit(mbit) {
		let n = toNumber(mbit);

		if (n === null)
			return null;

		const kbit = Math.round(n * 1000);

		return safe(n > 0 ? Math.max(1, kbit) : 0);
	},

	/**
	 * sqm's kbit/s integer → Mbit/s (exact: 18500 → 18.5).
	 *
	 * @param {number|string} kbit a whole, non-negative number
	 * @returns {number|null} Mbit/s, or null unless `kbit` is a whole
	 *   non-negative number (JS integer or a digits-only string)
	 */
	mbitFromKbit(kbit) {
		let n = toNumber(kbit);

		if (n === null || n % 1 !== 0 || n > Number.MAX_SAFE_INTEGER)
			return null;

		return n / 1000;
	}
});
