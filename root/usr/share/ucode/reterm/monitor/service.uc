// SPDX-License-Identifier: Apache-2.0
//
// The sampler service behind the ubus object `reterm.monitor`: schedules
// probes and counter readings on timers, aggregates them into the ring
// buffers, runs the guided test, keeps its results, and answers the ubus
// methods (methods() below, plain functions: args in, reply out).
//
// Scheduling:
//   awake   after any method call or while a test runs; counters every
//           200 ms, CAKE stats once a second (from one long-running tc),
//           probes round robin over the reflectors: 5/s while the WAN
//           is loaded (throughput above 20 % of the shaper rate in
//           either direction, or above 1 Mbit/s without a shaper; stays
//           "loaded" 5 s after the last such reading), else 1/s
//   asleep  60 s after the last call with no test running: no timers,
//           no probes, no processes; the rings keep their data (the gap
//           shows as null rows)
//
// Rows: a probe belongs to the second it was sent in; that second becomes
// a row when its last probe has answered or timed out (timeout + 0.6 s
// after it ended: rows lag ~3.6 s), with the WAN rates of the same second and the CAKE
// readings taken in it.  Reflectors at different distances are
// normalised by their own baseline (slow rising / fast falling minimum):
// rtt - own baseline + the lowest baseline; `base` is that lowest one.
//
// Everything outside is injected (see create()), so tests run it on a
// fake clock with a fake prober.

'use strict';

import * as stats from 'reterm.monitor.stats';
import * as ring from 'reterm.monitor.ring';
import * as counters from 'reterm.monitor.counters';
import * as args from 'reterm.monitor.args';
import * as store from 'reterm.monitor.store';
import * as gtest from 'reterm.monitor.test';
import * as target from 'reterm.monitor.target';
import { RESOLVE_TIMEOUT_MS } from 'reterm.monitor.resolve';
import { netdev } from 'reterm.validate';

export const DEFAULT_REFLECTORS = [ '1.1.1.1', '9.9.9.9', '8.8.8.8', '2606:4700:4700::1111' ];
export const COUNTER_MS = 200, CAKE_MS = 1000, SLEEP_MS = 60000, LOADED_HOLD_MS = 5000;
export const IDLE_INTERVAL_MS = 1000, LOADED_INTERVAL_MS = 200, PROBE_TIMEOUT_MS = 2000;
export const LOAD_SHARE = 0.2, LOAD_NO_SHAPER_BPS = 1000000;

// the guided test: a gap after each test (ended or stopped) before the
// next may start, and how long a name may take to resolve (the
// resolver's own limit and a little) before test_start refuses it
export const TEST_GAP_MS = 30000, RESOLVE_GUARD_MS = RESOLVE_TIMEOUT_MS + 1000;

// test_start's one answer for every refused target (the reason goes to
// the log only: the reply must not tell what is there)
export const REFUSED_TEXT = 'the test server is not allowed: test servers must be public Internet addresses ' +
	'(every address the name resolves to) on port 80, 443 or 8080; a server on the local network can only be ' +
	'allowed by the router\'s administrator (option test_server in /etc/config/reterm_admin)';

function err(code, message) {
	return { error: code, message };
}

// The admin-only test server and the proxy port, read at each test_start
// (no reload needed):
//   reterm_admin.monitor.test_server   host names or IP addresses (option
//                                      or list) that may be private and
//                                      use any port
//   reterm.main.port                   reterm's proxy listener, never a
//                                      target on this router
// -> { test_servers: [ canonical hosts ], proxy_port, warnings }
export function load_policy(cursor) {
	let out = { test_servers: [], proxy_port: target.PROXY_PORT, warnings: [] };
	let v = cursor.get('reterm_admin', 'monitor', 'test_server');

	for (let h in (type(v) == 'array') ? v : (type(v) == 'string') ? split(trim(v), /[ \t]+/) : []) {
		let c = args.ip(h) ?? args.hostname(h);

		if (c == null)
			push(out.warnings, sprintf('reterm_admin test_server %J is not a host name or IP address, ignored', h));
		else if (index(out.test_servers, c) < 0)
			push(out.test_servers, c);
	}

	let p = cursor.get('reterm', 'main', 'port');

	if (p != null && match(p, /^[1-9][0-9]{0,4}$/) && +p <= 65535)
		out.proxy_port = +p;

	return out;
}

// Monitor settings from uci (`config monitor 'monitor'` in
// /etc/config/reterm) and sqm; invalid values fall back to defaults and
// are reported in .warnings.
//   { enabled, reflectors, prober, wan, shaper {rx, tx} | null,
//     cake { dl, ul } (devices), warnings }
export function load_config(cursor, wan_lookup) {
	let s = cursor.get_all('reterm', 'monitor') ?? {};
	let warnings = [], cfg = { enabled: s.enabled != '0' };

	let refl = s.reflector;

	if (type(refl) == 'string')
		refl = [ refl ];

	cfg.reflectors = [];

	for (let r in refl ?? []) {
		let ip = args.ip(r);

		if (ip == null)
			push(warnings, sprintf('reflector %J is not an IP address, ignored', r));
		else if (index(cfg.reflectors, ip) < 0)
			push(cfg.reflectors, ip);
	}

	if (!length(cfg.reflectors))
		cfg.reflectors = [ ...DEFAULT_REFLECTORS ];

	cfg.prober = s.prober ?? 'auto';

	if (index([ 'auto', 'fping', 'icmp', 'ping' ], cfg.prober) < 0) {
		push(warnings, sprintf('prober %J unknown, using auto', cfg.prober));
		cfg.prober = 'auto';
	}

	// results live in one fixed place (reterm.monitor.store); the old
	// option's default was that place
	if (s.results != null && s.results != store.FLASH_PATH)
		push(warnings, sprintf('option results %J is no longer used: results are kept in %s and %s',
			s.results, store.RAM_PATH, store.FLASH_PATH));

	// the app's LuCI users may write /etc/config/reterm: not there
	if (s.test_server != null)
		push(warnings, 'option test_server in /etc/config/reterm is ignored: it belongs in /etc/config/reterm_admin');

	let queues = [];

	try {
		queues = counters.sqm_queues(cursor);
	}
	catch (e) {
		queues = [];
	}

	let want = null;

	if (s.wan_device != null) {
		want = netdev(s.wan_device);

		if (want == null)
			push(warnings, sprintf('wan_device %J is not a device name, ignored', s.wan_device));
	}

	let q = null;

	for (let x in queues)
		if (want == null || x.iface == want) {
			q = x;
			break;
		}

	cfg.wan = want ?? q?.iface ?? (wan_lookup ? wan_lookup() : null);
	cfg.shaper = (q && (q.download_bps || q.upload_bps)) ? { rx: q.download_bps, tx: q.upload_bps } : null;
	cfg.cake = (q && q.qdisc == 'cake') ? { dl: q.ifb, ul: q.iface } : null;
	cfg.warnings = warnings;

	return cfg;
}

// env:
//   clock     { mono(), wall() } ms
//   timer     (ms, cb) -> { set(ms), cancel() }
//   prober    start(targets, interval_ms, timeout_ms, cb) / stop() / name
//   readfile  (path) -> text | null
//   open      (path, mode) -> file handle, optional (WAN counters kept open)
//   qdisc     { show(cb(text|null)), close() }: `tc -s -j qdisc show`
//             (reterm.monitor.qdisc)
//   load      (dir, url, streams) -> load group (reterm.monitor.load)
//   fs        for the results files (reterm.monitor.store)
//   fsync     (path) -> bool, optional (default: reterm.monitor.store's)
//   id        () -> random hex string
//   log       (msg) optional
//   resolve   (host, cb(addrs | null, why)) -> { cancel() }: names for the
//             guided test, answered later from the loop
//             (reterm.monitor.resolve); without it names are refused
//   policy    () -> load_policy() output, optional (default: no admin
//             test server, proxy port 15001)
// cfg: load_config() output (+ sleep_ms, probe_timeout_ms, test_gap_ms
// overrides)
export function create(env, cfg) {
	let sleep_ms = cfg.sleep_ms ?? SLEEP_MS, timeout_ms = cfg.probe_timeout_ms ?? PROBE_TIMEOUT_MS;
	let gap_ms = cfg.test_gap_ms ?? TEST_GAP_MS;
	let sec_ring = ring.create({ step: 1, size: 600, id: env.id() });
	let min_ring = ring.create({ step: 60, size: 1440, id: sec_ring.id });
	let rates = counters.rates();
	let wan_bytes = cfg.wan ? counters.bytes_reader(cfg.wan, { open: env.open, readfile: env.readfile }) : null;
	let awake = false, last_call = null, counter_timer = null, cake_timer = null;
	let interval = null, loaded_until = null, loaded = false;
	let open_secs = {};		// second -> { rtts, sent, lost }
	let baselines = {};		// target -> tracker
	let cake = {};			// second -> { dl, ul } parsed readings
	let cake_prev = { dl: null, ul: null };
	let cur_minute = null, last_flushed = null;
	let saved = store.open(env.fs, { timer: env.timer, clock: env.clock, fsync: env.fsync, log: (m) => env.log?.(m) });
	let test = null, results = saved.list();
	let starting = null;	// a test_start waiting for name resolution
	let last_end = null;	// mono ms when the last test ended
	let self;

	function wall_s() {
		return int(env.clock.wall() / 1000);
	}

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
	}

	function set_interval(ms) {
		if (test && test.state() == 'running')
			return;

		if (ms == interval)
			return;

		interval = ms;

		if (ms == null)
			env.prober.stop();
		else
			env.prober.start(cfg.reflectors, ms, timeout_ms, on_probe);
	}

	function is_loaded(now) {
		let r = rates.recent(1000);

		if (r) {
			let sh = cfg.shaper;
			let over = (bps, limit) => (limit ? bps > LOAD_SHARE * limit : bps > LOAD_NO_SHAPER_BPS);

			if (over(r.rx, sh?.rx) || over(r.tx, sh?.tx))
				loaded_until = now + LOADED_HOLD_MS;
		}

		return loaded_until != null && now < loaded_until;
	}

	function counter_tick() {
		let now = env.clock.mono(), wall = env.clock.wall();

		rates.feed(wall, wan_bytes ? wan_bytes.read() : null);

		loaded = is_loaded(now);

		let running = test && test.state() == 'running';

		if (!running && last_call != null && now - last_call > sleep_ms) {
			self.sleep();
			return;
		}

		set_interval(loaded ? LOADED_INTERVAL_MS : IDLE_INTERVAL_MS);
		flush(wall);

		counter_timer?.set(COUNTER_MS);
	}

	// One `tc -s -j qdisc show` a second (all devices, answered by one
	// long-running tc: env.qdisc) gives both CAKE instances.
	function cake_tick() {
		let sec = wall_s();

		env.qdisc.show((text) => {
			let c = cake[sec] ??= {}, data = null;

			try {
				data = (text != null) ? json(text) : null;
			}
			catch (e) {
				data = null;
			}

			for (let dir in [ 'dl', 'ul' ]) {
				let dev = cfg.cake?.[dir];

				if (!dev)
					continue;

				let cur = (data != null) ? counters.parse_cake(data, dev) : null;

				c[dir] = cur;
				c[`${dir}_prev`] = cake_prev[dir];
				cake_prev[dir] = cur;
			}
		});

		cake_timer?.set(CAKE_MS);
	}

	function wake() {
		last_call = env.clock.mono();

		if (awake)
			return;

		awake = true;
		log('awake');
		counter_timer = env.timer(0, counter_tick);

		if (cfg.cake)
			cake_timer = env.timer(0, cake_tick);
	}

	function test_done(result) {
		results = saved.add(result);
		log(sprintf('test %s finished: grade %s%s', result.id, result.grade ?? '-',
			result.inconclusive ? ' (inconclusive)' : ''));

		// monitor probing resumes on the next counter tick
		interval = null;
		last_call = last_end = env.clock.mono();
	}

	// seconds until the next test may start (0: now)
	function gap_left() {
		let ms = (last_end == null) ? 0 : last_end + gap_ms - env.clock.mono();

		return (ms > 0) ? int((ms + 999) / 1000) : 0;
	}

	function refuse(url, why) {
		log(sprintf('test_start refused: %s: %s', url.url, why));

		return err('target_refused', REFUSED_TEXT);
	}

	function policy() {
		let p = env.policy ? env.policy() : null;

		for (let w in p?.warnings ?? [])
			log(w);

		return {
			test_servers: p?.test_servers ?? [],
			proxy_port: p?.proxy_port ?? target.PROXY_PORT,
			own: null
		};
	}

	// the checks after resolution (resolved: host -> addresses), then the
	// test; the loads get the checked addresses (url.addrs) and connect
	// to those only
	function begin(a, pol, resolved) {
		let urls = {};

		pol.own = target.own(env.readfile?.('/proc/net/fib_trie'), env.readfile?.('/proc/net/if_inet6'));

		for (let k in [ 'download_url', 'upload_url' ]) {
			let u = a[k];
			let addrs = (u.family != null) ? [ u.host ] : (resolved[u.host] ?? []);
			let why = target.check_addrs(u, addrs, pol);

			if (why != null)
				return refuse(u, why);

			urls[k] = { ...u, addrs };
		}

		wake();
		env.prober.stop();
		interval = null;

		let wan0 = cfg.wan;

		test = gtest.run({
			clock: env.clock,
			timer: (ms, cb) => env.timer(ms, cb),
			prober: env.prober,
			load: env.load,
			wan: wan0 ? () => counters.read_bytes(wan0, env.readfile) : null,
			id: env.id
		}, {
			download_url: urls.download_url,
			upload_url: urls.upload_url,
			streams: a.streams,
			reflectors: cfg.reflectors,
			shaper: cfg.shaper,
			wan: cfg.wan,
			on_sample: on_probe,
			on_done: test_done
		});

		return { started: true, id: test.id, total: gtest.total_secs(), phases: gtest.phases() };
	}

	self = {
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
			cake_prev = { dl: null, ul: null };
			log('asleep');
		},

		// New settings (a load_config() result) on a `reload`: the rings,
		// the baselines of kept reflectors and a running test stay; the
		// test finishes with the settings it started with.  The prober
		// kind is chosen at start: a change waits for the next restart.
		reconfigure: function(next) {
			let changed = [];
			let differs = (k) => sprintf('%J', next[k]) != sprintf('%J', cfg[k]);

			for (let k in [ 'reflectors', 'wan', 'shaper', 'cake' ])
				if (differs(k))
					push(changed, k);

			let warnings = [ ...(next.warnings ?? []) ];

			if (next.prober != cfg.prober)
				push(warnings, sprintf('prober %J takes effect when retermd restarts', next.prober));

			for (let k in [ 'reflectors', 'wan', 'shaper', 'cake' ])
				cfg[k] = next[k];

			cfg.warnings = warnings;

			if (index(changed, 'wan') >= 0) {
				wan_bytes?.close();
				wan_bytes = cfg.wan ? counters.bytes_reader(cfg.wan, { open: env.open, readfile: env.readfile }) : null;
				rates = counters.rates();
			}

			if (index(changed, 'reflectors') >= 0) {
				for (let t in keys(baselines))
					if (index(cfg.reflectors, t) < 0)
						delete baselines[t];

				// restart the monitor's probing on the new targets
				if (interval != null && !(test && test.state() == 'running')) {
					let ms = interval;

					interval = null;
					set_interval(ms);
				}
			}

			if (index(changed, 'cake') >= 0) {
				cake_prev = { dl: null, ul: null };

				if (awake && cfg.cake && !cake_timer)
					cake_timer = env.timer(0, cake_tick);
				else if (!cfg.cake && cake_timer) {
					cake_timer.cancel();
					cake_timer = null;
				}
			}

			log(sprintf('settings reloaded%s', length(changed) ? ': ' + join(', ', changed) : ', unchanged'));

			return { reloaded: true, changed, warnings };
		},

		awake: () => awake,
		loaded: () => loaded,
		interval: () => interval,
		rings: () => ({ sec: sec_ring, min: min_ring }),
		results: () => results,
		// pending results to flash now (retermd on SIGTERM)
		persist: () => saved.persist(),

		methods: {
			samples: function(a) {
				let c = args.check_args(a, args.SPEC.samples);

				if (c.error)
					return c;

				wake();

				let r = (c.args.step == 60 ? min_ring : sec_ring).samples(c.args.since, wall_s());
				let base = lowest_base();

				if (base != null)
					r.base = stats.round1(base);

				if (cfg.shaper)
					r.shaper = { rx: cfg.shaper.rx, tx: cfg.shaper.tx };

				r.probe = env.prober.name;

				return r;
			},

			status: function(a) {
				let c = args.check_args(a, args.SPEC.status);

				if (c.error)
					return c;

				wake();

				let bl = [];

				for (let t in cfg.reflectors)
					push(bl, { target: t, baseline: stats.round1(baselines[t]?.value()) });

				return {
					state: awake ? 'awake' : 'asleep',
					prober: env.prober.name,
					reflectors: bl,
					interval_ms: interval,
					loaded,
					wan: cfg.wan,
					shaper: cfg.shaper,
					cake: cfg.cake,
					base: stats.round1(lowest_base()),
					test: (test && test.state() == 'running') ? 'running' : 'idle',
					results: length(results),
					results_path: store.FLASH_PATH,
					id: sec_ring.id,
					now: wall_s(),
					warnings: cfg.warnings ?? []
				};
			},

			// reply(obj): for an answer that comes later.  With a host
			// name the reply waits for its resolution (in a child
			// process, the loop runs on): test_start then returns null
			// and calls reply() once, from the loop (retermd defers the
			// ubus reply).  IP addresses are answered at once.
			test_start: function(a, reply) {
				let c = args.check_args(a, args.SPEC.test_start);

				if (c.error)
					return c;

				if (starting || (test && test.state() == 'running'))
					return err('busy', 'a test is already running');

				let wait = gap_left();

				if (wait > 0)
					return { error: 'too_soon', wait_s: wait,
					         message: sprintf('the last test ended less than %d s ago: wait %d s and start again',
					                          int(gap_ms / 1000), wait) };

				let pol = policy(), u = c.args;

				for (let k in [ 'download_url', 'upload_url' ]) {
					let why = target.check_port(u[k], pol);

					if (why != null)
						return refuse(u[k], why);
				}

				let names = [];

				for (let k in [ 'download_url', 'upload_url' ])
					if (u[k].family == null && index(names, u[k].host) < 0)
						push(names, u[k].host);

				if (!length(names))
					return begin(u, pol, {});

				if (type(reply) != 'function' || !env.resolve)
					return err('internal', 'host names cannot be resolved here; give the test server as an IP address');

				let resolved = {}, left = length(names), answer = null, inside = true;
				let me = { jobs: [], guard: null };

				function conclude(r) {
					if (starting !== me)
						return;

					starting = null;
					me.guard?.cancel();

					for (let j in me.jobs)
						j?.cancel();

					if (inside)
						answer = r;
					else
						reply(r);
				}

				starting = me;
				wake();
				me.guard = env.timer(RESOLVE_GUARD_MS, () => {
					me.guard = null;
					conclude(refuse(u.download_url, sprintf('no answer from the resolver within %d s', RESOLVE_GUARD_MS / 1000)));
				});

				for (let n in names) {
					let host = n;

					push(me.jobs, env.resolve(host, (addrs, why) => {
						if (starting !== me)
							return;

						if (addrs == null) {
							let bad = (u.download_url.host == host) ? u.download_url : u.upload_url;

							return conclude(refuse(bad, sprintf('%s %s', host, why ?? 'does not resolve')));
						}

						resolved[host] = addrs;

						if (--left == 0)
							conclude(begin(u, pol, resolved));
					}));
				}

				inside = false;

				return answer;
			},

			test_status: function(a) {
				let c = args.check_args(a, args.SPEC.test_status);

				if (c.error)
					return c;

				wake();

				return test ? test.status() : { state: 'idle' };
			},

			test_stop: function(a) {
				let c = args.check_args(a, args.SPEC.test_stop);

				if (c.error)
					return c;

				if (!test || test.state() != 'running')
					return err('not_running', 'no test is running');

				test.stop();

				return test.status();
			},

			results: function(a) {
				let c = args.check_args(a, args.SPEC.results);

				if (c.error)
					return c;

				if (c.args.id != null) {
					for (let r in results)
						if (r.id == c.args.id)
							return { result: r };

					return err('not_found', sprintf('no result with id %J', c.args.id));
				}

				return { results: map(results, store.summary) };
			}
		}
	};

	return self;
}

// The argument declarations for ubus publish(): typed examples as rpcd
// and ubusd expect them.
export const UBUS_ARGS = {
	samples: { since: 0, step: 1 },
	test_start: { download_url: '', upload_url: '', streams: 4 },
	test_status: {},
	test_stop: {},
	results: { id: '' },
	status: {}
};
