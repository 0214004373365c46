// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping in the sampler service on a simulated clock: settings
// from uci (good and bad), base rates set on CAKE at start, raises while
// loaded with low delay, what `autorate_status` and the rows show, the
// probe rate loaded and idle, an sqm restart and a WAN flap in the middle
// of a run, and switching it off (sqm's rates back).

'use strict';

import * as A from 'reterm.latency.autorate.controller';
import * as AS from 'reterm.latency.autorate.shaper';
import * as R from 'reterm.latency.autorate.reflectors';
import { checker } from 'sim';
import { constants } from 'spec';
import { config, world } from 'autorate_world';

let c = checker('monitor/autoshaper');
const SPEC = constants();	// docs/adaptive-shaping.md's
let cf = config(), settings = cf.settings;

// ---- settings --------------------------------------------------------------------

let good = settings("config autorate 'eth1'\n\toption enabled '1'\n\toption dl_min '4000'\n\toption dl_base '18000'\n" +
	"\toption dl_max '30000'\n\toption ul_min '1000'\n\toption ul_base '4500'\n\toption ul_max '6000'\n");

c.eq('uci: settings of the watched queue', good.autorate,
	{ queue: 'eth1', settings: { dl_min: 4000, dl_base: 18000, dl_max: 30000, ul_min: 1000, ul_base: 4500, ul_max: 6000, delay_ms: 15 },
	  dev: { dl: 'ifb4eth1', ul: 'eth1' }, sqm: { dl: 18000, ul: 4500 } });

let dflt = settings("config autorate 'eth1'\n\toption enabled '1'\n");

c.eq('uci: rates not given come from sqm (a quarter, base, twice)', dflt.autorate?.settings,
	{ dl_min: 4500, dl_base: 18000, dl_max: 36000, ul_min: 1125, ul_base: 4500, ul_max: 9000, delay_ms: 15 });
c.eq('uci: disabled -> none', settings("config autorate 'eth1'\n\toption enabled '0'\n").autorate, null);

let other = settings("config autorate 'wan2'\n\toption enabled '1'\n");

c.ok('uci: another queue is not driven, with a warning', other.autorate == null &&
	length(filter(other.warnings, (w) => index(w, 'only that queue is driven') >= 0)) == 1);

for (let bad in [
	[ "\toption dl_min '40000'\n\toption dl_base '18000'\n", /dl: minimum 40000 <= base 18000/ ],
	[ "\toption ul_max '0'\n", /ul_max 0 kbit\/s is outside/ ],
	[ "\toption dl_max '99999999999'\n", /dl_max must be a whole number/ ],
	[ "\toption delay_ms '3'\n", /delay_ms must be 5..200/ ]
]) {
	let cfg = settings("config autorate 'eth1'\n\toption enabled '1'\n" + bad[0]);
	let w = world(cfg);

	c.ok(`bad settings: ${cfg.autorate_error}`, cfg.autorate == null && match(cfg.autorate_error ?? '', bad[1]) &&
		length(filter(cfg.warnings, (x) => x == cfg.autorate_error)) == 1);

	w.s.advance(5000);
	c.eq('bad settings: nothing set on CAKE', w.changes, []);

	let st = w.svc.methods.autorate_status({});

	c.eq('bad settings: autorate_status says why', [ st.enabled, st.reason ], [ false, cfg.autorate_error ]);
	c.eq('bad settings: status says error', w.svc.methods.status({}).autorate, 'error');
}

// ---- a run: base at start, raises, status, rows -----------------------------------

let w = world(good), m = w.svc.methods;

c.eq('start: base rates on both CAKE instances at once', w.changes, [ [ 0, 'ifb4eth1', 18000 ], [ 0, 'eth1', 4500 ] ]);
c.eq('start: awake with nobody asking', w.svc.awake(), true);

w.s.advance(120000);
c.ok('idle for 2 minutes: still awake (the controller needs its probes)', w.svc.awake());

let idle = m.autorate_status({});

c.ok(`idle: at most 1 probe/s (${idle.probes_per_s})`, idle.probes_per_s <= 1 && idle.probes_per_s > 0.5);

// download at whatever the shaper allows, up to a 28 Mbit/s line
let pump = null;

pump = w.s.timer(0, function() {
	w.rate.rx = min(w.bw.ifb4eth1, 28000) * 1000;
	pump.set(200);
});

w.s.advance(30000);
c.ok(`loaded, delay low: dl raised (${w.bw.ifb4eth1} kbit/s)`, w.bw.ifb4eth1 >= 29000);
c.eq('loaded: upload idle stays at base', w.bw.eth1, 4500);

let st = m.autorate_status({});

c.ok(`loaded: about 5 probes/s (${st.probes_per_s})`, st.probes_per_s >= 4 && st.probes_per_s <= 5.5);
c.ok(`loaded: monitor status publishes the probe rate too (${m.status({}).probes_per_s})`,
	m.status({}).probes_per_s >= 4 && m.status({}).probes_per_s <= 5.5);
c.eq('status: rates, queue, devices', [ st.enabled, st.queue, st.devices, st.rates.dl.rate_kbit ],
	[ true, 'eth1', { dl: 'ifb4eth1', ul: 'eth1' }, w.bw.ifb4eth1 ]);
c.ok('status: the raise is a decision with its wall time and reason', length(filter(st.decisions, (d) =>
	d.dir == 'dl' && d.kind == 'raise' && d.time > 1718000000 && match(d.reason, /dl loaded/))) >= 1);
let first = json(sprintf('%J', st.decisions));

c.eq('status: asked again, the same decisions and times', m.autorate_status({}).decisions, first);
c.ok(`status: a decision's time is when it was taken (${first[0]?.time})`, first[0]?.time >= 1718000120);
c.eq('status: both reflectors used', map(st.reflectors, (r) => [ r.target, r.state ]),
	[ [ '192.0.2.1', 'used' ], [ '192.0.2.2', 'used' ] ]);

let rows = m.samples({ since: 0 });
let sh = rows.cols ? index(rows.cols, 'sh_rx') : -1;
let full = filter(rows.rows, (r) => r != null);

c.ok(sprintf('rows: the shaper rate per second (sh_rx: %J)', full[-1]?.[sh]), sh >= 0 && full[-1][sh] >= 29000000);

c.eq(`raises: ${length(w.changes)} rate changes, not one file written (only the qdisc holds them)`, keys(w.env.fs.files), []);

// the line drops: delay rises with the download -> cut
w.s.timer(0, () => w.set_rtt(80));
let before = w.bw.ifb4eth1;

w.s.advance(3000);
c.ok(`bloat: dl cut (${before} -> ${w.bw.ifb4eth1})`, w.bw.ifb4eth1 < before * 0.9);
w.set_rtt(0);
w.s.advance(5000);

// ---- sqm restarts in the middle of a run -------------------------------------------

let ours = w.bw.ifb4eth1;

w.bw.ifb4eth1 = 18000;
w.bw.eth1 = 4500;
splice(w.changes, 0, length(w.changes));
w.s.advance(1500);
c.ok(`sqm restarted: our dl rate set again (${ours} -> 18000 -> ${w.bw.ifb4eth1})`, w.bw.ifb4eth1 != 18000 &&
	w.bw.ifb4eth1 == m.autorate_status({}).rates.dl.rate_kbit && length(filter(w.changes, (x) => x[1] == 'ifb4eth1')) >= 1);

// ---- WAN down: no CAKE, hold; back: ours again ----------------------------------------

// the WAN going down takes CAKE and every reflector's answers with it, for
// longer than a reflector's strike span (STRIKE_MS, 20 s in the spec)
w.set_gone(true);
w.set_silent('*', true);
w.rate.rx = 0;
pump.cancel();
w.s.advance(30000);

let held = m.autorate_status({});

c.eq('WAN down: status shows no CAKE', held.cake, { dl: false, ul: false });
c.eq('WAN down 30 s, no reflector answering: the line, not the reflectors: none shunned',
	map(held.reflectors, (r) => [ r.target, r.state ]), [ [ '192.0.2.1', 'used' ], [ '192.0.2.2', 'used' ] ]);
c.eq('WAN down, blind: the rates go back to base (18000/4500)', [ held.rates.dl.rate_kbit, held.rates.ul.rate_kbit ], [ 18000, 4500 ]);

let n = length(w.changes);

w.bw.ifb4eth1 = 7000;
w.set_gone(false);
w.set_silent('*', false);
w.s.advance(3000);

let back = m.autorate_status({});

c.ok(`WAN back: ours set again (${w.bw.ifb4eth1} kbit/s)`, length(w.changes) > n && w.bw.ifb4eth1 == back.rates.dl.rate_kbit);
c.ok(`WAN back: both reflectors answer again (${back.reflectors[0]?.state}, ${back.reflectors[1]?.state})`,
	length(filter(back.reflectors, (r) => r.state == 'used')) == 2 &&
	w.sent_to['192.0.2.1'] > 0 && w.sent_to['192.0.2.2'] > 0);
c.eq('after cuts, an sqm restart and a WAN flap: still not one file written', keys(w.env.fs.files), []);

// ---- tc's readings fail: that is no reading, not "no CAKE" -------------------------

// every `qdisc show` unanswered (tc slow under load, or being started
// again): the rates still reach CAKE
pump = w.s.timer(0, function() {
	w.rate.rx = min(w.bw.ifb4eth1, 28000) * 1000;
	pump.set(200);
});
w.set_mute(true);
w.s.advance(3000);
w.s.timer(0, () => w.set_rtt(80));
before = w.bw.ifb4eth1;
w.s.advance(3000);
c.ok(`readings fail: the status does not call CAKE absent (${m.autorate_status({}).cake.dl})`,
	m.autorate_status({}).cake.dl !== false);
c.ok(`readings fail: a bloat's cut still reaches CAKE (${before} -> ${w.bw.ifb4eth1})`, w.bw.ifb4eth1 < before * 0.9 &&
	w.bw.ifb4eth1 == m.autorate_status({}).rates.dl.rate_kbit);
w.set_rtt(0);
w.set_mute(false);
pump.cancel();
w.rate.rx = 0;
w.s.advance(5000);


splice(w.changes, 0, length(w.changes));
w.svc.reconfigure(settings("config autorate 'eth1'\n\toption enabled '0'\n"));
c.eq('off: sqm rates back on both', w.changes, [ [ w.s.now(), 'ifb4eth1', 18000 ], [ w.s.now(), 'eth1', 4500 ] ]);
c.eq('off: autorate_status', m.autorate_status({}).enabled, false);
w.s.advance(5000);
c.eq('off: no change after', length(w.changes), 2);

// ---- reterm-latencyd stops: sqm's rates back --------------------------------------------------

let w2 = world(good);

w2.s.advance(2000);
splice(w2.changes, 0, length(w2.changes));
w2.svc.shutdown();
c.eq('shutdown: sqm rates back', w2.changes, [ [ w2.s.now(), 'ifb4eth1', 18000 ], [ w2.s.now(), 'eth1', 4500 ] ]);

// ---- a reflector that stops answering: no more probes to it until its shun ends ----

let w6 = world(good);

w6.s.advance(5000);
w6.set_silent('192.0.2.2', true);
w6.s.advance(30000);
c.eq('silent reflector: shunned', map(w6.svc.methods.autorate_status({}).reflectors, (r) => [ r.target, r.state ]),
	[ [ '192.0.2.1', 'used' ], [ '192.0.2.2', 'shunned' ] ]);
c.eq('silent reflector: no longer probed', w6.env.prober.targets, [ '192.0.2.1' ]);

let to_silent = w6.sent_to['192.0.2.2'];

w6.s.advance(60000);
c.eq('silent reflector: not one probe to it in the next minute', w6.sent_to['192.0.2.2'], to_silent);
w6.set_silent('192.0.2.2', false);
w6.s.advance(600000);
c.eq('silent reflector: its 10 min over, probed again', w6.env.prober.targets, [ '192.0.2.1', '192.0.2.2' ]);
c.ok('silent reflector: answers again, used', w6.sent_to['192.0.2.2'] > to_silent &&
	filter(w6.svc.methods.autorate_status({}).reflectors, (r) => r.target == '192.0.2.2')[0]?.state == 'used');
w6.set_silent('192.0.2.2', true);
w6.s.advance(30000);
c.eq('silent reflector: shunned again', w6.env.prober.targets, [ '192.0.2.1' ]);
w6.svc.reconfigure(settings("config autorate 'eth1'\n\toption enabled '0'\n"));
c.eq('silent reflector: adaptive shaping off -> every configured reflector probed', w6.env.prober.targets,
	[ '192.0.2.1', '192.0.2.2' ]);
w6.svc.shutdown();

// ---- near hops: scanned at start and every 10 min, probed beside the rest ----------

let w3 = world(good, { '1': '192.168.100.1', '2': '198.51.100.1', '3': '198.51.100.9', '4': '203.0.113.1' });

w3.s.advance(10000);
c.eq('near hops: one scan of TTL 1..4 towards the first IPv4 reflector', map(w3.echoes, (x) => [ x[1], x[2] ]),
	[ [ '192.0.2.1', 1 ], [ '192.0.2.1', 2 ], [ '192.0.2.1', 3 ], [ '192.0.2.1', 4 ] ]);
c.eq('near hops: the first two beyond the modem probed first, the configured ones 1 in 4', w3.env.prober.targets,
	[ '198.51.100.1', '198.51.100.9', '192.0.2.1', '198.51.100.1', '198.51.100.9', '192.0.2.2', '198.51.100.1', '198.51.100.9' ]);

let st3 = w3.svc.methods.autorate_status({});

c.eq('near hops: autorate_status lists the scan', st3.hops, [ { ttl: 1, addr: '192.168.100.1', used: false },
	{ ttl: 2, addr: '198.51.100.1', used: true }, { ttl: 3, addr: '198.51.100.9', used: true }, { ttl: 4, addr: '203.0.113.1', used: false } ]);
c.eq('near hops: each reflector says where it came from', map(st3.reflectors, (r) => [ r.target, r.hop ]),
	[ [ '192.0.2.1', null ], [ '192.0.2.2', null ], [ '198.51.100.1', 2 ], [ '198.51.100.9', 3 ] ]);
c.ok(`near hops: the scan's wall time (${st3.scanned})`, st3.scanned >= 1718000000 && st3.scanned <= 1718000010);

w3.s.advance(610000);
c.eq('near hops: scanned again after 10 min', length(w3.echoes), 8);

w3.svc.reconfigure(settings("config autorate 'eth1'
	option enabled '0'
"));
c.eq('near hops: off -> only the configured reflectors probed', w3.env.prober.targets, [ '192.0.2.1', '192.0.2.2' ]);
w3.s.advance(1300000);
c.eq('near hops: off -> no more scans', length(w3.echoes), 8);

// ---- two near hops answer: the configured reflectors (anycast DNS) are the fallback ----
// together 1 probe in FALLBACK_EVERY; when fewer than two near hops are
// in use (one went silent) they get their full share again

let w7 = world(good, { '1': '192.168.100.1', '2': '198.51.100.1', '3': '198.51.100.9', '4': '203.0.113.1' });

function abs(x) {
	return (x < 0) ? -x : x;
}

function probes_in(w, ms) {
	let before = { ...w.sent_to }, out = {};

	w.s.advance(ms);

	for (let t, n in w.sent_to)
		out[t] = n - (before[t] ?? 0);

	return out;
}

w7.s.advance(10000);

let p7 = probes_in(w7, 60000), conf7 = p7['192.0.2.1'] + p7['192.0.2.2'], all7 = conf7 + p7['198.51.100.1'] + p7['198.51.100.9'];

c.ok(`two near hops: the configured reflectors get 1 probe in ${SPEC.FALLBACK_EVERY} (${conf7} of ${all7})`,
	all7 >= 55 && abs(conf7 * SPEC.FALLBACK_EVERY - all7) <= SPEC.FALLBACK_EVERY);
c.ok(`two near hops: each configured one still probed (${p7['192.0.2.1']}, ${p7['192.0.2.2']})`,
	p7['192.0.2.1'] >= 5 && p7['192.0.2.2'] >= 5);
c.ok(`two near hops: the near hops share the rest (${p7['198.51.100.1']}, ${p7['198.51.100.9']})`,
	abs(p7['198.51.100.1'] - p7['198.51.100.9']) <= 2);
c.eq('two near hops: the prober gets each target once per round', sort(uniq(w7.env.prober.targets)),
	[ '192.0.2.1', '192.0.2.2', '198.51.100.1', '198.51.100.9' ]);

w7.set_silent('198.51.100.9', true);
w7.s.advance(60000);
c.eq('one near hop left: the silent one shunned', filter(w7.svc.methods.autorate_status({}).reflectors,
	(r) => r.target == '198.51.100.9')[0]?.state, 'shunned');

let p7b = probes_in(w7, 60000);

c.ok(`one near hop left: the configured reflectors get their full share (${p7b['192.0.2.1']}, ${p7b['192.0.2.2']}, ${p7b['198.51.100.1']})`,
	abs(p7b['192.0.2.1'] - p7b['198.51.100.1']) <= 1 && abs(p7b['192.0.2.2'] - p7b['198.51.100.1']) <= 1 &&
	(p7b['198.51.100.9'] ?? 0) == 0);
w7.svc.shutdown();

// ---- near hops over IPv6: the first IPv6 reflector's path scanned after the IPv4 one ----

let w5 = world({ ...good, reflectors: [ '192.0.2.1', '2001:db8:53::1', '2001:db8:54::1' ] }, (target, ttl) =>
	(index(target, ':') >= 0) ? [ null, 'fe80::1', '2001:db8:100::1', '2001:db8:200::1', null ][ttl] :
	[ null, '192.168.100.1', '198.51.100.1', null, null ][ttl]);

w5.s.advance(25000);
c.eq('near hops IPv6: TTL 1..4 towards the IPv4 reflector, then towards the first IPv6 one',
	map(w5.echoes, (x) => [ x[1], x[2] ]), [ [ '192.0.2.1', 1 ], [ '192.0.2.1', 2 ], [ '192.0.2.1', 3 ], [ '192.0.2.1', 4 ],
	[ '2001:db8:53::1', 1 ], [ '2001:db8:53::1', 2 ], [ '2001:db8:53::1', 3 ], [ '2001:db8:53::1', 4 ] ]);
c.eq('near hops IPv6: beyond the line in both families (not the link-local one)', w5.env.prober.targets,
	[ '2001:db8:100::1', '198.51.100.1', '2001:db8:200::1', '2001:db8:53::1', '198.51.100.1', '2001:db8:100::1', '2001:db8:200::1',
	  '192.0.2.1', '2001:db8:54::1', '2001:db8:100::1', '198.51.100.1', '2001:db8:200::1' ]);
c.eq('near hops IPv6: autorate_status lists both scans', map(w5.svc.methods.autorate_status({}).hops, (h) => [ h.ttl, h.addr, h.used ]),
	[ [ 1, '192.168.100.1', false ], [ 2, '198.51.100.1', true ], [ 1, 'fe80::1', false ], [ 2, '2001:db8:100::1', true ],
	  [ 3, '2001:db8:200::1', true ] ]);
w5.svc.shutdown();

cf.remove();

// ---- a high answer is acted on when it comes -----------------------------
// the autoshaper runs the controller's cut check on an answer above the
// threshold with the last counter tick's rates, so CAKE changes before the
// next tick (stub env: the clock, tc)
{
	let now = 10000, changes = [];
	let a = { queue: 'eth1', dev: { dl: 'ifb4eth1', ul: 'eth1' }, sqm: { dl: 18000, ul: 4500 },
		settings: A.check_settings({ dl_min: 4000, dl_base: 18000, dl_max: 40000, ul_min: 1000,
			ul_base: 4500, ul_max: 9000 }).settings };
	let as = AS.create({ clock: { mono: () => now, wall: () => 1000000 + now },
		qdisc: { change: (dev, kbit) => push(changes, [ now, dev, kbit ]) } }, a, {});
	let probe = (target, rtt) => as.probe({ t: now, target, rtt });

	for (let i = 0; i < 10; i++) {
		probe('192.0.2.1', 20);
		now += 100;
		probe('192.0.2.2', 30);
		now += 100;
	}

	as.tick(now, { rx: 18000000, tx: 0 });
	let before = length(changes);

	now += 50;
	probe('192.0.2.1', 20 + 40);
	now += 50;
	probe('192.0.2.2', 30 + 45);

	let cut = slice(changes, before);

	c.ok(`react: the second high answer cuts the download at once (${sprintf('%J', cut)})`,
		length(cut) == 1 && cut[0][1] == 'ifb4eth1' && cut[0][2] < 18000 && cut[0][0] == now);
}

c.done();
