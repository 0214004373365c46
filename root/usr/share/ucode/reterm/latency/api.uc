// SPDX-License-Identifier: Apache-2.0
//
// The ubus object "reterm.latency" that reterm-latencyd publishes: each
// method's arguments and error codes, declared once (docs/ubus-api.md
// describes them; the ucode tier holds the two equal).  The methods
// themselves are the service's (reterm.latency.service, and the guided
// test's in reterm.latency.test.runner), which hands them out through
// checked(): every call is checked against this table once, whoever calls
// (ubus, the lab's latency-run, tests).
//
// LuCI calls this object directly (uhttpd's /ubus checks the session's
// ACL for it); every method but reload therefore declares uhttpd's
// ubus_rpc_session.  reload is for the init script (root) only.

'use strict';

import { test_url, grammar, matches } from 'reterm.validate';
import { dispatch } from 'reterm.reply';

export const OBJECT = 'reterm.latency';
export const MAX_STREAMS = 16, DEFAULT_STREAMS = 4;

// arguments every test_start has in common with the saved test settings
const TEST_ARGS = {
	endpoint: { type: 'string', check: (v) => matches(v, /^[a-z0-9-]{1,32}$/) ? v : null,
	            grammar: 'the id of a built-in test endpoint (see status: endpoints)', example: 'cloudflare' },
	download_url: { type: 'string', check: test_url, grammar: grammar.url,
	                example: 'http://192.0.2.10/bytes/1000000000' },
	upload_url: { type: 'string', check: test_url, grammar: grammar.url, example: 'http://192.0.2.10/upload' },
	streams: { type: 'int', default: DEFAULT_STREAMS, check: (v) => (v >= 1 && v <= MAX_STREAMS) ? v : null,
	           grammar: 'an integer 1-16', example: DEFAULT_STREAMS },
	pause_shaping: { type: 'bool', default: false }
};

export const METHODS = {
	// rows of the live graphs since t (s), per second or per minute
	samples: {
		args: {
			since: { type: 'int', default: 0, check: (v) => (v >= 0 && v <= 0x7fffffffff) ? v : null,
			         grammar: 'an integer >= 0 (t of the newest row held)' },
			step: { type: 'int', default: 1, check: (v) => (v == 1 || v == 60) ? v : null,
			        grammar: '1 (seconds, 10 minutes) or 60 (minutes, 24 hours)', example: 1 }
		},
		codes: [ 'invalid_argument' ]
	},
	// the daemon's state: prober, reflectors, WAN, shaper, endpoints, test
	status: { args: {}, codes: [ 'invalid_argument' ] },
	// adaptive shaping: rates, decisions, reflectors
	autorate_status: { args: {}, codes: [ 'invalid_argument' ] },
	test_start: {
		args: TEST_ARGS,
		codes: [ 'invalid_argument', 'busy', 'too_soon', 'target_refused', 'pause_failed',
		         'dns_failed', 'unreachable', 'tls_failed', 'throttled', 'no_endpoint', 'internal' ]
	},
	test_status: { args: {}, codes: [ 'invalid_argument' ] },
	test_stop: { args: {}, codes: [ 'invalid_argument', 'no_test' ] },
	results: {
		args: {
			id: { type: 'string', check: (v) => matches(v, /^[0-9a-f]{1,16}$/) ? v : null,
			      grammar: 'a result id (1-16 hex digits)', example: '406fc086' }
		},
		codes: [ 'invalid_argument', 'not_found' ]
	},
	// settings read again (the init script's reload; root only, not LuCI)
	reload: { args: {}, codes: [ 'invalid_argument', 'internal' ], root: true }
};

// checked(impl) -> { name: fn(args, ...extra) } for each method impl
// has: the call checked against METHODS (reply.dispatch), impl[name] then
// called with the checked arguments (and extra, e.g. a deferred reply)
export function checked(impl) {
	let table = {}, out = {};

	for (let name, m in METHODS)
		if (impl[name])
			table[name] = { ...m, call: impl[name] };

	for (let name in keys(table)) {
		let n = name;

		out[n] = (args, ...extra) => dispatch(table, n, args, ...extra);
	}

	return out;
};
