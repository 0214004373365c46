// SPDX-License-Identifier: Apache-2.0
//
// The "device" sections of /etc/config/reterm, read and changed through a
// uci cursor.  The arguments arrive checked (the rpcd plugin's method
// table), so a call either writes all or answers an error with the
// cursor untouched; the caller commits (reterm.api).
//
//   list(cursor)              -> [ { section, name, mac, enabled, ports } ]
//   add(cursor, args)         -> { section, device } | error reply
//   set(cursor, args)         -> { sections, device } | error reply
//   remove(cursor, args)      -> { sections, mac } | error reply

'use strict';

import * as v from 'reterm.validate';
import { error } from 'reterm.reply';

const PKG = 'reterm';

// The ports option as one canonical string: 'all', 'web' or the tokens
// separated by single spaces.  null when it does not validate.
export function ports_text(raw) {
	if (raw == null)
		return 'all';

	if (v.ports(raw) == null)
		return null;

	if (raw == 'all' || raw == 'web')
		return raw;

	let tokens = (type(raw) == 'array') ? raw : split(raw, /[ \t]+/);

	return join(' ', filter(tokens, t => t != ''));
};

function section_mac(s) {
	return v.mac((type(s.mac) == 'string') ? s.mac : null);
}

// Sections whose every option validates (what the renderer applies when
// enabled).  Invalid sections are reported by "status" (errors).
export function list(cursor) {
	let out = [];

	cursor.foreach(PKG, 'device', (s) => {
		let mac = section_mac(s);
		let name = v.name((type(s.name) == 'string') ? s.name : null);
		let enabled = exists(s, 'enabled') ? v.bool(s.enabled) : true;
		let ports = ports_text(s.ports);

		if (mac && name && enabled != null && ports)
			push(out, { section: s['.name'], name, mac, enabled, ports });
	});

	return out;
};

// Section names of every device section with this MAC (valid MAC only;
// compared after normalization, so a hand-written upper-case MAC matches).
export function find(cursor, mac) {
	let out = [];

	cursor.foreach(PKG, 'device', (s) => {
		if (section_mac(s) == mac)
			push(out, s['.name']);
	});

	return out;
};

// the UCI values of the checked arguments that are present
function fields(args) {
	let opts = {};

	if (args.name != null)
		opts.name = args.name;

	if (args.ports != null)
		opts.ports = args.ports;

	if (args.enabled != null)
		opts.enabled = args.enabled ? '1' : '0';

	return opts;
}

function device(mac, opts) {
	return {
		name: opts.name,
		mac,
		ports: opts.ports,
		enabled: opts.enabled == '1'
	};
}

function write(cursor, sid, opts) {
	for (let k in [ 'name', 'mac', 'enabled', 'ports' ])
		if (opts[k] != null && !cursor.set(PKG, sid, k, opts[k]))
			return false;

	return true;
}

function loaded(cursor) {
	return cursor.load(PKG) ? null
		: error('internal', 'cannot read the reterm configuration: %s', cursor.error() ?? 'unknown error');
}

// add/set/remove take their arguments checked and normalized by the
// method table (/usr/share/rpcd/ucode/reterm: mac, name, ports canonical)
export function add(cursor, args) {
	let e = loaded(cursor);

	if (e)
		return e;

	let mac = args.mac, have = find(cursor, mac);

	if (length(have))
		return error('exists', 'a device with MAC %s is already configured (section %s)', mac, have[0]);

	let f = fields(args), sid = cursor.add(PKG, 'device');

	if (!sid || !write(cursor, sid, { ...f, mac }))
		return error('internal', 'cannot add the device: %s', cursor.error() ?? 'unknown error');

	return { section: sid, device: device(mac, f) };
};

export function set(cursor, args) {
	let f = fields(args), mac = args.mac;

	if (!length(f))
		return { ...error('invalid_argument', 'nothing to change: give name, ports or enabled'), field: 'name' };

	let e = loaded(cursor);

	if (e)
		return e;

	let sids = find(cursor, mac);

	if (!length(sids))
		return error('not_found', 'no device with MAC %s is configured', mac);

	for (let sid in sids)
		if (!write(cursor, sid, f))
			return error('internal', 'cannot change section %s: %s', sid, cursor.error() ?? 'unknown error');

	let s = cursor.get_all(PKG, sids[0]);

	return {
		sections: sids,
		device: {
			name: s.name,
			mac,
			ports: ports_text(s.ports) ?? s.ports,
			enabled: exists(s, 'enabled') ? s.enabled == '1' : true
		}
	};
};

export function remove(cursor, args) {
	let e = loaded(cursor);

	if (e)
		return e;

	let mac = args.mac, sids = find(cursor, mac);

	if (!length(sids))
		return error('not_found', 'no device with MAC %s is configured', mac);

	for (let sid in sids)
		if (!cursor.delete(PKG, sid))
			return error('internal', 'cannot delete section %s: %s', sid, cursor.error() ?? 'unknown error');

	return { sections: sids, mac };
};
