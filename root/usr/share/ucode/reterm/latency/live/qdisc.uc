// SPDX-License-Identifier: Apache-2.0
//
// `tc -s -j qdisc show` once a second without a process a second: one
// long-running `tc -s -j -force -batch -` reads the commands from our end
// of a socket pair (reterm.latency.child) and answers each show with one
// JSON line (iproute2 flushes after every batch command); adaptive
// shaping's rate changes go to the same tc.  Under the lab's software
// emulation a tc start costs ~170 ms of CPU; a batch answer costs what
// the dump costs.
//
//   let q = qdisc.open(env);   // env: { uloop, socket, fs, clock }
//   q.show(cb);                // cb(json text) or cb(null)
//   q.change(dev, kbit);       // CAKE's bandwidth (adaptive shaping)
//   q.close();                 // ends tc (the sampler does so asleep)
//
// One show is out at a time: tc answers when it can (its start on a
// loaded router can take a second or more, and a late answer is still a
// reading); a show while one is out answers null at once.  A tc that
// exits, or owes an answer for HANG_MS, is started again for the next
// command (the show it owed gets null), and first given the last rate of
// each device (the one before may not have run it); after MAX_RESTARTS
// failed starts in a row the next start waits BACKOFF_MS (doubling up to
// BACKOFF_MAX_MS), and meanwhile a
// show answers null (no reading) and a change runs one tc of its own,
// never waited for.  Nothing here blocks the loop, and there is no mode
// that gives up for good.

'use strict';

import * as child from 'reterm.latency.child';
import { netdev } from 'reterm.validate';

export const TC_PATHS = [ '/usr/sbin/tc', '/sbin/tc', '/usr/bin/tc', '/bin/tc' ];
export const HANG_MS = 5000;	// an answer owed this long: tc hangs, started again
export const MAX_RESTARTS = 3;
export const BACKOFF_MS = 5000, BACKOFF_MAX_MS = 60000;
const CLOSE_MS = 500;	// close(): tc's time to finish what it was sent

// paths: where to look for tc (tests hand in stand-ins)
export function open(env, paths) {
	let fs = env.fs ?? require('fs'), socket = env.socket;

	if (!socket)
		try { socket = require('socket'); } catch (e) { socket = null; }

	let path = child.find(fs, paths ?? TC_PATHS);
	let proc = null, buf = '', waiting = null, restarts = 0;
	let owed = null;	// mono ms the show out (waiting) was sent
	let backoff = BACKOFF_MS, wait_until = null;	// mono ms: no start before
	// dev -> kbit: the last rate sent to each device, sent again to a tc
	// started after one that exited or hung (it may not have run them)
	let last = {};
	let now = () => env.clock?.mono() ?? 0;

	// grace_ms: tc first runs what it was sent (see close())
	function stop_child(grace_ms) {
		proc?.kill(grace_ms);
		proc = owed = null;
		buf = '';
	}

	function answer(text) {
		let cb = waiting;

		waiting = null;
		cb?.(text);
	}

	function readable() {
		let chunk, eof = false;

		while ((chunk = proc?.sock.recv(65536, socket.MSG_DONTWAIT)) != null) {
			if (chunk == '') {
				eof = true;
				break;
			}

			buf += chunk;
		}

		let nl = index(buf, '\n');

		if (nl >= 0) {
			let line = substr(buf, 0, nl);

			buf = substr(buf, nl + 1);
			owed = null;
			restarts = 0;
			backoff = BACKOFF_MS;
			answer(line);
		}

		if (eof) {	// tc exited: started again on the next show
			stop_child();
			answer(null);
		}
	}

	function words(dev, kbit) {
		return [ 'qdisc', 'change', 'dev', dev, 'root', 'cake', 'bandwidth', `${kbit}kbit` ];
	}

	// the same as one line of the batch
	function line(dev, kbit) {
		return join(' ', words(dev, kbit)) + '\n';
	}

	function start() {
		proc = socket ? child.spawn({ ...env, fs, socket }, path, [ '-s', '-j', '-force', '-batch', '-' ],
			{ stdin: true, readable }) : null;

		for (let dev, kbit in last)
			if (proc?.alive())
				proc.sock.send(line(dev, kbit));
	}

	// a tc batch running, or started now unless the backoff says wait
	function ensure() {
		if (!path || proc?.alive())
			return;

		stop_child();

		if (wait_until != null && now() < wait_until)
			return;

		wait_until = null;

		if (restarts >= MAX_RESTARTS) {
			restarts = 0;
			wait_until = now() + backoff;
			backoff = min(backoff * 2, BACKOFF_MAX_MS);
			return;
		}

		restarts++;
		start();
	}

	return {
		batch: () => proc != null,

		// CAKE's bandwidth on dev (a checked device name) to kbit kbit/s
		// (adaptive shaping): a batch command has no answer, the next
		// show() tells what the qdisc holds
		change: function(dev, kbit) {
			if (netdev(dev) == null || type(kbit) != 'int' || kbit < 1 || kbit > 100000000)
				return false;

			ensure();

			if (proc?.alive())
				proc.sock.send(line(dev, kbit));
			else if (path)	// no batch now: one tc, not waited for
				env.uloop.process(path, words(dev, kbit), {}, () => null);
			else
				return false;

			last[dev] = kbit;

			return true;
		},

		show: function(cb) {
			// the last one is still out: this one is skipped, unless tc
			// owes that answer for HANG_MS (it hangs: started again)
			if (waiting) {
				if (now() - owed < HANG_MS)
					return cb(null);

				stop_child();
				answer(null);
			}

			ensure();

			if (proc?.alive()) {
				waiting = cb;
				owed = now();
				buf = '';
				proc.sock.send('qdisc show\n');

				return;
			}

			cb(null);
		},

		// tc ends after the commands it was sent (the rates adaptive
		// shaping restores on stop), within CLOSE_MS
		close: function() {
			stop_child(CLOSE_MS);
			last = {};	// a later start is a new run (sqm may have set others)
			waiting = null;
			restarts = 0;
			wait_until = null;
			backoff = BACKOFF_MS;
		}
	};
};
