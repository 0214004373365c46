// SPDX-License-Identifier: Apache-2.0
//
// WAN counters: byte counters of a network device (read every 200 ms by
// the service) turned into per-second rates, and CAKE statistics parsed
// from `tc -s -j qdisc show dev <dev>`.  The parsing and rate math are
// pure; reading files and running tc goes through functions passed in.
//
// sqm-scripts puts CAKE on the WAN device itself (egress = upload) and on
// the IFB device ifb4<dev> that receives the redirected ingress
// (download), so for a sqm queue on "eth1":
//   upload   tc qdisc show dev eth1       root cake
//   download tc qdisc show dev ifb4eth1   root cake
// and the shaper rates are the queue's upload / download options (kbit/s,
// 0 = not shaped).
//
// CAKE JSON (iproute2 tc/q_cake.c): the qdisc object has "kind": "cake",
// "options" {"bandwidth": bytes/s, ...}, the basic stats "bytes",
// "packets", "drops", "backlog", "qlen", and "tins": [{ "threshold_rate",
// "sent_bytes", "backlog_bytes", "target_us", "interval_us",
// "peak_delay_us", "avg_delay_us", "base_delay_us", "sent_packets",
// "way_indirect_hits", "way_misses", "way_collisions", "drops",
// "ecn_mark", "ack_drops", "sparse_flows", "bulk_flows",
// "unresponsive_flows", "max_pkt_len", "flow_quantum" }, ...].

'use strict';

import { netdev, matches } from 'reterm.validate';

function n(v) {
	let t = type(v);

	return ((t == 'int' || t == 'double') && v >= 0) ? v : null;
}

// rx/tx byte counters of a device from /sys (readfile injectable), or null
export function read_bytes(dev, readfile) {
	if (netdev(dev) == null)
		return null;

	let rx = readfile(`/sys/class/net/${dev}/statistics/rx_bytes`);
	let tx = readfile(`/sys/class/net/${dev}/statistics/tx_bytes`);

	if (rx == null || tx == null)
		return null;

	rx = +trim(rx);
	tx = +trim(tx);

	return (n(rx) != null && n(tx) != null) ? { rx, tx } : null;
};

// The same, read every 200 ms from two files kept open (seek to 0 and read
// again gives a fresh value; saves the open/close and path walk a read
// costs, the most of what the sampler spends between probes).  Any
// failed read closes both; the next read() opens them again, so a WAN
// device that went away and came back (PPPoE) is found again.
//   let r = bytes_reader(dev, fs);  r.read() -> {rx, tx} | null;  r.close()
// fs needs open(); without it every read() is a read_bytes(dev, fs.readfile).
export function bytes_reader(dev, fs) {
	let ok = netdev(dev) != null, files = null;
	let paths = ok ? [ `/sys/class/net/${dev}/statistics/rx_bytes`, `/sys/class/net/${dev}/statistics/tx_bytes` ] : null;

	function close() {
		files?.[0]?.close();
		files?.[1]?.close();
		files = null;
	}

	function value(f) {
		let v = (f && f.seek(0)) ? f.read('all') : null;

		return (v == null || v == '') ? null : +v;
	}

	return {
		read: function() {
			if (!ok)
				return null;

			if (type(fs.open) != 'function')
				return read_bytes(dev, fs.readfile);

			files ??= [ fs.open(paths[0], 'r'), fs.open(paths[1], 'r') ];

			let rx = value(files[0]), tx = value(files[1]);

			// "123\n" converts to 123; null (failed or empty read) and NaN are
			// no int
			if (type(rx) != 'int' || type(tx) != 'int' || rx < 0 || tx < 0) {
				close();
				return null;
			}

			return { rx, tx };
		},

		close
	};
};

// counter difference; a counter that went backwards wrapped at 2^32 (32 bit
// kernels) when the old value fit in 32 bits, else it was reset (null)
export function delta(prev, cur) {
	if (prev == null || cur == null)
		return null;

	if (cur >= prev)
		return cur - prev;

	if (prev < 4294967296)
		return cur + 4294967296 - prev;

	return null;
};

// Per-second WAN rates from counter readings taken every ~200 ms.
//   feed(t_ms, {rx, tx})  a reading (null = device gone)
//   second(s)             {rx, tx} bit/s over the epoch second s (from the
//                         readings at or after s*1000 and up to the first at
//                         or after (s+1)*1000), or null without readings
//   recent(window_ms)     {rx, tx} bit/s over the last window (load detector)
// readings are kept this long: a second is turned into a row up to
// ~3.5 s after it ended (when its last probe has answered or timed out)
const KEEP_MS = 8000;

export function rates() {
	let log = [];	// [t_ms, rx, tx], oldest first, KEEP_MS kept

	function rate(a, b) {
		let dt = (b[0] - a[0]) / 1000.0;
		let drx = delta(a[1], b[1]), dtx = delta(a[2], b[2]);

		if (dt <= 0 || drx == null || dtx == null)
			return null;

		return { rx: int(drx * 8 / dt + 0.5), tx: int(dtx * 8 / dt + 0.5) };
	}

	return {
		feed: function(t_ms, c) {
			if (c == null) {
				log = [];
				return;
			}

			push(log, [ t_ms, c.rx, c.tx ]);

			while (length(log) > 2 && log[0][0] < t_ms - KEEP_MS)
				shift(log);
		},

		second: function(s) {
			let a = null, b = null;

			// readings are 200 ms apart: take the ones nearest to the
			// second's edges (within half an interval)
			for (let e in log) {
				if (a == null && e[0] >= s * 1000 - 100)
					a = e;

				if (e[0] <= (s + 1) * 1000 + 100)
					b = e;
			}

			return (a && b && b[0] - a[0] >= 500) ? rate(a, b) : null;
		},

		recent: function(window_ms) {
			if (length(log) < 2)
				return null;

			// the oldest reading inside the window (searched from the
			// newest), at least the one before the last
			let b = log[-1], a = log[-2];

			for (let i = length(log) - 3; i >= 0 && log[i][0] >= b[0] - window_ms; i--)
				a = log[i];

			return rate(a, b);
		}
	};
};

// The CAKE qdisc of `dev` in a `tc -s -j qdisc show` JSON text: the root
// qdisc of kind cake (or any cake when none is root), summed over its
// tins.  `text` may also be the parsed array (parse once for both devices).
// Returns null when there is none or the text is not JSON:
//   { dev, bandwidth_bps, tins, peak_us, avg_us, base_us (worst tin),
//     drops, ecn, backlog (sums over the tins), ack_drops }
export function parse_cake(text, dev) {
	let data = text;

	if (type(text) == 'string')
		try {
			data = json(text);
		}
		catch (e) {
			return null;
		}

	if (type(data) != 'array')
		return null;

	let q = null;

	for (let o in data) {
		if (type(o) != 'object' || o.kind != 'cake')
			continue;

		if (dev != null && o.dev != null && o.dev != dev)
			continue;

		if (o.root === true) {
			q = o;
			break;
		}

		q ??= o;
	}

	if (!q)
		return null;

	let res = {
		dev: q.dev ?? dev,
		bandwidth_bps: (n(q.options?.bandwidth) != null) ? q.options.bandwidth * 8 : null,
		tins: 0, peak_us: null, avg_us: null, base_us: null,
		drops: 0, ecn: 0, backlog: 0, ack_drops: 0
	};

	for (let t in (type(q.tins) == 'array') ? q.tins : []) {
		if (type(t) != 'object')
			continue;

		res.tins++;

		// the worst tin: the one that delays most (an idle tin reports 0)
		for (let k in [ 'peak', 'avg', 'base' ]) {
			let v = n(t[`${k}_delay_us`]);

			if (v != null && (res[`${k}_us`] == null || v > res[`${k}_us`]))
				res[`${k}_us`] = v;
		}

		res.drops += n(t.drops) ?? 0;
		res.ecn += n(t.ecn_mark) ?? 0;
		res.backlog += n(t.backlog_bytes) ?? 0;
		res.ack_drops += n(t.ack_drops) ?? 0;
	}

	if (!res.tins) {
		res.drops = n(q.drops) ?? 0;
		res.backlog = n(q.backlog) ?? 0;
	}

	return res;
};

// The row cells of one interval from two CAKE readings (prev may be null:
// then drops/ECN are unknown): prefix 'dl' or 'ul'.
export function cake_cells(prefix, prev, cur) {
	let o = {};

	if (cur == null)
		return o;

	o[`${prefix}_pk`] = (cur.peak_us != null) ? +sprintf('%.1f', cur.peak_us / 1000.0) : null;
	o[`${prefix}_av`] = (cur.avg_us != null) ? +sprintf('%.1f', cur.avg_us / 1000.0) : null;
	o[`${prefix}_drop`] = prev ? delta(prev.drops, cur.drops) : null;
	o[`${prefix}_ecn`] = prev ? delta(prev.ecn, cur.ecn) : null;
	o[`${prefix}_bl`] = cur.backlog;

	return o;
};

// sqm queues from a uci cursor: [{ name, iface, ifb, download_bps,
// upload_bps, qdisc }] of the enabled sections with a valid interface.
export function sqm_queues(cursor) {
	let out = [];

	cursor.foreach('sqm', 'queue', (s) => {
		if (s.enabled != '1' || netdev(s.interface) == null)
			return;

		let kbit = (v) => (matches(v, /^[0-9]{1,9}$/) ? +v * 1000 : 0);

		push(out, {
			name: s['.name'],
			iface: s.interface,
			// sqm-scripts cuts the IFB name to IFNAMSIZ - 1 = 15 characters
			ifb: netdev(substr(`ifb4${s.interface}`, 0, 15)),
			download_bps: kbit(s.download),
			upload_bps: kbit(s.upload),
			qdisc: s.qdisc ?? 'cake'
		});
	});

	return out;
};
