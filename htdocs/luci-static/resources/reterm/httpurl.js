'use strict';
'require baseclass';

/*
 * The test server URL as reterm-latencyd accepts it (the grammar of
 * /usr/share/ucode/reterm/validate.uc test_url): http:// or
 * https://, a host (IPv4, [IPv6] or a host name; https:// only with a
 * host name, the certificate names it), an optional port and a path of
 * safe characters. Pure, no DOM. Use as: 'require reterm.httpurl as httpurl';
 *
 *   httpurl.parse('http://[2001:db8::1]:8080/x') → {scheme: 'http', host, port: 8080, path: '/x', family: 6, url}
 *   httpurl.parse('https://speed.example.net/') → {scheme: 'https', port: 443, family: null, …}
 *   httpurl.parse('https://192.0.2.1/')          → null
 */

const MAX_URL = 256;

function ipv4(s) {
	const parts = s.split('.');

	if (parts.length !== 4)
		return false;

	return parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && +p <= 255);
}

function ipv6(s) {
	if (s.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(s))
		return false;

	const halves = s.split('::');

	if (halves.length > 2)
		return false;

	const groups = (h) => (h === '' ? [] : h.split(':'));
	const all = groups(halves[0]).concat(halves.length === 2 ? groups(halves[1]) : []);
	let count = 0;

	for (let i = 0; i < all.length; i++) {
		if (i === all.length - 1 && all[i].indexOf('.') >= 0) {
			if (!ipv4(all[i]))
				return false;

			count += 2;
		}
		else if (/^[0-9A-Fa-f]{1,4}$/.test(all[i])) {
			count++;
		}
		else {
			return false;
		}
	}

	return halves.length === 2 ? count <= 7 : count === 8;
}

function hostname(s) {
	if (s.length > 253 || !/[A-Za-z]/.test(s))
		return false;

	return s.split('.').every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

const URL_RE = /^(https?):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(\/[A-Za-z0-9._~\/?=&%+,:@-]*)?$/;

/**
 * Parse a test URL as reterm-latencyd does (reterm/validate.uc test_url): http:// or
 * https://, host (IPv4, [IPv6] or a hostname; a hostname for https://),
 * optional port 1-65535, a path of safe characters; printable ASCII
 * without spaces, at most 256 characters.
 * @param {string} s
 * @returns {{url, scheme, host, port, path, family}|null} family 4, 6 or null (a name)
 */
function parse(s) {
	if (typeof s !== 'string' || s.length < 1 || s.length > MAX_URL || !/^[\x21-\x7e]+$/.test(s))
		return null;

	const m = URL_RE.exec(s);

	if (!m)
		return null;

	const scheme = m[1];
	let host = m[2], family = null, port = (scheme === 'https') ? 443 : 80;

	if (host.charAt(0) === '[') {
		host = host.slice(1, -1);

		if (!ipv6(host))
			return null;

		family = 6;
	}
	else if (/^[0-9.]+$/.test(host)) {
		if (!ipv4(host))
			return null;

		family = 4;
	}
	else if (hostname(host)) {
		host = host.toLowerCase();
	}
	else {
		return null;
	}

	if (scheme === 'https' && family !== null)
		return null;

	if (m[3] != null) {
		const p = m[3].slice(1);

		if (!/^[1-9][0-9]*$/.test(p) || +p > 65535)
			return null;

		port = +p;
	}

	return { url: s, scheme, host, port, path: m[4] || '/', family };
}

return baseclass.extend({
	__name__: 'reterm.httpurl',

	MAX_URL: MAX_URL,
	parse: parse
});
