// SPDX-License-Identifier: Apache-2.0
//
// Replies of the ubus API.  Every failure is
//
//   { "error": "<code>", "message": "<human text>" }
//
// with one of these codes:
//
//   invalid_argument  an argument is missing, of the wrong type, unknown, or
//                     does not match its grammar; nothing was changed
//   not_found         no configured device has that MAC
//   exists            a device with that MAC is already configured
//   not_running       reterm is not enabled / its firewall rules are not
//                     loaded, so there is nothing to audit
//   internal          the router failed to do it (uci, nft, init script)

'use strict';

export const CODES = [ 'invalid_argument', 'not_found', 'exists', 'not_running', 'internal' ];

export function error(code, fmt, ...args) {
	return { error: code, message: length(args) ? sprintf(fmt, ...args) : fmt };
}

export function is_error(reply) {
	return type(reply) == 'object' && type(reply.error) == 'string';
}

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
}

const TYPES = {
	string: 'a string',
	int: 'an integer',
	bool: 'a boolean (true or false)'
};

// check(args, spec) -> null when fine, else an invalid_argument reply.
//
// spec: { name: { type: 'string'|'int'|'bool', required: bool } }.  rpcd
// already rejects undeclared and mistyped arguments; this repeats the
// check for callers that bypass rpcd (the CLI, tests) and catches
// missing required ones.  "ubus_rpc_session" is what rpcd adds for HTTP
// callers and is ignored.
export function check(args, spec) {
	if (args == null)
		args = {};

	if (type(args) != 'object')
		return error('invalid_argument', 'arguments must be an object');

	for (let k in sort(keys(args))) {
		if (k == 'ubus_rpc_session')
			continue;

		if (!exists(spec, k))
			return error('invalid_argument', 'unknown argument %s', show(k));

		let want = spec[k].type, v = args[k];

		if (v == null && !spec[k].required)
			continue;

		if (type(v) != want)
			return error('invalid_argument', "argument '%s' must be %s", k, TYPES[want]);
	}

	for (let k, s in spec)
		if (s.required && args[k] == null)
			return error('invalid_argument', "argument '%s' is required", k);

	return null;
}
