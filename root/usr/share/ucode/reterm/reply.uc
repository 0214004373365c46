// SPDX-License-Identifier: Apache-2.0
//
// The contract of reterm's two ubus objects ("reterm", served by rpcd
// from /usr/share/rpcd/ucode/reterm; "reterm.latency", served by
// reterm-latencyd): the one argument checker, the one error constructor
// and the one list of error codes.  Every failure is
//
//   { "error": "<code>", "message": "<human text>" [, "field": "<argument>"] }
//
// Each object declares its methods once, as { args: SPEC, codes: [...],
// call } (reterm.api METHODS, reterm.latency.api METHODS); dispatch()
// checks the arguments against SPEC once and calls the method with the
// checked ones; policy() gives ubus the typed examples it filters calls
// with.  docs/ubus-api.md lists these codes; a test holds the two equal.

'use strict';

import { one_line } from 'reterm.validate';

export const CODES = {
	invalid_argument: 'an argument is missing, unknown, of the wrong type or outside its grammar; nothing was changed',
	not_found: 'no configured device has that MAC, no host is known with it, or no result has that id',
	exists: 'a device with that MAC is already configured',
	not_running: 'reterm is disabled or its firewall rules are not loaded, so there is nothing to audit',
	internal: 'the router failed to do it (uci, nft, an init script, a child process)',
	busy: 'a guided test is already running',
	no_test: 'no guided test is running',
	too_soon: 'the last test attempt was less than 30 s ago (wait_s says how long to wait)',
	target_refused: 'a test server that is not a public Internet address on port 80, 443 or 8080 (or not the admin\'s)',
	pause_failed: 'shaping could not be paused for the test, so it did not start',
	dns_failed: 'the test server\'s name did not resolve',
	unreachable: 'the test server did not answer',
	tls_failed: 'the test server\'s certificate or TLS handshake failed',
	throttled: 'the test server refused the test (HTTP 403 or 429)',
	no_endpoint: 'none of the built-in test endpoints can be used (tried says why)'
};

// error(code, fmt, ...args) -> { error, message }; code one of CODES (the
// ucode tier's contract test reads every call and holds it to CODES and to
// its method's declared codes)
export function error(code, fmt, ...args) {
	return { error: code, message: length(args) ? sprintf(fmt, ...args) : fmt };
};

// A hostile value quoted for a message: JSON escaping makes quotes and
// newlines visible, long values are cut.  The cut falls between UTF-8
// characters, never inside one (ucode's strings are bytes): the reply
// stays valid UTF-8 on ubus and HTTP.
export function show(val) {
	let s = sprintf('%J', val);

	if (length(s) <= 48)
		return s;

	let cut = 45;

	// back off over continuation bytes (10xxxxxx) to a character start
	while (cut > 0 && (ord(s, cut) & 0xc0) == 0x80)
		cut--;

	return substr(s, 0, cut) + '...';
};

const TYPES = { string: 'a string', int: 'an integer', bool: 'true or false' };
const EXAMPLES = { string: '', int: 0, bool: false };

function bad(field, fmt, ...args) {
	return { ...error('invalid_argument', fmt, ...args), field };
}

// check(args, spec) -> { args } (each declared argument checked and
// normalized, defaults filled in) or an invalid_argument error naming
// the `field`.
//
// spec: { name: { type: 'string'|'int'|'bool', required, default,
//                 check: fn(v) -> normalized value | null, grammar: text } }
// Unknown arguments are refused; "ubus_rpc_session", which uhttpd adds to
// every call over HTTP, is ignored.
export function check(args, spec) {
	args ??= {};

	if (type(args) != 'object')
		return bad(null, 'arguments must be an object');

	for (let k in sort(keys(args)))
		if (k != 'ubus_rpc_session' && !exists(spec, k))
			return bad(k, 'unknown argument %s', show(k));

	let out = {};

	for (let k, s in spec) {
		let v = args[k];

		if (v == null) {
			if (s.required)
				return bad(k, "argument '%s' is required", k);

			if (exists(s, 'default'))
				out[k] = s.default;

			continue;
		}

		if (type(v) != s.type)
			return bad(k, "argument '%s' must be %s", k, TYPES[s.type]);

		// before any grammar: a pattern takes one line of several
		// (reterm.validate one_line())
		if (s.type == 'string' && !one_line(v, true))
			return bad(k, "argument '%s' must not contain a line break or control character", k);

		let c = s.check ? s.check(v) : v;

		// (the value is not echoed: a reply must not reflect what a caller
		// injected)
		if (c == null)
			return bad(k, "argument '%s' must be %s", k, s.grammar ?? TYPES[s.type]);

		out[k] = c;
	}

	return { args: out };
};

// policy(spec, session) -> the typed examples ubus filters calls with
// (rpcd's ucode plugins and ucode's ubus.publish() alike); session: the
// method is called over HTTP too, so uhttpd's ubus_rpc_session is
// declared (ucode's ubus module refuses undeclared arguments)
export function policy(spec, session) {
	let p = {};

	for (let k, s in spec)
		p[k] = s.example ?? EXAMPLES[s.type];

	if (session)
		p.ubus_rpc_session = '';

	return p;
};

// dispatch(methods, name, args, ...extra) -> the method's reply, after its
// arguments passed check(); extra goes to the method as it is (e.g. a
// deferred-reply handle)
export function dispatch(methods, name, args, ...extra) {
	let m = methods[name];

	if (!m)
		return error('invalid_argument', 'no method %s', show(name));

	let c = check(args, m.args ?? {});

	return c.error ? c : m.call(c.args, ...extra);
};
