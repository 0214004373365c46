// SPDX-License-Identifier: Apache-2.0
//
// Which firewall policies a re-terminated connection would escape, from
// /etc/config/firewall (and pbr/mwan3).  A diverted connection ends at
// the proxy on the router (input) and leaves from the router (output), so
// firewall4's forward rules never see it: a per-device REJECT, a parental
// control or time rule, a missing lan->wan forwarding.
//
// The rule: a device that such a rule names is not re-terminated at all
// (fw4 keeps applying it); without forwarding from the LAN's zone to a
// masquerading (WAN) zone nothing is re-terminated.  Source-based policy
// routing (pbr, mwan3) cannot be followed from the router: a warning.
//
//   check(cursor, devices) -> { excluded: { mac: reason }, all: reason|null,
//                               warnings: [ ... ] }
// (reasons complete "device X is not re-terminated: ...")
//
// cursor: a uci cursor (real or mock): get_all(), foreach() only.
// devices: [ { name, mac } ] (validated, lower-case MACs).

'use strict';

const TIME_OPTS = [ 'start_time', 'stop_time', 'start_date', 'stop_date', 'weekdays', 'monthdays' ];
const BLOCKING = [ 'REJECT', 'DROP' ];

function list(v) {
	if (v == null)
		return [];

	return (type(v) == 'array') ? v : split(trim('' + v), /[ \t]+/);
}

function enabled(s) {
	return s.enabled != '0' && s.disabled != '1';
}

// zones by name: { masq, networks }
function zones(cursor) {
	let out = {};

	cursor.foreach('firewall', 'zone', (s) => {
		if (type(s.name) == 'string')
			out[s.name] = { masq: s.masq == '1', networks: list(s.network) };
	});

	return out;
}

// does the rule apply to TCP?
function tcp(rule) {
	let p = list(rule.proto);

	return !length(p) || index(p, 'all') >= 0 || index(p, 'tcp') >= 0 || index(p, 'tcpudp') >= 0;
}

// a rule from the LAN side towards the internet (dest a masquerading zone,
// any zone, or none given: then fw4 puts it in the src zone's forward
// chain only if dest is set; an input rule (no dest) is not forward policy)
function lan_to_wan(rule, zs) {
	if (rule.src == null || zs[rule.src]?.masq || rule.dest == null)
		return false;

	return rule.dest == '*' || zs[rule.dest]?.masq === true;
}

function why(rule, what) {
	let name = (type(rule.name) == 'string') ? rule.name : rule['.name'];

	return sprintf('firewall rule %J (%s) would not apply to its re-terminated connections',
		substr('' + name, 0, 48), what);
}

export function check(cursor, devices) {
	let zs = zones(cursor), excluded = {}, warnings = [], all = null;
	let macs = {};

	for (let d in devices)
		macs[d.mac] = d;

	cursor.foreach('firewall', 'rule', (r) => {
		if (!enabled(r) || !lan_to_wan(r, zs) || !tcp(r))
			return;

		let timed = filter(TIME_OPTS, o => r[o] != null);
		let blocking = index(BLOCKING, uc('' + r.target)) >= 0;

		if (!length(timed) && !blocking)
			return;

		let what = length(timed) ? 'time-limited ' + lc('' + r.target) : lc('' + r.target);

		for (let m in list(r.src_mac)) {
			m = lc(m);

			if (macs[m] && !excluded[m])
				excluded[m] = why(r, what);
		}
	});

	// forwarding from the zone holding the "lan" network to a WAN zone
	let lan_zone = null, fwd = false;

	for (let n, z in zs)
		if (index(z.networks, 'lan') >= 0)
			lan_zone = n;

	cursor.foreach('firewall', 'forwarding', (f) => {
		if (enabled(f) && f.src == lan_zone && zs[f.dest]?.masq)
			fwd = true;
	});

	if (lan_zone && !fwd && length(keys(zs)))
		all = sprintf('the firewall has no forwarding from zone %J to a WAN zone, which re-terminated connections would get around', lan_zone);

	// pbr: its main section (type "pbr") enabled; mwan3: any policy
	let pbr = false, mwan3 = false;

	cursor.foreach('pbr', 'pbr', (s) => { pbr = pbr || s.enabled == '1'; });
	cursor.foreach('mwan3', 'policy', () => { mwan3 = true; });

	for (let p in [ [ 'pbr', pbr ], [ 'mwan3', mwan3 ] ])
		if (p[1])
			push(warnings, sprintf('%s is configured: its source-based routing does not apply to re-terminated connections, which leave from the router itself', p[0]));

	return { excluded, all, warnings };
};
