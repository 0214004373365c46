// SPDX-License-Identifier: Apache-2.0
//
// The world the adaptive-shaping service tests run the sampler service in
// (autoshaper_test.uc, autorate_blind_test.uc): a simulated clock, a
// fake prober whose reflectors answer (or not) as the test says, WAN
// counters that grow at the rates the test sets, and CAKE instances whose
// rates `tc qdisc change` moves.
//
//   let cf = config();                          // a uci directory of its own
//   let cfg = cf.settings("config autorate 'eth1'\n...");   // load_config()
//   let w = world(cfg);
//   w.rate.rx = 18000000; w.s.advance(5000); w.bw.ifb4eth1; w.changes
//   cf.remove();

'use strict';

import * as fs from 'fs';
import * as S from 'reterm.latency.service';
import { cursor } from 'uci';
import { sim, prober, load, memfs } from 'sim';

export const SQM = "config queue 'eth1'\n\toption enabled '1'\n\toption interface 'eth1'\n\toption download '18000'\n" +
	"\toption upload '4500'\n\toption qdisc 'cake'\n";
export const REFLECTORS = "config latency 'latency'\n\tlist reflector '192.0.2.1'\n\tlist reflector '192.0.2.2'\n";

let TC = json(fs.readfile(getenv('RETERM_FIXTURES') + '/latency/tc-show-all.json'));

// a uci directory: settings(autorate[, sqm[, latency]]) writes `reterm`
// (two reflectors, the options latency gives, and the autorate sections
// given) and `sqm`, and returns load_config()'s reading of them
export function config() {
	let c = clock(true);
	let dir = sprintf('%s/reterm-autorate-%d-%d', getenv('TMPDIR') ?? '/tmp', c[0], c[1]);

	fs.mkdir(dir);

	return {
		dir,

		settings: function(autorate, sqm, latency) {
			fs.writefile(`${dir}/sqm`, sqm ?? SQM);
			fs.writefile(`${dir}/reterm`, REFLECTORS + (latency ?? '') + '\n' + autorate);

			return S.load_config(cursor(dir), () => 'eth1');
		},

		remove: function() {
			for (let f in fs.lsdir(dir) ?? [])
				fs.unlink(`${dir}/${f}`);

			fs.rmdir(dir);
		}
	};
};

// a world whose CAKE holds per-device rates that tc changes move; sqm
// "restarts" by setting them back; `gone` takes CAKE away (WAN down);
// path (ttl -> router address) gives it fping for the near-hop scan;
// extra: more of env (e.g. fs)
export function world(cfg, path, extra) {
	let s = sim(), rate = { rx: 0, tx: 0 }, bytes = { rx: 0, tx: 0, t: 0 };
	let bw = { ifb4eth1: 18000, eth1: 4500 }, changes = [], gone = false, rtt_add = 0, echoes = [];
	let silent = {}, sent_to = {}, lossy = null, mute = false;

	let env = {
		clock: s.clock,
		timer: s.timer,
		prober: prober(s, function(t, target) {
			sent_to[target] = (sent_to[target] ?? 0) + 1;

			if (silent[target] || silent['*'] || lossy?.(t, target))
				return null;

			return ((target == '192.0.2.1') ? 20 : 30) + rtt_add;
		}),
		readfile: function(p) {
			let m = match(p, /^\/sys\/class\/net\/eth1\/statistics\/(rx|tx)_bytes$/);
			let dt = (s.now() - bytes.t) / 1000.0;

			bytes.rx += int(rate.rx / 8 * dt);
			bytes.tx += int(rate.tx / 8 * dt);
			bytes.t = s.now();

			return m ? `${bytes[m[1]]}\n` : null;
		},
		qdisc: {
			show: function(cb) {
				let out = [];

				if (mute)	// tc did not answer in time
					return cb(null);

				for (let q in TC)
					if (!(gone && q.kind == 'cake'))
						push(out, (q.kind == 'cake') ? { ...q, options: { ...q.options, bandwidth: bw[q.dev] * 125 } } : q);

				cb(sprintf('%J', out));
			},
			change: function(dev, kbit) {
				push(changes, [ s.now(), dev, kbit ]);

				if (!gone)
					bw[dev] = kbit;

				return true;
			},
			close: () => null
		},
		load: load(s, () => 0),
		fs: memfs(),
		id: () => 'x',
		policy: () => ({ test_servers: [], proxy_port: 15001 }),
		...(extra ?? {})
	};

	if (path)
		env.ttl_probe = function(target, ttl, cb) {
			push(echoes, [ s.now(), target, ttl ]);

			let from = (type(path) == 'function') ? path(target, ttl) : path['' + ttl];
			let t = s.timer(1000, () => cb({ from, reached: false }));

			return { kill: () => t.cancel() };
		};

	return { s, rate, bw, changes, env, echoes, sent_to, svc: S.create(env, { ...cfg }), set_gone: (v) => (gone = v),
		set_rtt: (v) => (rtt_add = v),
		// target '*': every reflector
		set_silent: (target, v) => (silent[target] = v),
		// f(t, target) -> true: that probe is lost (null: none)
		set_lossy: (f) => (lossy = f),
		// true: every `qdisc show` goes unanswered (a slow or restarting tc)
		set_mute: (v) => (mute = v) };
};
