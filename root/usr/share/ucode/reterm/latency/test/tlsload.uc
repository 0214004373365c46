// SPDX-License-Identifier: Apache-2.0
//
// HTTPS load for the guided test: one child process per direction and
// phase (/usr/libexec/reterm/https-load, OpenWrt's uclient with TLS),
// read over a socketpair (reterm.latency.child).  At most two run at a
// time (download and upload in the "both" phase) plus one short check;
// each is killed when its phase ends, on test_stop and when reterm-latencyd
// stops, and ends by itself after its phase length and a margin.
//
//   let g = start(env, { url, dir, streams, ca, referer, seconds });
//   g.bytes() / g.status() / g.stop()      as reterm.latency.test.load
//   g.usage()  { cpu_ms, hwm_kb } of the child, as it last reported
//
//   check(env, { url, dir, ca, referer, name, uniform }, cb)
//       one request through the same client (a 1000-byte POST for up) to
//       url.addrs (the checked addresses): cb(null) when it answered 200,
//       else cb({ error, message, kind }).  uniform (a caller's own URL):
//       a failure to get any answer is told when the check's whole limit
//       is over, whenever it happened, so that a closed port (refused at
//       once) and a dropped one (silent until the connect gives up) are
//       told apart by nothing
//
//   failure(kind, url, name, ca) -> { error, message }
//       the test_start error of a child's error kind: dns_failed,
//       unreachable, tls_failed, throttled (403, 429).  Every way of
//       getting no answer (refused, dropped, silent, not TLS, reset, a
//       name that moved) is one kind with one text
//
// env: { uloop, socket, fs, log, fence (the child fences itself in:
// --fence, see reterm.latency.test.fence; reterm-latencyd's env sets it) }.

'use strict';

import { error } from 'reterm.reply';

import * as child from 'reterm.latency.child';

// this module is <root>/usr/share/ucode/reterm/latency/test/tlsload.uc
const HERE = sourcepath();
const ROOT = replace(HERE ?? '', /\/usr\/share\/ucode\/reterm\/latency\/test\/tlsload\.uc$/, '');
export const SCRIPT = ROOT + '/usr/libexec/reterm/https-load';
const MODULES = ROOT + '/usr/share/ucode';

export const CHECK_SECONDS = 10, MARGIN_S = 5, MAX_LINE = 512;

function fail(code, message, kind) {
	return { ...error(code, message), kind };
}

export function failure(kind, url, name, ca) {
	let host = url.host, who = name ? `${name}: ` : '';

	switch (kind) {
	case 'dns':
		return fail('dns_failed', `${who}the name ${host} does not resolve (DNS): check the router's DNS, or pick another endpoint`, kind);
	case 'tls_verify':
		return fail('tls_failed', `${who}the certificate of ${host} could not be verified with ${ca}: check the router's clock and CA bundle (ca-bundle), or pick another endpoint`, kind);
	case 'tls_name':
		return fail('tls_failed', `${who}the certificate presented for ${host} is not for that name (an intercepting proxy?): pick another endpoint`, kind);
	case 'tls':
		return fail('tls_failed', `${who}HTTPS to ${host} is not possible here (install ucode-mod-uclient and a libustream-ssl) : pick a plain-HTTP endpoint or URL`, kind);
	case 'fence':
		return fail('tls_failed', `${who}HTTPS to ${host} is not possible here: its connections cannot be held to the checked addresses (cgroup v2 and nftables' socket match, kmod-nft-socket, are needed): pick a plain-HTTP endpoint or URL`, kind);
	}

	let m = match(kind ?? '', /^http_([0-9]{1,3})$/);

	if (m && (m[1] == '403' || m[1] == '429'))
		return fail('throttled', `${who}${host} refused the test (HTTP ${m[1]}): too many tests from this address; wait a few minutes, or pick another endpoint`, kind);

	if (m)
		return fail('unreachable', `${who}${host} answered HTTP ${m[1]}: pick another endpoint or a custom URL`, kind);

	// connect, timeout, address, a child that ended without a word
	return fail('unreachable', `${who}no answer from ${host}: retry, or pick another endpoint`, kind);
};

// the kinds failure() tells apart; every other one is no answer at all
function silent(kind) {
	return !match(kind ?? '', /^(dns|tls|tls_verify|tls_name|fence|http_[0-9]{1,3})$/);
}

// fenced: the child puts itself behind reterm.latency.test.fence
function argv(o, extra, fenced) {
	let a = [ '-L', MODULES, SCRIPT, '--dir', o.dir, '--url', o.url.url, '--ca', o.ca ?? '/nonexistent' ];

	if (o.referer)
		push(a, '--referer', o.referer.url);

	for (let ip in o.url.addrs ?? [])
		push(a, '--addr', ip);

	if (fenced)
		push(a, '--fence');

	return [ ...a, ...extra ];
}

// lines from the child's socket: each complete line to on_line; the
// reader returns false once the child closed its end (it exited)
function reader(socket, on_line) {
	let buf = '';

	return (sock) => {
		let d, eof = false;

		while ((d = sock.recv(4096, socket.MSG_DONTWAIT)) != null) {
			if (d == '') {
				eof = true;
				break;
			}

			buf += d;
		}

		let lines = split(buf, '\n');

		buf = pop(lines);

		if (length(buf) > MAX_LINE)
			buf = '';

		for (let l in lines)
			on_line(substr(l, 0, MAX_LINE));

		return !eof;
	};
}

function interpreter(fs) {
	return fs.readlink('/proc/self/exe') ?? '/usr/bin/ucode';
}

export function start(env, opts) {
	let fs = env.fs ?? require('fs'), socket = env.socket ?? require('socket');
	let st = { streams: opts.streams, connected: 0, requests: 0, errors: 0, last_error: null };
	let total = 0, use = { cpu_ms: 0, hwm_kb: 0 }, proc = null;
	let what = (opts.dir == 'up') ? 'upload' : 'download';

	let read = reader(socket, (l) => {
		let p = match(l, /^p ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+)$/);

		if (p) {
			total = +p[1];
			st.connected = +p[2];
			st.requests = +p[3];
			st.errors = +p[4];
			use = { cpu_ms: +p[5], hwm_kb: +p[6] };
			return;
		}

		let e = match(l, /^e ([a-z0-9_]{1,16}) (.*)$/);

		if (e) {
			let f = failure(e[1], opts.url, null, opts.ca);

			st.errors++;
			st.last_error ??= `${what}: ${f.message}`;
			env.log?.(`${what} ${opts.url.url}: ${e[2]}`);
		}
	});

	proc = child.spawn(env, interpreter(fs), argv(opts,
		[ '--streams', '' + opts.streams, '--seconds', '' + (opts.seconds + MARGIN_S) ], env.fence),
		{ readable: () => {
			// the child ended (its own deadline): keep what it said
			if (proc && !read(proc.sock)) {
				proc.kill();
				proc = null;
			}
		} });

	if (!proc) {
		st.errors = 1;
		st.last_error = `${what}: the HTTPS load could not be started`;
	}

	return {
		bytes: () => total,
		status: () => ({ ...st }),
		usage: () => ({ ...use }),
		stop: function() {
			proc?.kill();
			proc = null;
		}
	};
};

export function check(env, opts, cb) {
	let fs = env.fs ?? require('fs'), socket = env.socket ?? require('socket');
	let done = false, proc = null, guard = null, kind = null, held = null;

	function finish(res) {
		if (done)
			return;

		proc?.kill();
		proc = null;

		// uniform: no answer is told when the limit is over
		if (opts.uniform && res && silent(res.kind) && guard) {
			held ??= res;
			return;
		}

		done = true;
		guard?.cancel();
		cb(res);
	}

	let read = reader(socket, (l) => {
		if (match(l, /^ok /))
			return finish(null);

		let e = match(l, /^e ([a-z0-9_]{1,16}) (.*)$/);

		if (e) {
			kind ??= e[1];
			env.log?.(`check ${opts.url.url}: ${e[2]}`);
			finish(failure(kind, opts.url, opts.name, opts.ca));
		}
	});

	proc = child.spawn(env, interpreter(fs), argv(opts, [ '--check', '--seconds', '' + CHECK_SECONDS ], env.fence), {
		readable: () => {
			// the child ended without a word: its exit closed the pair
			if (proc && !read(proc.sock))
				finish(failure(kind, opts.url, opts.name, opts.ca));
		}
	});

	if (!proc)
		return finish(failure('tls', opts.url, opts.name, opts.ca));

	guard = env.uloop.timer((CHECK_SECONDS + 2) * 1000, () => {
		guard = null;
		finish(held ?? failure('timeout', opts.url, opts.name, opts.ca));
	});

	return { cancel: () => { done = true; guard?.cancel(); proc?.kill(); proc = null; } };
};
