// SPDX-License-Identifier: Apache-2.0
//
// The HTTPS load (reterm.latency.test.tlsload and /usr/libexec/reterm/https-load)
// against a local HTTPS server with a throwaway CA (tests/lab/labkit
// httpsd.py, run by tests/ucode/latency/tls.sh in a mount namespace where
// speed.test resolves to ::1 and 127.0.0.1):
//   env RETERM_TLS_PORT, RETERM_TLS_CA, RETERM_TLS_403_PORT

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as socket from 'socket';
import * as tl from 'reterm.latency.test.tlsload';
import { https_url } from 'reterm.validate';
import { checker } from 'sim';

let c = checker('monitor/tls');
let port = getenv('RETERM_TLS_PORT'), p403 = getenv('RETERM_TLS_403_PORT'), ca = getenv('RETERM_TLS_CA');
let env = { uloop, socket, fs, log: () => null };
let ref = https_url('https://speed.test/');
let down = https_url(`https://speed.test:${port}/__down?bytes=25000000`);
let up = https_url(`https://speed.test:${port}/__up`);

uloop.init();

// the processes running the load script now
function children() {
	let n = 0;

	for (let d in fs.lsdir('/proc') ?? []) {
		let cmd = match(d, /^[0-9]+$/) ? fs.readfile(`/proc/${d}/cmdline`) : null;

		if (cmd && index(cmd, tl.SCRIPT) >= 0)
			n++;
	}

	return n;
}

let steps = [], results = {};

function next() {
	let s = shift(steps);

	s ? s() : uloop.end();
}

function check(name, o) {
	push(steps, () => tl.check(env, o, (r) => { results[name] = r; next(); }));
}

check('ok_down', { url: down, dir: 'down', ca, referer: ref, name: 'lab' });
check('ok_up', { url: up, dir: 'up', ca, referer: ref, name: 'lab' });
check('no_referer', { url: down, dir: 'down', ca, name: 'lab' });
check('wrong_ca', { url: down, dir: 'down', ca: '/nonexistent/ca.pem', referer: ref, name: 'lab' });
check('other_ca', { url: down, dir: 'down', ca: getenv('RETERM_TLS_OTHER_CA'), referer: ref, name: 'lab' });
check('refused', { url: https_url(`https://speed.test:1/__down?bytes=1000`), dir: 'down', ca, referer: ref, name: 'lab' });
check('dns', { url: https_url(`https://no-such-name.invalid:${port}/__down?bytes=1000`), dir: 'down', ca, referer: ref, name: 'lab' });
check('throttled', { url: https_url(`https://speed.test:${p403}/__down?bytes=1000`), dir: 'down', ca, referer: ref, name: 'lab' });
check('address', { url: { ...down, addrs: [ '192.0.2.1' ] }, dir: 'down', ca, referer: ref, name: 'lab' });

let loads = {};

push(steps, () => {
	loads.down = tl.start(env, { url: down, dir: 'down', streams: 4, ca, referer: ref, seconds: 20 });
	loads.up = tl.start(env, { url: up, dir: 'up', streams: 4, ca, referer: ref, seconds: 20 });
	// the streams with a request open, at most: a stream between two
	// requests is not counted in one report, so one report may say 3
	results.down_connected = 0;
	let watch;

	watch = uloop.timer(100, () => {
		let n = loads.down.status()?.connected ?? 0;

		if (n > results.down_connected)
			results.down_connected = n;
		watch.set(100);
	});
	uloop.timer(3000, () => {
		watch.cancel();
		results.running = children();
		results.down = [ loads.down.bytes(), loads.down.status(), loads.down.usage() ];
		results.up = [ loads.up.bytes(), loads.up.status() ];
		loads.down.stop();
		loads.up.stop();
		// SIGTERM: gone as soon as its loop sees it (polled for up to 2 s:
		// a busy test machine may take a few hundred ms to schedule it)
		let waited = 0, gone;

		gone = uloop.timer(100, () => {
			results.after_stop = children();
			waited += 100;

			if (results.after_stop == 0 || waited >= 2000)
				return next();

			gone.set(100);
		});
	});
});

// a child outlives nothing: its own deadline (seconds + margin) ends it
push(steps, () => {
	loads.orphan = tl.start(env, { url: down, dir: 'down', streams: 1, ca, referer: ref, seconds: 1 });
	uloop.timer((1 + tl.MARGIN_S) * 1000 + 1500, () => { results.orphan = children(); loads.orphan.stop(); next(); });
});

next();
uloop.run();

c.eq('check: download and upload answer 200', [ results.ok_down, results.ok_up ], [ null, null ]);
c.eq('check: no Referer -> throttled (403)', results.no_referer?.error, 'throttled');
c.eq('check: no CA file -> tls_failed', results.wrong_ca?.error, 'tls_failed');
c.eq('check: a CA that did not sign the certificate -> tls_failed (verify)', [ results.other_ca?.error, results.other_ca?.kind ], [ 'tls_failed', 'tls_verify' ]);
c.eq('check: nothing listening -> unreachable', results.refused?.error, 'unreachable');
c.eq('check: a name that does not resolve -> dns_failed', results.dns?.error, 'dns_failed');
c.eq('check: HTTP 403 -> throttled, named', [ results.throttled?.error, match(results.throttled?.message ?? '', /^lab: speed\.test refused the test \(HTTP 403\)/) != null ], [ 'throttled', true ]);
c.eq('check: connected to an address that was not checked -> refused before the request', results.address?.error, 'unreachable');
c.eq('load: one process per direction while running, none within 2 s after stop', [ results.running, results.after_stop ], [ 2, 0 ]);
c.ok(`load: 4 download streams (${results.down_connected} seen at once) moved > 10 MB in 3 s: ${results.down?.[0]}`, results.down?.[0] > 10000000 && results.down_connected == 4);
c.ok(`load: 4 upload streams moved > 10 MB in 3 s: ${results.up?.[0]}`, results.up?.[0] > 10000000 && results.up[1].errors == 0);
c.ok(`load: the child reports its CPU and peak RSS: ${results.down?.[2]}`, results.down?.[2]?.cpu_ms > 0 && results.down[2].hwm_kb > 0);
c.eq('a load child ends by itself after its deadline', results.orphan, 0);

c.done();
