// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping in the sampler service (reterm.latency.service): feeds
// the controller (reterm.latency.autorate.controller) the probes and WAN rates, and
// sets what it decides on CAKE with `tc qdisc change ... cake bandwidth`
// (through the long-running batch tc: env.qdisc.change).  Nothing goes
// to uci or flash: a rate change lives in the qdisc only.
//
//   - every CAKE reading (once a second) is compared with our rate: sqm
//     restarted (or the WAN came back) with its own -> ours again; no
//     CAKE (sqm stopped, WAN down, the guided test's pause) -> hold
//   - stop() (disabled, reterm-latencyd stopping) puts sqm's own rates back
//   - the first hops towards the first IPv4 and the first IPv6 reflector
//     are scanned at start and every hops.SCAN_MS (reterm.latency.probe.hops);
//     near() lists the ones to probe first (the service makes the
//     configured reflectors their fallback: reterm.latency.autorate.reflectors'
//     round()), hooks.retarget() is called when they changed
//   - off() lists the reflectors the controller shunned (silent, or late
//     on their own): not probed until their shun ends; hooks.retarget()
//     is called at the tick that sees the list change

'use strict';

import * as autorate from 'reterm.latency.autorate.controller';
import * as hops from 'reterm.latency.probe.hops';

// env: { clock, qdisc, log, timer, ttl_probe (optional: no scan without
// it), trace (optional, lab: each probe and tick as an object) }; a: cfg.autorate (see settings.load_autorate); hooks: { targets()
// (the reflectors to scan towards: the first IPv4 and the first IPv6 one,
// each scanned in turn), retarget() }
export function create(env, a, hooks) {
	let ctl = autorate.create(a.settings, env.clock.mono());
	let present = { dl: null, ul: null };	// CAKE seen at the last reading
	let restored = false;
	let near = [], found = [], scanned = null, scan = null, scan_timer = null, off = [];

	function log(msg) {
		env.log?.(msg);
	}

	function set(d, kbit) {
		return env.qdisc.change(a.dev[d], kbit);
	}

	for (let d in autorate.DIRS)
		set(d, ctl.rate(d));

	function rescan() {
		let targets = hooks?.targets?.() ?? [], all = [], next = [];

		scan_timer = null;

		if (!env.ttl_probe || !length(targets))
			return;

		function done() {
			found = all;
			scanned = env.clock.wall();
			scan_timer = env.timer(hops.SCAN_MS, rescan);

			if (sprintf('%J', next) != sprintf('%J', near)) {
				near = next;
				ctl.near(near);
				log(sprintf('autorate: near reflectors %s (first hops towards %s)',
					length(near) ? join(' ', near) : 'none', join(' ', targets)));
				hooks?.retarget?.();
			}
		}

		// one family after the other (one echo at a time)
		function one(i) {
			if (i >= length(targets))
				return done();

			scan.start(targets[i], (list) => {
				push(all, ...list);
				push(next, ...hops.pick(list, targets[i]));
				one(i + 1);
			});
		}

		scan ??= hops.scanner(env);
		one(0);
	}

	function close() {
		scan?.stop();
		scan_timer?.cancel();
		scan_timer = null;
		near = [];
		ctl.near(near);
	}

	scan_timer = env.timer?.(0, rescan);

	log(sprintf('autorate on %s: dl %d..%d, ul %d..%d kbit/s', a.queue,
		a.settings.dl_min, a.settings.dl_max, a.settings.ul_min, a.settings.ul_max));

	let last_rates = null;

	// one controller step; its changes go to CAKE
	function apply(now, rates, react) {
		let changes = ctl.tick(now, rates, react);

		for (let ch in changes)
			if (present[ch.dir] !== false)
				set(ch.dir, ch.to);

		env.trace?.({ t: now, w: env.clock.wall(), rx: rates?.rx, tx: rates?.tx, dl: ctl.rate('dl'), ul: ctl.rate('ul'),
			react, why: map(changes, (ch) => `${ch.dir} ${ch.reason}`),
			off: map(filter(ctl.status(now).reflectors, (r) => r.state != 'used'), (r) => r.target) });
	}

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

		// an answer above the threshold is acted on when it comes (cuts
		// only, with the last tick's rates): the next tick is up to
		// 200 ms away while the queue grows
		probe: timed(function(r) {
			let now = env.clock.mono();

			env.trace?.({ t: r.t, a: now, p: r.target, rtt: r.rtt, up: r.up, down: r.down });

			let delta = ctl.probe(r.target, r.rtt, r.t, (r.up != null) ? { up: r.up, down: r.down } : null);

			if (delta != null && delta > a.settings.delay_ms && last_rates)
				apply(now, last_rates, true);
		}),

		// rates: { rx, tx } bit/s over the last ticks (or null)
		tick: timed(function(now, rates) {
			last_rates = rates;
			apply(now, rates, false);

			let shunned = ctl.shunned(now);

			if (join(' ', shunned) != join(' ', off)) {
				off = shunned;
				hooks?.retarget?.();
			}
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

		// the near hops to probe (addresses)
		near: () => [ ...near ],

		// the reflectors not to probe now (addresses)
		off: () => [ ...off ],

		// no more scans (replaced by new settings)
		close,

		// sqm's own rates back on the qdiscs (disabled, reterm-latencyd stops)
		stop: function() {
			close();

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

			for (let r in st.reflectors) {
				let h = filter(found, (x) => x.addr == r.target)[0];

				r.hop = (h && index(near, r.target) >= 0) ? h.ttl : null;	// null: a configured one
			}

			return {
				enabled: true,
				queue: a.queue,
				hops: map(found, (h) => ({ ttl: h.ttl, addr: h.addr, used: index(near, h.addr) >= 0 })),
				scanned: (scanned != null) ? int(scanned / 1000) : null,
				devices: a.dev,
				settings: a.settings,
				...st,
				cake: { dl: present.dl, ul: present.ul }
			};
		}
	};
};
