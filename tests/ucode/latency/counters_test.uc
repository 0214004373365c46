// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.live.counters: CAKE statistics from recorded `tc -s -j`
// output, byte counter rates (wrap-around), sqm queues from uci, and the
// monitor settings (reterm.latency.service load_config) from uci.

'use strict';

import { readfile } from 'fs';
import * as fs from 'fs';
import { cursor } from 'uci';
import * as C from 'reterm.latency.live.counters';
import { load_config, DEFAULT_REFLECTORS } from 'reterm.latency.settings';
import { checker } from 'sim';

let c = checker('monitor/counters');
let FX = getenv('RETERM_FIXTURES') + '/latency';

let ul = C.parse_cake(readfile(`${FX}/tc-cake-eth1.json`), 'eth1');

c.eq('egress cake: bandwidth in bit/s, 3 tins', [ ul.bandwidth_bps, ul.tins ], [ 4500000, 3 ]);
c.eq('egress cake: worst tin delays (us)', [ ul.peak_us, ul.avg_us, ul.base_us ], [ 14523, 4311, 212 ]);
c.eq('egress cake: sums over tins', [ ul.drops, ul.ecn, ul.backlog ], [ 57, 18, 4542 ]);
c.eq('the ingress qdisc beside it is not taken', ul.dev, 'eth1');

let dl = C.parse_cake(readfile(`${FX}/tc-cake-ifb4eth1.json`), 'ifb4eth1');
let dl2 = C.parse_cake(readfile(`${FX}/tc-cake-ifb4eth1-later.json`), 'ifb4eth1');

c.eq('ingress cake', [ dl.bandwidth_bps, dl.tins, dl.peak_us, dl.avg_us, dl.drops, dl.ecn, dl.backlog ],
	[ 18000000, 1, 9874, 3102, 1204, 311, 72680 ]);

c.eq('cells of the first reading: drops/ECN unknown', C.cake_cells('dl', null, dl),
	{ dl_pk: 9.9, dl_av: 3.1, dl_drop: null, dl_ecn: null, dl_bl: 72680 });
c.eq('cells one second later: drops/ECN of that second', C.cake_cells('dl', dl, dl2),
	{ dl_pk: 11.2, dl_av: 3.4, dl_drop: 15, dl_ecn: 12, dl_bl: 65412 });	// 11.25 ms: printf rounds half to even
c.eq('no reading, no cells', C.cake_cells('ul', null, null), {});

let all = readfile(`${FX}/tc-show-all.json`);

c.eq('show all: picks the device asked for (eth1)', C.parse_cake(all, 'eth1').bandwidth_bps, 4500000);
c.eq('show all: picks the device asked for (ifb4eth1)', C.parse_cake(all, 'ifb4eth1').bandwidth_bps, 18000000);
c.eq('show all: no cake on br-lan', C.parse_cake(all, 'br-lan'), null);
c.eq('not JSON', C.parse_cake('Error: Cannot find device "ifb4eth1"', 'ifb4eth1'), null);
c.eq('empty', C.parse_cake('', 'x'), null);
c.eq('fq_codel only', C.parse_cake('[{"kind":"fq_codel","root":true}]', null), null);

// counters
c.eq('read_bytes of lo', type(C.read_bytes('lo', readfile)?.rx), 'int');
c.eq('read_bytes refuses a path trick', C.read_bytes('../../etc', (p) => die(`read ${p}`)), null);
c.eq('read_bytes of a missing device', C.read_bytes('nosuchdev0', readfile), null);

let br = C.bytes_reader('lo', fs), b1 = br.read(), b2 = br.read();

c.ok('bytes_reader of lo: ints, never going back', type(b1?.rx) == 'int' && b2.rx >= b1.rx && b2.tx >= b1.tx);
br.close();
c.eq('bytes_reader of a missing device', C.bytes_reader('nosuchdev0', fs).read(), null);
c.eq('bytes_reader refuses a path trick before opening anything',
	C.bytes_reader('../../etc', { open: (p) => die(`open ${p}`) }).read(), null);

// a fake device whose files fail once: closed, opened again on the next read
let opens = [], fail = false, val = { rx: '100\n', tx: '7\n' };
let ffs = { open: (p) => {
	push(opens, p);

	let d = match(p, /(rx|tx)_bytes$/)[1];

	return { seek: () => true, read: () => fail ? null : val[d], close: () => null };
} };
let fr = C.bytes_reader('wan0', ffs);

c.eq('bytes_reader: values', [ fr.read(), fr.read() ], [ { rx: 100, tx: 7 }, { rx: 100, tx: 7 } ]);
c.eq('... the two files opened once', opens, [ '/sys/class/net/wan0/statistics/rx_bytes', '/sys/class/net/wan0/statistics/tx_bytes' ]);
fail = true;
c.eq('... a failed read: null', fr.read(), null);
fail = false;
val.rx = '250\n';
c.eq('... then opened again', [ fr.read(), length(opens) ], [ { rx: 250, tx: 7 }, 4 ]);
c.eq('bytes_reader without open() reads the files each time',
	C.bytes_reader('wan0', { readfile: (p) => match(p, /rx_bytes$/) ? '5\n' : '6\n' }).read(), { rx: 5, tx: 6 });

c.eq('delta', C.delta(100, 250), 150);
c.eq('delta wraps at 2^32', C.delta(4294967000, 100), 396);
c.eq('delta of a reset 64 bit counter', C.delta(5000000000, 100), null);

let r = C.rates(), T = 1718000000000;

// 18 Mbit/s down, 1 Mbit/s up, read every 200 ms
for (let i = 0; i <= 15; i++)
	r.feed(T + i * 200, { rx: 1000000 + i * 450000, tx: 5000 + i * 25000 });

c.eq('second: bit/s', r.second(1718000001), { rx: 18000000, tx: 1000000 });
c.eq('recent: bit/s', r.recent(1000), { rx: 18000000, tx: 1000000 });
c.eq('no readings for that second', r.second(1717999990), null);

// 8 Mbit/s for 2 s, then 16 Mbit/s: the window decides
let v = C.rates(), vb = 0;

for (let i = 0; i <= 15; i++) {
	v.feed(T + i * 200, { rx: vb, tx: 0 });
	vb += (i < 10) ? 200000 : 400000;
}

c.eq('recent(1000): the last second only', v.recent(1000).rx, 16000000);
c.eq('recent(3000): the whole log', v.recent(3000).rx, int((10 * 200000 + 5 * 400000) * 8 / 3.0 + 0.5));

let g = C.rates();

g.feed(T, { rx: 0, tx: 0 });
g.feed(T + 3000, { rx: 3000000, tx: 0 });
c.eq('recent after a 3 s gap: the reading before the last', g.recent(1000).rx, 8000000);

let w = C.rates();

w.feed(T, { rx: 4294967000, tx: 0 });
w.feed(T + 1000, { rx: 1000, tx: 0 });
c.eq('rates across a 32 bit wrap', w.recent(1000), { rx: (1000 + 296) * 8, tx: 0 });

w.feed(T + 1200, null);
c.eq('device gone: no rate', w.recent(1000), null);

// sqm queues
let cur = cursor(FX);
let q = C.sqm_queues(cur);

c.eq('sqm: the enabled queue', q, [ { name: 'eth1', iface: 'eth1', ifb: 'ifb4eth1', download_bps: 18000000,
	upload_bps: 4500000, qdisc: 'cake' } ]);

// monitor settings
let cfg = load_config(cur, () => 'wan0');

c.eq('config: reflectors deduplicated, canonical, invalid left out', cfg.reflectors, [ '9.9.9.9', '2606:4700:4700::1111' ]);
c.ok('config: the invalid reflector is reported', length(filter(cfg.warnings, w => index(w, 'reboot') >= 0)) == 1);
c.eq('config: wan from sqm, shaper, cake devices', [ cfg.wan, cfg.shaper, cfg.cake ],
	[ 'eth1', { rx: 18000000, tx: 4500000 }, { dl: 'ifb4eth1', ul: 'eth1' } ]);
c.eq('config: prober; the results option is ignored, with a warning', [ cfg.prober, cfg.results,
	length(filter(cfg.warnings, w => index(w, '/tmp/reterm-test/results.json') >= 0)) ], [ 'icmp', null, 1 ]);

let none = load_config(cursor('/nonexistent'), () => 'wan0');

c.eq('config defaults', [ none.enabled, none.reflectors, none.prober, none.wan, none.shaper, none.cake ],
	[ true, DEFAULT_REFLECTORS, 'auto', 'wan0', null, null ]);

c.done();
