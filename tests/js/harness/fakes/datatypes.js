/**
 * A subset of LuCI's validation.js datatypes, for the fake form widgets.
 * `checkDatatype(expr, value)` → true | 'Expecting: …' string; an
 * expression using a datatype not implemented here throws, so a test
 * never passes because the fake skipped a check.
 *
 * Implemented: string, integer, uinteger, float, ufloat, range(a,b),
 * min(a), max(a), length/rangelength/minlength/maxlength, port,
 * portrange, ipaddr, ip4addr, ip6addr, cidr, cidr4, cidr6, ipmask4,
 * macaddr, hostname, host, uciname, hexstring, network, device, list(t),
 * and(a,b), or(a,b), neg(t). Number forms follow LuCI: integers are
 * /^-?\d+$/, decimals /^-?\d+(\.\d+)?$/ (no exponents, no '+').
 */

import { isIPv4, isIPv6 } from 'node:net';

const int = v => (/^-?\d+$/.test(v) ? +v : NaN);
const dec = v => (/^-?\d+(?:\.\d+)?$/.test(v) ? +v : NaN);

const ip4 = v => isIPv4(v) && !/(^|\.)0\d/.test(v);
const ip6 = v => isIPv6(v);
const mask = (v, max) => /^\d+$/.test(v) && +v <= max;
const hostname = v => v.length <= 253 &&
	(/^[a-zA-Z0-9_]+$/.test(v) ||
	 (/^[a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9]\.?$/.test(v) && !/\.\./.test(v) && !/^\d+(\.\d+)*\.?$/.test(v)));

const TYPES = {
	string: () => [true, 'any string'],
	integer: v => [!isNaN(int(v)), 'valid integer value'],
	uinteger: v => [int(v) >= 0, 'positive integer value'],
	float: v => [!isNaN(dec(v)), 'valid decimal value'],
	ufloat: v => [dec(v) >= 0, 'positive decimal value'],
	range: (v, a, b) => [dec(v) >= +a && dec(v) <= +b, `value between ${a} and ${b}`],
	min: (v, a) => [dec(v) >= +a, `value greater or equal to ${a}`],
	max: (v, a) => [dec(v) <= +a, `value smaller or equal to ${a}`],
	length: (v, a) => [v.length === +a, `value with ${a} characters`],
	rangelength: (v, a, b) => [v.length >= +a && v.length <= +b, `value between ${a} and ${b} characters`],
	minlength: (v, a) => [v.length >= +a, `value with at least ${a} characters`],
	maxlength: (v, a) => [v.length <= +a, `value with at most ${a} characters`],
	port: v => [int(v) >= 0 && int(v) <= 65535, 'valid port value'],
	portrange: v => {
		const m = /^(\d+)-(\d+)$/.exec(v);
		const ok = m ? (+m[1] <= +m[2] && +m[2] <= 65535) : (int(v) >= 0 && int(v) <= 65535);
		return [ok, 'valid port or port range (port1-port2)'];
	},
	ipaddr: v => [ip4(v) || ip6(v), 'valid IP address'],
	ip4addr: v => [ip4(v), 'valid IPv4 address'],
	ip6addr: v => [ip6(v), 'valid IPv6 address'],
	cidr: v => {
		const [a, m, x] = v.split('/');
		return [x === undefined && m !== undefined && ((ip4(a) && mask(m, 32)) || (ip6(a) && mask(m, 128))), 'valid IPv4 or IPv6 CIDR'];
	},
	cidr4: v => { const [a, m, x] = v.split('/'); return [x === undefined && ip4(a) && mask(m ?? '', 32), 'valid IPv4 CIDR']; },
	cidr6: v => { const [a, m, x] = v.split('/'); return [x === undefined && ip6(a) && mask(m ?? '', 128), 'valid IPv6 CIDR']; },
	ipmask4: v => { const [a, m, x] = v.split('/'); return [x === undefined && ip4(a) && (m === undefined || mask(m, 32) || ip4(m)), 'valid IPv4 address or network']; },
	macaddr: v => [/^(?:[a-fA-F0-9]{2}:){5}[a-fA-F0-9]{2}$/.test(v), 'valid MAC address'],
	hostname: v => [hostname(v), 'valid hostname'],
	host: v => [hostname(v) || ip4(v) || ip6(v), 'valid hostname or IP address'],
	uciname: v => [/^[a-zA-Z0-9_]+$/.test(v), 'valid UCI identifier'],
	hexstring: v => [/^(?:[a-fA-F0-9]{2})+$/.test(v), 'hexadecimal encoded value'],
	network: v => [/^[a-zA-Z0-9_]+$/.test(v) || hostname(v), 'valid UCI identifier, hostname or IP address range'],
	device: () => [true, 'valid network device']
};

/* parse "name(arg, arg2(x), 'lit')" into { name, args } trees */
function parse(expr) {
	let pos = 0;
	const src = String(expr);
	const ws = () => { while (/\s/.test(src[pos] || '')) pos++; };
	function term() {
		ws();
		if (src[pos] === '"' || src[pos] === "'") {
			const q = src[pos++], start = pos;
			while (pos < src.length && src[pos] !== q) pos++;
			return src.slice(start, pos++);
		}
		const m = /^[-\w.]+/.exec(src.slice(pos));
		if (!m) throw new SyntaxError(`bad datatype expression: ${src}`);
		pos += m[0].length;
		ws();
		if (src[pos] !== '(')
			return /^-?\d/.test(m[0]) ? m[0] : { name: m[0], args: [] };
		pos++;
		const args = [];
		ws();
		if (src[pos] === ')') { pos++; return { name: m[0], args }; }
		for (;;) {
			args.push(term());
			ws();
			if (src[pos] === ',') { pos++; continue; }
			if (src[pos] === ')') { pos++; break; }
			throw new SyntaxError(`bad datatype expression: ${src}`);
		}
		return { name: m[0], args };
	}
	const t = term();
	ws();
	if (pos !== src.length) throw new SyntaxError(`bad datatype expression: ${src}`);
	return t;
}

function run(node, value) {
	switch (node.name) {
	case 'and': {
		for (const a of node.args) { const r = run(a, value); if (!r[0]) return r; }
		return [true, ''];
	}
	case 'or': {
		const msgs = [];
		for (const a of node.args) { const r = run(a, value); if (r[0]) return r; msgs.push(r[1]); }
		return [false, msgs.join(` or `)];
	}
	case 'neg': {
		const r = run(node.args[0], value.replace(/^\s*!\s*/, ''));
		return r;
	}
	case 'list': {
		const items = value.match(/[^\s]+/g) || [];
		for (const it of items) { const r = run(node.args[0], it); if (!r[0]) return r; }
		return [true, ''];
	}
	}
	const fn = TYPES[node.name];
	if (!fn)
		throw new Error(`the fake form does not implement datatype "${node.name}"`);
	return fn(value, ...node.args);
}

/**
 * Check `value` against a LuCI datatype expression.
 * @param {string} expr e.g. "port", "range(1,65535)", "or(ip4addr,hostname)"
 * @param {string} value
 * @returns {true|string} true or "Expecting: …"
 */
export function checkDatatype(expr, value) {
	const r = run(parse(expr), String(value));
	return r[0] ? true : `Expecting: ${r[1]}`;
}
