// SPDX-License-Identifier: Apache-2.0
//
// What the service really did, from the files it leaves in RAM:
//
//   /var/run/reterm/state            the init script's last start:
//                                    result=ok|disabled|rejected|failed,
//                                    message=..., token=...
//   /var/run/reterm/haproxy.starts   uptime second of each haproxy start
//                                    (last 10; /usr/libexec/reterm/haproxy-run)
//   /var/run/reterm/haproxy.err      haproxy's messages of its current run
//
// rc.common does not pass start_service's exit code on, so `reload`
// exits 0 even when the configuration was refused: these files are the
// truth.  Pure parsers: text in, values out; hostile content (another
// process could write there) is bounded and filtered.

'use strict';

export const STATE_FILE = '/var/run/reterm/state';
export const STARTS_FILE = '/var/run/reterm/haproxy.starts';
export const ERR_FILE = '/var/run/reterm/haproxy.err';
const RESULTS = [ 'ok', 'disabled', 'rejected', 'failed' ];

// crash loop: this many starts within CRASH_WINDOW_S, the last one less
// than STABLE_S ago or no longer running
export const CRASH_STARTS = 3, CRASH_WINDOW_S = 120, STABLE_S = 30;

// one line of printable ASCII, at most 200 characters
function clean_line(s) {
	if (type(s) != 'string')
		return null;

	s = substr(replace(s, /[^\x20-\x7e]/g, ''), 0, 200);

	return length(s) ? s : null;
};

// { result, message, token } or null for a missing or foreign file
export function parse_state(text) {
	let st = {};

	for (let l in split(substr(text ?? '', 0, 4096), '\n')) {
		let m = match(l, /^(result|message|token)=(.*)$/);

		if (m)
			st[m[1]] = m[2];
	}

	if (index(RESULTS, st.result) < 0)
		return null;

	return {
		result: st.result,
		message: clean_line(st.message),
		token: match(st.token ?? '', /^[0-9a-f]{1,32}$/) ? st.token : null
	};
};

// The line that says why haproxy stopped: its first [ALERT] (the cause,
// e.g. "cannot bind socket"; later alerts are consequences such as "Some
// protocols failed to start their listeners! Exiting."), else its last
// non-empty line.
function error_line(text) {
	let lines = filter(split(substr(text ?? '', 0, 16384), '\n'), l => length(trim(l)));

	for (let l in lines)
		if (index(l, '[ALERT]') >= 0)
			return clean_line(trim(l));

	return length(lines) ? clean_line(trim(lines[-1])) : null;
};

// haproxy's health from the starts file, the current uptime (seconds)
// and procd's "running": { running, starts_recent, crash_loop, last_error }
export function haproxy_health(starts_text, err_text, uptime_s, running) {
	let recent = 0, newest = null;

	for (let l in split(substr(starts_text ?? '', 0, 4096), '\n')) {
		if (!match(l, /^[0-9]{1,10}$/))
			continue;

		let t = +l;

		if (uptime_s != null && t <= uptime_s && uptime_s - t <= CRASH_WINDOW_S)
			recent++;

		if (newest == null || t > newest)
			newest = t;
	}

	// restarted again and again and not up for long since (or procd has
	// given up: not running at all)
	let loop = recent >= CRASH_STARTS && (!running || uptime_s - newest < STABLE_S);

	return {
		running: !!running,
		starts_recent: recent,
		crash_loop: loop,
		last_error: loop || !running ? error_line(err_text) : null
	};
};
