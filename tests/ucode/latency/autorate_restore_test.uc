// SPDX-License-Identifier: Apache-2.0
//
// Adaptive shaping gives CAKE back to sqm (issue 30 item 3), in the
// sampler service on a simulated clock: every way out puts on CAKE the
// rates sqm's config holds at that moment (not those read when adaptive
// shaping started): switched off, the watched queue switched to another
// one, the daemon stopping; and a start after an unclean exit (the record
// of the queue driven was left behind) does too.  The daemon's own ways
// out (a signal, an exception in a loop callback) are latency/daemon-exit
// in tests.sh.

'use strict';

import * as settings from 'reterm.latency.settings';
import { cursor } from 'uci';
import { checker, memfs } from 'sim';
import { config, world, SQM } from 'autorate_world';

let c = checker('latency/autorate-restore');
let cf = config();

const REC = '/var/run/reterm/autorate.json';
// a base of its own: what is sqm's and what is the controller's tell apart
const ON = "config autorate 'eth1'\n\toption enabled '1'\n\toption dl_base '19000'\n\toption dl_max '30000'\n" +
	"\toption ul_base '4500'\n\toption ul_max '6000'\n";
const OFF = "config autorate 'eth1'\n\toption enabled '0'\n";
// sqm's config changed since adaptive shaping started (no reload yet)
const SQM_NOW = replace(SQM, "option download '18000'", "option download '20000'");

// what the daemon reads when it gives the rates back: sqm's config now
let fresh = (queue) => settings.sqm_rates(cursor(cf.dir), queue);

// the changes made at the last instant
function last_changes(w) {
	return filter(w.changes, (x) => x[0] == w.s.now());
}

function raise(w) {
	let pump = null;

	pump = w.s.timer(0, function() {
		w.rate.rx = w.bw.ifb4eth1 * 1000;
		pump.set(200);
	});
	w.s.advance(30000);

	return pump;
}

// ---- switched off: sqm's rates as its config holds them now ----------------
{
	let w = world(cf.settings(ON), null, { sqm_rates: fresh });

	raise(w);
	c.ok(`off: before, the download raised (${w.bw.ifb4eth1})`, w.bw.ifb4eth1 > 20000);
	w.svc.reconfigure(cf.settings(OFF, SQM_NOW));
	c.eq('off: sqm\'s rates now back on both', last_changes(w), [ [ w.s.now(), 'ifb4eth1', 20000 ], [ w.s.now(), 'eth1', 4500 ] ]);
	w.svc.shutdown();
}

// ---- the daemon stops: the same ----------------------------------------------
{
	let w = world(cf.settings(ON), null, { sqm_rates: fresh });

	raise(w);
	cf.settings(ON, SQM_NOW);
	w.svc.shutdown();
	c.eq('stop: sqm\'s rates now back on both', last_changes(w), [ [ w.s.now(), 'ifb4eth1', 20000 ], [ w.s.now(), 'eth1', 4500 ] ]);
}

// ---- the watched queue switched to another: the old one's CAKE back to sqm ----
{
	let two = SQM + "config queue 'eth2'\n\toption enabled '1'\n\toption interface 'eth2'\n\toption download '30000'\n" +
		"\toption upload '9000'\n\toption qdisc 'cake'\n";
	let both = "config autorate 'eth1'\n\toption enabled '1'\n\nconfig autorate 'eth2'\n\toption enabled '1'\n";
	let w = world(cf.settings(both, two, "\toption wan_device 'eth1'\n"), null, { sqm_rates: fresh });

	raise(w);
	c.ok(`switch: before, eth1's download raised (${w.bw.ifb4eth1})`, w.bw.ifb4eth1 > 20000);
	w.svc.reconfigure(cf.settings(both, two, "\toption wan_device 'eth2'\n"));

	let ch = last_changes(w);

	c.eq('switch: eth1\'s CAKE gets sqm\'s rates back', filter(ch, (x) => x[1] in { ifb4eth1: 1, eth1: 1 }),
		[ [ w.s.now(), 'ifb4eth1', 18000 ], [ w.s.now(), 'eth1', 4500 ] ]);
	c.eq('switch: eth2 driven from its base', filter(ch, (x) => x[1] in { ifb4eth2: 1, eth2: 1 }),
		[ [ w.s.now(), 'ifb4eth2', 30000 ], [ w.s.now(), 'eth2', 9000 ] ]);
	c.eq('switch: autorate_status names eth2', w.svc.methods.autorate_status({}).queue, 'eth2');
	w.svc.shutdown();
}

// ---- a record of what is driven: written when it starts, gone at a clean stop ----
{
	let w = world(cf.settings(ON), null, { sqm_rates: fresh, record: REC });
	let rec = json(w.env.fs.files[REC] ?? 'null');

	c.eq('record: the queue and its devices, while driven', [ rec?.queue, rec?.dev ], [ 'eth1', { dl: 'ifb4eth1', ul: 'eth1' } ]);
	w.svc.shutdown();
	c.eq('record: gone after a clean stop', w.env.fs.files[REC], null);
}

// ---- a start after an unclean exit ----------------------------------------------
// the previous instance died while driving eth1 (its record is there);
// adaptive shaping is off now and sqm's config changed meanwhile
{
	let left = sprintf('%J', { queue: 'eth1', dev: { dl: 'ifb4eth1', ul: 'eth1' }, sqm: { dl: 18000, ul: 4500 } });

	cf.settings(OFF, SQM_NOW);

	let w = world(cf.settings(OFF, SQM_NOW), null, { sqm_rates: fresh, record: REC, fs: memfs({ [REC]: left }) });

	c.eq('unclean exit: the next start puts sqm\'s rates now on the recorded devices', w.changes,
		[ [ 0, 'ifb4eth1', 20000 ], [ 0, 'eth1', 4500 ] ]);
	c.eq('unclean exit: the record is gone', w.env.fs.files[REC], null);

	// with adaptive shaping on again: sqm's rates first, then its base
	let w2 = world(cf.settings(ON), null, { sqm_rates: fresh, record: REC, fs: memfs({ [REC]: left }) });

	c.eq('unclean exit, on again: sqm\'s rates, then the base', w2.changes,
		[ [ 0, 'ifb4eth1', 18000 ], [ 0, 'eth1', 4500 ], [ 0, 'ifb4eth1', 19000 ], [ 0, 'eth1', 4500 ] ]);
	w2.svc.shutdown();

	// a record that is not ours to trust: nothing set, removed
	for (let bad in [ '{"queue":"eth1","dev":{"dl":"ifb4eth1;reboot","ul":"eth1"}}', '{"dev":{"dl":"a\\nb"}}', 'xxxx',
	                  '{"queue":"eth1","dev":{"dl":"ifb4eth1","ul":"eth1"},"sqm":{"dl":"18000\\n1","ul":-1}}' ]) {
		let w3 = world(cf.settings(OFF, "config queue 'other'\n\toption enabled '0'\n"), null,
			{ sqm_rates: fresh, record: REC, fs: memfs({ [REC]: bad }) });

		c.eq(`unclean exit, bad record ${bad}: nothing set`, w3.changes, []);
		c.eq(`unclean exit, bad record ${bad}: removed`, w3.env.fs.files[REC], null);
	}
}

cf.remove();
c.done();
