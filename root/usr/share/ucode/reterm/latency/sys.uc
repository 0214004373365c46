// SPDX-License-Identifier: Apache-2.0
//
// The real environment of the sampler (clock, uloop timers, files,
// commands, prober, HTTP load), shared by /usr/sbin/reterm-latencyd and the lab
// CLI /usr/libexec/reterm/latency-run.  Tests build their own fake
// environment instead.

'use strict';

import * as fs from 'fs';
import * as probe from 'reterm.latency.probe.select';
import * as load from 'reterm.latency.test.load';
import * as tlsload from 'reterm.latency.test.tlsload';
import * as qdisc from 'reterm.latency.live.qdisc';
import * as resolve from 'reterm.latency.test.resolve';
import { ttl_prober } from 'reterm.latency.probe.hops';
import { RUN_MS } from 'reterm.latency.test.pause';

// what procd gives its services
const CHILD_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
export const RECOVER = '/usr/libexec/reterm/latency-recover';

// argv without a shell, answered from the loop: cb(exit code), or
// cb(null) when it could not start or ran longer than RUN_MS (killed)
function run(uloop, argv, cb) {
	let done = false, guard = null, proc = null;

	function finish(rc) {
		if (done)
			return;

		done = true;
		guard?.cancel();
		cb(rc);
	}

	proc = uloop.process(argv[0], slice(argv, 1), CHILD_ENV, (rc) => finish(rc));

	if (!proc)
		return finish(null);

	guard = uloop.timer(RUN_MS, () => {
		let pid = proc.pid();

		proc.delete();

		if (pid > 0)
			system([ 'kill', '' + pid ]);

		finish(null);
	});
}

export function mono() {
	let c = clock(true);

	return c[0] * 1000.0 + c[1] / 1000000.0;
};

export function wall() {
	let c = clock();

	return c[0] * 1000.0 + c[1] / 1000000.0;
};

// 8 random hex digits
function random_id() {
	let b = fs.readfile('/dev/urandom', 4);

	if (b == null || length(b) != 4)
		return sprintf('%08x', (int(mono() * 1000) ^ (wall() * 1000)) & 0xffffffff);

	return sprintf('%02x%02x%02x%02x', ord(b, 0), ord(b, 1), ord(b, 2), ord(b, 3));
};

// opts: { uloop, prober: 'auto'|..., stamps (one-way delays wanted: see
// probe.open), log }
export function env(opts) {
	let uloop = opts.uloop, socket = null;

	try {
		socket = require('socket');
	}
	catch (e) {
		socket = null;
	}

	let clk = { mono, wall };
	let base = { uloop, clock: clk, fs, socket,
	             rand: () => { let b = fs.readfile('/dev/urandom', 2); return b ? (ord(b, 0) << 8) | ord(b, 1) : 0x5254; } };

	let prober = probe.open(base, opts.prober ?? 'auto', opts.stamps);
	let resolver = socket ? resolve.resolver(base) : null;

	return {
		clock: clk,
		timer: (ms, cb) => uloop.timer(ms, cb),
		prober,
		readfile: (p) => fs.readfile(p),
		open: (p, mode) => fs.open(p, mode),
		fs,
		id: random_id,
		log: opts.log,

		// `tc -s -j qdisc show` through one long-running tc
		qdisc: qdisc.open(base),

		// one echo with a TTL, for the near hops of adaptive shaping
		// (raw ICMP socket, else fping; null without both)
		ttl_probe: ttl_prober(base),

		// names of test servers, in a child process (the loop runs on)
		resolve: resolver,

		// one request to an https:// endpoint before the test
		// (its child fenced in to the checked addresses: test/fence.uc)
		check: (o, cb) => tlsload.check({ uloop, socket, fs, log: opts.log, fence: true }, o, cb),

		// sqm-scripts' run.sh for the shaping pause
		run: (argv, cb) => run(uloop, argv, cb),

		// the pause's guard (reterm.latency.test.pause), not waited for: it
		// outlives this process if need be, so its output goes nowhere (a
		// pipe procd closes would kill it)
		guard: (until) => uloop.process('/bin/sh', [ '-c', 'exec "$0" --guard "$1" </dev/null >/dev/null 2>&1',
			RECOVER, sprintf('%d', until) ], CHILD_ENV, () => null),

		pid: +fs.readlink('/proc/self'),

		// https:// in a child (url.ca, url.referer, url.seconds from the
		// test's start), http:// on sockets in this process
		load: function(dir, url, streams) {
			if (url.scheme == 'https')
				return tlsload.start({ uloop, socket, fs, log: opts.log, fence: true },
					{ url, dir, streams, ca: url.ca, referer: url.referer, seconds: url.seconds ?? 60 });

			if (!socket)
				return {
					bytes: () => 0,
					status: () => ({ streams: streams, connected: 0, requests: 0, errors: 1,
					                 last_error: 'the ucode socket module (ucode-mod-socket) is not installed' }),
					stop: () => null
				};

			// reterm-latencyd hands in url.addrs (resolved and checked); the lab
			// CLI's names are resolved here, blocking
			return load.start({ uloop, socket, resolve: (h) => load.resolve(socket, h), log: opts.log },
				{ url, dir, streams });
		}
	};
};
