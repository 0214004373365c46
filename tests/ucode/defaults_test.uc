// SPDX-License-Identifier: Apache-2.0
//
// reterm's defaults are written once, in reterm.defaults:
//   - the shipped /etc/config/reterm spells out exactly those values in its
//     'main' section (read with libuci, as the router reads it);
//   - /etc/uci-defaults/80_reterm sets no value of its own (it adds the
//     section; the renderer takes what is not set from reterm.defaults);
//   - the latency daemon's idea of the proxy port is the default port;
//   - no other file of the product writes a default's value as a literal.
//
//   ucode -L <root>/usr/share/ucode tests/ucode/defaults_test.uc <repo root>

'use strict';

import * as fs from 'fs';
import { cursor } from 'uci';
import { DEFAULTS } from 'reterm.defaults';
import { PROXY_PORT } from 'reterm.latency.target';

const TOP = ARGV[0];
let passed = 0, failed = 0;

function check(what, got, want) {
	let g = sprintf('%J', got), w = sprintf('%J', want);

	if (g == w) {
		passed++;
		print(`ok - ${what}\n`);
	}
	else {
		failed++;
		print(`not ok - ${what}\n#   got:  ${g}\n#   want: ${w}\n`);
	}
}

let shipped = cursor(`${TOP}/root/etc/config`).get_all('reterm', 'main') ?? {};
let main = {};
for (let k in sort(keys(shipped)))
	if (substr(k, 0, 1) != '.' && k != 'bypass')
		main[k] = shipped[k];
let want = {};
for (let k in sort(keys(DEFAULTS)))
	if (DEFAULTS[k] != '')	// libuci reads option x '' as not set
		want[k] = DEFAULTS[k];
check('/etc/config/reterm main is reterm.defaults', main, want);

let ud = fs.readfile(`${TOP}/root/etc/uci-defaults/80_reterm`) ?? '';
check('80_reterm sets no option value', match(ud, /set reterm\.main\.[a-z_]+=/g) ?? [], []);
check('80_reterm adds the main section', !!match(ud, /set reterm\.main=reterm/), true);

check('the latency daemon\'s proxy port is the default port', PROXY_PORT, +DEFAULTS.port);

// the literals of the defaults that cannot be mistaken for anything else
const LITERALS = [ DEFAULTS.port, DEFAULTS.mark ];
const ALLOWED = [ 'root/usr/share/ucode/reterm/defaults.uc', 'root/etc/config/reterm' ];
let found = [];

function walk(rel) {
	let p = `${TOP}/${rel}`, st = fs.stat(p);

	if (st?.type == 'directory') {
		for (let n in sort(fs.lsdir(p) ?? []))
			walk(`${rel}/${n}`);
		return;
	}
	if (st?.type != 'file' || rel in ALLOWED || !match(rel, /(\.uc|\.js|\.sh|\/[a-z0-9_-]+)$/))
		return;
	let text = fs.readfile(p) ?? '';
	for (let l in LITERALS)
		if (index(text, l) >= 0)
			push(found, `${rel}: ${l}`);
}
walk('root');
walk('htdocs');
check('no other file writes a default as a literal', found, []);

print(`defaults: ${passed} passed, ${failed} failed\n`);
exit(failed ? 1 : 0);
