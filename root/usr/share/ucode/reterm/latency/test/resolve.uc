// SPDX-License-Identifier: Apache-2.0
//
// Name resolution for the guided test without blocking the daemon's loop.
// getaddrinfo (and ucode's resolv module) block; a slow or dead DNS server
// would stall the probes, the rows and every ubus call for seconds.  So
// the lookup runs in a child process: the ucode interpreter itself with a
// few lines of code (socket.addrinfo, the same /etc/hosts and resolver the
// rest of the system uses), answering one JSON line on the socketpair of
// reterm.latency.child; a timer ends it after RESOLVE_TIMEOUT_MS.
//
//   let resolve = resolver({ uloop, fs, socket });
//   let job = resolve('speed.example.net', (addrs, why) => ...);
//   job.cancel()
//
// The callback runs exactly once, later (never inside resolve()): addrs
// is a list of canonical IP texts, IPv4 first (null when the name did not
// resolve; why then says why, for the log).  opts: { interpreter (path;
// default the running ucode), timeout_ms }.

'use strict';

import * as child from 'reterm.latency.child';
import { ip } from 'reterm.validate';

export const RESOLVE_TIMEOUT_MS = 5000;

// run by the child: ARGV[0] is the host name (already checked by
// reterm.validate: letters, digits, "-" and ".", no leading "-")
const CODE = "let s = require('socket'), r = s.addrinfo(ARGV[0], null, { socktype: s.SOCK_STREAM }), a = [];\n" +
	"for (let x in r ?? []) if (x.addr?.address != null && index(a, x.addr.address) < 0) push(a, x.addr.address);\n" +
	"print(sprintf('%J\\n', (r == null) ? { error: '' + s.error() } : { addresses: a }));\n";

const INTERPRETERS = [ '/usr/bin/ucode', '/usr/local/bin/ucode' ];

// the running interpreter, else the usual places
export function interpreter(fs) {
	let self = fs.readlink('/proc/self/exe');

	if (self && match(self, /\/ucode$/) && fs.access(self, 'x'))
		return self;

	for (let p in INTERPRETERS)
		if (fs.access(p, 'x'))
			return p;

	return null;
};

// the child's answer (a JSON line) -> [ addrs, why ]
export function parse(text) {
	let d = null;

	try {
		d = json(text);
	}
	catch (e) {
		d = null;
	}

	if (type(d) != 'object')
		return [ null, 'the resolver gave no answer' ];

	if (type(d.addresses) != 'array')
		return [ null, `does not resolve: ${d.error ?? 'no address'}` ];

	let v4 = [], v6 = [];

	for (let a in d.addresses) {
		let c = ip(a);

		if (c != null && index(v4, c) < 0 && index(v6, c) < 0)
			push((index(c, ':') >= 0) ? v6 : v4, c);
	}

	return length(v4) + length(v6) ? [ [ ...v4, ...v6 ], null ] : [ null, 'does not resolve: no address' ];
};

// env: { uloop, fs, socket }
export function resolver(env, opts) {
	let fs = env.fs ?? require('fs');
	let path = opts?.interpreter ?? interpreter(fs);
	let timeout_ms = opts?.timeout_ms ?? RESOLVE_TIMEOUT_MS;

	return function(host, cb) {
		let proc = null, timer = null, buf = '', done = false;

		function finish(addrs, why) {
			if (done)
				return;

			done = true;
			timer?.cancel();
			timer = null;
			proc?.kill();
			proc = null;
			cb(addrs, why);
		}

		function readable() {
			let chunk, eof = false;

			while ((chunk = proc?.sock.recv(4096, env.socket.MSG_DONTWAIT)) != null) {
				if (chunk == '') {
					eof = true;
					break;
				}

				buf += chunk;

				if (length(buf) > 65536)
					break;
			}

			let nl = index(buf, '\n');

			if (nl >= 0 || eof || length(buf) > 65536) {
				let r = parse((nl >= 0) ? substr(buf, 0, nl) : buf);

				finish(r[0], r[1]);
			}
		}

		timer = env.uloop.timer(timeout_ms, () => {
			timer = null;
			finish(null, sprintf('no answer from the resolver within %d s', timeout_ms / 1000));
		});

		proc = path ? child.spawn(env, path, [ '-e', CODE, host ], { readable }) : null;

		if (!proc) {
			// answered from the loop, never from inside resolve()
			timer.cancel();
			timer = env.uloop.timer(0, () => {
				timer = null;
				finish(null, path ? 'the resolver could not be started' :
					'no ucode interpreter found to run the resolver');
			});
		}

		return { cancel: () => { done = true; timer?.cancel(); timer = null; proc?.kill(); proc = null; } };
	};
};
