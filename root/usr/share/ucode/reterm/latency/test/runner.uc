// SPDX-License-Identifier: Apache-2.0
//
// The sampler service's guided tests (reterm.latency.service): the ubus
// methods test_start (the gap after the last test, the admin policy,
// name resolution, the target checks, then reterm.latency.test.guided),
// test_status, test_stop and results, one test at a time, and the kept
// results (reterm.latency.test.store).

'use strict';

import * as counters from 'reterm.latency.live.counters';
import { error } from 'reterm.reply';
import * as store from 'reterm.latency.test.store';
import * as gtest from 'reterm.latency.test.guided';
import * as target from 'reterm.latency.target';
import * as pause from 'reterm.latency.test.pause';
import * as endpoints from 'reterm.latency.test.endpoints';
import { pick } from 'reterm.latency.test.pick';
import { CA_FILE } from 'reterm.latency.settings';

// the guided test: a gap after each attempt before the next may start:
// after a test (ended or stopped) and after a start that the target
// checks refused or that found no working server, so that a caller
// cannot try one target after another; how long a name may take to
// resolve (the resolver's own limit and a little) is
// reterm.latency.test.pick's
const TEST_GAP_MS = 30000;

// test_start's one answer for every refused target (the reason goes to
// the log only: the reply must not tell what is there)
const REFUSED_TEXT = 'the test server is not allowed: test servers must be public Internet addresses ' +
	'(every address the name resolves to) on port 80, 443 or 8080; a server on the local network can only be ' +
	'allowed by the router\'s administrator (option test_server in /etc/config/reterm_admin)';

// env: the service's (see reterm.latency.service create())
// cfg: the service's settings (read live: reflectors, wan, shaper; and
// test_gap_ms)
// hooks:
//   wake()       a method call: keeps the service awake
//   on_probe(r)  where the test's probes go as well (the live rows)
//   pause()      a test starts: the monitor's own probing stops
//   resume(ms)   a test ended (mono ms): the monitor's probing resumes
export function create(env, cfg, hooks) {
	let gap_ms = cfg.test_gap_ms ?? TEST_GAP_MS;
	let saved = store.open(env.fs, { timer: env.timer, clock: env.clock, fsync: env.fsync, log: (m) => env.log?.(m) });
	let test = null, results = saved.list();
	let starting = null;	// a test_start waiting for name resolution or the pause
	let last_end = null;	// mono ms when the last test or attempt ended
	let shaping = pause.create({ run: env.run, fs: env.fs, clock: env.clock, timer: env.timer,
	                             log: (m) => env.log?.(m), pid: env.pid, guard: env.guard });

	function log(msg) {
		env.log?.(msg);
	}

	function test_done(result) {
		// the router ends its own pause: no browser needed
		shaping.restore('the test ended');

		results = saved.add(result);
		log(sprintf('test %s finished: grade %s%s', result.id, result.grade ?? '-',
			result.inconclusive ? ' (inconclusive)' : ''));

		// monitor probing resumes on the next counter tick
		last_end = env.clock.mono();
		hooks.resume(last_end);
	}

	// seconds until the next test may start (0: now)
	function gap_left() {
		let ms = (last_end == null) ? 0 : last_end + gap_ms - env.clock.mono();

		return (ms > 0) ? int((ms + 999) / 1000) : 0;
	}

	function refuse(url, why) {
		log(sprintf('test_start refused: %s: %s', url.url, why));
		last_end = env.clock.mono();

		return error('target_refused', REFUSED_TEXT);
	}

	function policy() {
		let p = env.policy ? env.policy() : null;

		for (let w in p?.warnings ?? [])
			log(w);

		return {
			test_servers: p?.test_servers ?? [],
			proxy_port: p?.proxy_port ?? target.PROXY_PORT,
			ca_file: p?.ca_file ?? CA_FILE,
			own: null
		};
	}

	// paused: the ifaces whose shaping this test paused (null: not asked)
	// chosen: pick()'s answer (cand, tried)
	function run_test(a, urls, paused, chosen) {
		hooks.wake();
		hooks.pause();

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
			// measured unshaped: no shaper rate to hold the load against
			shaper: length(paused) ? null : cfg.shaper,
			wan: cfg.wan,
			on_sample: hooks.on_probe,
			on_done: test_done
		});

		let c = chosen.cand;
		let r = { started: true, id: test.id, total: gtest.total_secs(), phases: gtest.phases(),
		          endpoint: (c.id != null) ? { id: c.id, name: c.name } : null, tried: chosen.tried };

		if (paused != null)
			r.paused = paused;

		return r;
	}

	// after pick(): the shaping pause when asked, then the test.  done(reply)
	// is called once, at once or (pausing) later from the loop.
	function begin(a, chosen, done) {
		let urls = chosen.urls;

		if (!a.pause_shaping)
			return done(run_test(a, urls, null, chosen));

		if (type(env.run) != 'function')
			return done(error('pause_failed', 'shaping cannot be paused here: no way to run sqm-scripts'));

		let until = int(env.clock.wall() / 1000) + gtest.total_secs() + pause.GRACE_S;

		shaping.pause(cfg.wan ? [ cfg.wan ] : [], until, (res) => {
			if (res.error) {
				log(`test_start: ${res.message}`);
				return done(res);
			}

			done(run_test(a, urls, res.ifaces, chosen));
		});
	}

	return {
		running: () => test && test.state() == 'running',
		// the shaping pause (reterm.latency.test.pause): its state, and for
		// reterm-latencyd: recover() at start (a pause a previous instance left),
		// restore() on SIGTERM
		pause_status: () => shaping.status(),
		recover: (cb) => shaping.recover(cb),
		restore: (why, cb) => shaping.restore(why, cb),
		list: () => results,
		// pending results to flash now (reterm-latencyd on SIGTERM)
		persist: () => saved.persist(),

		methods: {
			// Each gets its arguments checked against reterm.latency.api
			// (reply.dispatch()).  reply(obj): for an answer that comes later.  With a host
			// name the reply waits for its resolution (in a child
			// process, the loop runs on): test_start then returns null
			// and calls reply() once, from the loop (reterm-latencyd defers the
			// ubus reply).  IP addresses are answered at once.
			test_start: function(u, reply) {
				if (starting || (test && test.state() == 'running'))
					return error('busy', 'a test is already running');

				let wait = gap_left();

				if (wait > 0)
					return { ...error('too_soon', 'the last test or test start ended less than %d s ago: wait %d s and start again',
					                  int(gap_ms / 1000), wait), wait_s: wait };

				if ((u.download_url == null) != (u.upload_url == null))
					return error('invalid_argument', 'download_url and upload_url go together: give both or neither');

				if (u.download_url && u.endpoint)
					return error('invalid_argument', 'give either an endpoint or download_url and upload_url');

				if (u.endpoint && !endpoints.find(u.endpoint))
					return error('invalid_argument', 'no test endpoint %J (see status: endpoints)', u.endpoint);

				let pol = policy(), cands = endpoints.candidates(u);

				// a custom URL on a port that is not allowed: at once
				if (u.download_url)
					for (let k in [ 'download_url', 'upload_url' ]) {
						let why = target.check_port(u[k], pol);

						if (why != null)
							return refuse(u[k], why);
					}

				// the built-in endpoints are names
				let names = !u.download_url || u.download_url.family == null || u.upload_url.family == null;

				if (names && (type(reply) != 'function' || !env.resolve))
					return error('internal', 'host names cannot be resolved here; give the test server as an IP address');

				if (u.pause_shaping && type(reply) != 'function')
					return error('internal', 'shaping can only be paused with a deferred reply');

				let answer = null, inside = true, me = { job: null };

				function conclude(r) {
					if (starting !== me)
						return;

					starting = null;

					// no test: the gap follows the attempt
					if (r?.error)
						last_end = env.clock.mono();

					if (inside)
						answer = r;
					else
						reply(r);
				}

				starting = me;
				hooks.wake();

				me.job = pick(env, cands, pol, refuse, (r) => {
					if (r.error)
						return conclude(r);

					begin(u, r, conclude);
				});

				inside = false;

				return answer;
			},

			test_status: function() {
				hooks.wake();

				return { ...(test ? test.status() : { state: 'idle' }), pause: shaping.status() };
			},

			test_stop: function() {
				if (!test || test.state() != 'running')
					return error('no_test', 'no test is running');

				test.stop();

				return { ...test.status(), pause: shaping.status() };
			},

			results: function(a) {
				if (a.id != null) {
					for (let r in results)
						if (r.id == a.id)
							return { result: r };

					return error('not_found', 'no result with id %J', a.id);
				}

				return { results: map(results, store.summary) };
			}
		}
	};
};
