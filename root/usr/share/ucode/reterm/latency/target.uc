// SPDX-License-Identifier: Apache-2.0
//
// Which test servers the guided test may reach (pure functions; the
// service applies them in test_start, after name resolution).
//
//   public Internet addresses only: not this router (its own addresses,
//   the broadcast addresses and the networks on its links, read from
//   /proc/net/fib_trie and /proc/net/if_inet6 at each start), loopback,
//   unspecified, RFC 1918, CGNAT 100.64/10, link-local, ULA fc00::/7,
//   multicast, broadcast, reserved, documentation (192.0.2/24,
//   198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20) or benchmark
//   (198.18/15) ranges, nor anything outside 2000::/3 for IPv6 (an
//   IPv4-mapped address, NAT64 64:ff9b::/96 and 6to4 2002::/16 are judged
//   by the IPv4 address inside); every address a name resolves to must
//   pass, else the name is refused
//   ports 80, 443 and 8080 only
//
// One exception, for a speed test box on the LAN or a lab: the servers
// named in the admin-only option `test_server` of /etc/config/reterm_admin
// (a package the app's LuCI ACL cannot write) may have any address and
// any port, except reterm's own proxy listener (the port of
// reterm.main.port on this router or loopback).  The name must be the
// URL's host as written (a host name, or an IP address).

'use strict';

const PORTS = [ 80, 443, 8080 ];
export const PROXY_PORT = 15001;

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

// This router's addresses and the networks on its links, from the text of
// /proc/net/fib_trie and /proc/net/if_inet6:
//   { addrs: [ byte arrays ] (own and broadcast addresses),
//     nets: [ [ byte array, length ] ] (on-link networks) }
// IPv4: "/32 host LOCAL" leaves are own addresses, "/32 link BROADCAST"
// broadcast ones, "/N link UNICAST" (N >= 8) on-link networks (a default
// route "dev pppoe-wan" is /0 and left out).  IPv6: every address, and
// its prefix when it is /16 or longer.
export function own(fib_trie, if_inet6) {
	let out = { addrs: [], nets: [] }, leaf = null;

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

// why ip (text) is this router, or null
function own_reason(ip, mine) {
	let a = iptoarr(ip);

	if (type(a) != 'array')
		return 'not an IP address';

	for (let o in mine?.addrs ?? [])
		if (in_prefix(a, o, length(o) * 8))
			return "this router's own address";

	for (let n in mine?.nets ?? [])
		if (in_prefix(a, n[0], n[1]))
			return `on a link of this router (${arrtoip(n[0])}/${n[1]})`;

	return null;
};

// the router itself or loopback/unspecified (where the proxy listens)
function local(ip, mine) {
	let r = classify(ip);

	return own_reason(ip, mine) != null ||
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
