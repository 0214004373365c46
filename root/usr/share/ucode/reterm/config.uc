// SPDX-License-Identifier: Apache-2.0
//
// Load and validate /etc/config/reterm.
//
//   load(cursor, meminfo_kb) -> { cfg, errors }
//
// cursor      a uci cursor (real or mock); only get_all() and foreach()
//             are used.
// meminfo_kb  MemTotal from /proc/meminfo in kB (null/invalid => treated as
//             0, which selects the smallest automatic values).
//
// An invalid global option is fatal: cfg is null and nothing may be applied.
// An invalid device section is reported (section and option named) and
// skipped; the other sections still apply.  Every device section is
// validated, disabled ones too, so typos show up before they are enabled.
// A second enabled section with an already used MAC is skipped.

'use strict';

import * as v from 'reterm.validate';
import * as fwpolicy from 'reterm.fwpolicy';
import { DEFAULTS } from 'reterm.defaults';

const KIB = 1024;
const MIB = 1024 * 1024;

function clamp(x, lo, hi) {
	return (x < lo) ? lo : ((x > hi) ? hi : x);
}

// Automatic haproxy maxconn: 4 connections per MiB of RAM, clamped to
// 256..8192 and rounded down to a multiple of 16.  Each active proxied
// connection costs about 2 x 16 KiB of haproxy buffers (tune.bufsize) plus
// kernel socket memory on both legs, so 4/MiB keeps the worst case well
// below a quarter of RAM on small routers (64 MiB -> 256 = 8 MiB buffers).
export function auto_maxconn(meminfo_kb) {
	let mib = int((meminfo_kb ?? 0) / 1024);

	return clamp(mib * 4, 256, 8192) & ~15;
};

// Automatic tcp_rmem/tcp_wmem max (bytes): MemTotal / 64, clamped to
// 1..4 MiB and rounded down to a multiple of 64 KiB.  The long leg of the
// proxy wants about one bandwidth-delay product: 100 Mbit/s x 150 ms
// ~ 1.9 MB.  The kernel's own default max is ~ MemTotal/128 capped at
// 6 MB (0.8 MB on a 128 MB router), so this doubles it where RAM allows.
export function auto_tcp_mem_max(meminfo_kb) {
	let bytes = clamp(int((meminfo_kb ?? 0) * KIB / 64), 1 * MIB, 4 * MIB);

	return bytes - (bytes % (64 * KIB));
};

// Quote a raw (possibly hostile) value for a log line: JSON string escaping
// makes newlines and quotes visible, long values are cut.
function show(val) {
	if (type(val) == 'array')
		val = join(' ', map(val, x => '' + x));
	else if (val == null)
		val = '';
	else
		val = '' + val;

	if (length(val) > 64)
		val = substr(val, 0, 64) + '...';

	return sprintf('%J', val);
}

function scalar(val) {
	return (type(val) == 'string') ? val : null;
}

// Parse MemTotal (kB) out of /proc/meminfo text; null when absent.
export function memtotal_kb(text) {
	let m = match(text ?? '', /MemTotal:[ \t]*([0-9]+) kB/);

	return m ? +m[1] : null;
};

function load_global(s, meminfo_kb, errors) {
	let cfg = {}, bad = false;

	function get(opt) {
		return (s && exists(s, opt)) ? s[opt] : DEFAULTS[opt];
	}

	function fail(opt, val, what) {
		push(errors, sprintf("global option '%s' %s is invalid: %s", opt, show(val), what));
		bad = true;
	}

	for (let opt in [ 'enabled', 'ipv6' ]) {
		let val = v.bool(scalar(get(opt)));

		if (val == null)
			fail(opt, get(opt), 'expected ' + v.grammar.bool);
		else
			cfg[opt] = val;
	}

	cfg.port = v.port(scalar(get('port')));
	if (cfg.port == null)
		fail('port', get('port'), 'expected ' + v.grammar.port);

	cfg.table = v.table(scalar(get('table')));
	if (cfg.table == null)
		fail('table', get('table'), 'expected ' + v.grammar.table);

	cfg.lan_device = v.netdev(scalar(get('lan_device')));
	if (cfg.lan_device == null)
		fail('lan_device', get('lan_device'), 'expected ' + v.grammar.netdev);

	let mark = v.hex32(scalar(get('mark'))), mask = v.hex32(scalar(get('mask')));

	if (mark == null)
		fail('mark', get('mark'), 'expected ' + v.grammar.mark);

	if (mask == null)
		fail('mask', get('mask'), 'expected ' + v.grammar.mark);

	if (mark != null && mask != null) {
		let mm = v.mark_mask(get('mark'), get('mask'));

		if (mm == null)
			fail('mark', get('mark'), sprintf('%s %s', v.grammar.mark_mask, get('mask')));
		else {
			cfg.mark = mm.mark;
			cfg.mask = mm.mask;
		}
	}

	let mc = get('maxconn');

	if (mc === '' || mc == null) {
		cfg.maxconn = auto_maxconn(meminfo_kb);
		cfg.maxconn_auto = true;
	}
	else {
		cfg.maxconn = v.maxconn(scalar(mc));
		cfg.maxconn_auto = false;

		if (cfg.maxconn == null)
			fail('maxconn', mc, 'expected ' + v.grammar.maxconn);
	}

	// list bypass: extra destinations never proxied.  A plain option with
	// space separated values is accepted too.
	let bypass = get('bypass') ?? [];

	// (split() would end the string at a NUL)
	if (type(bypass) == 'string')
		bypass = v.one_line(bypass, true) ? filter(split(bypass, /[ \t]+/), x => x != '') : [ bypass ];

	cfg.bypass4 = [];
	cfg.bypass6 = [];

	for (let entry in bypass) {
		let c = v.cidr(scalar(entry));

		if (c == null)
			fail('bypass', entry, 'expected ' + v.grammar.cidr);
		else
			push((c.family == 4) ? cfg.bypass4 : cfg.bypass6, c.cidr);
	}

	cfg.bypass4 = uniq(cfg.bypass4);
	cfg.bypass6 = uniq(cfg.bypass6);

	cfg.mem_total_kb = meminfo_kb;
	cfg.tcp_mem_max = auto_tcp_mem_max(meminfo_kb);

	return bad ? null : cfg;
}

function load_device(s, label, errors) {
	let dev = { section: s['.name'] }, bad = false;

	function fail(opt, what) {
		if (s[opt] == null)
			push(errors, sprintf("device %s: option '%s' is missing (expected %s); section skipped",
				label, opt, what));
		else
			push(errors, sprintf("device %s: option '%s' %s is invalid: expected %s; section skipped",
				label, opt, show(s[opt]), what));
		bad = true;
	}

	let en = exists(s, 'enabled') ? s.enabled : '1';

	dev.enabled = v.bool(scalar(en));
	if (dev.enabled == null)
		fail('enabled', v.grammar.bool);

	dev.name = v.name(scalar(s.name));
	if (dev.name == null)
		fail('name', v.grammar.name);

	dev.mac = v.mac(scalar(s.mac));
	if (dev.mac == null)
		fail('mac', v.grammar.mac);

	dev.ports = v.ports(exists(s, 'ports') ? s.ports : 'all');
	if (dev.ports == null)
		fail('ports', v.grammar.ports);

	return bad ? null : dev;
}

export function load(cursor, meminfo_kb) {
	let errors = [];

	if (type(meminfo_kb) != 'int' || meminfo_kb < 0)
		meminfo_kb = 0;

	let main = cursor.get_all('reterm', 'main');

	if (main && main['.type'] != 'reterm') {
		push(errors, "section 'main' must be of type 'reterm'");
		return { cfg: null, errors };
	}

	let cfg = load_global(main, meminfo_kb, errors);

	if (!cfg)
		return { cfg: null, errors };

	cfg.devices = [];
	cfg.skipped = 0;

	let seen = {}, n = 0;

	cursor.foreach('reterm', 'device', (s) => {
		// Anonymous sections are named like uci's extended syntax
		// (@device[N]); both forms are stable across uci implementations.
		let label = s['.anonymous'] ? sprintf('@device[%d]', n) : sprintf("'%s'", s['.name']);
		n++;

		let dev = load_device(s, label, errors);

		if (!dev) {
			cfg.skipped++;
			return;
		}

		if (!dev.enabled)
			return;

		if (seen[dev.mac]) {
			push(errors, sprintf("device %s: mac %s already used by device %s; section skipped",
				label, dev.mac, seen[dev.mac]));
			cfg.skipped++;
			return;
		}

		seen[dev.mac] = label;
		push(cfg.devices, dev);
	});

	// firewall policies a re-terminated connection would escape: such
	// devices stay direct (reterm.fwpolicy)
	let fw = fwpolicy.check(cursor, cfg.devices);

	for (let w in fw.warnings)
		push(errors, w);

	cfg.devices = filter(cfg.devices, (d) => {
		let why = fw.all ?? fw.excluded[d.mac];

		if (why)
			push(errors, sprintf("device '%s' (%s) is not re-terminated: %s", d.name, d.mac, why));

		return !why;
	});

	return { cfg, errors };
};
