// SPDX-License-Identifier: Apache-2.0
//
// Arguments of the `reterm.monitor` ubus methods, checked strictly.  A
// check returns the normalized value or null; check_args() returns
// { args } or { error, message } (reterm's API error shape).
//
// URLs for the guided test: http:// (the socket load in retermd,
// reterm.monitor.load) or https:// (the uclient load in a child process,
// reterm.monitor.tlsload).  Grammar (at most 256 characters, printable
// ASCII without spaces, so no quotes, backticks, `$(`, `;`, newlines):
//   http[s]://HOST[:PORT][PATH]
//   HOST  IPv4 dotted quad | "[" IPv6 "]" | hostname (labels of
//         A-Z a-z 0-9 and inner "-", 1-63 each, at most 253 total)
//   PORT  1-65535 (default 80 for http, 443 for https)
//   PATH  "/" followed by A-Z a-z 0-9 - . _ ~ / ? = & % + , : @
//         (no quotes, spaces, ; ` $ ( ) < > \ { } | # ' " or controls)
// An https:// URL must name its host (no IP literal): the certificate is
// checked against the name.

'use strict';

export const MAX_URL = 256, MAX_STREAMS = 16;
const URL_GRAMMAR = 'an http:// or https:// URL (host, optional port, path of safe characters, ' +
	'at most 256 characters; https:// with a host name)';

function printable(s, maxlen) {
	if (type(s) != 'string' || length(s) < 1 || length(s) > maxlen)
		return false;

	for (let i = 0; i < length(s); i++) {
		let c = ord(s, i);

		if (c < 0x21 || c > 0x7e)
			return false;
	}

	return true;
}

export function hostname(s) {
	if (!printable(s, 253))
		return null;

	for (let l in split(s, '.'))
		if (!match(l, /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/))
			return null;

	// all-numeric names are not hostnames (a malformed IPv4 address)
	return match(s, /[A-Za-z]/) ? lc(s) : null;
}

// IP literal (IPv4 or IPv6, no zone, no prefix) -> canonical text or null
export function ip(s) {
	if (!printable(s, 45) || index(s, '/') >= 0 || index(s, '%') >= 0)
		return null;

	let a = iptoarr(s);

	return (type(a) == 'array' && (length(a) == 4 || length(a) == 16)) ? arrtoip(a) : null;
}

// { url, scheme, host, port, path, family: 4|6|null (a name) } or null
function parse_url(s, scheme) {
	if (!printable(s, MAX_URL) || substr(s, 0, length(scheme) + 3) != `${scheme}://`)
		return null;

	let m = match(substr(s, length(scheme) + 3),
		/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(\/[A-Za-z0-9._~\/?=&%+,:@-]*)?$/);

	if (!m)
		return null;

	let host = m[1], family = null;

	if (substr(host, 0, 1) == '[') {
		host = ip(substr(host, 1, length(host) - 2));

		if (host == null || index(host, ':') < 0)
			return null;

		family = 6;
	}
	else if (match(host, /^[0-9.]+$/)) {
		host = ip(host);

		if (host == null)
			return null;

		family = 4;
	}
	else {
		host = hostname(host);

		if (host == null)
			return null;
	}

	let port = (scheme == 'https') ? 443 : 80;

	if (m[2] != null) {
		let p = substr(m[2], 1);

		if (!match(p, /^[1-9][0-9]*$/) || +p > 65535)
			return null;

		port = +p;
	}

	return { url: s, scheme, host, port, path: m[3] ?? '/', family };
}

export function http_url(s) {
	return parse_url(s, 'http');
}

// https:// with a host name (a certificate names hosts, not addresses)
export function https_url(s) {
	let u = parse_url(s, 'https');

	return (u && u.family == null) ? u : null;
}

export function test_url(s) {
	return http_url(s) ?? https_url(s);
}

function err(message) {
	return { error: 'invalid_argument', message };
}

function is_int(v) {
	return type(v) == 'int';
}

// spec: { name: { type: 'int'|'string'|'bool', required, check: fn(v) -> value|null,
// grammar: text for the message } }.  Unknown arguments are refused
// (ubus_rpc_session, added by rpcd for HTTP callers, is ignored).
export function check_args(args, spec) {
	args ??= {};

	if (type(args) != 'object')
		return err('arguments must be an object');

	let out = {};

	for (let k in sort(keys(args))) {
		if (k == 'ubus_rpc_session')
			continue;

		if (!exists(spec, k))
			return err(sprintf('unknown argument %J', substr(k, 0, 32)));
	}

	for (let k, s in spec) {
		let v = args[k];

		if (v == null) {
			if (s.required)
				return err(`argument '${k}' is required`);

			if (exists(s, 'default'))
				out[k] = s.default;

			continue;
		}

		if ((s.type == 'int' && !is_int(v)) || (s.type == 'string' && type(v) != 'string') ||
		    (s.type == 'bool' && type(v) != 'bool'))
			return err(`argument '${k}' must be ${{ int: 'an integer', string: 'a string', bool: 'true or false' }[s.type]}`);

		let c = s.check ? s.check(v) : v;

		if (c == null)
			return err(`argument '${k}' must be ${s.grammar}`);

		out[k] = c;
	}

	return { args: out };
}

export const SPEC = {
	samples: {
		since: { type: 'int', default: 0, check: (v) => (v >= 0 && v <= 0x7fffffffff) ? v : null,
		         grammar: 'an integer >= 0 (t of the newest row held)' },
		step: { type: 'int', default: 1, check: (v) => (v == 1 || v == 60) ? v : null,
		        grammar: '1 (seconds, 10 minutes) or 60 (minutes, 24 hours)' }
	},
	test_start: {
		endpoint: { type: 'string', check: (v) => match(v, /^[a-z0-9-]{1,32}$/) ? v : null,
		            grammar: 'the id of a built-in test endpoint (see status: endpoints)' },
		download_url: { type: 'string', check: test_url, grammar: URL_GRAMMAR },
		upload_url: { type: 'string', check: test_url, grammar: URL_GRAMMAR },
		streams: { type: 'int', default: 4, check: (v) => (v >= 1 && v <= MAX_STREAMS) ? v : null,
		           grammar: 'an integer 1-16' },
		pause_shaping: { type: 'bool', default: false, grammar: 'true or false' }
	},
	test_status: {},
	test_stop: {},
	results: {
		id: { type: 'string', check: (v) => match(v, /^[0-9a-f]{1,16}$/) ? v : null,
		      grammar: 'a result id (1-16 hex digits)' }
	},
	status: {},
	autorate_status: {}
};
