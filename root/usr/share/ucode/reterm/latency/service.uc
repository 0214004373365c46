// SPDX-License-Identifier: Apache-2.0
//
// The sampler service behind the ubus object `reterm.latency`: schedules
// probes and counter readings on timers, aggregates them into the ring
// buffers, runs the guided test, keeps its results, and answers the ubus
// methods (methods() below, plain functions: args in, reply out).
//
// Scheduling:
//   awake   after any method call or while a test runs; counters every
//           200 ms, CAKE stats once a second (from one long-running tc),
//           probes round robin over the reflectors (with adaptive
//           shaping its near hops first: targets()): 5/s while the WAN
//           is loaded (throughput above 20 % of the shaper rate in
//           either direction, or above 1 Mbit/s without a shaper; stays
//           "loaded" 5 s after the last such reading), else 1/s
//   asleep  60 s after the last call with no test running: no timers,
//           no probes, no processes; the rings keep their data (the gap
//           shows as null rows)
//
// Parts: the live rows (reterm.latency.live.rows), the guided tests and their
// results (reterm.latency.test.runner), the settings (reterm.latency.settings).
//
// Everything outside is injected (see create()), so tests run it on a
// fake clock with a fake prober.

'use strict';

import * as counters from 'reterm.latency.live.counters';
import * as stats from 'reterm.latency.stats';
import * as api from 'reterm.latency.api';
import * as store from 'reterm.latency.test.store';
import * as rows from 'reterm.latency.live.rows';
import * as endpoints from 'reterm.latency.test.endpoints';
import * as runner from 'reterm.latency.test.runner';
import * as settings from 'reterm.latency.settings';
import * as autoshaper from 'reterm.latency.autorate.shaper';
import * as reflectors from 'reterm.latency.autorate.reflectors';

export const COUNTER_MS = 200, CAKE_MS = 1000, SLEEP_MS = 60000, LOADED_HOLD_MS = 5000;
export const IDLE_INTERVAL_MS = 1000, LOADED_INTERVAL_MS = 200, PROBE_TIMEOUT_MS = 2000;
export const LOAD_SHARE = 0.2, LOAD_NO_SHAPER_BPS = 1000000, PROBE_RATE_MS = 10000, RATE_WINDOW_MS = 600;

// reterm-latencyd reads the settings through this module
export const load_config = settings.load_config, load_policy = settings.load_policy, sqm_rates = settings.sqm_rates;
export const AUTORATE_RECORD = autoshaper.RECORD;

// env:
//   clock     { mono(), wall() } ms
//   timer     (ms, cb) -> { set(ms), cancel() }
//   prober    start(targets, interval_ms, timeout_ms, cb) / stop() / name
//   readfile  (path) -> text | null
//   open      (path, mode) -> file handle, optional (WAN counters kept open)
//   qdisc     { show(cb(text|null)), close() }: `tc -s -j qdisc show`
//             (reterm.latency.live.qdisc)
//   load      (dir, url, streams) -> load group (reterm.latency.test.load)
//   fs        for the results files (reterm.latency.test.store)
//   fsync     (path) -> bool, optional (default: reterm.latency.test.store's)
//   id        () -> random hex string
//   log       (msg) optional
//   resolve   (host, cb(addrs | null, why)) -> { cancel() }: names for the
//             guided test, answered later from the loop
//             (reterm.latency.test.resolve); without it names are refused
//   policy    () -> load_policy() output, optional (default: no admin
//             test server, the default proxy port)
//   sqm_rates (queue) -> { dl, ul } kbit/s: sqm's config now (load_config's
//             sqm_rates), optional: adaptive shaping gives them back
//   record    path, optional: adaptive shaping's record (AUTORATE_RECORD)
//   pid       this process's, optional (in the records)
//   guard     (until) -> process, optional: the shaping pause's guard
//   run       (argv, cb(exit code | null)): a command without a shell,
//             answered from the loop (the shaping pause runs sqm-scripts'
//             run.sh); without it test_start refuses pause_shaping
// cfg: load_config() output (+ sleep_ms, probe_timeout_ms, test_gap_ms
// overrides)
export function create(env, cfg) {
	let sleep_ms = cfg.sleep_ms ?? SLEEP_MS, timeout_ms = cfg.probe_timeout_ms ?? PROBE_TIMEOUT_MS;
	let live = rows.create(env, cfg, timeout_ms);
	let wan_bytes = cfg.wan ? counters.bytes_reader(cfg.wan, { open: env.open, readfile: env.readfile }) : null;
	let awake = false, last_call = null, counter_timer = null, cake_timer = null;
	let counter_due = null;	// mono ms the running counter tick was due
	let interval = null, loaded_until = null, loaded = false;
	let tests = null;	// the guided tests (reterm.latency.test.runner), below
	let auto = null;	// adaptive shaping (reterm.latency.autorate.shaper)
	let probe_times = [];	// mono ms of the probes of the last PROBE_RATE_MS
	let self;

	function wall_s() {
		return int(env.clock.wall() / 1000);
	}

	function log(msg) {
		env.log?.(msg);
	}

	// every probe result: the live rows, adaptive shaping, the probe rate
	function on_probe(r) {
		// only the last PROBE_RATE_MS are kept (reterm-latencyd may run for weeks
		// with adaptive shaping and nobody asking for the rate)
		while (length(probe_times) && r.t - probe_times[0] > PROBE_RATE_MS)
			shift(probe_times);

		push(probe_times, r.t);
		live.on_probe(r);
		auto?.probe(r);
	}

	function probes_per_s(now) {
		probe_times = filter(probe_times, (t) => now - t <= PROBE_RATE_MS);

		return int(length(probe_times) * 10000 / PROBE_RATE_MS) / 10.0;
	}

	// the probing round (reterm.latency.autorate.reflectors' round(): adaptive
	// shaping's near hops first, the configured reflectors their fallback)
	function targets() {
		return reflectors.round(auto ? auto.near() : [], cfg.reflectors, auto ? auto.off() : []);
	}

	function set_interval(ms) {
		if (tests.running())
			return;

		if (ms == interval)
			return;

		interval = ms;

		if (ms == null)
			env.prober.stop();
		else
			env.prober.start(targets(), ms, timeout_ms, on_probe);
	}

	// new targets: their baselines kept, the probing restarted on them
	function retarget() {
		live.keep_baselines(uniq(targets()));

		if (interval != null && !tests.running()) {
			let ms = interval;

			interval = null;
			set_interval(ms);
		}
	}

	function is_loaded(now) {
		let r = live.recent(1000);

		if (r) {
			let sh = auto ? auto.rates() : cfg.shaper;
			let over = (bps, limit) => (limit ? bps > LOAD_SHARE * limit : bps > LOAD_NO_SHAPER_BPS);

			if (over(r.rx, sh?.rx) || over(r.tx, sh?.tx))
				loaded_until = now + LOADED_HOLD_MS;
		}

		return loaded_until != null && now < loaded_until;
	}

	function counter_tick() {
		let now = env.clock.mono(), wall = env.clock.wall();

		live.feed(wall, wan_bytes ? wan_bytes.read() : null);

		if (auto) {
			// the window's rates, and the newest reading's for cuts
			let r = live.recent(RATE_WINDOW_MS);

			auto.tick(now, r ? { ...r, now: live.recent(COUNTER_MS) } : r);
			live.shaper_rates(int(wall / 1000), auto.rates());
		}

		loaded = is_loaded(now);

		let running = tests.running();

		// adaptive shaping keeps the sampler awake
		if (!running && !auto && last_call != null && now - last_call > sleep_ms) {
			self.sleep();
			return;
		}

		set_interval(loaded ? LOADED_INTERVAL_MS : IDLE_INTERVAL_MS);
		live.flush(wall);

		// the next a period after this one was due, not after it ended
		// (a busy router's ticks would drift by their own time); more
		// than a period late (the loop was blocked): none made up
		counter_due = (counter_due != null && now - counter_due < COUNTER_MS) ? counter_due + COUNTER_MS : now + COUNTER_MS;
		counter_timer?.set(max(0, counter_due - env.clock.mono()));
	}

	// One `tc -s -j qdisc show` a second (all devices, answered by one
	// long-running tc: env.qdisc) gives both CAKE instances.
	function cake_tick() {
		let sec = wall_s();

		env.qdisc.show((text) => {
			let rd = live.cake_reading(sec, text);

			auto?.cake(rd);
		});

		cake_timer?.set(CAKE_MS);
	}

	function wake() {
		last_call = env.clock.mono();

		if (awake)
			return;

		awake = true;
		log('awake');
		counter_due = null;
		counter_timer = env.timer(0, counter_tick);

		if (cfg.cake)
			cake_timer = env.timer(0, cake_tick);
	}

	// adaptive shaping on with cfg.autorate's settings, or off (sqm's
	// rates back)
	// (called at start and when cfg.autorate changed)
	function autorate_follow() {
		let had = auto != null && (length(auto.near()) > 0 || length(auto.off()) > 0);

		// sqm's rates back first: the settings, or the queue, changed
		auto?.stop();

		auto = cfg.autorate ? autoshaper.create(env, cfg.autorate, {
			targets: () => filter([ filter(cfg.reflectors, (t) => index(t, ':') < 0)[0],
				filter(cfg.reflectors, (t) => index(t, ':') >= 0)[0] ], (t) => t != null),
			retarget
		}) : null;

		if (had)
			retarget();

		if (auto)
			wake();
	}

	tests = runner.create(env, cfg, {
		wake,
		on_probe,
		pause: function() {
			env.prober.stop();
			interval = null;
		},
		resume: function(mono) {
			interval = null;
			last_call = mono;
		}
	});

	self = {
		// reterm-latencyd stops: sqm's own rates back on the qdiscs
		shutdown: function() {
			auto?.stop();
			auto = null;
			self.sleep();
		},

		sleep: function() {
			counter_timer?.cancel();
			cake_timer?.cancel();
			counter_timer = cake_timer = null;
			env.prober.stop();
			env.qdisc.close();
			wan_bytes?.close();
			interval = null;
			awake = false;
			loaded_until = null;
			live.reset_cake();
			log('asleep');
		},

		// New settings (a load_config() result) on a `reload`: the rings,
		// the baselines of kept reflectors and a running test stay; the
		// test finishes with the settings it started with.  The prober
		// kind is chosen at start: a change waits for the next restart.
		reconfigure: function(next) {
			let changed = [];
			let differs = (k) => sprintf('%J', next[k]) != sprintf('%J', cfg[k]);

			for (let k in [ 'reflectors', 'wan', 'shaper', 'cake', 'autorate' ])
				if (differs(k))
					push(changed, k);

			let warnings = [ ...(next.warnings ?? []) ];

			if (next.prober != cfg.prober)
				push(warnings, sprintf('prober %J takes effect when reterm-latencyd restarts', next.prober));

			for (let k in [ 'reflectors', 'wan', 'shaper', 'cake', 'autorate', 'autorate_error' ])
				cfg[k] = next[k];

			cfg.warnings = warnings;

			if (index(changed, 'wan') >= 0) {
				wan_bytes?.close();
				wan_bytes = cfg.wan ? counters.bytes_reader(cfg.wan, { open: env.open, readfile: env.readfile }) : null;
				live.reset_rates();
			}

			// restart the monitor's probing on the new targets
			if (index(changed, 'reflectors') >= 0)
				retarget();

			if (index(changed, 'cake') >= 0) {
				live.reset_cake();

				if (awake && cfg.cake && !cake_timer)
					cake_timer = env.timer(0, cake_tick);
				else if (!cfg.cake && cake_timer) {
					cake_timer.cancel();
					cake_timer = null;
				}
			}

			if (index(changed, 'autorate') >= 0)
				autorate_follow();

			log(sprintf('settings reloaded%s', length(changed) ? ': ' + join(', ', changed) : ', unchanged'));

			return { reloaded: true, changed, warnings };
		},

		awake: () => awake,
		loaded: () => loaded,
		interval: () => interval,
		rings: live.rings,
		results: () => tests.list(),
		// pending results to flash now (reterm-latencyd on SIGTERM)
		persist: () => tests.persist(),
		// a shaping pause a previous reterm-latencyd left (at start), or this
		// one's (on SIGTERM): sqm runs again
		recover: (cb) => tests.recover(cb),
		end_pause: (why, cb) => tests.restore(why, cb),

		// each call checked against reterm.latency.api first
		methods: api.checked({
			samples: function(a) {
				wake();

				let rg = live.rings();
				let r = (a.step == 60 ? rg.min : rg.sec).samples(a.since, wall_s());
				let base = live.lowest_base();

				if (base != null)
					r.base = stats.round1(base);

				if (cfg.shaper)
					r.shaper = { rx: cfg.shaper.rx, tx: cfg.shaper.tx };

				r.probe = env.prober.name;

				return r;
			},

			status: function() {
				wake();

				let bl = [];

				for (let t in cfg.reflectors)
					push(bl, { target: t, baseline: stats.round1(live.baseline(t)) });

				return {
					state: awake ? 'awake' : 'asleep',
					prober: env.prober.name,
					reflectors: bl,
					interval_ms: interval,
					loaded,
					wan: cfg.wan,
					shaper: cfg.shaper,
					cake: cfg.cake,
					base: stats.round1(live.lowest_base()),
					test: tests.running() ? 'running' : 'idle',
					pause: tests.pause_status(),
					endpoints: endpoints.list(),
					results: length(tests.list()),
					probes_per_s: probes_per_s(env.clock.mono()),
					autorate: auto ? 'on' : cfg.autorate_error ? 'error' : 'off',
					results_path: store.FLASH_PATH,
					id: live.rings().sec.id,
					now: wall_s(),
					warnings: cfg.warnings ?? []
				};
			},

			autorate_status: function() {
				wake();

				let now = env.clock.mono();

				if (!auto)
					return { enabled: false, reason: cfg.autorate_error, probes_per_s: probes_per_s(now) };

				return { ...auto.status(now, env.clock.wall()), probes_per_s: probes_per_s(now) };
			},

			...tests.methods
		})
	};

	// what an instance that ended uncleanly left driven: sqm's rates back
	autoshaper.recover(env);
	autorate_follow();

	return self;
};
