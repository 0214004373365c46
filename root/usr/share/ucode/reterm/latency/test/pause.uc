// SPDX-License-Identifier: Apache-2.0
//
// The guided test's shaping pause, kept by the router (not the browser):
// test_start { pause_shaping: true } measures the line unshaped.  The sqm
// queue that runs on the monitored WAN is stopped with sqm-scripts' own
// `run.sh stop <iface>` and started again with `run.sh start <iface>`:
// nothing in UCI or on flash changes, so a reboot also ends the pause.
//
// The queue comes back when the test ends, is stopped or fails; at the
// latest at a deadline (the test's length and GRACE_S); and when reterm-latencyd
// starts and finds the record a previous instance left in RECORD (it
// crashed or was killed mid-test).  A closed browser tab changes nothing.
// Without this process: the record names it (env.pid), and env.guard(until)
// starts a process of its own (/usr/libexec/reterm/latency-recover --guard)
// that ends the pause when its daemon died and was not started again; the
// init script's start and stop end a pause whose daemon is gone.
//
//   let p = pause.create(env);
//   p.pause([ 'eth1' ], until_s, (res) => …)   res: { ifaces: [...] } or
//                                   { error: 'pause_failed', message }
//   p.restore('why', cb)           start the paused queues again
//   p.recover(cb[, why])           at start: restore a left-over record
//   p.status()                     null | { ifaces, state, until, message }
//   p.active(ifaces)               those of ifaces whose sqm queue runs
//
// env: { run(argv, cb(rc)), fs { access, readfile, writefile, unlink,
// mkdir }, clock { wall() ms }, timer(ms, cb), log(msg), pid, guard(until)
// (both optional) }.  run() calls cb once with the exit code (null when it
// did not finish in RUN_MS).

'use strict';

import { error } from 'reterm.reply';
import { one_line } from 'reterm.validate';

export const RUN_SH = '/usr/lib/sqm/run.sh', STATE_DIR = '/var/run/sqm';
export const RECORD = '/var/run/reterm/pause.json', GRACE_S = 60, RUN_MS = 15000;

const MAX_RECORD = 4096;

function netdev(s) {
	return (one_line(s) && match(s, /^[A-Za-z0-9_.@-]{1,15}$/)) ? s : null;
}

export function create(env) {
	let fs = env.fs, log = (m) => env.log?.(m);
	let cur = null;		// { ifaces, state, until, message }
	let deadline = null;

	function write_record() {
		fs.mkdir?.('/var/run/reterm');

		if (!fs.writefile(RECORD, sprintf('%J\n', { ifaces: cur.ifaces, until: cur.until, pid: env.pid })))
			log(`cannot write ${RECORD}: the pause ends with the test, not after a restart`);
	}

	// run argv for each iface in turn, then cb([ failed ifaces ])
	function each(verb, ifaces, cb) {
		let failed = [], i = 0;

		function next() {
			if (i >= length(ifaces))
				return cb(failed);

			let dev = ifaces[i++];

			env.run([ RUN_SH, verb, dev ], (rc) => {
				if (rc !== 0)
					push(failed, dev);

				next();
			});
		}

		next();
	}

	let self;

	self = {
		// the ifaces whose sqm queue is running (sqm keeps a state file
		// for each while it shapes)
		active: (ifaces) => filter(map(ifaces ?? [], netdev), (d) => d != null && fs.access(`${STATE_DIR}/${d}.state`)),

		status: () => cur ? { ...cur, ifaces: [ ...cur.ifaces ] } : null,

		pause: function(ifaces, until, cb) {
			if (cur?.state == 'paused')
				return cb(error('pause_failed', 'shaping is already paused for a test'));

			let run = self.active(ifaces);

			if (!length(run)) {
				cur = null;
				return cb({ ifaces: [] });
			}

			if (!fs.access(RUN_SH, 'x'))
				return cb(error('pause_failed', `sqm-scripts' ${RUN_SH} is missing: shaping cannot be paused`));

			cur = { ifaces: run, state: 'paused', until: int(until) };
			write_record();
			log(sprintf('shaping paused for a test: %s (back at the latest in %d s)', join(' ', run),
				int(until - env.clock.wall() / 1000)));

			each('stop', run, (failed) => {
				if (!length(failed)) {
					deadline = env.timer(max(0, until * 1000 - env.clock.wall()), () => {
						deadline = null;
						self.restore('the pause reached its deadline');
					});
					env.guard?.(cur.until);

					return cb({ ifaces: [ ...run ] });
				}

				// nothing half-done: start again what was stopped
				self.restore('the pause failed', () => cb(error('pause_failed',
					'sqm did not stop on %s: the test did not start, shaping is on', join(' ', failed))));
			});
		},

		restore: function(why, cb) {
			if (cur?.state != 'paused')
				return cb?.(self.status());

			deadline?.cancel();
			deadline = null;
			cur.state = 'restoring';

			each('start', cur.ifaces, (failed) => {
				if (length(failed)) {
					cur.state = 'failed';
					cur.message = sprintf('sqm did not start again on %s: run /etc/init.d/sqm restart', join(' ', failed));
					log(`shaping restore (${why}): ${cur.message}`);
				}
				else {
					cur.state = 'restored';
					log(`shaping restored (${why}): ${join(' ', cur.ifaces)}`);
				}

				fs.unlink(RECORD);
				cb?.(self.status());
			});
		},

		// a record a previous reterm-latencyd left: its pause never ended
		recover: function(cb, why) {
			let text = fs.readfile(RECORD, MAX_RECORD), rec = null;

			if (text == null)
				return cb?.(null);

			try {
				rec = json(text);
			}
			catch (e) {
				rec = null;
			}

			let ifaces = filter(map((type(rec?.ifaces) == 'array') ? slice(rec.ifaces, 0, 8) : [], netdev), (d) => d != null);

			if (!length(ifaces)) {
				fs.unlink(RECORD);
				return cb?.(null);
			}

			cur = { ifaces, state: 'paused', until: int(rec.until ?? 0) };
			self.restore(why ?? 'reterm-latencyd restarted during a test', cb);
		}
	};

	return self;
};
