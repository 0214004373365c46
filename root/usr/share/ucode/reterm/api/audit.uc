// SPDX-License-Identifier: Apache-2.0
//
// Window audit: the evidence behind "this device needs re-termination".
// Pure functions; reterm.api runs the fixed commands and feeds the text.
//
// Passive (any LAN device): while the LAN device is an element of the nft
// set reterm_audit_on (added with a timeout, so the audit switches itself
// off), chain reterm_audit counts the SYNs of each source MAC:
//   reterm_audit_syn       all SYNs
//   reterm_audit_noscale   SYNs without the window-scale option: such a
//                          connection can never have more than 65535 bytes
//                          in flight towards the device
//   reterm_audit_smallwin  SYNs advertising a window below 65535
//   reterm_audit_window    MAC . advertised window of the SYNs without
//                          window scaling: nft counters cannot hold a value
//                          per MAC, but a set keyed by the value can, so the
//                          exact windows are known (no buckets)
// The SYN window is where a connection starts; without scaling it can grow
// to at most 65535 bytes later, so the ceiling below is an estimate and
// 65535 / RTT the hard limit.
//
// Active (re-terminated devices): the router's client-side sockets of the
// proxy, from "ss -tin state established": rwnd_limited (time the device's
// receive window stopped the router sending) over busy time, the device's
// advertised window (snd_wnd) and whether window scaling was negotiated
// (wscale present).  Sockets whose local address is a private or
// otherwise bypassed destination are left out: proxied connections never
// have one (see BYPASS4/BYPASS6), the device's own connections to the
// router usually do.

'use strict';

import * as v from 'reterm.validate';
import { BYPASS4, BYPASS6 } from 'reterm.render.nft';

export const DEFAULT_MINUTES = 10;
export const MAX_MINUTES = 120;
export const DEFAULT_RTT_MS = 130;
export const MAX_RTT_MS = 2000;

// Share of the busy time limited by the receive window from which the
// window is called the bottleneck.
const RWND_LIMITED_PCT = 20;

export const SETS = [ 'on', 'syn', 'noscale', 'smallwin', 'window' ];

// Fixed commands (no argument ever comes from a caller).  nft accepts one
// "list" command per run, hence the loop; each run prints one JSON line.
export const LIST_CMD = 'for s in ' + join(' ', SETS) +
	'; do nft -j list set inet fw4 reterm_audit_$s; echo; done 2>/dev/null';

export const SS_CMD = 'ss -tin state established 2>/dev/null';

// argv of the one nft run that (re)starts an audit: empty the counters,
// then put the LAN device into reterm_audit_on for <minutes>.  One run is
// one atomic transaction.  lan_device is validated here again (it is
// quoted inside nft syntax); minutes must be an integer 1..MAX_MINUTES.
export function start_argv(lan_device, minutes) {
	if (v.netdev(lan_device) == null || type(minutes) != 'int' || minutes < 1 || minutes > MAX_MINUTES)
		return null;

	let cmds = map(SETS, s => `flush set inet fw4 reterm_audit_${s}`);

	push(cmds, `add element inet fw4 reterm_audit_on { "${lan_device}" timeout ${minutes}m }`);

	return [ 'nft', join('; ', cmds) ];
};

// Output of LIST_CMD -> { "<set name>": [ { val, packets, bytes, expires } ] }.
// A set that does not exist (rules not loaded) is simply absent.
export function parse_sets(text) {
	let out = {};

	for (let line in split(text ?? '', '\n')) {
		if (trim(line) == '')
			continue;

		let doc;

		try {
			doc = json(line);
		}
		catch (e) {
			continue;
		}

		for (let o in (type(doc?.nftables) == 'array') ? doc.nftables : []) {
			let s = o?.set;

			if (type(s?.name) != 'string')
				continue;

			let elems = [];

			for (let e in (type(s.elem) == 'array') ? s.elem : []) {
				// plain values when an element has no timeout or counter
				let x = (type(e) == 'object' && type(e.elem) == 'object') ? e.elem : { val: e };

				push(elems, {
					val: x.val,
					packets: (type(x.counter?.packets) == 'int') ? x.counter.packets : 0,
					bytes: (type(x.counter?.bytes) == 'int') ? x.counter.bytes : 0,
					expires: (type(x.expires) == 'int') ? x.expires : null
				});
			}

			out[s.name] = elems;
		}
	}

	return out;
};

// Is the audit on for the LAN device, and for how long still?
export function state(sets, lan_device) {
	for (let e in sets?.reterm_audit_on ?? [])
		if (e.val == lan_device)
			return { running: true, remaining_s: e.expires };

	return { running: false, remaining_s: null };
};

// Per-MAC SYN counts: { "<mac>": { syn, noscale, smallwin, window } };
// window is the largest SYN window among the SYNs without scaling.
export function passive(sets) {
	let out = {};

	function get(mac) {
		return out[mac] ??= { syn: 0, noscale: 0, smallwin: 0, window: null };
	}

	for (let k in [ 'syn', 'noscale', 'smallwin' ])
		for (let e in sets?.[`reterm_audit_${k}`] ?? []) {
			let mac = v.mac((type(e.val) == 'string') ? e.val : null);

			if (mac)
				get(mac)[k] += e.packets;
		}

	for (let e in sets?.reterm_audit_window ?? []) {
		let c = e.val?.concat;

		if (type(c) != 'array' || length(c) != 2 || type(c[1]) != 'int' || e.packets < 1)
			continue;

		let mac = v.mac((type(c[0]) == 'string') ? c[0] : null);

		if (!mac)
			continue;

		let p = get(mac);

		if (p.window == null || c[1] > p.window)
			p.window = c[1];
	}

	return out;
};

// Canonical address text; IPv4-mapped IPv6 becomes IPv4.
function canon_ip(s) {
	let a = iptoarr(s);

	if (type(a) != 'array')
		return null;

	if (length(a) == 16 && a[10] == 0xff && a[11] == 0xff &&
	    !a[0] && !a[1] && !a[2] && !a[3] && !a[4] && !a[5] && !a[6] && !a[7] && !a[8] && !a[9])
		return arrtoip(slice(a, 12));

	return arrtoip(a);
};

// "192.0.2.1:80", "[2001:db8::1]:443", "[fe80::1]%br-lan:22", "*:*"
function endpoint(tok) {
	let m = match(tok ?? '', /^\[([^\]]+)\](%[^:]*)?:([0-9]+|\*)$/) ??
		match(tok ?? '', /^([^][%:]+)(%[^:]*)?:([0-9]+|\*)$/);

	if (!m)
		return null;

	let addr = canon_ip(m[1]);

	return addr ? { addr, port: (m[3] == '*') ? null : +m[3] } : null;
}

// value of "<key>:<digits><suffix>" as a whole word of an ss info line
function num(info, key, suffix) {
	let m = match(info, regexp(`(^|[ \t])${key}:([0-9]+)${suffix ?? ''}([ \t]|$)`));

	return m ? +m[2] : null;
}

function info_fields(info) {
	let ws = match(info, /(^|[ \t])wscale:([0-9]+),([0-9]+)/);
	let rw = match(info, /(^|[ \t])rwnd_limited:([0-9]+)ms\(([0-9.]+)%\)/);
	let rtt = match(info, /(^|[ \t])rtt:([0-9.]+)\/([0-9.]+)/);

	return {
		wscale: ws ? [ +ws[2], +ws[3] ] : null,
		rtt_ms: rtt ? +rtt[2] : null,
		snd_wnd: num(info, 'snd_wnd'),
		busy_ms: num(info, 'busy', 'ms'),
		rwnd_limited_ms: rw ? +rw[2] : null,
		rwnd_limited_pct: rw ? +rw[3] : null,
		bytes_acked: num(info, 'bytes_acked'),
		bytes_received: num(info, 'bytes_received')
	};
}

// "ss -tin [state established]" -> [ { local, peer, wscale, rtt_ms,
// snd_wnd, busy_ms, rwnd_limited_ms, rwnd_limited_pct, bytes_acked } ].
// Works with and without the State column; info lines start with
// white space and belong to the connection line above them.
export function parse_ss(text) {
	let rows = [], cur = null;

	function finish() {
		if (cur && cur.local && cur.peer)
			push(rows, { local: cur.local, peer: cur.peer, ...info_fields(cur.info) });

		cur = null;
	}

	for (let line in split(text ?? '', '\n')) {
		if (trim(line) == '')
			continue;

		if (match(line, /^[ \t]/)) {
			if (cur)
				cur.info += ' ' + trim(line);

			continue;
		}

		finish();

		let f = filter(split(trim(line), /[ \t]+/), x => x != '');

		if (f[0] in [ 'State', 'Recv-Q', 'Netid' ])
			continue;

		// without "state ..." the first column is the state name
		if (length(f) && !match(f[0], /^[0-9]+$/))
			f = slice(f, 1);

		if (length(f) < 4)
			continue;

		cur = { local: endpoint(f[2]), peer: endpoint(f[3]), info: '' };
	}

	finish();

	return rows;
};

function in_cidr(ip, cidr) {
	let parts = split(cidr, '/'), net = iptoarr(parts[0]), a = iptoarr(ip);
	let len = +parts[1];

	if (type(a) != 'array' || length(a) != length(net))
		return false;

	for (let i = 0; i < length(a) && len > 0; i++, len -= 8) {
		let mask = (len >= 8) ? 0xff : ((0xff << (8 - len)) & 0xff);

		if ((a[i] & mask) != (net[i] & mask))
			return false;
	}

	return true;
}

export function bypassed(ip) {
	for (let c in (index(ip, ':') >= 0) ? BYPASS6 : BYPASS4)
		if (in_cidr(ip, c))
			return true;

	return false;
};

// The proxy sockets of one device: rows whose peer is one of its
// addresses.  -> { connections, busy_ms, rwnd_limited_ms, pct, scaling,
// window, rtt_ms } or null without any.  pct is busy-time weighted over
// all connections (null when none was busy); bytes_to / bytes_from: sums
// of bytes_acked (router -> device) and bytes_received; scaling, window (snd_wnd:
// the window the device advertised last) and rtt come from the busiest
// connection, the one a download runs on (a PS4 clamps the window of
// its downloads while idle connections keep a big one).
export function active(rows, ips) {
	let mine = filter(rows ?? [], r => (r.peer.addr in ips) && !bypassed(r.local.addr));

	if (!length(mine))
		return null;

	let busy = 0, rwnd = 0, to = 0, from = 0, top = mine[0];

	for (let r in mine) {
		busy += r.busy_ms ?? 0;
		rwnd += r.rwnd_limited_ms ?? 0;
		to += r.bytes_acked ?? 0;
		from += r.bytes_received ?? 0;

		if ((r.busy_ms ?? 0) > (top.busy_ms ?? 0))
			top = r;
	}

	return {
		connections: length(mine),
		busy_ms: busy,
		rwnd_limited_ms: rwnd,
		pct: (busy > 0) ? int(rwnd * 1000.0 / busy + 0.5) / 10.0 : null,
		scaling: top.wscale != null,
		window: top.snd_wnd,
		rtt_ms: top.rtt_ms,
		bytes_to: to,
		bytes_from: from
	};
};

function mbit(bps) {
	return sprintf((bps < 10000000) ? '%.1f Mbit/s' : '%.0f Mbit/s', bps / 1000000.0);
}

// One English line; the LuCI views build their own translated text from
// the numbers.
export function summary(a, act) {
	let parts = [];

	if (act && a.rwnd_limited_pct != null)
		push(parts, sprintf('re-terminated: its receive window held the router back %s%% of the busy time',
			'' + a.rwnd_limited_pct));
	else if (act)
		push(parts, 're-terminated, no busy connection right now');

	if (a.syn_count > 0 && a.noscale_syns == 0)
		push(parts, sprintf('%d SYNs, all with window scaling', a.syn_count));
	else if (a.syn_count > 0 && a.noscale_syns == a.syn_count)
		push(parts, sprintf('%d SYNs, none with window scaling', a.syn_count));
	else if (a.syn_count > 0)
		push(parts, sprintf('%d of %d SYNs without window scaling', a.noscale_syns, a.syn_count));
	else if (!a.scaling)
		push(parts, 'no window scaling');

	if (a.window != null) {
		let w = sprintf('window %d bytes', a.window);

		if (a.ceiling_bps != null)
			w += sprintf(': about %s per connection at %d ms%s', mbit(a.ceiling_bps), a.rtt_ms,
				act ? ' without re-termination' : '');

		push(parts, w);
	}

	push(parts, {
		reterm: act ? 'keep re-termination' : 're-termination recommended',
		ok: 'the TCP window is not what limits it',
		unknown: 'not enough data yet: run an audit while the device downloads'
	}[a.recommendation]);

	let s = join('; ', parts);

	return uc(substr(s, 0, 1)) + substr(s, 1) + '.';
};

// p: passive counts of one MAC (or null), act: active() of one device (or
// null), rtt_ms: RTT for the ceiling.  -> the "audit" object of the API,
// or null when there is no data at all.
export function evaluate(p, act, rtt_ms) {
	p ??= { syn: 0, noscale: 0, smallwin: 0, window: null };
	rtt_ms ??= DEFAULT_RTT_MS;

	if (!p.syn && !act)
		return null;

	let scaling, window = null, pct = null;

	if (act) {
		scaling = act.scaling;
		window = act.window;
		pct = act.pct;
	}
	else {
		scaling = p.noscale * 2 < p.syn;
	}

	// Both ss (a snapshot) and the SYNs show windows the device advertised;
	// the larger one is closer to its real receive buffer.  p.window only
	// exists for SYNs without scaling.
	if (p.window != null && (window == null || p.window > window))
		window = p.window;

	// with scaling, only a live window (ss) is a ceiling
	let ceiling = (window != null && (!scaling || act)) ? int(window * 8000 / rtt_ms) : null;

	let rec;

	if (pct != null)
		rec = (pct >= RWND_LIMITED_PCT || !scaling) ? 'reterm' : 'ok';
	else if (!scaling)
		rec = 'reterm';
	else if (p.syn > 0)
		rec = 'ok';
	else
		rec = 'unknown';

	let a = {
		syn_count: p.syn,
		noscale_syns: p.noscale,
		small_window_syns: p.smallwin,
		window,
		scaling,
		ceiling_bps: ceiling,
		rtt_ms,
		rwnd_limited_pct: pct,
		recommendation: rec,
		summary: null
	};

	a.summary = summary(a, act);

	return a;
};
