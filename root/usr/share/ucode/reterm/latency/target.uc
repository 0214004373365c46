// SPDX-License-Identifier: Apache-2.0
//
// Which test servers the guided test may reach (pure functions; the
// service applies them in test_start, after name resolution).
//
//   public Internet addresses only: not this router (its own addresses,
//   the broadcast addresses and the networks on its links, read from
//   /proc/net/fib_trie and /proc/net/if_inet6 at each start), nothing it
//   routes anywhere but out where its default routes go (a prefix
//   delegated to a router behind the LAN, a VPN peer's network, an
//   unreachable or blackholed prefix: /proc/net/ipv6_route and
//   /proc/net/route), loopback,
//   unspecified, RFC 1918, CGNAT 100.64/10, link-local, ULA fc00::/7,
//   multicast, broadcast, reserved, documentation (192.0.2/24,
//   198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20) or benchmark
//   (198.18/15) ranges, nor anything outside 2000::/3 for IPv6 (an
//   IPv4-mapped address, NAT64 64:ff9b::/96 and 6to4 2002::/16 are judged
//   by the IPv4 address inside, against the ranges and this router's
//   addresses, links and routes alike); every address a name resolves to
//   must pass, else the name is refused
//   ports 80, 443 and 8080 only
//
// One exception, for a speed test box on the LAN or a lab: the servers
// named in the admin-only option `test_server` of /etc/config/reterm_admin
// (a package the app's LuCI ACL cannot write) may have any address and
// any port, except reterm's own proxy listener (the port of
// reterm.main.port on this router or loopback).  The name must be the
// URL's host as written (a host name, or an IP address).

'use strict';

import * as struct from 'struct';
import { DEFAULTS } from 'reterm.defaults';

const PORTS = [ 80, 443, 8080 ];
export const PROXY_PORT = +DEFAULTS.port;

// [ prefix, length, what ] (what: for the log)
const V4 = [
	[ '0.0.0.0', 8, 'unspecified ("this network")' ],
	[ '10.0.0.0', 8, 'private (RFC 1918)' ],
	[ '100.64.0.0', 10, 'shared address space (CGNAT)' ],
	[ '127.0.0.0', 8, 'loopback' ],
	[ '169.254.0.0', 16, 'link-local' ],
	[ '172.16.0.0', 12, 'private (RFC 1918)' ],
	[ '192.0.0.0', 24, 'IETF protocol assignments' ],
	[ '192.0.2.0', 24, 'documentation' ],
	[ '192.88.99.0', 24, '6to4 relay anycast' ],
	[ '192.168.0.0', 16, 'private (RFC 1918)' ],
	[ '198.18.0.0', 15, 'benchmarking' ],
	[ '198.51.100.0', 24, 'documentation' ],
	[ '203.0.113.0', 24, 'documentation' ],
	[ '224.0.0.0', 4, 'multicast' ],
	[ '240.0.0.0', 4, 'reserved or broadcast' ]
];

// inside the global unicast 2000::/3 (everything else is refused)
const V6 = [
	[ '2001::', 23, 'IETF protocol assignments (Teredo, ORCHID, ...)' ],
	[ '2001:db8::', 32, 'documentation' ],
	[ '3fff::', 20, 'documentation' ]
];

function parse_nets(list) {
	return map(list, (n) => [ iptoarr(n[0]), n[1], n[2] ]);
}

const NETS4 = parse_nets(V4), NETS6 = parse_nets(V6);

// a (byte array) inside net/len (same family)
function in_prefix(a, net, len) {
	if (length(a) != length(net))
		return false;

	for (let i = 0; len > 0; i++, len -= 8) {
		let mask = (len >= 8) ? 0xff : (0xff << (8 - len)) & 0xff;

		if ((a[i] & mask) != (net[i] & mask))
			return false;
	}

	return true;
};

function v4_reason(a) {
	for (let n in NETS4)
		if (in_prefix(a, n[0], n[1]))
			return n[2];

	return null;
}

// the IPv4 address inside an IPv6 one (mapped, NAT64, 6to4) or null
function embedded_v4(a) {
	if (in_prefix(a, iptoarr('::ffff:0:0'), 96) || in_prefix(a, iptoarr('64:ff9b::'), 96))
		return slice(a, 12, 16);

	if (in_prefix(a, iptoarr('2002::'), 16))
		return slice(a, 2, 6);

	return null;
}

// Why an address (text) is not a public Internet address, or null when it
// is one.  Not about this router (own()).
export function classify(ip) {
	let a = iptoarr(ip);

	if (type(a) != 'array')
		return 'not an IP address';

	if (length(a) == 4)
		return v4_reason(a);

	let v4 = embedded_v4(a);

	if (v4) {
		let r = v4_reason(v4);

		return r ? `${arrtoip(v4)} inside: ${r}` : null;
	}

	if (in_prefix(a, iptoarr('::'), 128))
		return 'unspecified';

	if (in_prefix(a, iptoarr('::1'), 128))
		return 'loopback';

	if (in_prefix(a, iptoarr('fc00::'), 7))
		return 'unique local (ULA)';

	if (in_prefix(a, iptoarr('fe80::'), 10))
		return 'link-local';

	if (in_prefix(a, iptoarr('ff00::'), 8))
		return 'multicast';

	if (!in_prefix(a, iptoarr('2000::'), 3))
		return 'not global unicast (outside 2000::/3)';

	for (let n in NETS6)
		if (in_prefix(a, n[0], n[1]))
			return n[2];

	return null;
};

function hex_ip6(h) {
	let a = [];

	for (let i = 0; i < 32; i += 2)
		push(a, hex(substr(h, i, 2)));

	return a;
}

// A route that counts as a default: shorter than /8 (IPv4) or /16 (IPv6),
// so that 0.0.0.0/1 + 128.0.0.0/1 of a full-tunnel VPN or an ISP's
// 2000::/3 name the way out too (not IPv6's multicast ff00::/8)
const DEFAULT_LEN = { [4]: 8, [16]: 16 };

function is_default(r) {
	return r.len < DEFAULT_LEN[length(r.net)] && r.net[0] != 0xff;
}

const RTF_REJECT = 0x200, RTF_LOCAL = 0x80000000;

// /proc/net/route prints each address as a number in the host's byte
// order (reversed on little-endian routers)
const LITTLE_ENDIAN = struct.unpack('<I', struct.pack('=I', 1))[0] == 1;

function le32(h, le) {
	let a = [];

	for (let i = 0; i < 8; i += 2)
		push(a, hex(substr(h, i, 2)));

	return le ? reverse(a) : a;
}

function mask_len(a) {
	let len = 0;

	for (let b in a)
		for (let bit = 0x80; bit > 0 && (b & bit); bit >>= 1)
			len++;

	return len;
}

// The routing tables, from the text of /proc/net/ipv6_route (every table)
// and /proc/net/route (main):
//   [ { net: byte array, len, dev, reject } ]
// without the local table's routes (this router's own addresses, reterm's
// "local default") and the kernel's null route.  le: the byte order of
// /proc/net/route (default: this host's).
export function routes(ipv6_route, route, le) {
	let out = [];

	for (let l in split(ipv6_route ?? '', '\n')) {
		let m = match(l, /^([0-9a-f]{32}) ([0-9a-f]{2}) [0-9a-f]{32} [0-9a-f]{2} [0-9a-f]{32} [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} ([0-9a-f]{8}) +([^ ]+)$/);
		let flags = m ? hex(m[3]) : 0, len = m ? hex(m[2]) : 0;

		if (m && !(flags & RTF_LOCAL) && !((flags & RTF_REJECT) && len == 0))
			push(out, { net: hex_ip6(m[1]), len, dev: m[4], reject: (flags & RTF_REJECT) != 0 });
	}

	for (let l in split(route ?? '', '\n')) {
		let m = match(l, /^([^\t ]+)\t([0-9A-F]{8})\t[0-9A-F]{8}\t([0-9A-F]{4})\t[0-9-]+\t[0-9]+\t[0-9]+\t([0-9A-F]{8})\t/);

		if (!m)
			continue;

		let flags = hex(m[3]), len = mask_len(le32(m[4], le ?? LITTLE_ENDIAN));

		if (!((flags & RTF_REJECT) && len == 0))
			push(out, { net: le32(m[2], le ?? LITTLE_ENDIAN), len, dev: m[1],
			            reject: (flags & RTF_REJECT) != 0 || m[1] == '*' });
	}

	return out;
};

// This router's addresses, the networks on its links and its routes, from
// the text of /proc/net/fib_trie, /proc/net/if_inet6, /proc/net/ipv6_route
// and /proc/net/route:
//   { addrs: [ byte arrays ] (own and broadcast addresses),
//     nets: [ [ byte array, length ] ] (on-link networks),
//     routes: routes() (every route),
//     out: { [4]: [ devices ], [16]: [ devices ] } (where defaults leave) }
// IPv4: "/32 host LOCAL" leaves are own addresses, "/32 link BROADCAST"
// broadcast ones, "/N link UNICAST" (N >= 8) on-link networks (a default
// route "dev pppoe-wan" is /0 and left out).  IPv6: every address, and
// its prefix when it is /16 or longer.
export function own(fib_trie, if_inet6, ipv6_route, route) {
	let out = { addrs: [], nets: [], routes: routes(ipv6_route, route), out: { [4]: [], [16]: [] } }, leaf = null;

	for (let r in out.routes)
		if (is_default(r) && !r.reject && r.dev != 'lo')
			push(out.out[length(r.net)], r.dev);

	for (let l in split(fib_trie ?? '', '\n')) {
		let m = match(l, /^[ |+-]*\|-- ([0-9.]+)$/);

		if (m) {
			leaf = iptoarr(m[1]);
			continue;
		}

		m = match(l, /^ +\/([0-9]+) (\S+) (\S+)/);

		if (!m || type(leaf) != 'array' || length(leaf) != 4)
			continue;

		let len = +m[1];

		if (len == 32 && (m[3] == 'LOCAL' || m[3] == 'BROADCAST'))
			push(out.addrs, leaf);
		else if (m[2] == 'link' && m[3] == 'UNICAST' && len >= 8 && len <= 32)
			push(out.nets, [ leaf, len ]);
	}

	for (let l in split(if_inet6 ?? '', '\n')) {
		let m = match(l, /^([0-9a-f]{32}) +[0-9a-f]+ +([0-9a-f]+) /);

		if (!m)
			continue;

		let a = hex_ip6(m[1]), len = hex(m[2]);

		push(out.addrs, a);

		if (len >= 16 && len <= 128)
			push(out.nets, [ a, len ]);
	}

	return out;
};

// why the address a (byte array) is reached through this router's own
// networks rather than the Internet (the kernel's choice: the longest
// prefix), or null; no route at all is left to the connect
function route_reason(a, mine) {
	let best = null;

	for (let r in mine?.routes ?? [])
		if (in_prefix(a, r.net, r.len) && (best == null || r.len > best.len))
			best = r;

	if (best == null || is_default(best) || (!best.reject && index(mine.out[length(a)], best.dev) >= 0))
		return null;

	let net = `${arrtoip(best.net)}/${best.len}`;

	return best.reject ? `in ${net}, which this router does not route` :
		`routed by this router to ${best.dev}, not to the Internet (${net})`;
}

// why the address a (byte array) is this router or behind it, or null
function mine_reason(a, mine) {
	for (let o in mine?.addrs ?? [])
		if (in_prefix(a, o, length(o) * 8))
			return "this router's own address";

	for (let n in mine?.nets ?? [])
		if (in_prefix(a, n[0], n[1]))
			return `on a link of this router (${arrtoip(n[0])}/${n[1]})`;

	return route_reason(a, mine);
}

// why ip (text) is this router or behind it, or null; an IPv6 address
// with an IPv4 address inside (mapped, NAT64, 6to4) reaches that one too
function own_reason(ip, mine) {
	let a = iptoarr(ip);

	if (type(a) != 'array')
		return 'not an IP address';

	let v4 = (length(a) == 16) ? embedded_v4(a) : null, r = mine_reason(a, mine);

	if (r == null && v4 && (r = mine_reason(v4, mine)) != null)
		r = `${arrtoip(v4)} inside: ${r}`;

	return r;
};

// the router itself or loopback/unspecified (where the proxy listens)
function local(ip, mine) {
	let r = classify(ip);

	return own_reason(ip, { addrs: mine?.addrs, nets: mine?.nets }) != null ||
		(r != null && (index(r, 'loopback') >= 0 || index(r, 'unspecified') >= 0));
}

// Is the test server named by the admin (reterm_admin.latency.test_server)?
function admin_named(url, servers) {
	return index(servers ?? [], url.host) >= 0;
};

// Before resolution: the port.  null when fine, else the reason (log).
//   pol { test_servers: [ canonical hosts ], proxy_port }
export function check_port(url, pol) {
	if (admin_named(url, pol.test_servers) || index(PORTS, url.port) >= 0)
		return null;

	return sprintf('port %d is not %s', url.port, join(', ', PORTS));
};

// After resolution: every address.  null when fine, else the reason (log).
//   pol { test_servers, proxy_port, own (own() output) }
export function check_addrs(url, addrs, pol) {
	if (!length(addrs))
		return 'no address';

	let named = admin_named(url, pol.test_servers);

	for (let ip in addrs) {
		if (named) {
			if (url.port == (pol.proxy_port ?? PROXY_PORT) && local(ip, pol.own))
				return sprintf("%s port %d is reterm's proxy listener", ip, url.port);

			continue;
		}

		let r = classify(ip) ?? own_reason(ip, pol.own);

		if (r != null)
			return `${ip} is ${r}`;
	}

	return null;
};
