// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.service: new settings while it runs (`reload`, what the
// init script does on a config change instead of a restart).  A running
// guided test and the live rings must survive; the new reflectors,
// shaper and WAN device take effect.

'use strict';

import * as S from 'reterm.latency.service';
import { checker, sim, prober, load, memfs } from 'sim';

let c = checker('monitor/reload');
let s = sim(1718000000000), pr = prober(s, () => 20), fs = memfs();
let svc = S.create({
	clock: s.clock,
	timer: s.timer,
	prober: pr,
	readfile: (p) => match(p, /^\/sys\/class\/net\/(eth1|wan2)\/statistics\/(rx|tx)_bytes$/) ? '0\n' : null,
	qdisc: { show: (cb) => cb(null), close: () => null },
	load: load(s, () => 10000000),
	fs,
	fsync: fs.fsync,
	id: () => 'ring1',
	policy: () => ({ test_servers: [ '192.0.2.10' ] })	// the lab's far server (reterm_admin)
}, {
	enabled: true, reflectors: [ '1.1.1.1', '9.9.9.9' ], prober: 'auto',
	wan: 'eth1', shaper: { rx: 18000000, tx: 4500000 }, cake: null, warnings: []
});
let m = svc.methods;

m.status({});
s.advance(10000);

let before = m.samples({});

c.ok(sprintf('rows before the reload (%d)', length(before.rows)), length(before.rows) >= 3);

let started = m.test_start({ download_url: 'http://192.0.2.10/bytes/100000000', upload_url: 'http://192.0.2.10/upload' });

s.advance(5000);

let r = svc.reconfigure({
	enabled: true, reflectors: [ '9.9.9.9', '8.8.8.8' ], prober: 'fping',
	wan: 'wan2', shaper: { rx: 50000000, tx: 10000000 }, cake: null, warnings: []
});

c.eq('reload: what changed, prober deferred', [ r.reloaded, r.changed, r.warnings ],
	[ true, [ 'reflectors', 'wan', 'shaper' ], [ 'prober "fping" takes effect when reterm-latencyd restarts' ] ]);
c.eq('the running test goes on', [ m.test_status({}).state, m.test_status({}).id ], [ 'running', started.id ]);

s.advance(60000);

let done = m.test_status({});

c.eq('... and finishes with a result', [ done.state, done.result?.id ], [ 'done', started.id ]);

let after = m.samples({});

c.eq('same rings (id), the old rows still there', [ after.id, after.t0 <= before.t0 ], [ before.id, true ]);
c.eq('new shaper and reflectors in force', [ after.shaper, map(m.status({}).reflectors, x => x.target), m.status({}).wan ],
	[ { rx: 50000000, tx: 10000000 }, [ '9.9.9.9', '8.8.8.8' ], 'wan2' ]);

s.advance(3000);
c.eq('monitor probing resumed on the new reflectors', pr.starts[-1], 1000);

c.done();
