// SPDX-License-Identifier: Apache-2.0
//
// The sessions our haproxy holds now, read from its stats socket
// ("show stat") for the status method of the ubus API "reterm"
// (reterm.api).
//
// I/O: the haproxy stats socket (optional: needs ucode's socket module
// and a running haproxy; any failure answers null).

'use strict';

import { stat } from 'fs';

const STATS_SOCKET = '/var/run/reterm/haproxy.sock';

// Sessions our haproxy frontend holds now: the "scur" column of the
// FRONTEND rows of "show stat".
export function stat_sessions(text) {
	let lines = split(text ?? '', '\n'), col = {}, total = null;

	if (!length(lines) || substr(lines[0], 0, 2) != '# ')
		return null;

	let head = split(substr(lines[0], 2), ',');

	for (let i = 0; i < length(head); i++)
		col[head[i]] = i;

	if (col.svname == null || col.scur == null)
		return null;

	for (let l in slice(lines, 1)) {
		let f = split(l, ',');

		if (f[col.svname] == 'FRONTEND' && match(f[col.scur] ?? '', /^[0-9]+$/))
			total = (total ?? 0) + +f[col.scur];
	}

	return total;
};

// Optional: needs ucode's socket module (OpenWrt 24.10+) and a running
// haproxy; any failure answers null.  500 ms at most.
export function sessions() {
	if (stat(STATS_SOCKET)?.type != 'socket')
		return null;

	let socket;

	try {
		socket = require('socket');
	}
	catch (e) {
		return null;
	}

	let s = socket.connect({ path: STATS_SOCKET }, null, null, 500);

	if (!s)
		return null;

	let out = '';

	// haproxy answers and closes; 64 reads of 64 KiB bound a runaway
	for (let i = 0; i < 64 && (i > 0 || s.send('show stat\n') != null); i++) {
		let ev = socket.poll(500, s);

		if (!ev?.[0]?.[1])
			break;

		let chunk = s.recv(65536);

		if (chunk == null || chunk == '')
			break;

		out += chunk;
	}

	s.close();

	return stat_sessions(out);
};
