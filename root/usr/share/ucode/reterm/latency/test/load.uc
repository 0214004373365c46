// SPDX-License-Identifier: Apache-2.0
//
// HTTP load for the guided test: N download streams (HTTP/1.1 GET, body
// read and thrown away) and N upload streams (POST with a generated body)
// on non-blocking sockets of ucode's socket module, driven by uloop.
//
//   let g = start(env, { url: parsed_url, dir: 'down'|'up', streams: 4 });
//   g.bytes()    bytes moved so far (received / written), all streams
//   g.status()   { streams, connected, requests, errors, last_error }
//   g.stop()     close everything at once (RST, nothing lingers)
//
// http:// only: the socket module has no TLS, and the servers meant for
// this (a local speed test box, the lab's far server) serve plain HTTP.
// Each request asks for "Connection: close"; when a body ends (the
// server's object was smaller than the phase) the stream reconnects and
// asks again, until stop().  Upload bodies are announced with a large
// Content-Length (UPLOAD_LENGTH) and cut by stop().  Sockets are closed
// with SO_LINGER 0 so that no queued upload data keeps the link busy in
// the next (idle) phase of the test.
//
// Where it connects: url.addrs (IP texts), the addresses the service
// resolved and checked (reterm.latency.target) before the test started;
// the name is not resolved again (a second answer could point
// elsewhere).  Without url.addrs (the lab CLI latency-run): the literal,
// else env.resolve(host).  HTTP redirects are not followed: any status but
// 200 is an error.
//
// What a failing server looks like: a refused, unreachable or silent
// (no connection within CONNECT_TIMEOUT_MS) target, a reset, a closed
// connection or an answer that is not HTTP all read the same status text
// ("download: no answer from the test server"), so that the results do
// not tell what answered on the other side; the reason goes to env.log
// (each distinct one once per load).  An HTTP status other than 200 is
// told.
//
// env: { uloop, socket (module), resolve(host) -> [ {family, address} ]
// (optional), log(msg) (optional) }.

'use strict';

const UPLOAD_LENGTH = 1000000000;	// announced POST body size
const CHUNK = 65536, READ = 262144, MAX_HEADER = 16384, EAGAIN = 11;
const RECONNECT_MS = 500;
const CONNECT_TIMEOUT_MS = 5000;

let body_chunk = null;

function chunk() {
	// 64 KiB of printable junk, built once
	if (body_chunk == null) {
		let s = 'reterm-upload-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n';

		while (length(s) < CHUNK)
			s += s;

		body_chunk = substr(s, 0, CHUNK);
	}

	return body_chunk;
}

// The request head; the URL parts come from reterm.validate's http_url
// (no spaces, quotes or line breaks can reach here).
export function request(url, dir) {
	let host = (url.family == 6) ? `[${url.host}]` : url.host;

	if (url.port != 80)
		host += `:${url.port}`;

	if (dir == 'up')
		return `POST ${url.path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: reterm-latencyd\r\n` +
			`Content-Type: application/octet-stream\r\nContent-Length: ${UPLOAD_LENGTH}\r\n` +
			`Connection: close\r\n\r\n`;

	return `GET ${url.path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: reterm-latencyd\r\n` +
		`Accept-Encoding: identity\r\nConnection: close\r\n\r\n`;
};

// Status code of a response head, or null when the head is incomplete
// (-1 when it is not HTTP at all).
function response_status(head) {
	let end = index(head, '\r\n\r\n');

	if (end < 0)
		return (length(head) > MAX_HEADER) ? -1 : null;

	let m = match(substr(head, 0, index(head, '\r\n')), /^HTTP\/1\.[01] ([0-9]{3})/);

	return m ? +m[1] : -1;
};

export function start(env, opts) {
	let socket = env.socket ?? require('socket'), uloop = env.uloop;
	let url = opts.url, dir = opts.dir, req = request(url, dir);
	let streams = [], total = 0, stopped = false;
	let st = { streams: opts.streams, connected: 0, requests: 0, errors: 0, last_error: null };
	let what = (dir == 'up') ? 'upload' : 'download';
	let addrs = null, logged = {};

	if (type(url.addrs) == 'array')
		addrs = map(url.addrs, (a) => ({ family: (index(a, ':') >= 0) ? socket.AF_INET6 : socket.AF_INET, address: a }));
	else if (url.family != null || !env.resolve)
		addrs = [ { family: (url.family == 6) ? socket.AF_INET6 : socket.AF_INET, address: url.host } ];
	else
		addrs = env.resolve(url.host) ?? [];

	// text: what the API caller sees; detail: the log's reason
	function fail(text, detail) {
		st.errors++;
		st.last_error = text;

		let line = `${what} ${url.host} port ${url.port}: ${detail ?? text}`;

		// each reason once (streams alternate between addresses)
		if (!logged[line] && length(keys(logged)) < 8) {
			logged[line] = true;
			env.log?.(line);
		}
	}

	// refused, unreachable, timed out, reset, closed, not HTTP: one text
	function no_answer(detail) {
		fail(`${what}: no answer from the test server`, detail);
	}

	function close_stream(s) {
		s.connect_timer?.cancel();
		s.connect_timer = null;
		s.handle?.delete();
		s.handle = null;

		if (s.sock) {
			if (s.connected)
				st.connected--;

			// RST instead of FIN after queued data: nothing lingers
			s.sock.setopt(socket.SOL_SOCKET, socket.SO_LINGER, { onoff: 1, linger: 0 });
			s.sock.close();
		}

		s.sock = null;
		s.connected = false;
	}

	let connect;

	// reconnect: at once after a finished body, after a pause on errors
	function again(s, ok) {
		close_stream(s);

		if (!stopped)
			s.timer = uloop.timer(ok ? 0 : RECONNECT_MS, () => connect(s));
	}

	function on_event(s, events) {
		if (!s.connected) {
			// non-blocking connect finished: SO_ERROR tells how
			let e = s.sock.getopt(socket.SOL_SOCKET, socket.SO_ERROR);

			if (e != 0) {
				no_answer(`connect to ${s.addr}: ${socket.strerror(e) ?? e}`);
				return again(s);
			}

			s.connect_timer?.cancel();
			s.connect_timer = null;
			s.connected = true;
			st.connected++;
			st.requests++;
			s.out = req;
			s.head = '';
			s.in_body = false;

			// from now on: readable for the answer, writable for the request/body
			s.handle.delete();
			s.handle = uloop.handle(s.sock, (ev) => on_event(s, ev), uloop.ULOOP_READ | uloop.ULOOP_WRITE);
			return;
		}

		if (events & uloop.ULOOP_READ) {
			for (let i = 0; i < 8; i++) {
				let data = s.in_body ? s.sock.recv(READ, socket.MSG_TRUNC) : s.sock.recv(MAX_HEADER);

				if (data == null) {
					if (socket.error(true) == EAGAIN)
						break;

					if (dir == 'down')
						no_answer(`receiving from ${s.addr}: ${socket.error()}`);

					return again(s);
				}

				if (data == '') {	// server closed: body done, ask again
					if (!s.in_body && dir == 'down')
						no_answer(`${s.addr} closed the connection before an HTTP answer`);

					return again(s, s.in_body || dir == 'up');
				}

				total += (dir == 'down') ? length(data) : 0;

				if (!s.in_body && dir == 'down') {
					s.head += data;

					let code = response_status(s.head);

					if (code == null)
						continue;

					if (code < 0) {
						no_answer(`${s.addr} answered something else than HTTP`);
						return again(s);
					}

					// redirects too: each hop would need the target checks
					if (code != 200) {
						fail(`download: the test server answered HTTP ${code}`, `${url.url} (${s.addr}) answered HTTP ${code}`);
						return again(s);
					}

					s.in_body = true;
					s.head = '';
				}
				else if (dir == 'up') {
					// an upload server answers when it has had enough (or
					// refuses): read it; the connection ends after it
					let code = response_status(data);

					if (code != null && code < 0)
						no_answer(`${s.addr} answered something else than HTTP`);
					else if (code != null && code >= 300)
						fail(`upload: the test server answered HTTP ${code}`, `${url.url} (${s.addr}) answered HTTP ${code}`);
				}
			}
		}

		if ((events & uloop.ULOOP_WRITE) && s.sock) {
			for (let i = 0; i < 8; i++) {
				if (s.out == '' && dir == 'up' && s.body_left > 0) {
					s.out = chunk();

					if (length(s.out) > s.body_left)
						s.out = substr(s.out, 0, s.body_left);
				}

				if (s.out == '') {
					// GET or whole POST body sent: only reading from now on
					s.handle.delete();
					s.handle = uloop.handle(s.sock, (ev) => on_event(s, ev), uloop.ULOOP_READ);
					break;
				}

				let n = s.sock.send(s.out);

				if (n == null) {
					if (socket.error(true) == EAGAIN)
						break;

					no_answer(`sending to ${s.addr}: ${socket.error()}`);
					return again(s);
				}

				if (dir == 'up' && s.sent_head) {
					total += n;
					s.body_left -= n;
				}

				if (n < length(s.out)) {
					s.out = substr(s.out, n);
					break;
				}

				s.out = '';
				s.sent_head = (dir == 'up');
			}
		}
	}

	connect = function(s) {
		s.timer = null;

		if (stopped)
			return;

		let a = addrs[s.i % length(addrs)];
		let sock = socket.create(a.family, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC);

		if (!sock) {
			fail(`${what}: no socket: ${socket.error()}`);
			return again(s);
		}

		sock.setopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, true);

		s.sock = sock;
		s.addr = (a.family == socket.AF_INET6) ? `[${a.address}]:${url.port}` : `${a.address}:${url.port}`;
		s.connected = false;
		s.sent_head = false;
		s.body_left = UPLOAD_LENGTH;

		// EINPROGRESS is the normal answer of a non-blocking connect
		sock.connect(a.address, url.port);

		s.handle = uloop.handle(sock, (ev) => on_event(s, ev), uloop.ULOOP_WRITE);

		// a silent target reads like a refused one, and soon
		s.connect_timer = uloop.timer(CONNECT_TIMEOUT_MS, () => {
			s.connect_timer = null;

			if (!s.connected && s.sock) {
				no_answer(`connect to ${s.addr}: no answer within ${CONNECT_TIMEOUT_MS / 1000} s`);
				again(s);
			}
		});
	};

	if (!length(addrs)) {
		no_answer('the name does not resolve');
		stopped = true;
	}

	for (let i = 0; i < opts.streams && !stopped; i++) {
		let s = { i, sock: null, handle: null, timer: null };

		push(streams, s);
		connect(s);
	}

	return {
		bytes: () => total,
		status: () => ({ ...st }),

		stop: function() {
			stopped = true;

			for (let s in streams) {
				s.timer?.cancel();
				close_stream(s);
			}
		}
	};
};

// Resolve a host name or literal for start(): [ {family, address} ],
// IPv4 first.  Blocking (getaddrinfo): for the lab CLI only; reterm-latencyd
// resolves in a child process (reterm.latency.test.resolve) and hands start()
// the checked addresses in url.addrs.
export function resolve(socket, host) {
	let fam = (index(host, ':') >= 0) ? socket.AF_INET6 : null;

	if (iptoarr(host))
		return [ { family: fam ?? socket.AF_INET, address: host } ];

	let res = socket.addrinfo(host, null, { socktype: socket.SOCK_STREAM }) ?? [];
	let out = [];

	for (let r in res)
		if (r.addr?.address && !length(filter(out, o => o.address == r.addr.address)))
			push(out, { family: r.family, address: r.addr.address });

	return sort(out, (a, b) => (a.family == socket.AF_INET ? 0 : 1) - (b.family == socket.AF_INET ? 0 : 1));
};
