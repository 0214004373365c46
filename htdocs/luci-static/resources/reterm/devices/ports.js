'use strict';
'require baseclass';

/*
 * The ports of a device (UCI option ports of a reterm `device`) as
 * /usr/share/ucode/reterm/validate.uc ports() reads them: 'all', 'web' or
 * up to 64 ports / ranges "a-b" (1–65535, a <= b, no leading zeros)
 * separated by blanks. Parsing, the check with its message, the stored
 * text, the form's choice and the words. Pure, no DOM. Use as:
 * 'require reterm.devices.ports as deviceports';
 */

const MAX_PORT_TOKENS = 64;
const MAX_PORTS_LENGTH = MAX_PORT_TOKENS * 12;
const PORT_RE = /^(?:0|[1-9][0-9]{0,4})$/;

const str = (v) => (v == null ? '' : String(v));

function port(s) {
	return PORT_RE.test(s) && +s >= 1 && +s <= 65535 ? +s : null;
}

/* blank-separated tokens of a ports string or a UCI list; null if neither */
function portTokens(value) {
	if (Array.isArray(value))
		return value.every((t) => typeof t === 'string') ? value.slice() : null;

	if (typeof value !== 'string')
		return null;

	return value.split(/[ \t]+/).filter((t) => t !== '');
}

return baseclass.extend({
	__name__: 'reterm.devices.ports',

	MAX_PORT_TOKENS: MAX_PORT_TOKENS,

	/**
	 * Parse a ports spec like validate.uc ports().
	 * @param {string|string[]} value 'all', 'web', "80 443 8080-8090" or a
	 *   UCI list of such tokens
	 * @returns {'all'|Array<number[]>|null} 'all' or sorted, merged
	 *   [lo, hi] ranges; null when invalid
	 */
	parse(value) {
		if (value === 'all')
			return 'all';

		if (value === 'web')
			return [ [ 80, 80 ], [ 443, 443 ] ];

		if (typeof value === 'string' && value.length > MAX_PORTS_LENGTH)
			return null;

		let tokens = portTokens(value), ranges = [];

		if (!tokens || tokens.length < 1 || tokens.length > MAX_PORT_TOKENS)
			return null;

		for (let i = 0; i < tokens.length; i++) {
			let t = tokens[i], p = port(t), m;

			if (p !== null) {
				ranges.push([ p, p ]);
				continue;
			}

			m = /^([0-9]+)-([0-9]+)$/.exec(t);

			if (!m || t.length > 11 || port(m[1]) === null || port(m[2]) === null || +m[1] > +m[2])
				return null;

			ranges.push([ +m[1], +m[2] ]);
		}

		ranges.sort((a, b) => (a[0] - b[0]) || (a[1] - b[1]));

		return ranges.reduce((out, r) => {
			let last = out[out.length - 1];

			if (last && r[0] <= last[1] + 1)
				last[1] = Math.max(last[1], r[1]);
			else
				out.push([ r[0], r[1] ]);

			return out;
		}, []);
	},

	/**
	 * @returns {string|null} null if parse() accepts the value, else
	 *   what is wrong, naming the first bad word
	 */
	validate(value) {
		if (this.parse(value) !== null)
			return null;

		if (typeof value !== 'string' && !Array.isArray(value))
			return _('Enter ports or ranges separated by spaces, e.g. 80 443 8080-8090');

		if (typeof value === 'string' && value.length > MAX_PORTS_LENGTH)
			return _('Too long: at most %d ports or ranges').format(MAX_PORT_TOKENS);

		let tokens = portTokens(value) || [];

		if (!tokens.length)
			return _('Enter ports or ranges separated by spaces, e.g. 80 443 8080-8090');

		if (typeof value === 'string' && /[^0-9 \t-]/.test(value) && /^[0-9 \t,;-]+$/.test(value))
			return _('Separate ports with spaces, e.g. 80 443 8080-8090');

		for (let i = 0; i < tokens.length; i++) {
			let t = tokens[i], m = /^([0-9]+)-([0-9]+)$/.exec(t), shown = t.substring(0, 24);

			if (port(t) !== null)
				continue;

			if (!m && !/^[0-9]+$/.test(t))
				return _('"%s" is not a port (1–65535) or a range like 8080-8090').format(shown);

			if (!m || port(m[1]) === null || port(m[2]) === null)
				return _('"%s": ports must be between 1 and 65535, without leading zeros').format(shown);

			if (+m[1] > +m[2])
				return _('In range "%s" the first port must not be above the second').format(shown);
		}

		return _('At most %d ports or ranges').format(MAX_PORT_TOKENS);
	},

	/**
	 * The ports option as stored: 'all' (also for an unset option),
	 * 'web' or the tokens separated by single spaces, as typed.
	 * @returns {string|null} null when invalid
	 */
	text(value) {
		if (value == null)
			return 'all';

		if (this.parse(value) === null)
			return null;

		if (value === 'all' || value === 'web')
			return value;

		return portTokens(value).join(' ');
	},

	/**
	 * Stored ports → the form's choice: { choice: 'all'|'web'|'custom',
	 * custom: text for the custom field }. An invalid stored value is a
	 * custom value (the field shows what is wrong).
	 */
	choice(value) {
		let t = this.text(value);

		if (t === 'all' || t === 'web')
			return { choice: t, custom: '' };

		return { choice: 'custom', custom: (t !== null) ? t : (Array.isArray(value) ? value.join(' ') : str(value)) };
	},

	/** The ports of a device in words. */
	describe(value) {
		let t = this.text(value);

		if (t === 'all')
			return _('all TCP ports');

		if (t === 'web')
			return _('web (80, 443)');

		return (t === null) ? _('invalid ports') : _('ports %s').format(t);
	}
});
