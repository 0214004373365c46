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
//   - stop() (disabled, another queue watched, reterm-latencyd stopping)
//     puts back the rates sqm's config holds at that moment
//     (env.sqm_rates(queue); those read at start where it has none)
//   - env.record (a path, the daemon's RECORD): which queue and devices
//     are driven, written at start and removed by stop(); a start after an
//     unclean exit finds it and puts sqm's rates back first (recover())
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
import { netdev, matches } from 'reterm.validate';

export const RECORD = '/var/run/reterm/autorate.json';
const MAX_RECORD = 1024;

// a rate sqm may hold (kbit/s)
function kbit(v) {
	return (type(v) == 'int' && v >= autorate.MIN_KBIT && v <= autorate.MAX_KBIT) ? v : null;
}

// the rates sqm's config holds for queue now, each direction falling back
// to known's (env.sqm_rates: the daemon's reader; none in tests without it)
function sqm_now(env, queue, known) {
	let now = null, out = {};

	try {
		now = env.sqm_rates?.(queue);
	}
	catch (e) {
		now = null;
	}

	for (let d in autorate.DIRS)
		out[d] = kbit(now?.[d]) ?? kbit(known?.[d]);

	return out;
}

// sqm's rates back on dev { dl, ul } (a direction without one untouched)
function give_back(env, dev, queue, known) {
	let r = sqm_now(env, queue, known);

	for (let d in autorate.DIRS)
		if (r[d] != null)
			env.qdisc.change(dev[d], r[d]);

	return r;
}

// At start: the record an instance that ended uncleanly left (env.record,
// read at most MAX_RECORD bytes): sqm's rates back on its devices, the
// record removed.  A record whose queue or devices are not names, or
// whose rates are no numbers, sets nothing.  Also used without the daemon
// (/usr/libexec/reterm/latency-recover).
export function recover(env) {
	let text = env.record ? env.fs.readfile(env.record, MAX_RECORD) : null;

	if (text == null)
		return null;

	env.fs.unlink(env.record);

	let rec = null;

	try {
		rec = json(text);
	}
	catch (e) {
		rec = null;
	}

	let dev = { dl: netdev(rec?.dev?.dl), ul: netdev(rec?.dev?.ul) };
	let queue = matches(rec?.queue, /^[A-Za-z0-9_]{1,64}$/) ? rec.queue : null;

	if (queue == null || dev.dl == null || dev.ul == null) {
		env.log?.(`autorate: ${env.record} is not a record of ours, ignored`);
		return null;
	}

	let r = give_back(env, dev, queue, rec.sqm);

	env.log?.(sprintf('autorate: %s was left driven by an unclean exit: sqm\'s rates back (dl %s, ul %s kbit/s)',
		queue, r.dl ?? '-', r.ul ?? '-'));

	return r;
};

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

	if (env.record) {
		env.fs.mkdir?.(replace(env.record, /\/[^\/]*$/, ''));

		if (!env.fs.writefile(env.record, sprintf('%J\n', { queue: a.queue, dev: a.dev, sqm: a.sqm, pid: env.pid })))
			log(`autorate: cannot write ${env.record}: after an unclean exit sqm's rates come back with sqm`);
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
		// counters.parse_cake results, null where there is none); null:
		// no reading (tc did not answer in time): what CAKE holds is not
		// known, the rates still go to it
		cake: timed(function(readings) {
			if (readings == null)
				return;

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

		// the rates sqm's config holds now back on the qdiscs (disabled,
		// another queue watched, reterm-latencyd stops)
		stop: function() {
			close();

			if (restored)
				return;

			restored = true;

			let r = give_back(env, a.dev, a.queue, a.sqm);

			if (env.record)
				env.fs.unlink(env.record);

			log(sprintf('autorate off on %s: sqm\'s rates back (dl %s, ul %s kbit/s)', a.queue, r.dl ?? '-', r.ul ?? '-'));
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
