// SPDX-License-Identifier: Apache-2.0
//
// The sampler service's live rows (reterm.latency.service): probe
// results, WAN rates and CAKE readings -> the per-second and per-minute
// ring buffers that `samples` answers from.
//
// Rows: a probe belongs to the second it was sent in; that second becomes
// a row when its last probe has answered or timed out (timeout + 0.6 s
// after it ended: rows lag ~3.6 s), with the WAN rates of the same second and the CAKE
// readings taken in it.  Reflectors at different distances are
// normalised by their own baseline (slow rising / fast falling minimum):
// rtt - own baseline + the lowest baseline; `base` is that lowest one.

'use strict';

import * as stats from 'reterm.latency.stats';
import * as ring from 'reterm.latency.live.ring';
import * as counters from 'reterm.latency.live.counters';

// env: the service's (clock, id, log); cfg: the service's settings (read
// live: cake devices); timeout_ms: the probe timeout
export function create(env, cfg, timeout_ms) {
	let sec_ring = ring.create({ step: 1, size: 600, id: env.id() });
	let min_ring = ring.create({ step: 60, size: 1440, id: sec_ring.id });
	let rates = counters.rates();
	let open_secs = {};		// second -> { rtts, sent, lost }
	let baselines = {};		// target -> tracker
	let cake = {};			// second -> { dl, ul } parsed readings
	let cake_prev = { dl: null, ul: null };
	let shaper = {};		// second -> { rx, tx } adaptive shaping's rates
	let cur_minute = null, last_flushed = null;

	function log(msg) {
		env.log?.(msg);
	}

	function lowest_base() {
		let b = null;

		for (let t, tr in baselines) {
			let v = tr.value();

			if (v != null && (b == null || v < b))
				b = v;
		}

		return b;
	}

	// one probe result (monitor or test probes alike)
	function on_probe(r) {
		let mono = env.clock.mono();
		let sent_wall = env.clock.wall() - (mono - r.t);
		let sec = int(sent_wall / 1000);

		if (last_flushed != null && sec <= last_flushed)
			return;	// its second is already a row

		let o = open_secs[sec] ??= { rtts: [], sent: 0, lost: 0 };

		o.sent++;

		if (r.rtt == null) {
			o.lost++;
			return;
		}

		let tr = baselines[r.target] ??= stats.baseline();
		let own = tr.update(r.rtt, r.t);
		let low = lowest_base();

		push(o.rtts, max(0, r.rtt - own + low));
	}

	function put_minute(m) {
		let rows = [];

		for (let t = m; t < m + 60; t++)
			push(rows, sec_ring.get(t));

		min_ring.put(m, ring.combine(rows));
	}

	function flush_second(sec) {
		let o = open_secs[sec];
		let agg = o ? stats.aggregate(o.rtts) : null;
		let rt = rates.second(sec);
		let row = null;

		if (o || rt) {
			row = {
				min: agg?.min, med: agg?.med, max: agg?.max,
				base: stats.round1(lowest_base()),
				sent: o?.sent ?? 0, lost: o?.lost ?? 0,
				rx: rt?.rx, tx: rt?.tx
			};

			let sh = shaper[sec];

			if (sh)
				row = { ...row, sh_rx: sh.rx, sh_tx: sh.tx };

			let c = cake[sec];

			if (c) {
				row = { ...row, ...counters.cake_cells('dl', c.dl_prev, c.dl), ...counters.cake_cells('ul', c.ul_prev, c.ul) };
			}
		}

		sec_ring.put(sec, row);

		let m = sec - sec % 60;

		if (cur_minute != null && m != cur_minute)
			put_minute(cur_minute);

		cur_minute = m;

		delete open_secs[sec];
		delete cake[sec];
		delete shaper[sec];
		last_flushed = sec;
	}

	// turn every second whose probes are all settled into a row
	function flush(now_ms) {
		// every probe of second s has answered or been reported lost by
		// (s + 1) s + timeout + 600 ms (fping's sweep runs every 500 ms)
		let upto = int((now_ms - 1000 - timeout_ms - 600) / 1000);

		// the clock stepped back: the rows describe another time line
		if (last_flushed != null && upto < last_flushed - 5) {
			sec_ring.clear();
			min_ring.clear();
			sec_ring.id = min_ring.id = env.id();
			open_secs = {};
			cake = {};
			cur_minute = last_flushed = null;
			log('clock stepped back, rings cleared');
		}

		// seconds with probes, plus every second while awake (rates)
		let start = (last_flushed != null) ? last_flushed + 1 : upto;

		for (let s in keys(open_secs))
			if (+s < start)
				start = +s;

		// never walk more than a ring's worth (after a long sleep)
		if (upto - start > 600)
			start = upto - 600;

		for (let s = start; s <= upto; s++)
			flush_second(s);

		for (let s in keys(cake))
			if (+s < upto - 5)
				delete cake[s];

		for (let s in keys(shaper))
			if (+s < upto - 5)
				delete shaper[s];
	}

	// one `tc -s -j qdisc show` reading (text, or null) taken in second sec;
	// returns the parsed CAKE readings { dl, ul } (null where a device has
	// no CAKE), or null when there was no reading (tc did not answer, or
	// not in JSON): that says nothing about CAKE
	function cake_reading(sec, text) {
		let data = null;

		try {
			data = (text != null) ? json(text) : null;
		}
		catch (e) {
			data = null;
		}

		if (type(data) != 'array')
			return null;

		let c = cake[sec] ??= {};

		for (let dir in [ 'dl', 'ul' ]) {
			let dev = cfg.cake?.[dir];

			if (!dev)
				continue;

			let cur = (data != null) ? counters.parse_cake(data, dev) : null;

			c[dir] = cur;
			c[`${dir}_prev`] = cake_prev[dir];
			cake_prev[dir] = cur;
		}

		return { dl: c.dl, ul: c.ul };
	}

	return {
		on_probe,
		flush,
		cake_reading,
		lowest_base,
		// adaptive shaping's rates { rx, tx } bit/s in second sec (the
		// row's sh_rx, sh_tx)
		shaper_rates: function(sec, r) {
			shaper[sec] = r;
		},
		// the WAN byte counters (wall ms, { rx, tx } | null) and the rates
		feed: (wall, bytes) => rates.feed(wall, bytes),
		recent: (ms) => rates.recent(ms),
		reset_rates: function() {
			rates = counters.rates();
		},
		reset_cake: function() {
			cake_prev = { dl: null, ul: null };
		},
		baseline: (t) => baselines[t]?.value(),
		// drop the baselines of reflectors no longer in the list
		keep_baselines: function(reflectors) {
			for (let t in keys(baselines))
				if (index(reflectors, t) < 0)
					delete baselines[t];
		},
		rings: () => ({ sec: sec_ring, min: min_ring })
	};
};
