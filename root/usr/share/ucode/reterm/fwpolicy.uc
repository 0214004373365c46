// SPDX-License-Identifier: Apache-2.0
//
// Which firewall policies a re-terminated connection would escape, from
// /etc/config/firewall (and pbr/mwan3).  A diverted connection ends at
// the proxy on the router (input) and leaves from the router (output), so
// firewall4's forward rules never see it, and its output rules see it
// where they never saw the direct connection.
//
// The rule: what such a firewall rule matches stays direct, where fw4
// applies it.  A rule that only names devices (src_mac, also negated)
// leaves those devices out of reterm's sets; any other rule becomes an
// nft rule "<its match> return" before the divert (`direct` below), in
// fw4's own terms: families as fw4 splits them, src/dest addresses,
// ports, MACs, negations.  What cannot be rendered exactly (an ipset, a
// network name, a rate limit, a time, a mark ...) is left out of the
// match, so that more stays direct, never less, and a warning says so.
// Without forwarding from the LAN's zone to a masquerading (WAN) zone
// nothing is re-terminated.  Source-based policy routing (pbr, mwan3)
// cannot be followed from the router: a warning.
//
//   check(cursor, devices) -> { excluded: { mac: reason }, all: reason|null,
//                               direct: [ match ], warnings: [ ... ] }
// (reasons complete "device X is not re-terminated: ...")
// match: { label, family: 0|4|6, smac, smac_not, saddr, saddr_not, daddr,
// daddr_not, sport, sport_not, dport, dport_not }: lists of validated
// values (reterm.validate), for reterm.render.nft.
//
// cursor: a uci cursor (real or mock): get_all(), foreach() only.
// devices: [ { name, mac } ] (validated, lower-case MACs).

'use strict';

import * as v from 'reterm.validate';

const TIME_OPTS = [ 'start_time', 'stop_time', 'start_date', 'stop_date', 'weekdays', 'monthdays' ];

// fw4's targets in its order: the first that starts with the value, in
// any case, is the target (parse_enum)
const TARGETS = [ 'accept', 'reject', 'drop', 'notrack', 'helper', 'mark', 'dscp', 'dnat', 'snat', 'masquerade' ];

// what a re-terminated connection escapes: the verdicts, and marks and
// DSCP values set in mangle_forward/postrouting (notrack and helper act
// in prerouting, before the divert)
const POLICY = [ 'reject', 'drop', 'mark', 'dscp' ];

// matches of a rule that are not rendered: without them it matches more
const LOOSE = [ 'ipset', 'mark', 'dscp', 'helper', 'limit', 'device' ];

// protocols that never match TCP; any other value might
const NOT_TCP = [ 'udp', '17', 'icmp', '1', 'icmpv6', 'ipv6-icmp', '58', 'igmp', '2', 'esp', '50',
	'ah', '51', 'gre', '47', 'sctp', '132', 'udplite', '136' ];

// entries read per option, rules rendered: beyond them, more stays direct
const MAX_ENTRIES = 64, MAX_RULES = 64;

// fw4's to_array(): a list as it is, an option split at blanks
function list(v) {
	if (v == null)
		return [];

	return (type(v) == 'array') ? v : split(trim('' + v), /[ \t]+/);
}

function fw_bool(s, dflt) {
	return (s == null) ? dflt : !(s in [ '0', 'off', 'false', 'no' ]) && (dflt || s in [ '1', 'on', 'true', 'yes' ]);
}

// zones by name: { masq, networks }
function zones(cursor) {
	let out = {};

	cursor.foreach('firewall', 'zone', (s) => {
		if (type(s.name) == 'string')
			out[s.name] = { masq: fw_bool(s.masq, false), networks: list(s.network) };
	});

	return out;
}

// Could the rule match TCP?  And do its ports apply to TCP (fw4 reads
// them only for an entry tcp or udp: "all" matches every port)?
function proto(rule) {
	let p = map(list(rule.proto ?? 'tcpudp'), x => lc('' + x)), tcp = false, ports = true;

	for (let x in p) {
		if (x in NOT_TCP)
			continue;

		tcp = true;
		ports = ports && x in [ 'tcp', '6', 'tcpudp' ];
	}

	return { tcp, ports };
}

// The kind of traffic a rule with a destination zone filters: 'forward'
// from any zone but a masquerading one (the LAN's, '*', others: more
// stays direct) to another; 'output' (no src) the router's own, which a
// re-terminated connection becomes.  Input rules (no dest) see neither.
function kind(rule, zs) {
	if (rule.dest == null || zs[rule.src]?.masq || (rule.src != null && rule.src != '*' && rule.src == rule.dest))
		return null;

	return (rule.src == null) ? 'output' : 'forward';
}

// One option's entries: { pos, neg, lost }; pos null: no condition (none
// given, or one could not be read: then the condition is dropped);
// neg: the readable negated entries (leaving one out matches more).
function entries(val, parse) {
	let out = { pos: [], neg: [], lost: false }, raw = list(val), lost_pos = false;

	for (let i = 0; i < length(raw); i++) {
		let e = raw[i], neg = false, x = null;

		// (an entry not read might be positive)
		if (type(e) == 'string' && v.one_line(e) && i < MAX_ENTRIES) {
			let m = match(e, /^[ \t]*(!?)[ \t]*(.*)$/);

			neg = m[1] == '!';
			x = parse(trim(m[2]));
		}

		if (x != null)
			push(neg ? out.neg : out.pos, x);
		else {
			out.lost = true;
			lost_pos = lost_pos || !neg;
		}
	}

	// an unreadable positive entry: not all of what it allows is known
	if (!length(out.pos) || lost_pos)
		out.pos = null;

	return out;
}

function port_text(s) {
	let p = v.fw_port(s);

	return p && ((p[0] == p[1]) ? `${p[0]}` : `${p[0]}-${p[1]}`);
}

function cidrs(list, f) {
	return uniq(map(filter(list ?? [], a => a.family == f), a => a.cidr));
}

// fw4's family: 0 any, 4, 6 or null (infer from the addresses)
function family(s) {
	if (s == null || type(s) != 'string')
		return null;

	return (s in [ 'any', 'all', '*' ]) ? 0 : (s == 'inet' || index(s, '4') >= 0) ? 4 : (index(s, '6') >= 0) ? 6 : null;
}

// The rule's match as nft rules, one per family fw4 makes: { rules,
// only_macs, smac, smac_not, lost: [ what was left out ] }; null when it
// names no selected device.
function translate(r, macs) {
	let lost = filter(LOOSE, o => r[o] != null);
	let smac = entries(r.src_mac, v.fw_mac), sip = entries(r.src_ip, v.fw_addr), dip = entries(r.dest_ip, v.fw_addr);
	let pr = proto(r), sp = entries(pr.ports ? r.src_port : null, port_text), dp = entries(pr.ports ? r.dest_port : null, port_text);

	for (let o in [ [ 'src_mac', smac ], [ 'src_ip', sip ], [ 'dest_ip', dip ], [ 'src_port', sp ], [ 'dest_port', dp ] ])
		if (o[1].lost)
			push(lost, o[0]);

	// only selected devices reach the rule: the others' MACs change nothing
	let mpos = smac.pos && uniq(filter(smac.pos, m => macs[m])), mneg = uniq(filter(smac.neg, m => macs[m]));

	if (mpos && !length(mpos))
		return null;

	let addrs = [ ...(sip.pos ?? []), ...sip.neg, ...(dip.pos ?? []), ...dip.neg ];
	let has4 = sip.lost || dip.lost || length(filter(addrs, a => a.family == 4)) > 0;
	let has6 = sip.lost || dip.lost || length(filter(addrs, a => a.family == 6)) > 0;
	let fam = family(r.family), fams;

	if (fam == 4 || fam == 6)
		fams = [ fam ];
	else if (has4 && has6 || (fam === 0 && (has4 || has6)))
		fams = [ 4, 6 ];
	else
		fams = has4 ? [ 4 ] : has6 ? [ 6 ] : [ 0 ];

	let rules = map(fams, f => ({
		family: f, smac: mpos ?? [], smac_not: mneg,
		saddr: cidrs(sip.pos, f), saddr_not: cidrs(sip.neg, f),
		daddr: cidrs(dip.pos, f), daddr_not: cidrs(dip.neg, f),
		sport: uniq(sp.pos ?? []), sport_not: uniq(sp.neg),
		dport: uniq(dp.pos ?? []), dport_not: uniq(dp.neg)
	}));
	let only_macs = length(fams) != 1 || fams[0] == 0;

	for (let m in rules)
		for (let k in [ 'saddr', 'saddr_not', 'daddr', 'daddr_not', 'sport', 'sport_not', 'dport', 'dport_not' ])
			only_macs = only_macs && !length(m[k]);

	return { rules, only_macs, smac: mpos, smac_not: mneg, lost };
}

// the rule's name for a message (JSON-quoted by the caller)
function rname(rule) {
	return substr('' + ((type(rule.name) == 'string') ? rule.name : rule['.name']), 0, 48);
}

function reason(rule, what, kind) {
	let name = rname(rule);

	return (kind == 'output') ?
		sprintf('firewall rule %J (%s of the router\'s own connections) would apply to its re-terminated connections only', name, what) :
		sprintf('firewall rule %J (%s) would not apply to its re-terminated connections', name, what);
}

export function check(cursor, devices) {
	let zs = zones(cursor), excluded = {}, warnings = [], all = null, direct = [], n = -1;
	let macs = {};

	for (let d in devices)
		macs[d.mac] = d;

	cursor.foreach('firewall', 'rule', (r) => {
		let k = kind(r, zs), timed = filter(TIME_OPTS, o => r[o] != null);
		let t = (type(r.target) == 'string') ? filter(TARGETS, x => substr(x, 0, length(r.target)) == lc(r.target))[0] : null;

		n++;

		if (!k || !fw_bool(r.enabled, true) || !proto(r).tcp || (!length(timed) && !(t in POLICY) && (t || r.target == null)))
			return;

		let m = translate(r, macs);

		if (!m)
			return;

		let what = (length(timed) ? 'time-limited ' : '') + (t ?? 'unknown target');

		if (length(m.lost))
			push(warnings, sprintf('firewall rule %J: its %s cannot be followed by reterm, so all it matches without them stays direct',
				rname(r), join(', ', m.lost)));

		if (!m.only_macs) {
			let label = (!r['.anonymous'] && v.name(r['.name'])) ? r['.name'] : sprintf('@rule[%d]', n);

			for (let x in m.rules)
				push(direct, { label, ...x });

			push(warnings, sprintf('firewall rule %J (%s%s): the connections it matches are not re-terminated, so that the firewall treats them as direct ones',
				rname(r), what, (k == 'output') ? " of the router's own connections" : ''));
			return;
		}

		for (let mac, d in macs)
			if ((!m.smac || mac in m.smac) && !(mac in m.smac_not) && !excluded[mac])
				excluded[mac] = reason(r, what, k);
	});

	if (length(uniq(map(direct, x => x.label))) > MAX_RULES) {
		all = sprintf('more than %d firewall rules would need nft rules of their own to keep their connections direct', MAX_RULES);
		direct = [];
	}

	// forwarding from the zone holding the "lan" network to a WAN zone
	let lan_zone = null, fwd = false;

	for (let zn, z in zs)
		if (index(z.networks, 'lan') >= 0)
			lan_zone = zn;

	cursor.foreach('firewall', 'forwarding', (f) => {
		if (fw_bool(f.enabled, true) && f.src == lan_zone && zs[f.dest]?.masq)
			fwd = true;
	});

	if (lan_zone && !fwd && length(keys(zs)))
		all ??= sprintf('the firewall has no forwarding from zone %J to a WAN zone, which re-terminated connections would get around', lan_zone);

	// pbr: its main section (type "pbr") enabled; mwan3: any policy
	let pbr = false, mwan3 = false;

	cursor.foreach('pbr', 'pbr', (s) => { pbr = pbr || s.enabled == '1'; });
	cursor.foreach('mwan3', 'policy', () => { mwan3 = true; });

	for (let p in [ [ 'pbr', pbr ], [ 'mwan3', mwan3 ] ])
		if (p[1])
			push(warnings, sprintf('%s is configured: its source-based routing does not apply to re-terminated connections, which leave from the router itself', p[0]));

	return { excluded, all, direct, warnings };
};
