// SPDX-License-Identifier: Apache-2.0
//
// The live latency methods of the ubus API "reterm" (samples, test_*,
// results, monitor_status, autorate_status): forwarded to retermd's own object.
//
// retermd (/usr/sbin/retermd) publishes "reterm.monitor"; these methods
// pass the declared arguments through so that LuCI's ACLs on "reterm"
// apply.  retermd validates them and answers { error, message } itself.
//
// I/O: ubus only.

'use strict';

import { connect } from 'ubus';
import { error, show } from 'reterm.reply';

export const MONITOR = 'reterm.monitor';

// libubus' status texts -> our codes: only a missing object means that
// retermd is not running; a refused argument is the caller's mistake.
const UBUS_CODES = [
	[ /Invalid argument/, 'invalid_argument', 'retermd refused the arguments of %s' ],
	[ /Method not found/, 'internal', 'retermd does not know the method %s (an older version?)' ],
	[ /Not found|Connection failed/, 'not_running', 'the latency monitor (retermd) is not running' ],
	[ /timed out|No response/, 'internal', 'retermd did not answer %s in time' ],
	[ /Permission denied/, 'internal', 'ubus denied the call to retermd\'s %s' ]
];

export function ubus_failure(method, text) {
	for (let m in UBUS_CODES)
		if (match(text ?? '', m[0]))
			return error(m[1], m[2], method);

	return error('internal', 'calling retermd\'s %s failed: %s', method, show(text ?? 'no reply'));
}

// Arguments the caller left out are not passed on as nulls: ubus would
// refuse the whole call, and retermd applies its own defaults.
function monitor(method, args) {
	let conn = connect(), given = {};

	if (!conn)
		return error('not_running', 'ubus is not available, so the latency monitor (retermd) cannot be reached');

	for (let k, v in args)
		if (v != null)
			given[k] = v;

	let reply = conn.call(MONITOR, method, given);

	return reply ?? ubus_failure(method, conn.error());
}

export function samples(args) {
	return monitor('samples', { since: args.since, step: args.step });
}

export function test_start(args) {
	let a = {};

	// only what the caller gave: retermd tells "neither URL" (the built-in
	// endpoints) from an empty one
	for (let k in [ 'endpoint', 'download_url', 'upload_url', 'streams', 'pause_shaping' ])
		if (args[k] != null)
			a[k] = args[k];

	return monitor('test_start', a);
}

export function test_status() {
	return monitor('test_status', {});
}

export function test_stop() {
	return monitor('test_stop', {});
}

export function results(args) {
	return monitor('results', length(args.id) ? { id: args.id } : {});
}

export function monitor_status() {
	return monitor('status', {});
}

export function autorate_status() {
	return monitor('autorate_status', {});
}
