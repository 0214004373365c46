// SPDX-License-Identifier: Apache-2.0
//
// `tc -s -j qdisc show` once a second without a process a second: one
// long-running `tc -s -j -force -batch -` reads the command from our end
// of a socketpair and answers each with one JSON line (iproute2 flushes
// after every batch command).  Under the lab's software emulation a tc
// start costs ~170 ms of CPU; a batch answer costs what the dump costs.
//
//   let q = qdisc.open(env);   // env: { uloop, socket, fs }
//   q.show(cb);                // cb(json text) or cb(null)
//   q.change(dev, kbit);       // CAKE's bandwidth (adaptive shaping)
//   q.close();                 // ends tc (the sampler does so asleep)
//
// Without the socket module, fs.dup2 or a tc binary, or when tc keeps
// dying, show() falls back to one `tc` run per call (run_once; env.run
// replaces it in tests).

'use strict';

import * as child from 'reterm.latency.child';
import { netdev } from 'reterm.validate';

export const TC_PATHS = [ '/usr/sbin/tc', '/sbin/tc', '/usr/bin/tc', '/bin/tc' ];
export const ANSWER_MS = 900;	// no answer by then: restart tc next time
export const MAX_RESTARTS = 3;
export const CLOSE_MS = 500;	// close(): tc's time to finish what it was sent

export const COMMAND = [ 'exec', 'tc', '-s', '-j', 'qdisc', 'show' ];

// COMMAND through a shell (fixed words only), read to its end.  Blocking:
// a pipe registered with uloop is non-blocking and read('all') would then
// return only the first chunk of a dump larger than the pipe's buffer
// (truncated JSON on routers with many queues).  Fallback path only.
function run_once(env, argv, cb) {
	let fs = env.fs ?? require('fs'), p = fs.popen(join(' ', argv) + ' 2>/dev/null', 'r');
	let out = p ? p.read('all') : null;

	p?.close();
	cb(out);
}

// paths: where to look for tc (tests hand in stand-ins)
export function open(env, paths) {
	let fs = env.fs ?? require('fs'), socket = env.socket;
	let path = socket ? child.find(fs, paths ?? TC_PATHS) : null;
	let proc = null, timer = null, buf = '', waiting = null, restarts = 0;

	// grace_ms: tc first runs what it was sent (see close())
	function stop_child(grace_ms) {
		timer?.cancel();
		proc?.kill(grace_ms);
		proc = timer = null;
		buf = '';
	}

	function answer(text) {
		let cb = waiting;

		waiting = null;
		timer?.cancel();
		timer = null;
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
			restarts = 0;
			answer(line);
		}

		if (eof) {	// tc exited: started again on the next show
			stop_child();
			answer(null);
		}
	}

	function start() {
		proc = child.spawn({ ...env, fs, socket }, path, [ '-s', '-j', '-force', '-batch', '-' ],
			{ stdin: true, readable });
	}

	function ensure() {
		if (path && !proc?.alive() && restarts < MAX_RESTARTS) {
			stop_child();
			restarts++;
			start();
		}
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

			let words = [ 'qdisc', 'change', 'dev', dev, 'root', 'cake', 'bandwidth', `${kbit}kbit` ];

			if (proc?.alive())
				proc.sock.send(join(' ', words) + '\n');
			else
				(env.run ?? ((argv, f) => run_once(env, argv, f)))([ 'exec', 'tc', ...words ], () => null);

			return true;
		},

		show: function(cb) {
			if (waiting)	// the last one is still out: this one is skipped
				return cb(null);

			ensure();

			if (proc?.alive()) {
				waiting = cb;
				buf = '';
				proc.sock.send('qdisc show\n');
				timer = env.uloop.timer(ANSWER_MS, () => {
					timer = null;
					stop_child();
					answer(null);
				});

				return;
			}

			(env.run ?? ((argv, f) => run_once(env, argv, f)))(COMMAND, cb);
		},

		// tc ends after the commands it was sent (the rates adaptive
		// shaping restores on stop), within CLOSE_MS
		close: function() {
			stop_child(CLOSE_MS);
			waiting = null;
			restarts = 0;
		}
	};
}
