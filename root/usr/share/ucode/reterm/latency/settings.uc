// SPDX-License-Identifier: Apache-2.0
//
// The sampler service's settings (reterm.latency.service): the monitor
// settings from uci and sqm (load_config, read at start and on
// `reload`) and what the guided test may reach (load_policy, read at
// each test_start).  Invalid values fall back to defaults and are
// reported as warnings.

'use strict';

import * as counters from 'reterm.latency.live.counters';
import * as store from 'reterm.latency.test.store';
import * as target from 'reterm.latency.target';
import * as autorate from 'reterm.latency.autorate.controller';
import { MAX_REFLECTORS } from 'reterm.latency.autorate.reflectors';
import { netdev, ip as ip_literal, hostname, port, bool, one_line, matches } from 'reterm.validate';

export const DEFAULT_REFLECTORS = [ '1.1.1.1', '9.9.9.9', '8.8.8.8', '2606:4700:4700::1111' ];

// The admin-only test server and the proxy port, read at each test_start
// (no reload needed):
//   reterm_admin.latency.test_server   host names or IP addresses (option
//                                      or list) that may be private and
//                                      use any port
//   reterm_admin.latency.ca_file       the CA bundle https:// test
//                                      endpoints are verified with
//                                      (default: OpenWrt's ca-bundle);
//                                      admin-only like test_server, since
//                                      it decides whom the router trusts
//   reterm.main.port                   reterm's proxy listener, never a
//                                      target on this router
// -> { test_servers: [ canonical hosts ], proxy_port, ca_file, warnings }
export const CA_FILE = '/etc/ssl/certs/ca-certificates.crt';

export function load_policy(cursor) {
	let out = { test_servers: [], proxy_port: target.PROXY_PORT, ca_file: CA_FILE, warnings: [] };
	let ca = cursor.get('reterm_admin', 'latency', 'ca_file');

	if (ca != null) {
		if (matches(ca, /^\/[A-Za-z0-9._\/-]{1,200}$/) && index(ca, '..') < 0 && index(ca, '//') < 0)
			out.ca_file = ca;
		else
			push(out.warnings, sprintf('reterm_admin ca_file %J is not an absolute path of safe characters, using %s',
				substr('' + ca, 0, 64), CA_FILE));
	}

	let v = cursor.get('reterm_admin', 'latency', 'test_server');

	// an option of several names split at spaces (not at a NUL: split()
	// would end the string there, and trim() would hide a line break)
	if (type(v) == 'string')
		v = one_line(v, true) ? split(trim(v), /[ \t]+/) : [ v ];

	for (let h in (type(v) == 'array') ? v : []) {
		let c = ip_literal(h) ?? hostname(h);

		if (c == null)
			push(out.warnings, sprintf('reterm_admin test_server %J is not a host name or IP address, ignored', h));
		else if (index(out.test_servers, c) < 0)
			push(out.test_servers, c);
	}

	let p = cursor.get('reterm', 'main', 'port');

	if (p != null && port(p) == null)
		push(out.warnings, sprintf('reterm main port %J is not a port 1-65535, using %d', substr('' + p, 0, 32), out.proxy_port));
	else if (p != null)
		out.proxy_port = port(p);

	return out;
};

// sqm's rates of the enabled queue section named queue, as its config
// holds them now: { dl, ul } kbit/s (0: that direction not shaped), or
// null (no such enabled queue).  Adaptive shaping gives these back to CAKE
// whenever it lets go of a queue.
export function sqm_rates(cursor, queue) {
	for (let q in counters.sqm_queues(cursor))
		if (q.name == queue)
			return { dl: int(q.download_bps / 1000), ul: int(q.upload_bps / 1000) };

	return null;
};

// Adaptive shaping (`config autorate '<sqm queue section>'` in
// /etc/config/reterm, option queue overrides the section name) for the
// queue the monitor watches: cfg.autorate = { queue, settings, dev {dl,
// ul}, sqm {dl, ul} kbit/s } or null; cfg.autorate_error says why an
// enabled one does not run (and nothing of it is applied).  Rates not
// given: base = sqm's, minimum a quarter of it, maximum twice.
function load_autorate(cursor, q, cfg, warnings) {
	cfg.autorate = cfg.autorate_error = null;

	let want = [];

	cursor.foreach('reterm', 'autorate', (s) => {
		let on = bool(s.enabled);

		if (s.enabled != null && on == null)
			push(warnings, sprintf('autorate %J: enabled %J is not 0 or 1, so it is off', s['.name'],
				substr('' + s.enabled, 0, 32)));
		else if (on)
			push(want, s);
	});

	for (let s in want) {
		let name = s.queue ?? s['.name'];

		if (q == null || name != q.name) {
			push(warnings, sprintf('autorate for sqm queue %J: reterm-latencyd watches %s, only that queue is driven',
				substr('' + name, 0, 32), q ? sprintf('%J', q.name) : 'no enabled sqm queue'));
			continue;
		}

		if (!cfg.cake) {
			cfg.autorate_error = sprintf('autorate needs CAKE on sqm queue %J', q.name);
			push(warnings, cfg.autorate_error);
			return;
		}

		let sqm = { dl: int(q.download_bps / 1000), ul: int(q.upload_bps / 1000) }, given = {};

		for (let d in autorate.DIRS) {
			let base = s[`${d}_base`] ?? ((sqm[d] > 0) ? '' + sqm[d] : null);
			let b = matches(base, /^[0-9]{1,9}$/) ? +base : null;

			given[`${d}_base`] = base;
			given[`${d}_min`] = s[`${d}_min`] ?? ((b != null) ? '' + max(autorate.MIN_KBIT, int(b / 4)) : null);
			given[`${d}_max`] = s[`${d}_max`] ?? ((b != null) ? '' + min(autorate.MAX_KBIT, b * 2) : null);
		}

		given.delay_ms = s.delay_ms;

		let r = autorate.check_settings(given);

		if (r.error) {
			cfg.autorate_error = `autorate not started: ${r.message}`;
			push(warnings, cfg.autorate_error);
			return;
		}

		cfg.autorate = { queue: q.name, settings: r.settings, dev: { dl: q.ifb, ul: q.iface }, sqm };
		return;
	}
}

// Monitor settings from uci (`config latency 'latency'` in
// /etc/config/reterm) and sqm; invalid values fall back to defaults and
// are reported in .warnings.
//   { enabled, reflectors, prober, wan, shaper {rx, tx} | null,
//     cake { dl, ul } (devices), warnings }
export function load_config(cursor, wan_lookup) {
	let s = cursor.get_all('reterm', 'latency') ?? {};
	let warnings = [], cfg = { enabled: bool(s.enabled ?? '1') };

	if (cfg.enabled == null) {
		push(warnings, sprintf('enabled %J is not 0 or 1, using 1', substr('' + s.enabled, 0, 32)));
		cfg.enabled = true;
	}

	let refl = s.reflector;

	if (type(refl) == 'string')
		refl = [ refl ];

	cfg.reflectors = [];
	refl ??= [];

	for (let i = 0; i < length(refl); i++) {
		let r = refl[i];

		// the rest is not even read (reterm.latency.autorate.reflectors
		// MAX_REFLECTORS says why)
		if (length(cfg.reflectors) >= MAX_REFLECTORS) {
			push(warnings, sprintf('at most %d reflectors are probed: the %d entries from %J on are ignored',
				MAX_REFLECTORS, length(refl) - i, substr('' + r, 0, 48)));
			break;
		}

		let ip = ip_literal(r);

		if (ip == null)
			push(warnings, sprintf('reflector %J is not an IP address, ignored', r));
		else if (index(cfg.reflectors, ip) < 0)
			push(cfg.reflectors, ip);
	}

	if (!length(cfg.reflectors))
		cfg.reflectors = [ ...DEFAULT_REFLECTORS ];

	cfg.prober = s.prober ?? 'auto';

	if (index([ 'auto', 'fping', 'icmp' ], cfg.prober) < 0) {
		push(warnings, sprintf('prober %J unknown, using auto', cfg.prober));
		cfg.prober = 'auto';
	}

	// results live in one fixed place (reterm.latency.test.store); the old
	// option's default was that place
	if (s.results != null && s.results != store.FLASH_PATH)
		push(warnings, sprintf('option results %J is no longer used: results are kept in %s and %s',
			s.results, store.RAM_PATH, store.FLASH_PATH));

	// the app's LuCI users may write /etc/config/reterm: not there
	if (s.test_server != null)
		push(warnings, 'option test_server in /etc/config/reterm is ignored: it belongs in /etc/config/reterm_admin');

	let queues = [];

	try {
		queues = counters.sqm_queues(cursor);
	}
	catch (e) {
		queues = [];
	}

	let want = null;

	if (s.wan_device != null) {
		want = netdev(s.wan_device);

		if (want == null)
			push(warnings, sprintf('wan_device %J is not a device name, ignored', s.wan_device));
	}

	let q = null;

	for (let x in queues)
		if (want == null || x.iface == want) {
			q = x;
			break;
		}

	cfg.wan = want ?? q?.iface ?? (wan_lookup ? wan_lookup() : null);
	cfg.shaper = (q && (q.download_bps || q.upload_bps)) ? { rx: q.download_bps, tx: q.upload_bps } : null;
	cfg.cake = (q && q.qdisc == 'cake') ? { dl: q.ifb, ul: q.iface } : null;
	load_autorate(cursor, q, cfg, warnings);
	cfg.warnings = warnings;

	return cfg;
};
