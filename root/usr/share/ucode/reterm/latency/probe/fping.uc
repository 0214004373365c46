// SPDX-License-Identifier: Apache-2.0
//
// The fping prober of reterm.latency.probe.select: one long running `fping -l`
// (loop mode, round robin with -i, period -p = interval x targets) whose
// output is read from a socketpair (reterm.latency.child); losses are the
// sequence numbers that never answer.  Same interface as the other
// probers: start(targets, interval_ms, timeout_ms, cb) / stop() /
// running() / close(), name 'fping'.  fping probes its targets in
// turn, each once a round: a target listed twice is probed once (the
// icmp prober follows the list, repeats and all).

'use strict';

import * as child from 'reterm.latency.child';
import { ip } from 'reterm.validate';

const FPING_PATHS = [ '/usr/bin/fping', '/usr/sbin/fping', '/bin/fping', '/sbin/fping' ];

// "1.1.1.1   : [12], 64 bytes, 12.3 ms (12.1 avg, 0% loss)" -> {target, seq, rtt}
export function parse_fping_line(line) {
	let m = match(line, /^([0-9A-Fa-f.:]+) *: \[([0-9]+)\], [0-9]+ bytes, ([0-9]+(\.[0-9]+)?) ms/);

	return m ? { target: m[1], seq: +m[2], rtt: +m[3] } : null;
};

// fping's path, or null (see child.find)
export function fping_path(fs) {
	return child.find(fs, FPING_PATHS);
};

// Bookkeeping of fping's loop mode, separate from the process so that it
// can be tested: fping sends target j's probe k at about
// start + j * interval + k * period and prints only the answers.
// reply() and sweep() turn them into one result per probe.
export function fping_tracker(targets, interval_ms, timeout_ms, start_ms, emit) {
	let period = interval_ms * length(targets), st = {};

	for (let j = 0; j < length(targets); j++)
		st[arrtoip(iptoarr(targets[j]))] = { j, next: 0, anchor: start_ms + j * interval_ms, anchor_seq: 0 };

	function sent_at(s, k) {
		return s.anchor + (k - s.anchor_seq) * period;
	}

	return {
		reply: function(target, seq, rtt, now) {
			let s = st[arrtoip(iptoarr(target) ?? []) ?? target];

			if (!s || seq < s.next)
				return;	// unknown target or duplicate

			for (let k = s.next; k < seq; k++)
				emit({ t: sent_at(s, k), target: targets[s.j], rtt: null });

			// re-anchor the schedule on the measured send time
			s.anchor = now - rtt;
			s.anchor_seq = seq;
			s.next = seq + 1;

			emit({ t: s.anchor, target: targets[s.j], rtt });
		},

		sweep: function(now) {
			for (let ip, s in st)
				while (sent_at(s, s.next) + timeout_ms < now) {
					emit({ t: sent_at(s, s.next), target: targets[s.j], rtt: null });
					s.next++;
				}
		}
	};
};

export function fping(env, path) {
	let socket = env.socket ?? require('socket');
	let proc = null, rd = null, sweeper = null, buf = '', tracker = null, cb = null;

	function kill_child() {
		proc?.kill();
		sweeper?.cancel();
		proc = rd = sweeper = tracker = null;
		buf = '';
	}

	function readable() {
		let chunk, eof = false;

		while ((chunk = rd?.recv(4096, socket.MSG_DONTWAIT)) != null) {
			if (chunk == '') {
				eof = true;
				break;
			}

			buf += chunk;
		}

		let lines = split(buf, '\n');

		buf = pop(lines);

		let now = env.clock.mono();

		for (let l in lines) {
			let r = parse_fping_line(l);

			if (r && tracker)
				tracker.reply(r.target, r.seq, r.rtt, now);
		}

		// fping exited: stop listening; the sweeper reports the missing
		// answers as lost, and the next start() runs a new fping
		if (eof && proc) {
			proc.kill();
			proc = rd = null;
		}
	}

	return {
		name: 'fping',
		usable: () => path != null,

		start: function(targets, interval_ms, timeout_ms, on_result) {
			kill_child();

			// a target repeated in the round (the near hops adaptive
			// shaping prefers) once: fping gives each the same share
			targets = uniq(targets);

			// never hand fping anything but IP literals
			for (let t in targets)
				if (ip(t) == null)
					return false;

			cb = on_result;

			let period = interval_ms * length(targets);

			proc = child.spawn(env, path, [ '-l', '-p', '' + period, '-i', '' + interval_ms,
				'-t', '' + timeout_ms, '-b', '16', ...targets ], { readable });

			if (!proc)
				return false;

			rd = proc.sock;

			let me = { emit: (r) => cb?.(r) };

			tracker = fping_tracker(targets, interval_ms, timeout_ms, env.clock.mono(), me.emit);

			let sweep = () => {
				tracker?.sweep(env.clock.mono());
				sweeper?.set(500);
			};

			sweeper = env.uloop.timer(500, sweep);

			return true;
		},

		stop: function() {
			kill_child();
			cb = null;
		},

		close: function() { this.stop(); },
		running: () => proc != null && proc.alive()
	};
};

