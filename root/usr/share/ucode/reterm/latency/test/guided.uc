// SPDX-License-Identifier: Apache-2.0
//
// The guided bufferbloat test: a fixed phase schedule (crusader /
// LibreQoS style), probes every 50 ms, load from reterm.latency.test.load, and
// the result math (compute(), pure).
//
//   idle 5 s, download 10 s, idle 2 s, upload 10 s, idle 2 s,
//   both 10 s, cooldown 5 s                                  (44 s)
//
// run(env, opts) starts one test and returns { status(), stop() }; when
// it ends (or is stopped) opts.on_done(result) is called once.  env is
// injected so that tests drive it with a fake clock and fake prober:
//   env.clock    { mono(), wall() } ms
//   env.timer    (ms, cb) -> { cancel() }            (uloop.timer)
//   env.prober   start(targets, interval, timeout, cb) / stop() / name
//   env.load     (dir, url, streams) -> { bytes(), status(), stop() }
//   env.wan      () -> { rx, tx } WAN byte counters, or null (unknown)
//   env.id       () -> result id (hex)
//
// Result (also what the dashboard's phase graph reads: phases, samples,
// baseline):
//   { v: 1, id, time (epoch s), duration, prober, reflectors, streams,
//     download_url, upload_url, shaper {rx, tx} bit/s or null,
//     baseline (= idle_rtt, ms), idle_rtt,
//     phases: [{ name, start, end (s from the test start), mean, p95,
//                peak (added ms), loss, sent, lost, rtt {mean, p95, min,
//                max}, rx_bps, tx_bps, rx_spread, tx_spread (test.uc spread()) }],
//     samples: [[t ms from the start, rtt ms | null], ...],
//     download / upload: { grade, added_ms, p95_ms, peak_ms,
//                throughput_bps, shaper_bps, loss, inconclusive, reasons },
//     grade (the worse direction), rpm, rpm_class (from the mean RTT of
//     the "both" phase: working conditions), loss (whole test),
//     inconclusive, reasons ([ 'download_throughput', 'upload_loss', ..]),
//     errors: [ load errors ], stopped: true when cut short }
//
// Latency math is reterm.latency.stats (= grade.js).  Idle RTT: median of
// the answered probes of the first idle phase.  Several reflectors (round
// robin) sit at different distances, so each probe is normalised by its
// reflector: rtt - idle median of that reflector + idle median of the
// nearest one; a reflector that never answered while idle is left out.
// Throughput of a loaded phase: WAN counters (else the bytes the load
// moved) from 2 s after the phase start (slow start) to its end.

'use strict';

import * as stats from 'reterm.latency.stats';

const SCHEDULE = [
	{ name: 'idle', secs: 5, load: [] },
	{ name: 'download', secs: 10, load: [ 'down' ] },
	{ name: 'idle', secs: 2, load: [] },
	{ name: 'upload', secs: 10, load: [ 'up' ] },
	{ name: 'idle', secs: 2, load: [] },
	{ name: 'both', secs: 10, load: [ 'down', 'up' ] },
	{ name: 'cooldown', secs: 5, load: [] }
];

export const PROBE_INTERVAL_MS = 50, PROBE_TIMEOUT_MS = 2000, RAMP_MS = 2000;
export const VERSION = 1;

// [{ name, start, end, load }] in seconds from the test start
export function phases(schedule) {
	let out = [], t = 0;

	for (let p in schedule ?? SCHEDULE) {
		push(out, { name: p.name, start: t, end: t + p.secs, load: p.load });
		t += p.secs;
	}

	return out;
};

export function total_secs(schedule) {
	let t = 0;

	for (let p in schedule ?? SCHEDULE)
		t += p.secs;

	return t;
};

function r1(v) {
	return stats.round1(v);
}

// rate (bit/s) over [from_ms, to_ms] from [{t, <key>}] readings: the first
// reading at or after from_ms and the last at or before to_ms
function rate_between(readings, key, from_ms, to_ms) {
	let a = null, b = null;

	for (let r in readings) {
		if (r[key] == null)
			continue;

		if (a == null && r.t >= from_ms)
			a = r;

		if (r.t <= to_ms)
			b = r;
	}

	if (!a || !b || b.t - a.t < 500 || b[key] < a[key])
		return null;

	return int((b[key] - a[key]) * 8000.0 / (b.t - a.t) + 0.5);
};

// how much the rate moved inside [from_ms, to_ms]: (highest - lowest) /
// highest of its whole seconds, 2 decimals; null with fewer than 3
// seconds or no traffic (the wizard proposes adaptive shaping above 0.3)
export function spread(readings, key, from_ms, to_ms) {
	let lo = null, hi = null, n = 0;

	for (let t = from_ms; t + 1000 <= to_ms; t += 1000) {
		let r = rate_between(readings, key, t, t + 1000);

		if (r == null)
			continue;

		n++;
		lo = (lo == null || r < lo) ? r : lo;
		hi = (hi == null || r > hi) ? r : hi;
	}

	return (n < 3 || !hi) ? null : int((hi - lo) * 100.0 / hi + 0.5) / 100.0;
};

// The result of a finished (or stopped) test, from its raw data:
//   d.probes    [{ t (ms from start), target, rtt|null }]
//   d.readings  [{ t, wan_rx, wan_tx, down, up }] byte counters
//   d.phases    phases() of the schedule (cut at d.elapsed_ms if stopped)
//   d.shaper    { rx, tx } bit/s or null; d.meta copied into the result
function compute(d) {
	let res = { v: VERSION, ...(d.meta ?? {}) };
	let ph = d.phases;

	// per reflector idle medians from the first idle phase
	let idle = ph[0], by = {};

	for (let p in d.probes)
		if (p.t >= idle.start * 1000 && p.t < idle.end * 1000 && p.rtt != null)
			push(by[p.target] ??= [], p.rtt);

	let medians = {}, nearest = null;

	for (let tg, v in by) {
		medians[tg] = stats.median(v);

		if (nearest == null || medians[tg] < nearest)
			nearest = medians[tg];
	}

	res.reflector_idle = map(sort(keys(medians)), k => ({ target: k, rtt: r1(medians[k]) }));

	if (nearest == null) {
		res.error = 'no_idle_rtt';
		res.message = 'no probe was answered during the first idle phase';
		res.samples = [];
		res.phases = map(ph, p => ({ name: p.name, start: p.start, end: p.end }));
		return res;
	}

	let samples = [];

	for (let p in sort([ ...d.probes ], (a, b) => a.t - b.t)) {
		if (!exists(medians, p.target))
			continue;

		let rtt = (p.rtt == null) ? null : max(0, p.rtt - medians[p.target] + nearest);

		push(samples, [ int(p.t + 0.5), (rtt == null) ? null : r1(rtt) ]);
	}

	let base = r1(stats.median(map(filter(samples, s => s[0] < idle.end * 1000 && s[1] != null), s => s[1])));
	let shaper = d.shaper;

	res.shaper = shaper;
	res.baseline = base;
	res.idle_rtt = base;
	res.samples = samples;
	res.phases = [];

	let find = {};

	for (let p in ph) {
		let inside = filter(samples, s => s[0] >= p.start * 1000 && s[0] < p.end * 1000);
		let st = stats.phase_stats(inside, base);
		let o = { name: p.name, start: p.start, end: p.end };

		if (st) {
			o.mean = r1(st.mean);
			o.p95 = r1(st.p95);
			o.peak = r1(st.peak);
			o.loss = +sprintf('%.4f', st.loss);
			o.sent = st.sent;
			o.lost = st.lost;
			o.rtt = st.rtt ? { mean: r1(st.rtt.mean), p95: r1(st.rtt.p95), min: r1(st.rtt.min), max: r1(st.rtt.max) } : null;
		}

		let from = p.start * 1000 + min(RAMP_MS, (p.end - p.start) * 500), to = p.end * 1000;
		let wan = (d.readings[0]?.wan_rx != null);

		o.rx_bps = rate_between(d.readings, wan ? 'wan_rx' : 'down', from, to);
		o.tx_bps = rate_between(d.readings, wan ? 'wan_tx' : 'up', from, to);
		o.rx_spread = spread(d.readings, wan ? 'wan_rx' : 'down', from, to);
		o.tx_spread = spread(d.readings, wan ? 'wan_tx' : 'up', from, to);

		push(res.phases, o);
		find[p.name] ??= { ...o, rtt_mean: st?.rtt?.mean };
	}

	let all = stats.phase_stats(samples, base);

	res.loss = all ? +sprintf('%.4f', all.loss) : null;
	res.reasons = [];

	for (let dir in [ [ 'download', 'rx' ], [ 'upload', 'tx' ] ]) {
		let name = dir[0], p = find[name];

		if (!p || p.mean == null) {
			res[name] = null;
			continue;
		}

		let tp = p[`${dir[1]}_bps`], sh = shaper?.[dir[1]];
		let inc = stats.inconclusive({ throughput_bps: tp, shaper_bps: sh, loss: p.loss });

		res[name] = {
			grade: stats.grade(p.mean), added_ms: p.mean, p95_ms: p.p95, peak_ms: p.peak,
			throughput_bps: tp, shaper_bps: sh ?? null, loss: p.loss,
			inconclusive: inc?.inconclusive ?? false, reasons: inc?.reasons ?? []
		};

		for (let r in res[name].reasons)
			push(res.reasons, `${name}_${r}`);
	}

	res.grade = stats.overall(res.download?.grade, res.upload?.grade);

	let both = find.both;
	let rpm = (both?.rtt_mean != null) ? stats.rpm(both.rtt_mean) : null;

	res.rpm = (rpm == null) ? null : int(rpm + 0.5);
	res.rpm_class = stats.rpm_class(rpm);
	res.inconclusive = length(res.reasons) > 0;

	return res;
};

export function run(env, opts) {
	let sched = phases(opts.schedule);
	let total = total_secs(opts.schedule) * 1000;
	let t0 = env.clock.mono(), wall0 = env.clock.wall();
	let probes = [], readings = [], loads = {}, errors = [];
	let state = 'running', idx = -1, timer = null, result = null, last_rtt = null;
	let id = env.id();

	function elapsed() {
		return env.clock.mono() - t0;
	}

	function read() {
		let w = env.wan ? env.wan() : null;

		push(readings, {
			t: elapsed(),
			wan_rx: w?.rx, wan_tx: w?.tx,
			down: loads.down ? loads.down.bytes() + (loads.down_done ?? 0) : (loads.down_done ?? 0),
			up: loads.up ? loads.up.bytes() + (loads.up_done ?? 0) : (loads.up_done ?? 0)
		});
	}

	function set_load(want) {
		for (let dir in [ 'down', 'up' ]) {
			let on = index(want, dir) >= 0;

			if (on && !loads[dir]) {
				let url = (dir == 'down') ? opts.download_url : opts.upload_url;
				loads[dir] = env.load(dir, url, opts.streams);
			}
			else if (!on && loads[dir]) {
				let s = loads[dir].status();

				if (s.last_error && index(errors, s.last_error) < 0)
					push(errors, s.last_error);

				loads[`${dir}_done`] = (loads[`${dir}_done`] ?? 0) + loads[dir].bytes();
				loads[dir].stop();
				loads[dir] = null;
			}
		}
	}

	function finish(stopped) {
		if (state != 'running')
			return;

		timer?.cancel();
		timer = null;
		read();
		set_load([]);
		env.prober.stop();

		let el = elapsed(), cut = [];

		for (let p in sched)
			if (p.start * 1000 < el)
				push(cut, { ...p, end: min(p.end, el / 1000.0) });

		result = compute({
			probes, readings, phases: length(cut) ? cut : [ sched[0] ], shaper: opts.shaper,
			meta: {
				id, time: int(wall0 / 1000), duration: +sprintf('%.1f', el / 1000.0),
				prober: env.prober.name, reflectors: opts.reflectors, streams: opts.streams,
				download_url: opts.download_url.url, upload_url: opts.upload_url.url, wan: opts.wan ?? null
			}
		});

		result.errors = errors;

		if (stopped)
			result.stopped = true;

		state = stopped ? 'stopped' : (result.error ? 'failed' : 'done');

		opts.on_done?.(result);
	}

	function tick() {
		timer = null;

		let el = elapsed();

		read();

		if (el >= total)
			return finish(false);

		let i = 0;

		while (i < length(sched) - 1 && el >= sched[i].end * 1000)
			i++;

		if (i != idx) {
			idx = i;
			set_load(sched[i].load);
		}

		// wake at the next phase boundary or in 250 ms
		let next = min(sched[i].end * 1000 - el, 250);

		timer = env.timer(max(1, int(next + 0.5)), tick);
	}

	env.prober.start(opts.reflectors, opts.interval_ms ?? PROBE_INTERVAL_MS, opts.timeout_ms ?? PROBE_TIMEOUT_MS, (r) => {
		if (state != 'running')
			return;

		let t = r.t - t0;

		if (t >= 0 && t < total) {
			push(probes, { t, target: r.target, rtt: r.rtt });

			if (r.rtt != null)
				last_rtt = r.rtt;
		}

		opts.on_sample?.(r);
	});

	tick();

	return {
		id,

		status: function() {
			let el = (state == 'running') ? elapsed() : (result?.duration ?? 0) * 1000;
			let s = {
				state, id, total: total / 1000,
				elapsed: +sprintf('%.1f', el / 1000.0),
				progress: +sprintf('%.3f', min(1, el / (1.0 * total)))
			};

			if (state == 'running') {
				let ph = sched[max(0, idx)];
				let n = length(readings);

				s.phase = ph.name;
				s.phase_index = max(0, idx);
				s.phase_end = ph.end;
				s.rtt = last_rtt;

				if (n >= 2) {
					let a = readings[max(0, n - 5)], b = readings[n - 1];
					let wan = (b.wan_rx != null);

					s.rx_bps = rate_between([ a, b ], wan ? 'wan_rx' : 'down', a.t, b.t);
					s.tx_bps = rate_between([ a, b ], wan ? 'wan_tx' : 'up', a.t, b.t);
				}
			}
			else {
				s.result = result;
			}

			return s;
		},

		stop: () => finish(true),
		result: () => result,
		state: () => state
	};
};
