// SPDX-License-Identifier: Apache-2.0
//
// What the probers' raw ICMP sockets let through.  A raw ICMP socket gets
// a copy of every ICMP message the host receives: a LAN host (or a WAN
// one through the default Allow-Ping rule) sending `ping -f -s 1472` at
// the router would have reterm-latencyd read, copy and parse tens of
// thousands of datagrams a second.  So:
//
// - the kernel filters each raw socket with a classic BPF program
//   (SO_ATTACH_FILTER) that passes only replies carrying our random
//   identifier; everything else is dropped before it is queued.  (The
//   kernel's own ICMP_FILTER and ICMPV6_FILTER would pass types only, and
//   ucode's socket module refuses both, at both pins of
//   tools/owrt/parts.lock: "Unknown socket level or option".  It takes
//   SO_ATTACH_FILTER at both.)
// - whatever passes is read at most READS_PER_WAKE datagrams per wake-up:
//   uloop's descriptors are level triggered, so the rest waits for the
//   next turn of the loop, after its timers and ubus (a sender that
//   guesses the identifier still cannot starve them);
// - and the readers look at the type and identifier before anything
//   costs more (the checksum).
//
//   attach(socket, s, replies(v6, id))      the prober (reterm.latency.probe.icmp)
//   attach(socket, s, ttl_answers(v6, id))  the near-hop scan (reterm.latency.probe.hops)
//
// A program sees the datagram as the socket would deliver it: raw IPv4
// sockets with the IP header first, raw ICMPv6 sockets without one.  A
// load beyond the end of a datagram ends the program with 0 (dropped).

'use strict';

export const READS_PER_WAKE = 16;

// what the kernel keeps of an accepted datagram: all of it
const KEEP = 0x40000;

// classic BPF opcodes (linux/filter.h)
const LDB_ABS = 0x30, LDH_ABS = 0x28, LDB_IND = 0x50, LDH_IND = 0x48;
const LDX_MSH = 0xb1;	// X = 4 * (P[k] & 0xf): the IPv4 header's length
const JEQ = 0x15, RET = 0x06, AND = 0x54, LSH = 0x64, ADD_X = 0x0c, TAX = 0x07;

const ICMP_ECHOREPLY = 0, ICMP_TIME_EXCEEDED = 11, ICMP_TSTAMPREPLY = 14;
const ICMP6_ECHOREPLY = 129, ICMP6_TIME_EXCEEDED = 3;

// [ 'label', [ code, jt, jf, k ], ... ] -> [ [ code, jt, jf, k ], ... ]:
// a jump's jt and jf may name a label (forward only, as BPF wants)
export function assemble(lines) {
	let at = {}, prog = [];

	for (let l in lines) {
		if (type(l) == 'string')
			at[l] = length(prog);
		else
			push(prog, l);
	}

	return map(prog, (ins, i) => map(ins, (v, j) =>
		(type(v) == 'string') ? ((j == 1 || j == 2) ? at[v] - i - 1 : die(`bpf: ${v} where a number belongs\n`)) : v));
};

const END = [ 'drop', [ RET, 0, 0, 0 ], 'pass', [ RET, 0, 0, KEEP ] ];

// our replies: IPv4 echo or timestamp reply, ICMPv6 echo reply, with id
export function replies(v6, id) {
	if (v6)
		return assemble([
			[ LDB_ABS, 0, 0, 0 ],
			[ JEQ, 0, 'drop', ICMP6_ECHOREPLY ],
			[ LDH_ABS, 0, 0, 4 ],
			[ JEQ, 'pass', 'drop', id ],
			...END
		]);

	return assemble([
		[ LDX_MSH, 0, 0, 0 ],
		[ LDB_IND, 0, 0, 0 ],
		[ JEQ, 'id', 0, ICMP_ECHOREPLY ],
		[ JEQ, 0, 'drop', ICMP_TSTAMPREPLY ],
		'id',
		[ LDH_IND, 0, 0, 4 ],
		[ JEQ, 'pass', 'drop', id ],
		...END
	]);
};

// what a TTL-limited echo brings back: our echo reply, or a time exceeded
// quoting our echo (its identifier after the quoted IP header)
export function ttl_answers(v6, id) {
	if (v6)
		return assemble([
			[ LDB_ABS, 0, 0, 0 ],
			[ JEQ, 0, 'exceeded', ICMP6_ECHOREPLY ],
			[ LDH_ABS, 0, 0, 4 ],
			[ JEQ, 'pass', 'drop', id ],
			'exceeded',
			[ JEQ, 0, 'drop', ICMP6_TIME_EXCEEDED ],
			[ LDH_ABS, 0, 0, 8 + 40 + 4 ],	// after the quoted IPv6 header
			[ JEQ, 'pass', 'drop', id ],
			...END
		]);

	return assemble([
		[ LDX_MSH, 0, 0, 0 ],
		[ LDB_IND, 0, 0, 0 ],
		[ JEQ, 0, 'exceeded', ICMP_ECHOREPLY ],
		[ LDH_IND, 0, 0, 4 ],
		[ JEQ, 'pass', 'drop', id ],
		'exceeded',
		[ JEQ, 0, 'drop', ICMP_TIME_EXCEEDED ],
		[ LDB_IND, 0, 0, 8 ],	// the quoted IPv4 header's length
		[ AND, 0, 0, 15 ],
		[ LSH, 0, 0, 2 ],
		[ ADD_X, 0, 0, 0 ],
		[ TAX, 0, 0, 0 ],
		[ LDH_IND, 0, 0, 8 + 4 ],	// the quoted echo's identifier
		[ JEQ, 'pass', 'drop', id ],
		...END
	]);
};

// Attach prog to the socket s; true when the kernel took it.  Without it
// (a socket module without SO_ATTACH_FILTER) the reader's bound and its
// cheap checks first are what is left.
export function attach(socket, s, prog) {
	if (socket.SO_ATTACH_FILTER == null)
		return false;

	return s.setopt(socket.SOL_SOCKET, socket.SO_ATTACH_FILTER, { filter: prog }) == true;
};
