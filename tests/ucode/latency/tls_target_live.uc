// SPDX-License-Identifier: Apache-2.0
//
// What an HTTPS check (reterm.latency.test.tlsload check, the child
// /usr/libexec/reterm/https-load) tells about a target, and where it
// connects, in a network namespace of its own (tests/ucode/latency/tls.sh
// tls_target_test: lo up, /etc/hosts mapping speed.test and rebind.test
// to 127.0.0.1 and ::1, httpsd.py on RETERM_TLS_PORT, TCP port 18452
// dropped by nft):
//
//   the same error and text for a closed port (18451), a dropped one
//   (18452), one that accepts and stays silent (18450) and one that
//   answers something else than TLS (18453); for a caller's own URL
//   (uniform) also at the same time, the check's whole limit after it
//   began, so that neither the reply nor its timing tells them apart
//
//   a name that resolves elsewhere than the checked address: no
//   connection reaches where it resolves to (rebind.test -> a counting
//   listener on 18454, checked address 127.0.0.2)
//
//   env RETERM_TLS_PORT, RETERM_TLS_CA

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as socket from 'socket';
import * as tl from 'reterm.latency.test.tlsload';
import { https_url } from 'reterm.validate';
import { checker } from 'sim';

let c = checker('monitor/tls-target');
let port = getenv('RETERM_TLS_PORT'), ca = getenv('RETERM_TLS_CA');
let env = { uloop, socket, fs, log: () => null };
let ref = https_url('https://speed.test/');
let here = [ '127.0.0.1', '::1' ];

uloop.init();

function now_ms() {
	let t = clock(true);

	return t[0] * 1000 + t[1] / 1000000;
}

// listeners on 127.0.0.1 and ::1: each accepted connection counted, then
// held silent or answered with what is not TLS and closed
let accepted = {}, held = [];

function listener(p, answer) {
	accepted[p] = 0;

	for (let host in here) {
		let l = socket.listen(host, p, { family: (host == '::1') ? socket.AF_INET6 : socket.AF_INET });

		if (!l) {
			print(`skipped: no listener on ${host} port ${p}: ${socket.error()}\n`);
			exit(0);
		}

		push(held, l, uloop.handle(l, () => {
			let s = l.accept();

			if (!s)
				return;

			accepted[p]++;

			if (answer) {
				s.send(answer);
				s.close();
			}
			else
				push(held, s);
		}, uloop.ULOOP_READ));
	}
}

listener(18450, null);
listener(18453, 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
listener(18454, null);

const CASES = [
	[ 'closed', 18451 ], [ 'dropped', 18452 ], [ 'silent', 18450 ], [ 'not TLS', 18453 ]
];

// the checks of one round run at once; done(results) after the last
function round(uniform, done) {
	let res = {}, left = length(CASES) + 2;

	function one(name, url, addrs) {
		let t0 = now_ms();

		tl.check(env, { url: { ...https_url(url), addrs }, dir: 'down', ca, referer: ref,
		                name: uniform ? null : 'lab', uniform }, (r) => {
			res[name] = { error: r?.error, message: r?.message, ms: now_ms() - t0 };

			if (--left == 0)
				done(res);
		});
	}

	for (let k in CASES)
		one(k[0], `https://speed.test:${k[1]}/__down?bytes=1000`, here);

	one('rebind', 'https://rebind.test:18454/__down?bytes=1000', [ '127.0.0.2' ]);
	one('ok', `https://speed.test:${port}/__down?bytes=1000`, here);
}

let results = {};

round(true, (r) => {
	results.uniform = r;
	round(false, (r2) => {
		results.endpoint = r2;
		uloop.end();
	});
});

uloop.run();

let limit = (tl.CHECK_SECONDS + 2) * 1000;

// the host and port are the caller's own: the rest of the text must match
function norm(m) {
	return replace(replace(m ?? '', /rebind\.test/g, 'speed.test'), /port [0-9]+/g, 'port N');
}

for (let k in [ 'uniform', 'endpoint' ]) {
	let r = results[k], first = r?.closed;

	c.eq(`${k}: a pinned check of a working server answers`, r?.ok?.error, null);

	for (let cs in [ ...CASES, [ 'rebind' ] ])
		c.eq(`${k}: ${cs[0]} reads as a closed port does (error and text)`,
			[ r?.[cs[0]]?.error, norm(r?.[cs[0]]?.message) ], [ 'unreachable', norm(first?.message) ]);
}

for (let cs in [ ...CASES, [ 'rebind' ] ]) {
	let ms = results.uniform?.[cs[0]]?.ms;

	c.ok(sprintf('uniform: %s answered after the check\'s whole limit (%d ms, the limit %d)', cs[0], ms, limit),
		ms >= limit - 250 && ms <= limit + 2500);
}

for (let k in [ 'uniform', 'endpoint' ])
	print(sprintf('%s: %J\n', k, map([ ...CASES, [ 'rebind' ] ], (cs) => [ cs[0], int(results[k]?.[cs[0]]?.ms ?? -1) ])));

c.eq('a name resolving elsewhere than the checked address: no connection reached it', accepted[18454], 0);
c.ok(sprintf('the silent and the not-TLS listeners were reached (%J)', accepted), accepted[18450] > 0 && accepted[18453] > 0);

c.done();
