// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping in the sampler service (reterm.monitor.service): feeds
// the controller (reterm.monitor.autorate) the probes and WAN rates, and
// sets what it decides on CAKE with `tc qdisc change ... cake bandwidth`
// (through the long-running batch tc: env.qdisc.change).  Nothing goes
// to uci or flash: a rate change lives in the qdisc only.
//
//   - every CAKE reading (once a second) is compared with our rate: sqm
//     restarted (or the WAN came back) with its own -> ours again; no
//     CAKE (sqm stopped, WAN down, the guided test's pause) -> hold
//   - stop() (disabled, retermd stopping) puts sqm's own rates back

'use strict';

import * as autorate from 'reterm.monitor.autorate';

// env: { clock, qdisc, log }; a: cfg.autorate (see settings.load_autorate)
export function create(env, a) {
	let ctl = autorate.create(a.settings, env.clock.mono());
	let present = { dl: null, ul: null };	// CAKE seen at the last reading
	let restored = false;

	function log(msg) {
		env.log?.(msg);
	}

	function set(d, kbit) {
		return env.qdisc.change(a.dev[d], kbit);
	}

	for (let d in autorate.DIRS)
		set(d, ctl.rate(d));

	log(sprintf('autorate on %s: dl %d..%d, ul %d..%d kbit/s', a.queue,
		a.settings.dl_min, a.settings.dl_max, a.settings.ul_min, a.settings.ul_max));

	// env.cost { ms }: time spent in the controller's calls (lab hook)
	function timed(f) {
		if (!env.cost)
			return f;

		return function(...args) {
			let a0 = clock(true), r = f(...args), a1 = clock(true);

			env.cost.ms += (a1[0] - a0[0]) * 1000.0 + (a1[1] - a0[1]) / 1000000.0;

			return r;
		};
	}

	return {
		queue: a.queue,

		probe: timed((r) => ctl.probe(r.target, r.rtt, r.t)),

		// rates: { rx, tx } bit/s over the last ticks (or null)
		tick: timed(function(now, rates) {
			for (let ch in ctl.tick(now, rates))
				if (present[ch.dir] !== false)
					set(ch.dir, ch.to);
		}),

		// the parsed CAKE readings of one `qdisc show` ({ dl, ul }:
		// counters.parse_cake results, null where there is none)
		cake: timed(function(readings) {
			for (let d in autorate.DIRS) {
				let r = readings?.[d];
				let kbit = (r?.bandwidth_bps != null) ? int(r.bandwidth_bps / 1000) : null;

				if (kbit == null) {
					if (present[d] !== false)
						log(`autorate: no CAKE on ${a.dev[d]} (sqm stopped or WAN down), holding ${ctl.rate(d)} kbit/s`);

					present[d] = false;
					continue;
				}

				let again = ctl.observed(d, kbit);

				if (again != null) {
					log(`autorate: ${a.dev[d]} has ${kbit} kbit/s (sqm restarted?), setting ${again} again`);
					set(d, again);
				}

				present[d] = true;
			}
		}),

		rates: () => ({ rx: ctl.rate('dl') * 1000, tx: ctl.rate('ul') * 1000 }),

		// sqm's own rates back on the qdiscs (disabled, retermd stops)
		stop: function() {
			if (restored)
				return;

			restored = true;

			for (let d in autorate.DIRS)
				if (a.sqm[d] > 0)
					set(d, a.sqm[d]);

			log(`autorate off on ${a.queue}: sqm's rates back`);
		},

		status: function(now, wall) {
			let st = ctl.status(now);
			let epoch = (t) => (t != null) ? int((wall - (now - t)) / 1000) : null;

			// copies: the controller keeps its own records (mono ms)
			st.decisions = map(st.decisions, (x) => {
				let o = { ...x, time: epoch(x.t), time_end: epoch(x.t_end) };

				delete o.t;
				delete o.t_end;

				return o;
			});

			return {
				enabled: true,
				queue: a.queue,
				devices: a.dev,
				settings: a.settings,
				...st,
				cake: { dl: present.dl, ul: present.ul }
			};
		}
	};
}
