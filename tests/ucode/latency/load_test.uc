// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.test.load on a simulated clock with a fake socket module: what
// a failing test server looks like to the API caller.  A refused, an
// unreachable and a silent (timed out) target, a reset and a non-HTTP
// answer must all read the same text (no port scanner: the reason goes to
// the log only); an HTTP error status is told; the load connects only to
// the addresses it was given (url.addrs, checked by the service) and
// never resolves the name again.

'use strict';

import * as L from 'reterm.latency.test.load';
import { http_url } from 'reterm.validate';
import { checker, sim } from 'sim';

let c = checker('monitor/load');

const READ = 1, WRITE = 4;

// behaviour per address:
//   refused | unreachable | timeout | reset | banner (non-HTTP, then
//   closes) | silent-close | http404 | ok
function world(kinds) {
	let s = sim(), connects = [], logs = [], resolved = [];
	let errno = 0;
	let ERR = { '11': 'Resource temporarily unavailable', '104': 'Connection reset by peer',
	            '111': 'Connection refused', '113': 'No route to host' };

	let uloop = {
		ULOOP_READ: READ, ULOOP_WRITE: WRITE,
		timer: s.uloop.timer,
		handle: function(sock, cb, events) {
			let h = { cb, events, live: true };

			h.delete = () => { h.live = false; };

			sock.h = h;
			sock.kick();

			return h;
		}
	};

	function fake(family) {
		let k = null, so_error = 0, q = [], closed = false, wrote = '';
		let self;

		self = {
			h: null,
			setopt: () => true,
			getopt: (lvl, opt) => so_error,
			close: () => { closed = true; },
			connect: function(addr, port) {
				push(connects, [ addr, port ]);
				k = kinds[addr] ?? 'timeout';

				if (k == 'refused')
					so_error = 111;
				else if (k == 'unreachable')
					so_error = 113;

				return null;	// EINPROGRESS
			},
			send: function(d) {
				wrote += d;

				if (k == 'reset') {
					errno = 104;
					return null;
				}

				if (index(wrote, '\r\n\r\n') >= 0 && !length(q)) {
					if (k == 'banner')
						q = [ 'SSH-2.0-OpenSSH_9.6\r\n', '' ];
					else if (k == 'silent-close')
						q = [ '' ];
					else if (k == 'http404')
						q = [ 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', '' ];
					else if (k == 'ok')
						q = [ 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n', 'abcde', '' ];

					self.kick();
				}

				return length(d);
			},
			recv: function(n) {
				if (!length(q)) {
					errno = 11;
					return null;
				}

				return shift(q);
			},
			// deliver what is due to the registered handle, a little later
			kick: function() {
				s.timer(5, () => {
					let h = self.h;

					if (!h?.live || closed || k == null || k == 'timeout')
						return;

					if ((h.events & WRITE) && wrote == '')
						h.cb(WRITE);
					else if ((h.events & READ) && length(q))
						h.cb(READ);
					else if (h.events & WRITE)
						h.cb(WRITE);
				});
			}
		};

		return self;
	}

	let socket = {
		AF_INET: 2, AF_INET6: 10, SOCK_STREAM: 1, SOCK_NONBLOCK: 2048, SOCK_CLOEXEC: 524288,
		IPPROTO_TCP: 6, TCP_NODELAY: 1, SOL_SOCKET: 1, SO_LINGER: 13, SO_ERROR: 4, MSG_TRUNC: 32,
		create: (family) => fake(family),
		error: (numeric) => numeric ? errno : ERR['' + errno],
		strerror: (e) => ERR['' + e]
	};

	let env = {
		uloop, socket,
		// (the address the test means: what an old load would find too)
		resolve: (h) => { push(resolved, h); return [ { family: 2, address: keys(kinds)[0] } ]; },
		log: (m) => push(logs, m)
	};

	return { s, env, connects, logs, resolved };
}

function run(kind, dir, secs) {
	let w = world({ '81.2.69.10': kind });
	let url = { ...http_url('http://speed.example.net/bytes/1000'), addrs: [ '81.2.69.10' ] };
	let g = L.start(w.env, { url, dir: dir ?? 'down', streams: 1 });

	w.s.advance((secs ?? 8) * 1000);

	let st = g.status();

	g.stop();

	return { st, w, bytes: g.bytes() };
}

let texts = {};

for (let k in [ 'refused', 'unreachable', 'timeout', 'reset', 'banner', 'silent-close' ]) {
	let r = run(k);

	c.ok(sprintf('%s: an error is reported (%J)', k, r.st.last_error), r.st.last_error != null && r.st.errors > 0);
	texts[r.st.last_error ?? 'none'] = true;

	for (let word in [ 'refused', 'route', 'reset', 'timed', '81.2.69.10', 'port', 'SSH', 'HTTP' ])
		c.ok(sprintf('%s: the text does not say %J', k, word), index(r.st.last_error ?? '', word) < 0);

	c.ok(sprintf('%s: the log has the reason (%J)', k, r.w.logs), length(r.w.logs) >= 1 && length(r.w.logs) <= 3);
}

c.eq('refused, unreachable, timed out, reset, non-HTTP: one text', keys(texts), [ 'download: no answer from the test server' ]);

let up = run('refused', 'up');

c.eq('the same for an upload', up.st.last_error, 'upload: no answer from the test server');

let nf = run('http404');

c.eq('an HTTP error status is told', nf.st.last_error, 'download: the test server answered HTTP 404');

let good = run('ok', 'down', 2);

c.eq('a good server: bytes, no error', [ good.st.errors, good.st.last_error, good.bytes > 0 ], [ 0, null, true ]);
c.eq('... connected to the given address on the URL port, no resolution', [ good.w.connects[0], good.w.resolved ],
	[ [ '81.2.69.10', 80 ], [] ]);

// the reason is logged once per change, not once per reconnect
let many = run('refused', 'down', 30);

c.ok(sprintf('30 s of reconnects to a refused target: %d log lines', length(many.w.logs)), length(many.w.logs) <= 2 && many.st.errors >= 10);

c.done();
