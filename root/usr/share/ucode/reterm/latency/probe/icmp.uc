// SPDX-License-Identifier: Apache-2.0
//
// The icmp prober of reterm.latency.probe.select (same interface: start(targets,
// interval_ms, timeout_ms, cb), stop(), close(); see there), on ucode's
// socket module, and the ICMP packets it sends and reads:
//
// ICMP/ICMPv6 echo: raw sockets (root; the daemon runs as root) or,
// without CAP_NET_RAW, unprivileged ping sockets (SOCK_DGRAM,
// net.ipv4.ping_group_range).  No process is started; RTTs use the
// kernel receive timestamp (SO_TIMESTAMPNS), so a busy event loop does
// not inflate them.
//
// With a raw socket, over IPv4 it sends ICMP timestamp requests (type 13,
// RFC 792) instead of echoes, and the reply's receive and transmit times
// (ms since midnight UTC, the reflector's clock) split the round trip
// into up = its receive - our send and down = our receive - its
// transmit; cb() gets them as up and down.  Both carry the clocks'
// offset, so only their changes mean something (adaptive shaping keeps
// a baseline of each).  A reflector that leaves TS_TRIES timestamp
// requests in a row unanswered (TS_TRIES_OK once it answered one: a
// bloated line loses probes) gets echoes for TS_RETRY_MS, then
// timestamps are tried again; a request that could not be sent (no route
// yet at boot) does not count.
//
// Floods: a socket is open only while its family is probed (asleep the
// daemon holds none); a raw one passes only our replies, filtered by the
// kernel; each wake-up reads at most READS_PER_WAKE datagrams and judges
// each by its length, type and identifier before its checksum
// (reterm.latency.probe.icmpfilter).
//
// env: { uloop, clock: { mono(), wall() } (ms), socket (module), rand
// (0..65535 int) }.

'use strict';

import { READS_PER_WAKE, attach, replies } from 'reterm.latency.probe.icmpfilter';

const ICMP_ECHO = 8, ICMP_ECHOREPLY = 0, ICMP6_ECHO = 128, ICMP6_ECHOREPLY = 129;
const ICMP_TSTAMP = 13, ICMP_TSTAMPREPLY = 14, DAY_MS = 86400000;
export const TS_TRIES = 3, TS_TRIES_OK = 20, TS_RETRY_MS = 600000;
const IPPROTO_ICMP = 1, IPPROTO_ICMPV6 = 58;
const PAYLOAD = 'reterm-probe-v1', MAX_REPLY = 64;
const RECV_BYTES = 60 + MAX_REPLY + 1;	// the longest IPv4 header, our longest reply, and one to tell a longer one

function family6(s) {
	return index(s, ':') >= 0;
}

// Internet checksum (RFC 1071) of a binary string.
export function cksum(b) {
	let sum = 0, n = length(b);

	for (let i = 0; i + 1 < n; i += 2)
		sum += (ord(b, i) << 8) | ord(b, i + 1);

	if (n % 2)
		sum += ord(b, n - 1) << 8;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);

	return (~sum) & 0xffff;
};

// Round robin scheduler of the icmp backend: calls
// send(target) every interval_ms on a uloop timer that is re-armed
// against its own schedule (no drift).
function scheduler(env, send) {
	let timer = null, targets = [], next_i = 0, interval = 1000, due = 0;

	function tick() {
		let now = env.clock.mono();

		send(targets[next_i]);
		next_i = (next_i + 1) % length(targets);

		due += interval;

		// fell behind (suspended, overloaded): skip, do not burst
		if (due < now)
			due = now + interval;

		timer.set(max(0, int(due - now)));
	}

	return {
		start: function(t, ms) {
			targets = t;
			interval = ms;
			next_i = 0;
			due = env.clock.mono();

			if (!timer)
				timer = env.uloop.timer(0, tick);
			else
				timer.set(0);
		},

		stop: function() {
			if (timer)
				timer.cancel();

			timer = null;
		},

		running: () => timer != null
	};
}

// ---- icmp: the socket module ---------------------------------------------

export function build_echo(v6, id, seq) {
	let struct = require('struct');
	let hdr = struct.pack('!BBHHH', v6 ? ICMP6_ECHO : ICMP_ECHO, 0, 0, id, seq) + PAYLOAD;

	// ICMPv6: the kernel fills in the checksum (it covers a pseudo header)
	return v6 ? hdr : struct.pack('!BBHHH', ICMP_ECHO, 0, cksum(hdr), id, seq) + PAYLOAD;
};

// An ICMP timestamp request; orig: ms since midnight UTC
export function build_tstamp(id, seq, orig) {
	let struct = require('struct');
	let hdr = struct.pack('!BBHHHIII', ICMP_TSTAMP, 0, 0, id, seq, orig, 0, 0);

	return struct.pack('!BBHHHIII', ICMP_TSTAMP, 0, cksum(hdr), id, seq, orig, 0, 0);
};

// a - b on the clock of a day (ms since midnight UTC): -12 h < d <= 12 h
export function day_diff(a, b) {
	let d = (a - b) % DAY_MS;

	return (d > DAY_MS / 2) ? d - DAY_MS : (d <= -DAY_MS / 2) ? d + DAY_MS : d;
};

// Parse a received datagram: a reply of ours, { type, code, id, seq } (a
// timestamp reply adds { orig, recv, xmit }), or null.  v6: an ICMPv6
// socket; raw: a raw socket (IPv4: the IP header first; it sees every
// host's replies, so id must match; ping sockets get only theirs, the
// kernel picks their id).  The cheap checks come first (length, type,
// id): under a flood that reaches the socket nothing else is spent.
// A reply longer than MAX_REPLY is not ours (an echo reply carries our
// 15 byte payload, a timestamp reply three times).
export function parse_reply(data, v6, raw, id) {
	let struct = require('struct');
	let off = 0, n = length(data ?? '');

	if (raw && !v6) {
		if (n < 20 || (ord(data, 0) >> 4) != 4)
			return null;

		off = (ord(data, 0) & 15) * 4;
	}

	let t = ord(data, off);

	if (n - off < ((t == ICMP_TSTAMPREPLY) ? 20 : 8) || n - off > MAX_REPLY ||
	    !(v6 ? t == ICMP6_ECHOREPLY : (t == ICMP_ECHOREPLY || (raw && t == ICMP_TSTAMPREPLY))))
		return null;

	let f = struct.unpack('!BBHHH', data, off);

	if (raw && f[3] != id)
		return null;

	// raw IPv4 sockets get a packet before the kernel checks its ICMP
	// checksum (ping and ICMPv6 sockets only checked ones)
	if (raw && !v6 && cksum(substr(data, off)) != 0)
		return null;

	if (t == ICMP_TSTAMPREPLY) {
		let ts = struct.unpack('!III', data, off + 8);

		return { type: t, code: f[1], id: f[3], seq: f[4], orig: ts[0], recv: ts[1], xmit: ts[2] };
	}

	return { type: t, code: f[1], id: f[3], seq: f[4] };
};

export function icmp(env) {
	let socket = env.socket ?? require('socket');
	let socks = {}, pending = {}, seq = 0, id = (env.rand ?? (() => int(clock()[1] / 1000) & 0xffff))();
	let cb = null, timeout = 2000, sched, probing = {};	// family ('4', '6') -> in the running round
	let ts = {};	// IPv4 target -> { fails (unanswered in a row), ok (answered one), off_until (echoes till then) }

	function finish(key, rtt, owd) {
		let p = pending[key];

		if (!p)
			return;

		delete pending[key];

		// one that answered them bears more losses in a row: under load
		// probes are lost (the controller judges lost ones)
		let st = ts[p.target];

		if (p.orig != null && !p.unsent && st) {
			st.fails = (rtt != null) ? 0 : st.fails + 1;
			st.ok ||= rtt != null;

			if (st.fails >= (st.ok ? TS_TRIES_OK : TS_TRIES)) {
				st.fails = 0;
				st.off_until = env.clock.mono() + TS_RETRY_MS;
			}
		}

		if (cb)
			cb({ t: p.t, target: p.target, rtt, up: owd?.up, down: owd?.down });
	}

	// a timestamp request, not an echo, to this target?
	function stamps(e, target) {
		if (!e.raw || e.v6)
			return false;

		let st = ts[target] ??= { fails: 0, ok: false, off_until: null };

		if (st.off_until != null && env.clock.mono() >= st.off_until)
			st.off_until = null;

		return st.off_until == null;
	}

	function shut(key) {
		let e = socks[key];

		e.closed = true;
		e.handle?.delete();
		e.s.close();
		delete socks[key];
	}

	// A socket is open only while its family is probed: from the first
	// probe after start() until stop(), or until the running round has no
	// target of its family and its last probe is answered or lost.  Not
	// between probes: the kernel turns receive timestamps on for the
	// whole host only when the first socket asks for them, and later (a
	// deferred work item), so a socket opened for each probe would get
	// replies stamped when read, loop delays and all (5-14 ms on loopback
	// under the guided test's HTTP load).
	function settle() {
		for (let key in keys(socks))
			if (!probing[key] && !length(filter(keys(pending), (k) => substr(k, 0, 1) == key)))
				shut(key);
	}

	// at most READS_PER_WAKE datagrams, then back to the loop (the rest
	// waits for its next turn: the descriptor is level triggered)
	function receive(e) {
		for (let n = 0; n < READS_PER_WAKE && !e.closed; n++) {
			let m = e.s.recvmsg(RECV_BYTES, 128);

			if (m == null)
				break;

			let now = env.clock.mono(), wall = env.clock.wall();
			let r = parse_reply(m.data, e.v6, e.raw, id);
			let key = r ? (e.v6 ? '6:' : '4:') + r.seq : null, p = r ? pending[key] : null;

			if (!p || (m.address?.address && arrtoip(iptoarr(m.address.address)) != arrtoip(iptoarr(p.target))))
				continue;

			if ((r.type == ICMP_TSTAMPREPLY) != (p.orig != null) || (p.orig != null && r.orig != p.orig))
				continue;

			let rtt = now - p.t, at = wall;

			// prefer the kernel's receive timestamp (realtime clock)
			for (let c in m.ancillary ?? []) {
				if (type(c.data) == 'object' && c.data.sec != null) {
					let ts = c.data.sec * 1000.0 + c.data.nsec / 1000000.0;
					let k = ts - p.wall;

					if (k >= 0 && k <= rtt + 1) {
						rtt = k;
						at = ts;
					}
				}
			}

			// the reflector's times: standard ones (ms since midnight
			// UTC) only, the high bit marks any other kind
			let owd = null;

			if (p.orig != null && r.recv < DAY_MS && r.xmit < DAY_MS)
				owd = { up: day_diff(r.recv, p.orig), down: day_diff(int(at) % DAY_MS, r.xmit) };

			finish(key, +sprintf('%.3f', rtt), owd);
		}

		settle();
	}

	// one socket per family, opened by its first probe: raw if permitted
	// (the kernel filters it down to our replies), else a ping socket
	function sock(v6) {
		let key = v6 ? '6' : '4';

		if (socks[key])
			return socks[key];

		let af = v6 ? socket.AF_INET6 : socket.AF_INET, proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		let s = socket.create(af, socket.SOCK_RAW | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC, proto), raw = true;

		if (!s) {
			s = socket.create(af, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC, proto);
			raw = false;
		}

		if (!s)
			return null;

		s.setopt(socket.SOL_SOCKET, socket.SO_TIMESTAMPNS, true);

		// what queued before the filter took hold costs the cheap checks
		// of parse_reply() and the bound of receive()
		if (raw)
			attach(socket, s, replies(v6, id));

		let entry = { s, raw, v6, handle: null, closed: false };

		entry.handle = env.uloop.handle(s, () => receive(entry), env.uloop.ULOOP_READ);
		socks[key] = entry;

		return entry;
	}

	// lost probes are reported within 250 ms of their timeout, whatever
	// the probe interval
	let expiry = null;

	function expire() {
		let now = env.clock.mono(), left = false;

		for (let k, p in pending) {
			if (now - p.t >= timeout)
				finish(k, null);
			else
				left = true;
		}

		if (left) {
			expiry ??= env.uloop.timer(250, () => {
				expiry = null;
				expire();
			});
		}
		else if (expiry) {
			expiry.cancel();
			expiry = null;
		}

		settle();
	}

	function send(target) {
		let v6 = family6(target), e = sock(v6);

		seq = (seq + 1) & 0xffff;

		let key = (v6 ? '6:' : '4:') + seq;

		let p = pending[key] = { t: env.clock.mono(), wall: env.clock.wall(), target };

		if (e && stamps(e, target))
			p.orig = int(p.wall) % DAY_MS;

		// no socket or no route: lost right away
		if (!e || e.s.send((p.orig != null) ? build_tstamp(id, seq, p.orig) : build_echo(v6, id, seq), 0, target) == null) {
			p.unsent = true;
			finish(key, null);
		}

		expire();
	}

	sched = scheduler(env, send);

	return {
		name: 'icmp',

		// whether a socket of this family can be had (for open('auto'))
		usable: function() {
			let e = sock(false) ?? sock(true);

			settle();

			return e != null;
		},

		// raw sockets (timestamps, every reply seen), not ping sockets
		raw: function() {
			let e = sock(false) ?? sock(true);

			settle();

			return e?.raw == true;
		},

		start: function(targets, interval_ms, timeout_ms, on_result) {
			cb = on_result;
			timeout = timeout_ms;
			probing = { '4': length(filter(targets, (t) => !family6(t))) > 0, '6': length(filter(targets, family6)) > 0 };
			sched.start(targets, interval_ms);
			settle();
		},

		stop: function() {
			sched.stop();
			probing = {};
			expiry?.cancel();
			expiry = null;
			pending = {};
			cb = null;
			settle();
		},

		close: function() {
			this.stop();
			ts = {};
		},

		running: () => sched.running()
	};
};
