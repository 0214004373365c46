// SPDX-License-Identifier: Apache-2.0
//
// The ubus object "reterm": what each method does.  The rpcd plugin
// (/usr/share/rpcd/ucode/reterm) declares each method's arguments and
// error codes and checks every call before it reaches these functions;
// /usr/libexec/reterm/api runs the same plugin from a shell (the lab has
// no ubus).  An error reply (reterm.reply) comes before anything is
// written; successful writes commit the reterm package and reload the
// service.
//
// I/O: uci (RETERM_UCI_CONFDIR overrides the config directory, as for the
// render CLI), ubus (optional: absent or not answering is tolerated),
// files under /tmp, /etc, /proc and /sys/class/net/<netdev>/speed, the
// haproxy stats socket (optional, reterm.api.haproxy),
// and fixed commands: the nft and ss commands of reterm.api.audit,
// "ip -6 neigh show", and "/etc/init.d/reterm reload" (argv form, no
// shell).

'use strict';

import { readfile, popen } from 'fs';
import { cursor } from 'uci';
import { connect } from 'ubus';
import { load as load_config } from 'reterm.config';
import { DEFAULTS } from 'reterm.defaults';
import * as v from 'reterm.validate';
import { error } from 'reterm.reply';
import * as H from 'reterm.api.hosts';
import * as D from 'reterm.api.devices';
import * as A from 'reterm.api.audit';
import { lookup } from 'reterm.api.oui';
import * as RS from 'reterm.api.runstate';
import * as W from 'reterm.api.waninfo';
import { sessions } from 'reterm.api.haproxy';

export const INIT = '/etc/init.d/reterm';
export const APPLY_BG = '/usr/libexec/reterm/apply-bg', APPLY_DIR = '/var/run/reterm';
export const APPLY_WAIT_MS = 2000, APPLY_POLL_MS = 100;
export const NEIGH6_CMD = 'ip -6 neigh show 2>/dev/null';
const ARP_FILE = '/proc/net/arp';
const ETHERS_FILE = '/etc/ethers';
const LEASES_DEFAULT = '/tmp/dhcp.leases';

function uci_cursor() {
	return cursor(getenv('RETERM_UCI_CONFDIR') || null);
}

// null when ubus is not there (no ubusd: the lab) or the object is absent
function ubus_call(object, method, args) {
	let conn = connect();

	return conn ? conn.call(object, method, args ?? {}) : null;
}

function command_output(cmd) {
	let p = popen(cmd, 'r');

	if (!p)
		return null;

	let text = p.read('all');

	p.close();

	return text;
}

// A fresh token for the init script to echo in its state file.
function token() {
	let b = readfile('/dev/urandom', 8), t = '';

	for (let i = 0; i < length(b ?? ''); i++)
		t += sprintf('%02x', ord(b, i));

	return length(t) ? t : sprintf('%08x%08x', time(), clock()?.[1] ?? 0);
}

// Reload the service and learn what it really did: rc.common exits 0
// even when start_service refused the configuration, so the outcome is
// read from the state file the init script writes with our token.  The
// reload runs in the background (APPLY_BG, one at a time): rpcd waits for
// it at most APPLY_WAIT_MS, then answers "applying" and `status` tells
// the rest.  { ok: true|false|null, result, message, token }
function reload() {
	let tok = token();
	let rc = system([ APPLY_BG, tok ]);

	if (rc !== 0)
		return { ok: false, message: sprintf('"%s" could not start the reload (exit %s)', APPLY_BG, '' + rc) };

	for (let waited = 0; ; waited += APPLY_POLL_MS) {
		let st = RS.parse_state(readfile(RS.STATE_FILE, 4096));

		if (st?.token == tok)
			return { ok: (st.result == 'ok' || st.result == 'disabled'), result: st.result,
				message: st.message ?? st.result, token: tok };

		if (waited >= APPLY_WAIT_MS)
			return { ok: null, token: tok, message: 'still applying in the background: see "ubus call reterm status"' };

		sleep(APPLY_POLL_MS);
	}
}

// Is a background reload running or waiting?  (apply-bg's lock with a
// live pid, or a request not yet taken)
function applying() {
	if (readfile(APPLY_DIR + '/apply.want', 64) != null)
		return true;

	let pid = +(readfile(APPLY_DIR + '/apply.lock/pid', 16) ?? '');

	return pid > 1 && readfile(`/proc/${pid}/stat`, 64) != null;
}

// The validated config, or the bits the API needs from a broken one.
function config(c) {
	let r = load_config(c, null);
	let raw = c.get('reterm', 'main', 'lan_device');

	return {
		cfg: r.cfg,
		errors: r.errors,
		enabled: r.cfg?.enabled ?? false,
		lan_device: r.cfg?.lan_device ??
			v.netdev((type(raw) == 'string') ? raw : null) ?? DEFAULTS.lan_device
	};
}

// procd's view of our haproxy instance: true, false, or null without
// procd (the lab)
function service_running() {
	let r = ubus_call('service', 'list', { name: 'reterm' });

	if (r == null)
		return null;

	return r?.reterm?.instances?.haproxy?.running === true;
}

function uptime_s() {
	let m = match(readfile('/proc/uptime', 64) ?? '', /^([0-9]+)/);

	return m ? +m[1] : null;
}

function dhcp_sources(c) {
	let leasefile = LEASES_DEFAULT, statics = [];

	c.foreach('dhcp', 'dnsmasq', (s) => {
		if (type(s.leasefile) == 'string' && substr(s.leasefile, 0, 1) == '/')
			leasefile = s.leasefile;

		return false;
	});

	c.foreach('dhcp', 'host', (s) => { push(statics, s); });

	return { leasefile, statics };
}

// The merged host list with vendor, class and audit.
// LAN hosts from every source, keyed by MAC (macs: extra MACs to list)
function merged_hosts(c, conf, devs, macs) {
	let dhcp = dhcp_sources(c);
	let neigh6 = H.parse_neigh6(command_output(NEIGH6_CMD), conf.lan_device);

	return H.merge({
		devices: devs,
		statics: H.parse_statics(dhcp.statics),
		leases4: H.parse_leases4(readfile(dhcp.leasefile)),
		leases6: H.parse_odhcpd(ubus_call('dhcp', 'ipv6leases')),
		ethers: H.parse_ethers(readfile(ETHERS_FILE)),
		arp: H.parse_arp(readfile(ARP_FILE), conf.lan_device),
		neigh6,
		macs
	});
}

function host_list(c, conf, rtt_ms) {
	let devs = D.list(c);
	let sets = A.parse_sets(command_output(A.LIST_CMD));
	let passive = A.passive(sets);
	let merged = merged_hosts(c, conf, devs, keys(passive));

	// ss only matters for devices that are re-terminated right now
	let rows = null;

	for (let d in devs)
		if (d.enabled) {
			rows = A.parse_ss(command_output(A.SS_CMD));
			break;
		}

	let out = [];

	for (let mac, h in merged) {
		let o = lookup(mac);
		let act = (rows && h.reterm && h.enabled) ? A.active(rows, [ ...h.ipv4, ...h.ipv6 ]) : null;

		push(out, {
			mac,
			name: h.name,
			ipv4: h.ipv4,
			ipv6: h.ipv6,
			vendor: o.vendor,
			class: o.class,
			reterm: h.reterm,
			enabled: h.enabled,
			ports: h.ports,
			section: h.section,
			online: h.online,
			audit: A.evaluate(passive[mac], act, rtt_ms)
		});
	}

	return { hosts: sort(out, H.compare), state: A.state(sets, conf.lan_device) };
}

// errors: the configuration's problems, then what the last start said
// when it did not apply (rejected/failed), then a haproxy crash loop.
export function status() {
	let c = uci_cursor(), conf = config(c);
	let sets = A.parse_sets(command_output(A.LIST_CMD));
	let st = RS.parse_state(readfile(RS.STATE_FILE, 4096));
	let running = service_running();
	let hap = RS.haproxy_health(readfile(RS.STARTS_FILE, 4096), readfile(RS.ERR_FILE, 16384),
		uptime_s(), running);
	let errors = [ ...(conf.errors ?? []) ];

	if (st && (st.result == 'rejected' || st.result == 'failed'))
		push(errors, st.message ?? st.result);

	if (conf.enabled && hap.crash_loop)
		push(errors, sprintf('haproxy keeps exiting (%d starts in %d s): %s',
			hap.starts_recent, RS.CRASH_WINDOW_S, hap.last_error ?? 'no message'));

	return {
		enabled: conf.enabled,
		running: running ?? false,
		applied: st?.result ?? null,
		// the last outcome's token (reterm apply and device_* return theirs)
		applied_token: st?.token ?? null,
		applying: applying(),
		devices: conf.cfg ? length(conf.cfg.devices) : 0,
		sessions: sessions(),
		haproxy: conf.enabled ? hap : null,
		audit: A.state(sets, conf.lan_device),
		errors
	};
};

export function hosts() {
	let c = uci_cursor();

	return { hosts: host_list(c, config(c), A.DEFAULT_RTT_MS).hosts };
};

// Live numbers of the re-terminated devices for the Devices page: one ss
// run, no nft reads.  { devices: [ { mac, sessions, bytes_to, bytes_from,
// rwnd_limited_pct } ] }, only devices with open proxied connections.
export function device_stats() {
	let c = uci_cursor(), conf = config(c);
	let devs = filter(D.list(c), d => d.enabled);

	if (!length(devs))
		return { devices: [] };

	let rows = A.parse_ss(command_output(A.SS_CMD));
	let out = [];

	for (let mac, h in merged_hosts(c, conf, devs, [])) {
		if (!h.reterm || !h.enabled)
			continue;

		let act = A.active(rows, [ ...h.ipv4, ...h.ipv6 ]);

		if (act)
			push(out, { mac, sessions: act.connections, bytes_to: act.bytes_to,
				bytes_from: act.bytes_from, rwnd_limited_pct: act.pct });
	}

	return { devices: sort(out, (a, b) => (a.mac < b.mac) ? -1 : (a.mac > b.mac)) };
};

// RTTs the router sees to Internet servers, for the setup wizard's rtt
// proposal: the smoothed rtt (ms) of its own established TCP connections
// to public peers (the far legs of re-terminated connections, and the
// router's own downloads), from one ss run.  Peers in the bypassed
// ranges (private, loopback, link-local, ...) and on-link IPv6
// neighbours (LAN devices with global addresses: the near legs) are
// left out.  At most SERVER_RTTS_MAX values, in ss order.
// { rtts: [ ms, ... ], source: "ss" }
const SERVER_RTTS_MAX = 64;

export function server_rtts() {
	let rows = A.parse_ss(command_output(A.SS_CMD));
	let onlink = {}, out = [];

	for (let n in H.parse_neigh6(command_output(NEIGH6_CMD), null))
		onlink[n.ip] = true;

	for (let r in rows) {
		if (length(out) >= SERVER_RTTS_MAX)
			break;

		if (r.rtt_ms == null || r.rtt_ms <= 0 || A.bypassed(r.peer.addr) || onlink[r.peer.addr])
			continue;

		push(out, r.rtt_ms);
	}

	return { rtts: out, source: 'ss' };
};

// What the Shaping and Wizard pages need of the network and firewall
// configuration (reterm.api.waninfo): read here as root, so that LuCI
// sessions need no read access to those configs and their secrets.
function sections(c, conf) {
	let out = [];

	c.foreach(conf, null, (s) => { push(out, s); });

	return out;
}

function link_speed(dev) {
	// dev passed the netdev grammar: no "/" or ".." can reach the path
	return W.parse_speed(readfile(`/sys/class/net/${dev}/speed`, 32));
}

export function wan_info() {
	let c = uci_cursor();
	let net = sections(c, 'network'), fw = sections(c, 'firewall');

	return W.collect(net, fw, ubus_call('network.interface', 'dump'), link_speed);
};

// Commit and reload after a successful change; the reply tells whether
// the reload worked (the change is saved either way).
function commit(c, res) {
	if (res.error)
		return res;

	if (!c.commit('reterm'))
		return error('internal', 'cannot save the reterm configuration: %s', c.error() ?? 'unknown error');

	let r = reload();

	res.applied = r.ok;

	if (r.ok == null) {
		res.applying = true;
		res.token = r.token;
		res.message = 'saved; ' + r.message;
	}
	else if (!r.ok)
		res.message = 'saved, but not applied: ' + r.message;

	return res;
}

export function device_add(args) {
	let c = uci_cursor();

	return commit(c, D.add(c, args));
};

export function device_set(args) {
	let c = uci_cursor();

	return commit(c, D.set(c, args));
};

export function device_remove(args) {
	let c = uci_cursor();

	return commit(c, D.remove(c, args));
};

export function apply() {
	let r = reload();

	if (r.ok == null)
		return { applied: null, applying: true, token: r.token, message: r.message };

	if (!r.ok)
		return error('internal', 'not applied: %s', r.message);

	return { applied: true };
};

// audit_start / audit_result: arguments checked and defaulted by the
// method table (minutes, mac, rtt_ms within audit.uc's bounds)
export function audit_start(args) {
	let minutes = args.minutes;
	let conf = config(uci_cursor());

	if (!conf.cfg)
		return error('not_running', 'the reterm configuration is invalid, so its firewall rules are not loaded');

	if (!conf.enabled)
		return error('not_running', 'reterm is disabled: enable it first, the audit rules come with it');

	let rc = system(A.start_argv(conf.lan_device, minutes));

	if (rc !== 0)
		return error('not_running', 'the audit rules are not loaded (nft exit %s): is the reterm service running?', '' + rc);

	return { running: true, lan_device: conf.lan_device, minutes, remaining_s: minutes * 60 };
};

export function audit_result(args) {
	let mac = args.mac, rtt = args.rtt_ms;

	let c = uci_cursor();
	let r = host_list(c, config(c), rtt);
	let out = [];

	for (let h in r.hosts)
		if (mac ? h.mac == mac : h.audit != null)
			push(out, {
				mac: h.mac, name: h.name, vendor: h.vendor, class: h.class,
				reterm: h.reterm, enabled: h.enabled, audit: h.audit
			});

	if (mac && !length(out))
		return error('not_found', 'no host with MAC %s is known (no lease, neighbour entry, device section or audit data)', mac);

	return {
		running: r.state.running,
		remaining_s: r.state.remaining_s,
		rtt_ms: rtt,
		devices: out
	};
};
