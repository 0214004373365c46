// SPDX-License-Identifier: Apache-2.0
//
// wan_info: what the Shaping and Wizard pages need to know of the
// router's network and firewall configuration, so that LuCI sessions
// never need read access to /etc/config/network or firewall (PPPoE
// passwords, WireGuard private keys, Wi-Fi keys live there).
//
// Pure: api.uc reads the uci sections, netifd's interface dump and the
// link speeds (as root, inside rpcd) and passes them in.  The reply is
// built field by field from an allow-list; no section or dump entry is
// ever copied, and every name is checked against the netdev grammar
// (null when it does not match).
//
//   { interfaces: [ { name, proto, device, l3device, default_route,
//                     speed, zone } ],
//     bridges: { "<bridge>": [ "<port>", ... ] },
//     offload: bool, offload_hw: bool }
//
// interfaces: those with an IPv4 default route in the main table and
// those in the firewall zones "wan" and "lan" (by the interface name
// "wan"/"lan" when there is no such zone); uci order, then interfaces
// only netifd knows; at most MAX_INTERFACES.  device: the layer 2
// device (netifd's, else the first configured one; "br-<name>" for an
// old-style bridge); l3device: netifd's layer 3 device (null while
// down); speed: link speed in Mbit/s of the device of a WAN candidate
// (default route or zone wan), else null; zone: "wan", "lan" or null.
// bridges: the ports of the LAN interfaces' bridges (at most MAX_PORTS).
// offload / offload_hw: firewall defaults flow_offloading and (only
// together with it, as fw4 does) flow_offloading_hw.

'use strict';

import { netdev } from 'reterm.validate';

const MAX_INTERFACES = 64;
const MAX_PORTS = 64;
const SPEED_MAX_MBIT = 1000000;

// 1-32 of A-Z a-z 0-9 _ . -, checked per byte: ucode's regular
// expressions treat a newline specially (^ and $ match at it, [^...]
// does not match it)
function word(s) {
	if (type(s) != 'string' || length(s) < 1 || length(s) > 32)
		return null;

	for (let i = 0; i < length(s); i++) {
		let c = ord(s, i);

		if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
		      c == 0x5f || c == 0x2e || c == 0x2d))
			return null;
	}

	return s;
}

// an interface (uci section) name
function ident(s) {
	return (word(s) != null && substr(s, 0, 1) != '.' && substr(s, 0, 1) != '-') ? s : null;
}

function str(v) {
	return (type(v) == 'string') ? v : null;
}

// a uci option as a list of words (option "a b" or list)
function words(v) {
	if (type(v) == 'array')
		return filter(map(v, x => str(x)), x => x != null);

	return (type(v) == 'string') ? filter(split(trim(v), /[ \t\n]+/), x => length(x)) : [];
}

function uci_bool(v) {
	return type(v) == 'string' && (v in [ '1', 'on', 'true', 'yes', 'enabled' ]);
}

// "eth0.2", "eth1:x" (old alias syntax), "eth0/..." -> the device; an
// "@wan" alias has none of its own
function configured_device(sec) {
	if (str(sec.type) == 'bridge')
		return netdev('br-' + sec['.name']);

	let first = words(sec.device)[0] ?? words(sec.ifname)[0];
	let m = match(first ?? '', /^([^:\/@]+)/);

	return (m && substr(first, 0, 1) != '@') ? netdev(m[1]) : null;
}

function default_route(dump) {
	for (let r in (type(dump?.route) == 'array') ? dump.route : [])
		if (type(r) == 'object' && r.target === '0.0.0.0' && r.mask === 0 && r.table == null)
			return true;

	return false;
}

// { zone name: [ network names ] } of the firewall's zone sections
function zones(fw_sections) {
	let out = {};

	for (let z in fw_sections ?? [])
		if (z?.['.type'] == 'zone' && str(z.name) != null && !exists(out, z.name))
			out[z.name] = words(z.network);

	return out;
}

function offload(fw_sections) {
	for (let d in fw_sections ?? [])
		if (d?.['.type'] == 'defaults') {
			let sw = uci_bool(d.flow_offloading);

			return { offload: sw, offload_hw: sw && uci_bool(d.flow_offloading_hw) };
		}

	return { offload: false, offload_hw: false };
}

// bridge device name -> ports, from "device" sections and old-style
// "interface ... option type bridge" (ports in device/ifname)
function bridges(net_sections) {
	let out = {};

	for (let s in net_sections ?? []) {
		if (s?.['.type'] == 'device' && str(s.type) == 'bridge' && netdev(s.name) != null)
			out[s.name] = words(s.ports);
		else if (s?.['.type'] == 'interface' && str(s.type) == 'bridge' && netdev('br-' + s['.name']) != null)
			out['br-' + s['.name']] = [ ...words(s.device), ...words(s.ifname) ];
	}

	return out;
}

/**
 * Parse the content of /sys/class/net/<dev>/speed: Mbit/s, or null
 * (-1 without carrier, errors, junk).
 */
export function parse_speed(text) {
	let m = match(trim(text ?? ''), /^([0-9]{1,7})$/);

	return (m && +m[1] > 0 && +m[1] <= SPEED_MAX_MBIT) ? +m[1] : null;
};

/**
 * The wan_info reply.
 * @param net_sections   uci sections of "network", in order (each with
 *                       .type and .name)
 * @param fw_sections    uci sections of "firewall", in order
 * @param dump           reply of "network.interface dump" (null: no netifd)
 * @param speed_of       function(netdev) -> Mbit/s or null; only called
 *                       with names that passed the netdev grammar
 */
export function collect(net_sections, fw_sections, dump, speed_of) {
	let zl = zones(fw_sections);
	let wan_nets = exists(zl, 'wan') ? zl.wan : [ 'wan' ];
	let lan_nets = exists(zl, 'lan') ? zl.lan : [ 'lan' ];
	let state = {}, order = [], seen = {};

	for (let d in (type(dump?.interface) == 'array') ? dump.interface : [])
		if (type(d) == 'object' && ident(d.interface) != null && !exists(state, d.interface))
			state[d.interface] = d;

	let configured = {};

	for (let s in net_sections ?? [])
		if (s?.['.type'] == 'interface' && ident(s['.name']) != null && !exists(seen, s['.name'])) {
			seen[s['.name']] = true;
			configured[s['.name']] = s;
			push(order, s['.name']);
		}

	for (let name in keys(state))
		if (!exists(seen, name)) {
			seen[name] = true;
			push(order, name);
		}

	let out = [], lan_devs = {};

	for (let name in order) {
		if (length(out) >= MAX_INTERFACES)
			break;

		let sec = configured[name] ?? {}, st = state[name];
		let route = default_route(st);
		let zone = (name in wan_nets) ? 'wan' : (name in lan_nets) ? 'lan' : null;

		if (!route && zone == null)
			continue;

		let device = (st ? netdev(st.device) : null) ?? configured_device(sec);
		let l3 = st ? netdev(st.l3_device) : null;
		let proto = word(str(st?.proto) ?? str(sec.proto));

		let speed = null;

		if ((route || zone == 'wan') && device != null)
			speed = speed_of ? speed_of(device) : null;

		if (zone == 'lan') {
			if (device != null) lan_devs[device] = true;
			if (l3 != null) lan_devs[l3] = true;
		}

		push(out, { name, proto, device, l3device: l3, default_route: route,
			speed: (type(speed) == 'int' && speed > 0) ? speed : null, zone });
	}

	let br = bridges(net_sections), br_out = {};

	for (let dev in sort(keys(lan_devs)))
		if (exists(br, dev))
			br_out[dev] = slice(filter(map(br[dev], p => netdev(p)), p => p != null), 0, MAX_PORTS);

	return { interfaces: out, bridges: br_out, ...offload(fw_sections) };
};
