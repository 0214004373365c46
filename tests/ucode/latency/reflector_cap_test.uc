// SPDX-License-Identifier: Apache-2.0
//
// The reflector list has a limit (issue 30 item 5): reterm.latency.settings
// takes at most MAX_REFLECTORS of the UCI list `reflector` and says so in
// a warning (the log, status warnings), and the probing round
// (reterm.latency.autorate.reflectors round()) never holds more, whoever
// calls it.  The limit is what the prober can keep track of: at the idle
// probe rate, with near hops in use (the configured reflectors share one
// probe in FALLBACK_EVERY), each configured one is still probed before
// GONE_MS forgets it.

'use strict';

import * as R from 'reterm.latency.autorate.reflectors';
import * as S from 'reterm.latency.service';
import { load_config } from 'reterm.latency.settings';
import { checker } from 'sim';

let c = checker('monitor/reflector-cap');
const MAX = 12;	// docs/adaptive-shaping.md: at most 12 reflectors

c.ok(`MAX_REFLECTORS is a whole number >= 4 (the default list) (${MAX})`, type(MAX) == 'int' && MAX >= 4);

// n distinct IPv4 and IPv6 reflectors
function addrs(n) {
	let out = [];

	for (let i = 0; i < n; i++)
		push(out, (i % 2) ? sprintf('2001:db8::%x', i + 1) : sprintf('198.51.%d.%d', int(i / 250), i % 250 + 1));

	return out;
}

function cursor(latency) {
	let uci = { reterm: { latency: { '.type': 'latency', ...latency } } };

	return {
		get_all: (p, s) => uci[p]?.[s],
		get: (p, s, o) => uci[p]?.[s]?.[o],
		foreach: () => null
	};
}

let capped = (w) => index(w, sprintf('at most %d reflectors', MAX)) >= 0;

// ---- settings: the first MAX are taken, the rest refused with a warning
{
	let full = load_config(cursor({ reflector: addrs(MAX) }), () => 'wan0');

	c.eq('exactly MAX: all taken, no warning', [ full.reflectors, full.warnings ], [ addrs(MAX), [] ]);

	let over = load_config(cursor({ reflector: addrs(MAX + 1) }), () => 'wan0');

	c.eq('MAX + 1: the first MAX taken', over.reflectors, addrs(MAX));
	c.ok(`MAX + 1: a warning says so: ${over.warnings[0]}`, length(filter(over.warnings, capped)) == 1);

	let dup = load_config(cursor({ reflector: [ ...addrs(MAX), addrs(1)[0], 'not-an-ip' ] }), () => 'wan0');

	c.eq('MAX then a duplicate: the duplicate and the rest ignored, one warning',
		[ dup.reflectors, length(filter(dup.warnings, capped)) ], [ addrs(MAX), 1 ]);

	let t0 = clock(true), huge = load_config(cursor({ reflector: addrs(5000) }), () => 'wan0'), t1 = clock(true);
	let ms = (t1[0] - t0[0]) * 1000 + (t1[1] - t0[1]) / 1e6;

	c.eq('5000 given: MAX taken', length(huge.reflectors), MAX);
	c.ok(`5000 given: the warning counts the ignored ones: ${huge.warnings[0]}`,
		length(filter(huge.warnings, (w) => capped(w) && index(w, '' + (5000 - MAX)) >= 0)) == 1);
	c.ok(`5000 given: read in ${int(ms)} ms (< 500)`, ms < 500);
}

// ---- the round: at most MAX configured, each probed within GONE_MS ----
for (let near in [ [], [ '100.64.0.1' ], [ '100.64.0.1', '100.64.0.2' ], [ '100.64.0.1', '100.64.0.2', 'fd00::1', 'fd00::2' ] ]) {
	let conf = addrs(MAX), rd = R.round(near, conf, []);
	let every = (t) => length(rd) / length(filter(rd, (x) => x == t)) * 1000;	// the page: one probe a second idle
	let worst = max(...map(conf, every));

	c.ok(sprintf('%d near hops, MAX configured: each configured one probed every %d ms at the idle rate (< GONE_MS %d)',
		length(near), worst, 60000), worst < 60000);	// the page: forgotten after 60 s
}

{
	let rd = R.round([ '100.64.0.1', '100.64.0.2' ], addrs(MAX + 20), []);
	let targets = uniq(rd);

	c.ok(sprintf('round over MAX + 20 configured: %d targets, at most MAX of them configured', length(targets)),
		length(filter(targets, (t) => index(t, '100.64.') != 0)) <= MAX);
	c.eq('... the first MAX', sort(filter(targets, (t) => index(t, '100.64.') != 0)), sort(addrs(MAX)));
}

c.done();
