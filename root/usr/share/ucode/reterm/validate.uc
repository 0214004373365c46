// SPDX-License-Identifier: Apache-2.0
//
// Strict grammars for every value that reaches nft, haproxy, sysctl, a
// shell or a socket.  Each function takes the raw UCI value and returns the normalized
// value, or null when the value does not match its grammar.  Nothing here
// trims, unquotes or guesses: a value is either exactly right or rejected.
//
// Note: ucode regular expressions anchor ^ and $ at line boundaries, so a
// pattern alone would accept "80\n; flush ruleset".  Every check therefore
// goes through printable(), which only admits printable ASCII without
// spaces (0x21..0x7e), before any pattern is applied; the checks of
// other modules go through one_line() or matches().

'use strict';

// One line of text: a string without a line break, a NUL or another
// control character (0x00-0x1f, 0x7f; a tab only where tab is true, as
// between the tokens of a list).  ucode compiles regex literals with
// REG_NEWLINE, so ^ and $ match at every line (/^[0-9]+$/ takes
// "4000\nx", which + makes NaN), and match(), split() and replace() stop
// at a NUL ("4000" + NUL + "x" is "4000" to them): every value from
// outside (UCI, ubus, a file) passes this or printable() before a
// pattern or a split sees it.
export function one_line(s, tab) {
	if (type(s) != 'string')
		return false;

	for (let i = 0; i < length(s); i++) {
		let c = ord(s, i);

		if ((c < 0x20 && !(tab && c == 0x09)) || c == 0x7f)
			return false;
	}

	return true;
};

// match(s, re) for a value from outside: null unless s is one_line()
export function matches(s, re) {
	return one_line(s) ? match(s, re) : null;
};

function printable(s, maxlen) {
	if (type(s) != 'string' || length(s) < 1 || length(s) > maxlen)
		return false;

	for (let i = 0; i < length(s); i++) {
		let c = ord(s, i);

		if (c < 0x21 || c > 0x7e)
			return false;
	}

	return true;
}

// Decimal without sign or leading zero, within [min, max].
function decimal(s, min, max) {
	if (!printable(s, 10) || !match(s, /^(0|[1-9][0-9]*)$/))
		return null;

	let n = +s;

	return (n >= min && n <= max) ? n : null;
}

// '0' or '1' (what LuCI's Flag writes); returns a boolean.
export function bool(s) {
	if (s === '0') return false;
	if (s === '1') return true;
	return null;
};

// Six hex pairs separated by ':', returned lowercase.  A multicast or
// broadcast address (bit 0 of the first octet set) can never be the source
// of a frame, and 00:00:00:00:00:00 is not a device: both are rejected as
// typos rather than silently matching nothing.
export function mac(s) {
	if (!printable(s, 17) || !match(s, /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/))
		return null;

	let m = lc(s);

	if (hex(substr(m, 0, 2)) & 1)
		return null;

	if (m == '00:00:00:00:00:00')
		return null;

	return m;
};

// TCP port 1..65535, returned as a number.
export function port(s) {
	return decimal(s, 1, 65535);
};

// "a-b" with 1 <= a <= b <= 65535; returns [ a, b ].
export function port_range(s) {
	if (!printable(s, 11))
		return null;

	let m = match(s, /^([0-9]+)-([0-9]+)$/);

	if (!m)
		return null;

	let a = port(m[1]), b = port(m[2]);

	return (a != null && b != null && a <= b) ? [ a, b ] : null;
};

// Upper bound of port tokens in one device's ports list: keeps the nft set
// small and bounds the work done for a hostile config.
export const MAX_PORT_TOKENS = 64;

// Merge sorted, overlapping or adjacent [lo, hi] ranges.  nft rejects
// overlapping intervals in a concatenated set, so they are merged here.
function merge_ranges(ranges) {
	let out = [];

	for (let r in sort(ranges, (x, y) => (x[0] - y[0]) || (x[1] - y[1]))) {
		let last = length(out) ? out[-1] : null;

		if (last && r[0] <= last[1] + 1) {
			if (r[1] > last[1])
				last[1] = r[1];
		}
		else {
			push(out, [ r[0], r[1] ]);
		}
	}

	return out;
}

// Ports spec: 'all', 'web' (80 and 443), or a list of ports and ranges
// separated by single spaces or tabs ("80 443 8080-8090").  A UCI list
// (array) of the same tokens is accepted as well.  Returns 'all' or a
// sorted, merged array of [ lo, hi ] ranges.
export function ports(s) {
	let tokens;

	if (type(s) == 'array') {
		if (length(s) < 1 || length(s) > MAX_PORT_TOKENS)
			return null;

		tokens = s;
	}
	else if (type(s) == 'string') {
		if (s == 'all')
			return 'all';

		if (s == 'web')
			return [ [ 80, 80 ], [ 443, 443 ] ];

		// Only spaces and tabs separate tokens; anything else that is not
		// printable fails the per-token check below (a NUL before the
		// split: split() would end the string there)
		if (length(s) > MAX_PORT_TOKENS * 12 || !one_line(s, true))
			return null;

		tokens = filter(split(s, /[ \t]+/), t => t != '');

		if (length(tokens) < 1 || length(tokens) > MAX_PORT_TOKENS)
			return null;
	}
	else {
		return null;
	}

	let ranges = [];

	for (let t in tokens) {
		if (type(t) != 'string')
			return null;

		let p = port(t);

		if (p != null) {
			push(ranges, [ p, p ]);
			continue;
		}

		let r = port_range(t);

		if (r == null)
			return null;

		push(ranges, r);
	}

	return merge_ranges(ranges);
};

// Device display name; also used inside nft element comments, so the
// alphabet must never contain quotes, spaces or backslashes.
export function name(s) {
	return (printable(s, 32) && match(s, /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/)) ? s : null;
};

// Linux network device name (IFNAMSIZ 16 incl. NUL => at most 15 chars).
export function netdev(s) {
	return (printable(s, 15) && match(s, /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/)) ? s : null;
};

// Non-zero 32-bit hex value "0x" + 1..8 hex digits, returned as a number.
export function hex32(s) {
	if (!printable(s, 10) || !match(s, /^0[xX][0-9A-Fa-f]{1,8}$/))
		return null;

	let n = hex(s);

	return (n > 0 && n <= 0xffffffff) ? n : null;
};

// A fwmark value/mask pair: both non-zero, the mark inside the mask.
// Returns { mark, mask } as numbers.
export function mark_mask(mark_s, mask_s) {
	let mark = hex32(mark_s), mask = hex32(mask_s);

	if (mark == null || mask == null || (mark & ~mask & 0xffffffff) != 0)
		return null;

	return { mark, mask };
};

// Policy routing table id: 1..252 or 256..2^31-1.  0 (unspec), 253
// (default), 254 (main) and 255 (local) are the kernel's own tables.
export function table(s) {
	let n = decimal(s, 1, 2147483647);

	return (n != null && (n <= 252 || n >= 256)) ? n : null;
};

// haproxy global maxconn.
export function maxconn(s) {
	return decimal(s, 16, 65535);
};

// Prefix length without leading zeros.
function prefixlen(s, max) {
	return decimal(s, 0, max);
}

// IPv4 or IPv6 address with optional /prefix.  Parsed with iptoarr() (which
// rejects leading zeros, zone ids and garbage), host bits are cleared and
// the result re-printed canonically with arrtoip().  Returns
// { family: 4|6, cidr: "net/len" } or null.
export function cidr(s) {
	if (!printable(s, 49))
		return null;

	let parts = split(s, '/');

	if (length(parts) > 2)
		return null;

	let addr = iptoarr(parts[0]);

	if (type(addr) != 'array' || (length(addr) != 4 && length(addr) != 16))
		return null;

	let bits = length(addr) * 8;
	let len = (length(parts) == 2) ? prefixlen(parts[1], bits) : bits;

	if (len == null)
		return null;

	for (let i = 0; i < length(addr); i++) {
		let keep = len - i * 8;

		if (keep <= 0)
			addr[i] = 0;
		else if (keep < 8)
			addr[i] &= (0xff << (8 - keep)) & 0xff;
	}

	return {
		family: (length(addr) == 4) ? 4 : 6,
		cidr: sprintf('%s/%d', arrtoip(addr), len)
	};
};

// ---- test server URLs (the guided test's download_url / upload_url) -----
//
// http:// (the socket load in reterm-latencyd, reterm.latency.test.load)
// or https:// (the uclient load in a child process,
// reterm.latency.test.tlsload).  At most 256 characters, printable ASCII
// without spaces (so no quotes, backticks, `$(`, `;`, newlines):
//   http[s]://HOST[:PORT][PATH]
//   HOST  IPv4 dotted quad | "[" IPv6 "]" | hostname (labels of
//         A-Z a-z 0-9 and inner "-", 1-63 each, at most 253 total)
//   PORT  1-65535 (default 80 for http, 443 for https)
//   PATH  "/" followed by A-Z a-z 0-9 - . _ ~ / ? = & % + , : @
// An https:// URL must name its host (no IP literal): the certificate is
// checked against the name.

const MAX_URL = 256;

export function hostname(s) {
	if (!printable(s, 253))
		return null;

	for (let l in split(s, '.'))
		if (!match(l, /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/))
			return null;

	// all-numeric names are not hostnames (a malformed IPv4 address)
	return match(s, /[A-Za-z]/) ? lc(s) : null;
};

// IP literal (IPv4 or IPv6, no zone, no prefix) -> canonical text or null
export function ip(s) {
	if (!printable(s, 45) || index(s, '/') >= 0 || index(s, '%') >= 0)
		return null;

	let a = iptoarr(s);

	return (type(a) == 'array' && (length(a) == 4 || length(a) == 16)) ? arrtoip(a) : null;
};

// ---- firewall4's rule values (reterm.fwpolicy) --------------------------
// One entry of a rule's option (after a leading "!") as fw4 reads it,
// narrowed to what reterm renders exactly; null for the rest, which the
// caller then takes as matching more, never less.

// MAC: six groups of 1-2 hex digits joined by ":" or "-" (fw4's parse_mac)
export function fw_mac(s) {
	let m = printable(s, 17) &&
		match(s, /^([0-9A-Fa-f]{1,2})[:-]([0-9A-Fa-f]{1,2})[:-]([0-9A-Fa-f]{1,2})[:-]([0-9A-Fa-f]{1,2})[:-]([0-9A-Fa-f]{1,2})[:-]([0-9A-Fa-f]{1,2})$/);

	return m ? join(':', map(slice(m, 1), (x) => sprintf('%02x', hex(x)))) : null;
};

// Port or range: "N", "N-M" or "N:M", 0-65535, N <= M; returns [ N, M ].
export function fw_port(s) {
	let m = printable(s, 11) && match(s, /^([0-9]{1,5})([-:]([0-9]{1,5}))?$/);
	let a = m && +m[1], b = m && ((m[3] != null) ? +m[3] : a);

	return (m && a <= b && b <= 65535) ? [ a, b ] : null;
};

// Address: "ADDR", "ADDR/LEN" or "ADDR/MASK" with a contiguous mask;
// returns cidr()'s { family, cidr }.  Network names, ranges and
// non-contiguous masks are not taken.
export function fw_addr(s) {
	let p = printable(s, 91) ? split(s, '/') : [];

	if (length(p) == 2 && !match(p[1], /^[0-9]+$/)) {
		// a mask written as an address: as many ones as a prefix of that
		// length, nothing behind them
		let m = ip(p[1]) && iptoarr(p[1]), ones = 0;

		for (let i = 0; m && i < length(m); i++)
			for (let x = m[i]; x; x >>= 1)
				ones += x & 1;

		s = (m && length(m) == length(iptoarr(p[0]) ?? []) &&
			cidr(`${p[1]}/${ones}`)?.cidr == `${arrtoip(m)}/${ones}`) ? `${p[0]}/${ones}` : null;
	}

	return cidr(s);
};

// { url, scheme, host, port, path, family: 4|6|null (a name) } or null
function parse_url(s, scheme) {
	if (!printable(s, MAX_URL) || substr(s, 0, length(scheme) + 3) != `${scheme}://`)
		return null;

	let m = match(substr(s, length(scheme) + 3),
		/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(\/[A-Za-z0-9._~\/?=&%+,:@-]*)?$/);

	if (!m)
		return null;

	let host = m[1], family = null;

	if (substr(host, 0, 1) == '[') {
		host = ip(substr(host, 1, length(host) - 2));

		if (host == null || index(host, ':') < 0)
			return null;

		family = 6;
	}
	else if (match(host, /^[0-9.]+$/)) {
		host = ip(host);

		if (host == null)
			return null;

		family = 4;
	}
	else {
		host = hostname(host);

		if (host == null)
			return null;
	}

	let port = (scheme == 'https') ? 443 : 80;

	if (m[2] != null) {
		let p = substr(m[2], 1);

		if (!match(p, /^[1-9][0-9]*$/) || +p > 65535)
			return null;

		port = +p;
	}

	return { url: s, scheme, host, port, path: m[3] ?? '/', family };
}

export function http_url(s) {
	return parse_url(s, 'http');
};

// https:// with a host name (a certificate names hosts, not addresses)
export function https_url(s) {
	let u = parse_url(s, 'https');

	return (u && u.family == null) ? u : null;
};

export function test_url(s) {
	return http_url(s) ?? https_url(s);
};

// Human readable description of each grammar, for error messages.
export const grammar = {
	bool: "'0' or '1'",
	mac: 'six hex pairs separated by ":" (unicast, not all-zero)',
	port: 'a port number 1-65535',
	ports: "'all', 'web' or ports/ranges like '80 443 8080-8090' (1-65535, a<=b, at most 64)",
	name: '1-32 characters A-Z a-z 0-9 . _ -, starting with a letter or digit',
	netdev: 'a network device name: 1-15 characters A-Z a-z 0-9 . _ -',
	mark: 'a non-zero hex value 0x1-0xffffffff',
	mark_mask: 'the mark must lie inside the mask',
	table: 'a routing table id 1-252 or 256-2147483647',
	maxconn: "a number 16-65535, or empty for automatic",
	cidr: 'an IPv4 or IPv6 address or CIDR (e.g. 192.0.2.0/24, 2001:db8::/32)',
	url: 'an http:// or https:// URL (host, optional port, path of safe characters, ' +
		'at most 256 characters; https:// with a host name)'
};
