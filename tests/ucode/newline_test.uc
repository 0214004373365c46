// SPDX-License-Identifier: Apache-2.0
//
// No checker takes a value with a line break, a carriage return or a NUL
// in it.  ucode compiles regex literals with REG_NEWLINE (^ and $ match
// at each line) and hands the subject to regexec() as a C string (a NUL
// ends it), so /^[0-9]{1,9}$/ alone takes "4000\nx" (and + makes it NaN:
// a NaN minimum pins CAKE at its maximum).  One table over every surface
// that takes an outside value:
//
//   validate   every function reterm.validate exports (enumerated: a new
//              one without a valid value in VALID fails here)
//   ubus       every string argument of every method of both objects (the
//              rpcd plugin's table, reterm.latency.api METHODS; enumerated
//              from their specs, valid value = the spec's example) through
//              reterm.reply check(): invalid_argument naming the field
//   autorate   reterm.latency.autorate.controller check_settings (the
//              option names from DIRS): invalid_settings
//   latency    reterm.latency.settings load_config / load_policy over the
//              UCI options they read (reterm latency, autorate, main.port,
//              reterm_admin, sqm): reterm's own options end in a warning;
//              sqm's (another package's) are not taken
//   render     reterm.config load (the renderer's UCI parsing; the global
//              options enumerated from DEFAULTS): an error naming the
//              option, the section refused
//
// Each valid value gets \n, \r and NUL appended, prepended and inserted
// ("4000\nx", "4000\n", "\n4000", "40\r00", "4000" + NUL); every one must
// be refused, and nothing may come out NaN.
//
//   ucode -L <root>/usr/share/ucode tests/ucode/newline_test.uc <repo root>

'use strict';

import * as v from 'reterm.validate';
import * as reply from 'reterm.reply';
import * as config from 'reterm.config';
import { DEFAULTS } from 'reterm.defaults';
import * as autorate from 'reterm.latency.autorate.controller';
import * as settings from 'reterm.latency.settings';
import { METHODS as LATENCY } from 'reterm.latency.api';

const TOP = ARGV[0];
let passed = 0, failed = 0, counts = {};

function ok(surface, what, cond, ...got) {
	counts[surface] = (counts[surface] ?? 0) + 1;

	if (cond) {
		passed++;
		return;
	}

	failed++;
	print(sprintf('not ok - %s: %s\n', surface, what));

	if (length(got))
		print(sprintf('#   got: %.J\n', got[0]));
}

// the bad forms of a valid value
function variants(s) {
	let h = int(length(s) / 2), a = substr(s, 0, h), b = substr(s, h), out = [];

	for (let c in [ '\n', '\r', chr(0) ])
		push(out, s + c, c + s, a + c + b, s + c + 'x');

	push(out, s + '\r\n', s + '\n' + s);

	return out;
}

function has_nan(x) {
	if (type(x) == 'double')
		return x != x;

	if (type(x) == 'array') {
		for (let y in x)
			if (has_nan(y))
				return true;
	}
	else if (type(x) == 'object') {
		for (let k, y in x)
			if (has_nan(y))
				return true;
	}

	return false;
}

// ---- validate: every exported function --------------------------------
// a valid argument list for each (a function with two string arguments
// gets each one spoiled in turn)
const VALID = {
	bool: [ '1' ], mac: [ '02:00:00:00:3d:51' ], port: [ '8080' ], port_range: [ '8000-8090' ],
	ports: [ '80 443 8000-8090' ], name: [ 'nintendo-3ds' ], netdev: [ 'eth1' ], hex32: [ '0x10000000' ],
	mark_mask: [ '0x100', '0xf00' ], table: [ '100' ], maxconn: [ '1024' ], cidr: [ '192.0.2.0/24' ],
	hostname: [ 'speed.example.net' ], ip: [ '2001:db8::1' ], http_url: [ 'http://192.0.2.10/bytes/1000' ],
	https_url: [ 'https://speed.example.net/up' ], test_url: [ 'http://speed.example.net:8080/x?a=1' ],
	one_line: [ '4000' ], matches: [ '4000', /^[0-9]{1,9}$/ ]
};

for (let fn in sort(keys(v))) {
	if (type(v[fn]) != 'function')
		continue;

	let args = VALID[fn];

	ok('validate', `${fn}: has a valid value in VALID`, args != null);

	if (args == null)
		continue;

	ok('validate', `${fn}(${join(', ', map(args, (a) => sprintf('%J', a)))}) takes its valid value`,
		v[fn](...args) != null && v[fn](...args) !== false);

	for (let i = 0; i < length(args); i++) {
		if (type(args[i]) != 'string')
			continue;

		for (let bad in variants(args[i])) {
			let a = [ ...args ];

			a[i] = bad;

			let r = v[fn](...a);

			ok('validate', sprintf('%s refuses %J', fn, bad), (r == null || r === false) && !has_nan(r), r);
		}
	}
}

// ---- ubus: every string argument of every method of both objects ------
let plugin = loadfile(`${TOP}/root/usr/share/rpcd/ucode/reterm`, { raw_mode: true })();
let specs = {};

for (let n, m in plugin.reterm)
	specs[`reterm ${n}`] = m.spec;

for (let n, m in LATENCY)
	specs[`reterm.latency ${n}`] = m.args;

// a string for an argument of another type
const AS_STRING = { int: (x) => '' + x, bool: (x) => x ? 'true' : 'false' };

for (let method in sort(keys(specs))) {
	let spec = specs[method] ?? {}, base = {};

	for (let k, s in spec)
		if (s.required)
			base[k] = s.example;

	ok('ubus', `${method}: the required arguments' examples pass`, reply.check(base, spec).args != null,
		reply.check(base, spec));

	for (let k in sort(keys(spec))) {
		let s = spec[k];
		let good = (s.type == 'string') ? s.example : AS_STRING[s.type]?.(s.example ?? (s.type == 'bool' ? true : 1));

		ok('ubus', `${method} ${k}: has an example`, type(good) == 'string');

		if (type(good) != 'string')
			continue;

		if (s.type == 'string')
			ok('ubus', `${method} ${k}: its example ${good} passes`, reply.check({ ...base, [k]: good }, spec).args != null);

		for (let bad in variants(good)) {
			let r = reply.check({ ...base, [k]: bad }, spec);

			ok('ubus', sprintf('%s %s refuses %J', method, k, bad),
				r.error == 'invalid_argument' && r.field == k && type(r.message) == 'string', r);
		}
	}
}

// ---- autorate settings -------------------------------------------------
const RATES = { dl_min: '4000', dl_base: '18000', dl_max: '40000', ul_min: '1000', ul_base: '5000', ul_max: '10000' };
const SET = { ...RATES, delay_ms: '15' };

for (let d in autorate.DIRS)
	for (let k in [ 'min', 'base', 'max' ])
		ok('autorate', `${d}_${k} is in the test's settings`, SET[`${d}_${k}`] != null);

ok('autorate', 'the valid settings pass', autorate.check_settings(SET).settings != null);

for (let k in sort(keys(SET)))
	for (let bad in variants(SET[k])) {
		let r = autorate.check_settings({ ...SET, [k]: bad });

		ok('autorate', sprintf('check_settings refuses %s %J', k, bad),
			r.error == 'invalid_settings' && type(r.message) == 'string' && !has_nan(r), r);
	}

// ---- UCI: a cursor over a table { config: { section: { options } } } --
function cursor(uci) {
	return {
		get_all: (c, s) => uci[c]?.[s],
		get: (c, s, o) => uci[c]?.[s]?.[o],
		foreach: function(c, t, cb) {
			for (let n in sort(keys(uci[c] ?? {})))
				if (uci[c][n]['.type'] == t)
					cb({ '.name': n, '.anonymous': false, ...uci[c][n] });
		}
	};
}

// with option o of section s of config c set to val
function set_opt(uci, c, s, o, val) {
	let u = json(sprintf('%J', uci));

	u[c][s][o] = val;

	return u;
}

// the options of a table, as [ config, section, option ]
function options(uci) {
	let out = [];

	for (let c in sort(keys(uci)))
		for (let s in sort(keys(uci[c])))
			for (let o in sort(keys(uci[c][s])))
				if (substr(o, 0, 1) != '.')
					push(out, [ c, s, o ]);

	return out;
}

// each option's bad values; a list option gets its first item spoiled,
// and the bad value alone as a plain option
function each_bad(uci, cb) {
	for (let x in options(uci)) {
		let val = uci[x[0]][x[1]][x[2]];

		for (let bad in variants((type(val) == 'array') ? val[0] : val)) {
			cb(x, bad, set_opt(uci, ...x, bad));

			if (type(val) == 'array')
				cb(x, bad, set_opt(uci, ...x, [ bad, ...slice(val, 1) ]));
		}
	}
}

// ---- latency settings: reterm-latencyd's UCI ---------------------------
const LAT = {
	reterm: {
		latency: { '.type': 'latency', enabled: '1', reflector: [ '1.1.1.1', '2606:4700:4700::1111' ],
		           prober: 'icmp', wan_device: 'eth1' },
		eth1: { '.type': 'autorate', enabled: '1', queue: 'eth1', ...SET },
		main: { '.type': 'reterm', port: '15001' }
	},
	reterm_admin: {
		latency: { '.type': 'latency', test_server: 'speed.example.net', ca_file: '/etc/ssl/certs/ca-certificates.crt' }
	},
	sqm: {
		eth1: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '5000', qdisc: 'cake' }
	}
};

function latency(uci) {
	let c = cursor(uci), cfg = settings.load_config(c, () => 'wan0'), pol = settings.load_policy(c);

	return { cfg: { ...cfg, warnings: null }, pol: { ...pol, warnings: null }, warnings: [ ...cfg.warnings, ...pol.warnings ] };
}

let lat0 = latency(LAT);

ok('latency', 'the valid settings: no warning, adaptive shaping runs',
	!length(lat0.warnings) && lat0.cfg.autorate != null && lat0.cfg.enabled, lat0);

each_bad(LAT, function(x, bad, uci) {
	let r = latency(uci), what = sprintf('%s.%s.%s %J', ...x, bad);
	let changed = sprintf('%J', [ r.cfg, r.pol ]) != sprintf('%J', [ lat0.cfg, lat0.pol ]);

	if (x[0] == 'sqm')
		ok('latency', `${what} is not taken`, changed && !has_nan(r), r.cfg);
	else
		ok('latency', `${what} is refused with a warning`, length(r.warnings) > 0 && !has_nan(r), r);
});

// ---- the renderer's UCI (reterm.config) --------------------------------
const RENDER = {
	reterm: {
		main: { '.type': 'reterm', ...DEFAULTS, enabled: '1', maxconn: '1024', bypass: [ '192.0.2.0/24', '2001:db8::/32' ] },
		pc: { '.type': 'device', enabled: '1', name: 'nintendo-3ds', mac: '02:00:00:00:3d:51', ports: '80 443 8000-8090' }
	}
};

for (let o in keys(DEFAULTS))
	ok('render', `global option ${o} is in the test's section`, RENDER.reterm.main[o] != null);

let r0 = config.load(cursor(RENDER), 65536);

ok('render', 'the valid config: no error, the device taken',
	!length(r0.errors) && length(r0.cfg?.devices ?? []) == 1, r0);

each_bad(RENDER, function(x, bad, uci) {
	let r = config.load(cursor(uci), 65536);
	let named = length(filter(r.errors, (e) => index(e, `'${x[2]}'`) >= 0)) > 0;
	let refused = (x[1] == 'main') ? r.cfg == null : length(r.cfg?.devices ?? []) == 0;

	ok('render', sprintf('%s.%s.%s %J is refused, named', ...x, bad), named && refused && !has_nan(r), r);
});

print(sprintf('newline: %d checks (%s), %d failed\n', passed + failed,
	join(', ', map(sort(keys(counts)), (k) => `${k} ${counts[k]}`)), failed));
exit(failed ? 1 : 0);
