// SPDX-License-Identifier: Apache-2.0
//
// Probers: send ICMP echo (or timestamp) requests to reflectors round
// robin at a fixed interval and report every probe once, answered or lost.
//
//   let p = open(env, 'auto');   // fping, else icmp, else none
//   let p = open(env, 'auto', true);   // raw icmp first (timestamps)
//   p.start([ '1.1.1.1', '9.9.9.9' ], 200, 2000, (r) => ...);
//   p.stop();
//
// start(targets, interval_ms, timeout_ms, cb): one probe every
// interval_ms, to the targets in turn (a target may be listed more than
// once: a bigger share; fping gives every target the same); cb({ t, target, rtt }) once per
// probe: t = send time (env.clock.mono(), ms), rtt in ms, or null when no
// answer came within timeout_ms; the icmp backend adds up and down, the
// one-way delays of an ICMP timestamp exchange (reterm.latency.probe.icmp),
// else null.
// start() on a running prober restarts it with the new settings; stop()
// ends it (probes still out are dropped).
//
// Backends (name):
//   fping   a long running `fping -l` (reterm.latency.probe.fping).  Used when
//           /usr/bin/fping (or /usr/sbin) exists.
//   icmp    ICMP/ICMPv6 echo, or timestamps for one-way delays, through
//           ucode's socket module in reterm-latencyd's loop (reterm.latency.probe.icmp).
//   none    no way to probe (neither fping nor ICMP sockets): starts
//           nothing and reports nothing; reterm-latencyd says so in its log and
//           status.  (A `ping` per probe is never forked: at 5 probes/s
//           that is a shell and a process every 200 ms.)
//
// Targets must be IP literals (reterm.validate checks them), so
// nothing here ever passes a name or a shell word to a command.
//
// env: { uloop, clock: { mono(), wall() } (ms), socket (module, for
// icmp), fs (module), rand (0..65535 int) }.

'use strict';

import { fping, fping_path } from 'reterm.latency.probe.fping';
import { icmp } from 'reterm.latency.probe.icmp';

export function is_ip(s) {
	if (type(s) != 'string' || length(s) < 2 || length(s) > 45)
		return false;

	let a = iptoarr(s);

	return type(a) == 'array' && (length(a) == 4 || length(a) == 16);
};

// ---- none: nothing to probe with ---------------------------------------

export function none() {
	return {
		name: 'none',
		usable: () => false,
		start: () => null,
		stop: () => null,
		close: () => null,
		running: () => false
	};
};

// ---- selection -----------------------------------------------------------

function icmp_prober(env) {
	let sock = null;

	try {
		sock = env.socket ?? require('socket');
	}
	catch (e) {
		sock = null;
	}

	let p = sock ? icmp({ ...env, socket: sock }) : null;

	if (p?.usable())
		return p;

	p?.close();

	return null;
}

// kind: 'auto' (fping, else ICMP sockets, else none), 'fping' or 'icmp';
// stamps: one-way delays wanted (adaptive shaping): auto takes raw ICMP
// sockets before fping.  fping runs in its own process, the icmp backend
// in reterm-latencyd's loop, which costs more CPU where it is scarce: so without
// adaptive shaping auto keeps fping where it is installed.  Returns a
// prober (its .name says which), or null when the kind asked for (not
// auto) is not available.
export function open(env, kind, stamps) {
	kind ??= 'auto';

	if (index([ 'auto', 'fping', 'icmp' ], kind) < 0)
		return null;

	let path = fping_path(env.fs ?? require('fs'));
	let p = (kind == 'fping') ? null : icmp_prober(env);

	if (kind == 'icmp' || (stamps && p?.raw()) || (p && !path))
		return p;

	if (path) {
		p?.close();

		return fping(env, path);
	}

	return (kind == 'fping') ? null : none();
};
