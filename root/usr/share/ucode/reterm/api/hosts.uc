// SPDX-License-Identifier: Apache-2.0
//
// LAN hosts, merged by MAC from what the router knows.  Pure: each parser
// takes the text (or ubus reply) of one source, merge() combines them;
// reading the sources is the caller's business (reterm.api).
//
//   parse_leases4(text)       dnsmasq lease file: "<expiry> <mac> <ip> <name|*> <id|*>"
//   parse_odhcpd(reply)       ubus "dhcp ipv6leases"
//   parse_arp(text, dev)      /proc/net/arp, rows of device dev
//   parse_neigh6(text, dev)   "ip -6 neigh show", rows of device dev
//   parse_ethers(text)        /etc/ethers: "<mac> <hostname|IPv4>"
//   parse_statics(sections)   uci dhcp "host" sections: mac (one or more), name, ip
//   merge(src)                -> { "<mac>": host }
//
// Everything read here comes from clients (DHCP hostnames) or hand-edited
// files: MACs go through reterm.validate, addresses through iptoarr(),
// names through clean_name().

'use strict';

import { mac as valid_mac } from 'reterm.validate';

// Hostnames as shown to users: printable ASCII only, at most 63 chars.
export function clean_name(s) {
	if (type(s) != 'string')
		return null;

	let out = '';

	for (let i = 0; i < length(s) && length(out) < 63; i++) {
		let c = ord(s, i);

		if (c >= 0x20 && c <= 0x7e)
			out += chr(c);
	}

	out = trim(out);

	return (out != '' && out != '*') ? out : null;
};

function ip4(s) {
	let a = iptoarr(s);

	return (type(a) == 'array' && length(a) == 4) ? arrtoip(a) : null;
}

// Canonical IPv6 text; IPv4-mapped addresses become plain IPv4.
function ip6(s) {
	let a = iptoarr(s);

	if (type(a) != 'array' || length(a) != 16)
		return null;

	return arrtoip(a);
}

function lines(text) {
	return (type(text) == 'string') ? split(text, '\n') : [];
}

function fields(line) {
	return filter(split(trim(line), /[ \t]+/), f => f != '');
}

export function parse_leases4(text) {
	let out = [];

	for (let l in lines(text)) {
		let f = fields(l);

		// DHCPv6 lines (after a "duid" line) carry an IAID, not a MAC
		if (length(f) < 4)
			continue;

		let mac = valid_mac(f[1]), ip = ip4(f[2]);

		if (mac && ip)
			push(out, { mac, ip, name: clean_name(f[3]) });
	}

	return out;
};

// DUID-LLT (type 1) and DUID-LL (type 3) of Ethernet (hw type 1) embed
// the client's MAC.
export function mac_from_duid(duid) {
	if (type(duid) != 'string' || !match(duid, /^[0-9A-Fa-f]+$/) || length(duid) > 260)
		return null;

	let d = lc(duid), hw = null;

	if (length(d) == 28 && substr(d, 0, 8) == '00010001')
		hw = substr(d, 16);
	else if (length(d) == 20 && substr(d, 0, 8) == '00030001')
		hw = substr(d, 8);

	if (!hw)
		return null;

	return valid_mac(join(':', map([ 0, 2, 4, 6, 8, 10 ], i => substr(hw, i, 2))));
};

export function parse_odhcpd(reply) {
	let out = [];

	if (type(reply?.device) != 'object')
		return out;

	for (let dev, d in reply.device) {
		if (type(d?.leases) != 'array')
			continue;

		for (let l in d.leases) {
			if (type(l) != 'object')
				continue;

			let addrs = [];

			for (let a in (type(l['ipv6-addr']) == 'array') ? l['ipv6-addr'] : []) {
				let ip = ip6(a?.address);

				if (ip)
					push(addrs, ip);
			}

			push(out, {
				mac: mac_from_duid(l.duid),
				ips: addrs,
				name: clean_name(l.hostname)
			});
		}
	}

	return out;
};

export function parse_arp(text, dev) {
	let out = [];

	for (let l in lines(text)) {
		let f = fields(l);

		// IP address, HW type, Flags, HW address, Mask, Device
		if (length(f) < 6 || (dev && f[5] != dev))
			continue;

		let ip = ip4(f[0]), mac = valid_mac(f[3]);

		// ATF_COM (0x2): the entry is complete
		if (ip && mac && match(f[2], /^0x[0-9A-Fa-f]+$/) && (hex(f[2]) & 2))
			push(out, { mac, ip });
	}

	return out;
};

// Neighbour states that mean "the host answered recently enough".
const NUD_ONLINE = [ 'REACHABLE', 'STALE', 'DELAY', 'PROBE', 'PERMANENT', 'NOARP' ];

export function parse_neigh6(text, dev) {
	let out = [];

	for (let l in lines(text)) {
		let f = fields(l);

		if (length(f) < 2)
			continue;

		let ip = ip6(f[0]), d = null, mac = null;

		for (let i = 1; i < length(f) - 1; i++) {
			if (f[i] == 'dev')
				d = f[i + 1];
			else if (f[i] == 'lladdr')
				mac = valid_mac(f[i + 1]);
		}

		if (!ip || !mac || (dev && d != dev) || !(f[-1] in NUD_ONLINE))
			continue;

		push(out, { mac, ip });
	}

	return out;
};

export function parse_ethers(text) {
	let out = [];

	for (let l in lines(text)) {
		l = split(l, '#')[0];

		let f = fields(l);

		if (length(f) < 2)
			continue;

		let mac = valid_mac(lc(f[0]));

		if (!mac)
			continue;

		let ip = ip4(f[1]);

		push(out, ip ? { mac, ip } : { mac, name: clean_name(f[1]) });
	}

	return out;
};

export function parse_statics(sections) {
	let out = [];

	for (let s in (type(sections) == 'array') ? sections : []) {
		let macs = s?.mac;

		if (type(macs) == 'string')
			macs = split(macs, /[ \t]+/);
		else if (type(macs) != 'array')
			continue;

		for (let m in macs) {
			let mac = valid_mac((type(m) == 'string') ? lc(m) : null);

			if (mac)
				push(out, {
					mac,
					name: clean_name(s.name),
					ip: (type(s.ip) == 'string') ? ip4(s.ip) : null
				});
		}
	}

	return out;
};

function cmp_ip(a, b) {
	let x = iptoarr(a), y = iptoarr(b);

	for (let i = 0; i < length(x) && i < length(y); i++)
		if (x[i] != y[i])
			return x[i] - y[i];

	return length(x) - length(y);
}

// fe80::/10 is link-local: not an address anything outside the LAN sees.
function link_local6(ip) {
	let a = iptoarr(ip);

	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

// src: {
//   leases4, leases6, arp, neigh6, ethers, statics   parser results
//   devices   [ { mac, name, enabled, ports, section } ] configured reterm devices
//   macs      further MACs to list (e.g. seen by the window audit)
// }
// Returns { "<mac>": { mac, name, ipv4, ipv6, online, reterm, enabled,
// ports, section } }.  Name precedence: reterm device name, static host,
// DHCPv4 lease, DHCPv6 lease, /etc/ethers.
export function merge(src) {
	let hosts = {}, names = {};

	function host(mac) {
		hosts[mac] ??= {
			mac, name: '', ipv4: [], ipv6: [], online: false,
			reterm: false, enabled: false, ports: 'all', section: null
		};
		names[mac] ??= [];

		return hosts[mac];
	}

	function name(mac, rank, n) {
		if (n != null)
			push(names[mac], [ rank, n ]);
	}

	function add4(h, ip) { if (ip && !(ip in h.ipv4)) push(h.ipv4, ip); }
	function add6(h, ip) { if (ip && !link_local6(ip) && !(ip in h.ipv6)) push(h.ipv6, ip); }

	for (let d in src.devices ?? []) {
		let h = host(d.mac);
		h.reterm = true;
		h.enabled = d.enabled;
		h.ports = d.ports;
		h.section = d.section;
		name(d.mac, 0, d.name);
	}

	for (let s in src.statics ?? []) {
		let h = host(s.mac);
		add4(h, s.ip);
		name(s.mac, 1, s.name);
	}

	for (let l in src.leases4 ?? []) {
		let h = host(l.mac);
		add4(h, l.ip);
		name(l.mac, 2, l.name);
	}

	// MAC of each online IPv6 neighbour, to place leases whose DUID does
	// not embed a MAC.
	let by_ip6 = {};

	for (let n in src.neigh6 ?? [])
		by_ip6[n.ip] = n.mac;

	for (let l in src.leases6 ?? []) {
		let mac = l.mac;

		for (let ip in l.ips)
			mac ??= by_ip6[ip];

		if (!mac)
			continue;

		let h = host(mac);

		for (let ip in l.ips)
			add6(h, ip);

		name(mac, 3, l.name);
	}

	for (let e in src.ethers ?? []) {
		let h = host(e.mac);
		add4(h, e.ip);
		name(e.mac, 4, e.name);
	}

	for (let n in src.arp ?? []) {
		let h = host(n.mac);
		add4(h, n.ip);
		h.online = true;
	}

	for (let n in src.neigh6 ?? []) {
		let h = host(n.mac);
		add6(h, n.ip);
		h.online = true;
	}

	for (let mac in src.macs ?? [])
		host(mac);

	for (let mac, h in hosts) {
		let best = sort(names[mac], (a, b) => a[0] - b[0])[0];

		h.name = best ? best[1] : '';
		h.ipv4 = sort(h.ipv4, cmp_ip);
		h.ipv6 = sort(h.ipv6, cmp_ip);
	}

	return hosts;
};

// Consoles and handhelds first, then by name (case-insensitive; hosts
// without a name, name '', last), then by MAC.
export function compare(a, b) {
	let ra = (a.class == 'other') ? 1 : 0, rb = (b.class == 'other') ? 1 : 0;

	if (ra != rb)
		return ra - rb;

	if ((a.name == '') != (b.name == ''))
		return (a.name == '') ? 1 : -1;

	let na = lc(a.name), nb = lc(b.name);

	if (na != nb)
		return (na < nb) ? -1 : 1;

	return (a.mac < b.mac) ? -1 : ((a.mac > b.mac) ? 1 : 0);
};
