// SPDX-License-Identifier: Apache-2.0
//
// Reflectors close to the bottleneck for adaptive shaping: the first
// routers beyond ours on the way to a far reflector (the ISP's first
// hops), found by a traceroute-like scan: one ICMP echo each with TTL
// (IPv6: hop limit) 1, 2, ... MAX_TTL; the router at that distance
// answers "time exceeded" with its address.  Their replies cross the access line's
// queues and nothing else, so they see the bloat the shaper can fix and
// little of the Internet's own jitter.
//
//   let s = scanner(env);
//   s.start('1.1.1.1', (hops) => ...);   // [ { ttl, addr } ] that answered
//   s.stop();
//
// One echo at a time, GAP_MS apart (routers limit their ICMP errors, Linux
// to about one a second), so a scan is at most MAX_TTL echoes; reterm-latencyd
// scans when adaptive shaping starts and every SCAN_MS.  pick()
// keeps the addresses that can be beyond the access line: not private,
// loopback or link-local (the modem of a double NAT answers first and
// sees none of the line's queue).  The controller shuns a hop that does
// not answer echo or answers late (reterm.latency.autorate.controller); the
// configured reflectors are the fallback (while two near hops or more
// are in use, together one probe in 4: reterm.latency.autorate.reflectors' round()).
//
// env.ttl_probe(target, ttl, cb({ from, reached })) -> { kill() } | null:
// one echo with that TTL; from = the router that answered "time
// exceeded" (or null), reached = the target itself answered.  The real
// ones: icmp_ttl() (a raw ICMP socket of ucode's socket module, no process)
// and, without it, fping_ttl() (fping's output on a socketpair).  Targets
// are IP literals only (reterm.validate).

'use strict';

import * as child from 'reterm.latency.child';
import { ip } from 'reterm.validate';
import { fping_path } from 'reterm.latency.probe.fping';
import { build_echo } from 'reterm.latency.probe.icmp';
import { READS_PER_WAKE, attach, ttl_answers } from 'reterm.latency.probe.icmpfilter';
import { classify } from 'reterm.latency.target';

const ICMP_ECHOREPLY = 0, ICMP_ECHO = 8, ICMP_TIME_EXCEEDED = 11, IPPROTO_ICMP = 1;
const ICMP6_ECHO = 128, ICMP6_ECHOREPLY = 129, ICMP6_TIME_EXCEEDED = 3, IPPROTO_ICMPV6 = 58;

export const MAX_TTL = 4, MAX_NEAR = 2, GAP_MS = 1200, WAIT_MS = 1000, SCAN_MS = 600000, RUN_MS = 4000;

// "ICMP Time Exceeded from 198.51.100.1 for ICMP Echo sent to 1.1.1.1"
// -> '198.51.100.1' (the first such line), else null
export function parse_exceeded(text) {
	let m = match(text ?? '', /ICMP Time Exceeded from ([0-9A-Fa-f.:]+) for ICMP Echo sent to/);

	return m ? ip(m[1]) : null;
};

// fping's output for one echo -> { from, reached }
export function parse_fping(text) {
	let from = parse_exceeded(text);

	return { from, reached: !from && match(text ?? '', / : \[0\], [0-9]+ bytes/) != null };
};

// the quoted destination at data[at..] is dst (an IP literal)
function quotes(data, at, dst) {
	let want = iptoarr(dst ?? '');

	if (!want || length(data) < at + length(want))
		return false;

	for (let i = 0; i < length(want); i++)
		if (ord(data, at + i) != want[i])
			return false;

	return true;
}

// A datagram of a raw IPv4 ICMP socket (IP header first) -> 'reached' (our
// echo's reply), 'exceeded' (a router's time exceeded quoting our echo:
// to dst, with our id and seq; the random id alone is 16 bits that a
// sender of forged errors can spray) or null (anything else: other hosts'
// ICMP reaches raw sockets too)
export function parse_icmp(data, id, seq, dst) {
	let u = (i) => ord(data, i) ?? -1, u16 = (i) => (u(i) << 8) | u(i + 1);

	if (length(data ?? '') < 28 || (u(0) >> 4) != 4)
		return null;

	let off = (u(0) & 15) * 4;

	if (u(off) == ICMP_ECHOREPLY && length(data) >= off + 8)
		return (u16(off + 4) == id && u16(off + 6) == seq) ? 'reached' : null;

	if (u(off) != ICMP_TIME_EXCEEDED || length(data) < off + 8 + 20)
		return null;

	// the quoted header: IPv4, ICMP, then the first 8 bytes of our echo
	let inner = off + 8, q = inner + (u(inner) & 15) * 4;

	if ((u(inner) >> 4) != 4 || u(inner + 9) != IPPROTO_ICMP || length(data) < q + 8 || !quotes(data, inner + 16, dst))
		return null;

	return (u(q) == ICMP_ECHO && u16(q + 4) == id && u16(q + 6) == seq) ? 'exceeded' : null;
};

// what reterm.latency.target calls not public but can still be the ISP's
// side of the line: CGNAT is the ISP's own space; documentation and
// benchmarking ranges are how labs and tests number a WAN
const ISP_SIDE = [ 'shared address space (CGNAT)', 'documentation', 'benchmarking' ];

// an address that can be on the ISP's side of the access line
export function beyond(addr) {
	let why = classify(addr);

	return why == null || index(ISP_SIDE, why) >= 0;
};

// A datagram of a raw ICMPv6 socket (no IP header: the kernel strips it)
// -> 'reached', 'exceeded' or null, as parse_icmp; a time exceeded quotes
// the IPv6 header (40 bytes, next header ICMPv6) and then our echo
export function parse_icmp6(data, id, seq, dst) {
	let u = (i) => ord(data, i) ?? -1, u16 = (i) => (u(i) << 8) | u(i + 1);

	if (length(data ?? '') < 8)
		return null;

	if (u(0) == ICMP6_ECHOREPLY)
		return (u16(4) == id && u16(6) == seq) ? 'reached' : null;

	if (u(0) != ICMP6_TIME_EXCEEDED || length(data) < 8 + 40 + 8 || (u(8) >> 4) != 6 || u(14) != IPPROTO_ICMPV6 ||
	    !quotes(data, 8 + 24, dst))
		return null;

	return (u(48) == ICMP6_ECHO && u16(52) == id && u16(54) == seq) ? 'exceeded' : null;
};

// hops [ { ttl, addr } ] -> the first MAX_NEAR addresses beyond the line
// (not the target itself, each once)
export function pick(hops, target) {
	let out = [];

	for (let h in sort([ ...hops ], (x, y) => x.ttl - y.ttl))
		if (length(out) < MAX_NEAR && h.addr != target && beyond(h.addr) && index(out, h.addr) < 0)
			push(out, h.addr);

	return out;
};

// env: { timer(ms, cb), ttl_probe }
export function scanner(env) {
	let job = null, timer = null, gen = 0;

	function stop() {
		gen++;
		job?.kill();
		timer?.cancel();
		job = timer = null;
	}

	return {
		// cb(hops) once, when the scan ended (also when nothing answered)
		start: function(target, cb) {
			stop();

			let mine = gen, hops = [];

			function step(ttl) {
				timer = null;

				if (mine != gen)
					return;

				if (ttl > MAX_TTL)
					return cb(hops);

				job = env.ttl_probe(target, ttl, (r) => {
					if (mine != gen)
						return;

					job = null;

					if (r?.from)
						push(hops, { ttl, addr: r.from });

					// the target itself answered: the path ends here
					if (r?.reached)
						return cb(hops);

					timer = env.timer(GAP_MS, () => step(ttl + 1));
				});

				if (!job)
					cb(hops);
			}

			step(1);
		},

		stop,
		running: () => job != null || timer != null
	};
};

// A ttl_probe on a raw ICMP socket (root, as reterm-latencyd runs): the echo
// leaves with IP_TTL (IPv6: IPV6_UNICAST_HOPS) = ttl, the answer is read
// on the loop, WAIT_MS at most.  Returns null without the socket module;
// the probe returns null when no raw socket can be had.  base: { uloop,
// socket, rand }.
export function icmp_ttl(base) {
	let socket = base.socket;

	if (!socket || socket.IP_TTL == null)
		return null;

	return function(target, ttl, cb) {
		let a = ip(target), v6 = index(a ?? '', ':') >= 0;

		if (!a || (v6 && socket.IPV6_UNICAST_HOPS == null))
			return null;

		let s = socket.create(v6 ? socket.AF_INET6 : socket.AF_INET, socket.SOCK_RAW | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC,
			v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);

		if (!s)
			return null;

		let id = (base.rand?.() ?? 0x5254) & 0xffff, done = false, h = null, guard = null;

		function end() {
			done = true;
			h?.delete();
			guard?.cancel();
			s.close();
		}

		function finish(r) {
			if (!done) {
				end();
				cb(r);
			}
		}

		// the kernel passes only our echo's answers; a flood that gets
		// through anyway is read READS_PER_WAKE at a time
		attach(socket, s, ttl_answers(v6, id));
		h = base.uloop.handle(s, () => {
			let m;

			for (let n = 0; n < READS_PER_WAKE && !done && (m = s.recvmsg(1500)) != null; n++) {
				let k = (v6 ? parse_icmp6 : parse_icmp)(m.data, id, ttl, a), from = ip(m.address?.address ?? '');

				if (k == 'exceeded' && from)
					finish({ from, reached: false });
				else if (k == 'reached' && from == a)
					finish({ from: null, reached: true });
			}
		}, base.uloop.ULOOP_READ);

		let hops = v6 ? s.setopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl) : s.setopt(socket.IPPROTO_IP, socket.IP_TTL, ttl);

		if (!hops || s.send(build_echo(v6, id, ttl), 0, a) == null) {
			end();
			return null;
		}

		guard = base.uloop.timer(WAIT_MS, () => finish({ from: null, reached: false }));

		return { kill: () => done || end() };
	};
};

// The ttl_probe with fping: `fping -c 1 -t WAIT_MS -H <ttl> <target>`, its
// stdout and stderr read from a socketpair (reterm.latency.child), ended
// after RUN_MS.  base: { uloop, socket, fs }.  Returns null without fping.
// IPv4 only (its IPv6 report is not the line parse_exceeded reads).
export function fping_ttl(base) {
	let path = base.socket ? fping_path(base.fs) : null;

	if (!path)
		return null;

	return function(target, ttl, cb) {
		if (!ip(target) || index(ip(target), ':') >= 0)
			return null;

		let out = '', done = false, c = null, guard = null;

		function finish() {
			if (done)
				return;

			done = true;
			guard?.cancel();
			c?.kill();
			cb(parse_fping(out));
		}

		c = child.spawn(base, path, [ '-c', '1', '-t', '' + WAIT_MS, '-H', '' + ttl, ip(target) ], {
			stderr: true,
			readable: () => {
				let b = c?.sock.recv(4096);

				if (b == null || b == '')
					return finish();

				if (length(out) < 4096)
					out += b;
			}
		});

		if (!c)
			return null;

		guard = base.uloop.timer(RUN_MS, finish);

		return { kill: () => { done = true; guard?.cancel(); c?.kill(); } };
	};
};

// the ttl_probe reterm-latencyd uses: the raw socket, else fping, else none
export function ttl_prober(base) {
	let raw = icmp_ttl(base), fp = fping_ttl(base);

	if (!raw)
		return fp;

	return (target, ttl, cb) => raw(target, ttl, cb) ?? fp?.(target, ttl, cb);
};
