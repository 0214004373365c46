// SPDX-License-Identifier: Apache-2.0
//
// Test doubles for the sampler: a simulated clock with timers (uloop.timer
// look-alike), a fake prober, fake HTTP load, an in-memory fs, a tiny
// check/report helper, and stand-in scripts for tests with real processes.  Everything runs synchronously: advance(ms) fires
// the timers that fall due, in time order.

'use strict';

// ---- checks ---------------------------------------------------------------

function abs(x) {
	return (x < 0) ? -x : x;
}

export function checker(name) {
	let passed = 0, failed = 0;

	// 24.0 and 24 are the same number (ucode keeps int and double apart)
	function canon(v) {
		if (type(v) == 'double' && v == v && v == int(v) && v < 1e15 && v > -1e15)
			return int(v);

		if (type(v) == 'array')
			return map(v, canon);

		if (type(v) == 'object') {
			let o = {};

			for (let k in sort(keys(v)))
				o[k] = canon(v[k]);

			return o;
		}

		return v;
	}

	function same(a, b) {
		return sprintf('%J', canon(a)) === sprintf('%J', canon(b));
	}

	let self = {
		ok: function(what, cond) {
			if (cond) {
				passed++;
			}
			else {
				failed++;
				print(`not ok - ${name}: ${what}\n`);
			}

			return cond;
		},

		eq: function(what, got, want) {
			if (same(got, want))
				passed++;
			else {
				failed++;
				print(sprintf('not ok - %s: %s: got %J, want %J\n', name, what, got, want));
			}
		},

		// numbers within tol (default 1e-9 relative), nulls equal
		near: function(what, got, want, tol) {
			tol ??= 1e-9;

			let good = (got == null && want == null) ||
				(got != null && want != null && abs(got - want) <= tol * max(1, abs(want)));

			if (good)
				passed++;
			else {
				failed++;
				print(sprintf('not ok - %s: %s: got %J, want %J\n', name, what, got, want));
			}
		},

		done: function() {
			print(`${passed} passed, ${failed} failed\n`);
			exit(failed ? 1 : 0);
		}
	};

	return self;
};

// ---- clock and timers -----------------------------------------------------

export function sim(wall0_ms) {
	let now = 0, timers = [], seq = 0;

	wall0_ms ??= 1718000000000;

	function timer(ms, cb) {
		let t = { due: null, cb, seq: seq++ };

		t.set = function(ms) {
			t.due = now + ((ms == null || ms < 0) ? 0 : ms);

			if (index(timers, t) < 0)
				push(timers, t);

			return true;
		};

		t.cancel = function() {
			t.due = null;
			timers = filter(timers, x => x !== t);
			return true;
		};

		t.remaining = () => (t.due == null) ? -1 : t.due - now;

		if (ms != null)
			t.set(ms);

		return t;
	}

	let self = {
		clock: { mono: () => now, wall: () => wall0_ms + now },
		timer,
		now: () => now,

		advance: function(ms) {
			let end = now + ms;

			while (true) {
				let next = null;

				for (let t in timers)
					if (t.due != null && t.due <= end && (next == null || t.due < next.due || (t.due == next.due && t.seq < next.seq)))
						next = t;

				if (!next)
					break;

				now = next.due;
				next.due = null;
				timers = filter(timers, x => x !== next);
				next.cb();
			}

			now = end;
		},

		pending: () => length(timers),

		// the time the code under test takes (called from within it):
		// the clock moves, no timer fires
		spend: function(ms) {
			now += ms;
		},

		// the same timer API as env.uloop for code that calls uloop.timer
		uloop: { timer: (ms, cb) => timer(ms, cb) }
	};

	return self;
};

// ---- prober ---------------------------------------------------------------

// rtt_fn(t_mono_ms, target, n) -> rtt ms, or null for a lost probe
export function prober(s, rtt_fn) {
	let gen = 0, timer = null, self;

	self = {
		name: 'fake',
		starts: [],		// [ interval_ms, ... ] per start()
		sent: 0,

		start: function(targets, interval, timeout, cb) {
			let my = ++gen, i = 0;

			push(self.starts, interval);
			self.targets = [ ...targets ];
			timer?.cancel();

			function tick() {
				if (my != gen)
					return;

				let t = s.now(), target = targets[i++ % length(targets)];
				let rtt = rtt_fn(t, target, self.sent++);

				if (rtt == null || rtt >= timeout)
					s.timer(timeout, () => (my == gen) && cb({ t, target, rtt: null }));
				else
					s.timer(rtt, () => (my == gen) && cb({ t, target, rtt }));

				timer.set(interval);
			}

			timer = s.timer(0, tick);
		},

		stop: function() {
			gen++;
			timer?.cancel();
			timer = null;
		},

		running: () => timer != null
	};

	return self;
};

// ---- HTTP load ------------------------------------------------------------

// rate_fn(dir) -> bit/s the fake streams move; bytes grow with the clock
export function load(s, rate_fn, log) {
	return function(dir, url, streams) {
		let t0 = s.now(), stopped_at = null;

		push(log ?? [], { dir, url: url.url, streams, t: t0 });

		return {
			bytes: () => int(((stopped_at ?? s.now()) - t0) / 1000.0 * rate_fn(dir) / 8),
			status: () => ({ streams, connected: streams, requests: streams, errors: 0, last_error: null }),
			stop: () => { stopped_at ??= s.now(); }
		};
	};
};

// ---- files ----------------------------------------------------------------

// What reterm.latency.test.store calls (every missing path is a directory; the
// service takes fsync from env: pass fs.fsync there).  Symlinks, devices
// and exact byte counts: store_fs.uc.
export function memfs(files) {
	files ??= {};

	return {
		files,
		readfile: (p, limit) => (limit != null && files[p] != null) ? substr(files[p], 0, limit) : files[p],
		open: function(p, mode) {
			let buf = '';

			return (index(mode, 'x') >= 0 && files[p] != null) ? null : {
				write: (d) => { buf += d; return length(d); },
				flush: () => true,
				close: () => { files[p] = buf; return true; }
			};
		},
		fsync: () => true,
		writefile: (p, d) => { files[p] = '' + d; return length(d); },
		access: (p) => files[p] != null,
		rename: (a, b) => { if (files[a] == null) return false; files[b] = files[a]; delete files[a]; return true; },
		unlink: (p) => { delete files[p]; return true; },
		mkdir: () => true,
		lstat: (p) => (files[p] != null) ? { type: 'file', size: length(files[p]), mtime: 0 } : { type: 'directory' },
		stat: (p) => (files[p] != null) ? { type: 'file', size: length(files[p]), mtime: 0 } : null
	};
};

// ---- stand-in processes ------------------------------------------------------

// Shell scripts in a fresh temporary directory, for tests that start real
// child processes:
//   let st = standins('qdisc');
//   st.script('good', 'while read -r l; do echo "$l"; done')  -> its path
//   st.count('good')   processes running it now (their argv[1] is its path)
//   st.pid('good')     one of them, or null
//   st.remove()        deletes the directory
export function standins(tag) {
	let fs = require('fs'), c = clock(true);
	let dir = sprintf('%s/reterm-%s-%d-%d', getenv('TMPDIR') ?? '/tmp', tag, c[0], c[1]);

	fs.mkdir(dir);

	function pids(name) {
		return filter(fs.lsdir('/proc') ?? [], (d) => match(d, /^[0-9]+$/) &&
			split(fs.readfile(`/proc/${d}/cmdline`) ?? '', '\0')[1] == `${dir}/${name}`);
	}

	return {
		dir,

		script: function(name, body) {
			fs.writefile(`${dir}/${name}`, `#!/bin/sh\n${body}\n`);
			fs.chmod(`${dir}/${name}`, 0o755);

			return `${dir}/${name}`;
		},

		count: (name) => length(pids(name)),
		pid: (name) => pids(name)[0],

		remove: function() {
			for (let f in fs.lsdir(dir) ?? [])
				fs.unlink(`${dir}/${f}`);

			fs.rmdir(dir);
		}
	};
};
