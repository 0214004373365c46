// SPDX-License-Identifier: Apache-2.0
//
// Tests of the ubus API through the rpcd plugin file itself, with mock
// fs, ubus and uci modules first on the module path:
//
//   ucode -L tests/ucode/api/mocks -L tests/ucode/mocks -L root/usr/share/ucode \
//         tests/ucode/api/api_test.uc
//
// system() is replaced by a recorder, so nothing runs.  Replies of the
// normal paths are compared with tests/ucode/api/fixtures/<fixture>/expected/
// *.json (UPDATE_GOLDEN=1 rewrites them; review with git diff).  Every
// malformed call must answer its error code with no uci write, no commit
// and no system() call.
//
// Prints "not ok - ..." per failure and "api: N passed, N failed".

'use strict';

import * as fs from 'fs';
import * as ubus from 'ubus';
import * as uci from 'uci';
import { SETS, LIST_CMD, SS_CMD } from 'reterm.api.audit';
import { NEIGH6_CMD, INIT, APPLY_BG, APPLY_WAIT_MS } from 'reterm.api';

const HERE = sourcepath(0, true);
const TOP = replace(HERE, /\/tests\/ucode\/api$/, '');
const PLUGIN = `${TOP}/root/usr/share/rpcd/ucode/reterm`;
const real = fs.mock_real();
const UPDATE = getenv('UPDATE_GOLDEN') == '1';

let passed = 0, failed = 0;

function ok(what) { passed++; }
function notok(what, detail) {
	failed++;
	print(`not ok - ${what}\n`);
	if (detail)
		print(join('', map(split(detail, '\n'), l => `#   ${l}\n`)));
}

function check(what, got, want) {
	let g = sprintf('%.J', got), w = sprintf('%.J', want);

	if (g === w)
		ok(what);
	else
		notok(what, `got:  ${g}\nwant: ${w}`);
}

// system() recorder; "apply-bg TOKEN" stands in for the background
// reload: it leaves sys_state's result with that token in the state file
// (null: writes none, as a reload still running), as start_service does.
// sleep() only counts how long rpcd would have waited.
let sys_calls = [], sys_rc = 0, sys_state = 'ok', slept = 0;

global.sleep = (ms) => { slept += ms; return true; };

global.system = (argv, timeout) => {
	push(sys_calls, argv);

	let tok = (argv[0] == APPLY_BG) ? match(argv[1] ?? '', /^([0-9a-f]+)$/) : null;

	if (tok && sys_state)
		fs.mock_file('/var/run/reterm/state',
			`result=${sys_state}\nmessage=${sys_state == 'rejected' ? 'configuration rejected, previous state kept: br_netfilter is active' : 'applied'}\ntoken=${tok[1]}\n`);

	return sys_rc;
};

const RELOAD = [ APPLY_BG, '0102030405060708' ];

let fixture = null;

function setup(name, opts) {
	fixture = `${HERE}/fixtures/${name}`;

	let popen = {};
	popen[LIST_CMD] = `${fixture}/popen/nft-sets.jsonl`;
	popen[SS_CMD] = `${fixture}/popen/ss.txt`;
	popen[NEIGH6_CMD] = `${fixture}/popen/neigh6.txt`;

	fs.mock_setup({ root: `${fixture}/root`, passthrough: [ TOP ], popen });

	let replies = json(real.readfile(`${fixture}/ubus.json`) ?? '{}');
	ubus.mock_setup(opts?.no_ubus ? null : replies);
	uci.mock_reset();
	sys_calls = [];
	sys_rc = opts?.rc ?? 0;
	sys_state = exists(opts ?? {}, 'state') ? opts.state : 'ok';
	fs.mock_file('/dev/urandom', '\x01\x02\x03\x04\x05\x06\x07\x08');
}

let plugin = loadfile(PLUGIN, { raw_mode: true, module_search_path: REQUIRE_SEARCH_PATH })();
let M = plugin.reterm;

function call(method, args) {
	return M[method].call({ args: args ?? {}, info: { method } });
}

function writes() {
	return filter(uci.mock_calls(), c => c[0] in [ 'add', 'set', 'delete', 'commit', 'save' ]);
}

function golden(what, name, got) {
	let path = `${fixture}/expected/${name}.json`;

	if (UPDATE) {
		real.mkdir(`${fixture}/expected`);
		real.writefile(path, sprintf('%.J\n', got));
	}

	let want = real.readfile(path);

	if (want == null)
		return notok(what, `missing ${path} (UPDATE_GOLDEN=1 writes it)`);

	check(what, got, json(want));
}

// ---- the methods table ------------------------------------------------

check('plugin publishes object reterm with the documented methods (the live latency ones are reterm.latency\'s)',
	sort(keys(M)), sort([ 'status', 'hosts', 'device_stats', 'server_rtts', 'device_add', 'device_set', 'device_remove',
		'apply', 'audit_start', 'audit_result', 'wan_info' ]));

check('typed args: strings, booleans and integers',
	map(sort(keys(M)), m => [ m, map(sort(keys(M[m].args ?? {})), a => `${a}:${type(M[m].args[a])}`) ]),
	[
		[ 'apply', [] ],
		[ 'audit_result', [ 'mac:string', 'rtt_ms:int' ] ],
		[ 'audit_start', [ 'minutes:int' ] ],
		[ 'device_add', [ 'enabled:bool', 'mac:string', 'name:string', 'ports:string' ] ],
		[ 'device_remove', [ 'mac:string' ] ],
		[ 'device_set', [ 'enabled:bool', 'mac:string', 'name:string', 'ports:string' ] ],
		[ 'device_stats', [] ],
		[ 'hosts', [] ],
		[ 'server_rtts', [] ],
		[ 'status', [] ],
		[ 'wan_info', [] ]
	]);

// ---- device_stats -----------------------------------------------------

setup('home');
let ds = call('device_stats');
let ah = {};
for (let x in call('hosts').hosts) ah[x.mac] = x;
check('device_stats: only re-terminated devices with open connections, rwnd share as in hosts',
	map(ds.devices, d => [ d.mac, ah[d.mac].reterm, ah[d.mac].enabled, d.sessions > 0,
		d.rwnd_limited_pct == ah[d.mac].audit.rwnd_limited_pct ]),
	map(ds.devices, d => [ d.mac, true, true, true, true ]));
check('device_stats: at least one device, byte counters are numbers',
	[ length(ds.devices) > 0, length(filter(ds.devices, d => type(d.bytes_to) == 'int' && type(d.bytes_from) == 'int')) == length(ds.devices) ],
	[ true, true ]);
setup('home');
call('device_stats');
check('device_stats runs ss and the neighbour table only, writes nothing',
	[ sort(fs.mock_log().popen), writes(), sys_calls ], [ sort([ SS_CMD, NEIGH6_CMD ]), [], [] ]);
setup('disabled');
check('device_stats with nothing re-terminated', call('device_stats'), { devices: [] });

// ---- server_rtts ------------------------------------------------------

setup('home');
check('server_rtts: rtt of the connections to public peers only (no LAN, loopback or on-link IPv6 neighbour), in ss order',
	call('server_rtts'), { rtts: [ 131.5, 162.25, 145 ], source: 'ss' });
check('server_rtts runs ss and the neighbour table only, writes nothing',
	[ sort(fs.mock_log().popen), writes(), sys_calls ], [ sort([ SS_CMD, NEIGH6_CMD ]), [], [] ]);

let many_ss = `/tmp/reterm-api-test-ss-${time()}.txt`, many = '';
for (let i = 0; i < 70; i++)
	many += sprintf('0 0 192.0.2.2:%d 203.0.113.%d:443\n\t cubic rtt:%d.5/1 mss:1448\n', 40000 + i, i + 1, 20 + i);
real.writefile(many_ss, many);
let popen_many = {};
popen_many[SS_CMD] = many_ss;
popen_many[NEIGH6_CMD] = `${fixture}/popen/neigh6.txt`;
fs.mock_setup({ root: `${fixture}/root`, passthrough: [ TOP ], popen: popen_many });
let sr = call('server_rtts');
real.unlink(many_ss);
check('server_rtts: at most 64 values, the first ones ss lists',
	[ length(sr.rtts), sr.rtts[0], sr.rtts[63] ], [ 64, 20.5, 83.5 ]);

popen_many[SS_CMD] = '/nonexistent/ss.txt';
fs.mock_setup({ root: `${fixture}/root`, passthrough: [ TOP ], popen: popen_many });
check('server_rtts without ss output: empty list', call('server_rtts'), { rtts: [], source: 'ss' });

// ---- read methods -----------------------------------------------------

setup('home');
golden('status', 'status', call('status'));
check('status reads no haproxy socket without one', sys_calls, []);

setup('home');
let h = call('hosts');
golden('hosts', 'hosts', h);
check('hosts runs only the fixed commands', sort(fs.mock_log().popen), sort([ LIST_CMD, SS_CMD, NEIGH6_CMD ]));
check('hosts writes nothing', [ writes(), sys_calls, fs.mock_log().write ], [ [], [], [] ]);
check('hosts: sorted consoles/handhelds first, then by name',
	map(h.hosts, x => [ x.class, x.name ]),
	[
		[ 'console', 'nintendo-3ds' ], [ 'console', 'ps4' ],
		[ 'handheld', 'steamdeck' ], [ 'handheld', '' ],
		[ 'other', 'desk' ], [ 'other', 'desk' ], [ 'other', 'Pixel-7' ], [ 'other', 'xbox' ]
	]);

setup('home', { no_ubus: true });
let h2 = call('hosts');
check('hosts without ubus: no odhcpd leases, still a reply',
	[ length(h2.hosts), filter(h2.hosts, x => x.mac == '00:d9:d1:aa:bb:cc')[0].ipv6 ],
	[ 8, [ '2001:db8:1::60' ] ]);

setup('home');
golden('audit_result (all with data)', 'audit_result', call('audit_result'));

setup('home');
golden('audit_result (one MAC, 200 ms)', 'audit_result-3ds-200ms',
	call('audit_result', { mac: '98:E8:FA:12:34:56', rtt_ms: 200 }));

setup('home');
check('audit_result: unknown MAC is not_found',
	call('audit_result', { mac: '02:00:00:00:99:99' }).error, 'not_found');

// ---- wan_info: what the views need of network and firewall ----------
//
// The fixture's network config holds a PPPoE login and password and
// WireGuard keys: none of it may leave, nor any field the views do not use.

const SECRETS = [ 'Pppoe-Secret-4711', 'home-login@isp.example', 'WG-PRIVATE', 'WG-PEER-PUBLIC', 'WG-PSK',
	'vpn.example', '198.51.100', '192.168.1.1', '10.0.0.2' ];
const IFACE_KEYS = [ 'default_route', 'device', 'l3device', 'name', 'proto', 'speed', 'zone' ];

// every key and every string anywhere in a reply
function walk(v, keys_out, strings_out) {
	if (type(v) == 'object')
		for (let k, x in v) {
			push(keys_out, k);
			walk(x, keys_out, strings_out);
		}
	else if (type(v) == 'array')
		for (let x in v)
			walk(x, keys_out, strings_out);
	else if (type(v) == 'string')
		push(strings_out, v);
}

function leaks(reply) {
	let ks = [], ss = [], text = sprintf('%J', reply), out = [];

	walk(reply, ks, ss);

	for (let k in ks)
		if (match(k, /pass|key|secret|psk|user|login|auth|token|addr|endpoint|peer/i))
			push(out, `key ${k}`);

	for (let s in SECRETS)
		if (index(text, s) >= 0)
			push(out, `value ${s}`);

	return out;
}

function shape(reply) {
	return [ sort(keys(reply)), uniq(map(reply.interfaces ?? [], i => join(',', sort(keys(i))))) ];
}

setup('home');
let wi = call('wan_info');
golden('wan_info', 'wan_info', wi);
check('wan_info: no password, key, login or address of the network config in the reply', leaks(wi), []);
check('wan_info: only the documented fields', shape(wi),
	[ [ 'bridges', 'interfaces', 'offload', 'offload_hw' ], [ join(',', IFACE_KEYS) ] ]);
check('wan_info: asks netifd once, reads network, firewall and the WAN port\'s speed, writes and runs nothing',
	[ ubus.mock_calls(), sort(uniq(fs.mock_log().read)), fs.mock_log().popen, writes(), sys_calls, fs.mock_log().write ],
	[ [ [ 'network.interface', 'dump', {} ] ],
	  [ '/etc/config/firewall', '/etc/config/network', '/sys/class/net/eth1/speed', '/sys/class/net/pppoe-wan/speed' ],
	  [], [], [], [] ]);

setup('home', { no_ubus: true });
let wi2 = call('wan_info');
check('wan_info without netifd: the configured devices, no layer 3 device, no default route',
	map(wi2.interfaces, i => [ i.name, i.device, i.l3device, i.default_route, i.speed, i.zone ]),
	[ [ 'lan', 'br-lan', null, false, null, 'lan' ],
	  [ 'wan', 'eth1', null, false, 1000, 'wan' ],
	  [ 'wan6', null, null, false, null, 'wan' ] ]);
check('wan_info without netifd: still no secret', leaks(wi2), []);

// hostile names from the config or netifd never come back; an interface
// with a default route outside the zones is a WAN candidate too
setup('home');
fs.mock_file('/etc/config/network', `
config interface 'wan'
	option device 'eth1;reboot'
	option proto 'dhcp'
	option password 'Pppoe-Secret-4711'

config interface 'lan'
	option device '../../../etc'
	option proto 'static'

config interface 'lte'
	option device 'wwan0'
	option proto 'qmi'
	option pincode '1234'

config device
	option name '../../../etc'
	option type 'bridge'
	list ports 'lan1'
`);
fs.mock_file('/etc/config/firewall', `
config zone
	option name 'wan'
	option network 'wan'

config zone
	option name 'lan'
	option network 'lan'
`);
fs.mock_file('/sys/class/net/wwan0/speed', '99999999999\n');
ubus.mock_setup({ 'network.interface.dump': { interface: [
	{ interface: 'wan', up: true, proto: 'dhcp', device: 'eth1;reboot', l3_device: 'a\nb', route: [] },
	{ interface: 'lte', up: true, proto: 'qmi\n$(x)', device: 'wwan0', l3_device: 'wwan0',
	  route: [ { target: '0.0.0.0', mask: 0, nexthop: '10.64.0.1' } ] },
	{ interface: 'bad name', up: true, proto: 'dhcp', device: 'eth2', route: [ { target: '0.0.0.0', mask: 0 } ] },
	{ interface: 'wan\nx', up: true, proto: 'dhcp', device: 'eth3', route: [ { target: '0.0.0.0', mask: 0 } ] },
	'junk', null
] } });
let wi3 = call('wan_info');
check('wan_info: names outside the netdev grammar are null, odd speeds and interfaces dropped',
	[ wi3.interfaces, wi3.bridges, leaks(wi3), fs.mock_log().read ],
	[ [ { name: 'wan', proto: 'dhcp', device: null, l3device: null, default_route: false, speed: null, zone: 'wan' },
	    { name: 'lan', proto: 'static', device: null, l3device: null, default_route: false, speed: null, zone: 'lan' },
	    { name: 'lte', proto: null, device: 'wwan0', l3device: 'wwan0', default_route: true, speed: null, zone: null } ],
	  {}, [],
	  [ '/etc/config/network', '/etc/config/firewall', '/sys/class/net/wwan0/speed' ] ]);

// bounded: at most 64 interfaces, 64 ports per bridge
let many_net = `config device\n\toption name 'br-lan'\n\toption type 'bridge'\n`, wan_nets = [];
for (let i = 0; i < 100; i++)
	many_net += `\tlist ports 'p${i}'\n`;
many_net += `\nconfig interface 'lan'\n\toption device 'br-lan'\n\toption proto 'static'\n\n`;
for (let i = 0; i < 100; i++) {
	many_net += `config interface 'w${i}'\n\toption device 'eth${i}'\n\toption proto 'dhcp'\n\n`;
	push(wan_nets, `w${i}`);
}
setup('home', { no_ubus: true });
fs.mock_file('/etc/config/network', many_net);
fs.mock_file('/etc/config/firewall', `config zone\n\toption name 'lan'\n\toption network 'lan'\n\n` +
	`config zone\n\toption name 'wan'\n\toption network '${join(' ', wan_nets)}'\n`);
let wi4 = call('wan_info');
check('wan_info: at most 64 interfaces, 64 ports per bridge, 64 speed reads',
	[ length(wi4.interfaces), wi4.interfaces[0].name, length(wi4.bridges['br-lan'] ?? []),
	  length(filter(fs.mock_log().read, p => index(p, '/sys/') == 0)) ],
	[ 64, 'lan', 64, 63 ]);

setup('home');
call('wan_info');
check('wan_info writes no config', [ writes(), sys_calls ], [ [], [] ]);

// ---- writes -----------------------------------------------------------

setup('home');
let r = call('device_add', { name: 'switch', mac: '00:09:BF:01:02:03', ports: '80 443\t8080-8090', enabled: false });
check('device_add: reply', r, {
	section: 'cfg050f15',
	device: { name: 'switch', mac: '00:09:bf:01:02:03', ports: '80 443 8080-8090', enabled: false },
	applied: true
});
check('device_add: uci writes then one commit', uci.mock_calls(), [
	[ 'add', 'reterm', 'device' ],
	[ 'set', 'reterm', 'cfg050f15', 'name', 'switch' ],
	[ 'set', 'reterm', 'cfg050f15', 'mac', '00:09:bf:01:02:03' ],
	[ 'set', 'reterm', 'cfg050f15', 'enabled', '0' ],
	[ 'set', 'reterm', 'cfg050f15', 'ports', '80 443 8080-8090' ],
	[ 'commit', 'reterm' ]
]);
check('device_add: reload via argv, no shell', sys_calls, [ RELOAD ]);
let added = filter(call('hosts').hosts, x => x.mac == '00:09:bf:01:02:03')[0];
check('device_add: the committed device is listed by hosts',
	[ added?.reterm, added?.enabled, added?.ports, added?.section, added?.vendor, added?.class ],
	[ true, false, '80 443 8080-8090', 'cfg050f15', 'Nintendo', 'console' ]);

setup('home');
r = call('device_add', { name: 'switch', mac: '00:09:bf:01:02:03' });
check('device_add: defaults ports all, enabled', r.device, { name: 'switch', mac: '00:09:bf:01:02:03', ports: 'all', enabled: true });

setup('home', { rc: 1 });
r = call('device_add', { name: 'switch', mac: '00:09:bf:01:02:03', ports: 'web' });
check('device_add: failed reload is reported, change kept',
	[ r.applied, r.message, uci.mock_calls()[-1] ],
	[ false, 'saved, but not applied: "/usr/libexec/reterm/apply-bg" could not start the reload (exit 1)', [ 'commit', 'reterm' ] ]);

// rc.common exits 0 when start_service refuses: the state file tells
setup('home', { state: 'rejected' });
r = call('device_set', { mac: '98:e8:fa:12:34:56', enabled: true });
check('device_set: a configuration the service rejected is not "applied"', [ r.applied, r.message ],
	[ false, 'saved, but not applied: configuration rejected, previous state kept: br_netfilter is active' ]);
check('status: the rejection is listed in errors', [ call('status').applied, call('status').errors[-1] ],
	[ 'rejected', 'configuration rejected, previous state kept: br_netfilter is active' ]);
// haproxy exiting at start again and again (procd respawns it)
setup('home');
fs.mock_file('/proc/uptime', '1000.52 1800.00\n');
fs.mock_file('/var/run/reterm/haproxy.starts', '700\n960\n985\n995\n');
fs.mock_file('/var/run/reterm/haproxy.err', '[NOTICE]   (9) : haproxy version is 2.6.12\n[ALERT]    (9) : Cannot raise FD limit to 24640, limit is 4096.\n[ALERT]    (9) : Exiting.\n[NOTICE]   (9) : bye\n\n');
r = call('status');
check('status: a haproxy crash loop is reported with its last error line', [ r.haproxy, r.errors[-1] ], [
	{ running: true, starts_recent: 3, crash_loop: true, last_error: '[ALERT]    (9) : Cannot raise FD limit to 24640, limit is 4096.' },
	'haproxy keeps exiting (3 starts in 120 s): [ALERT]    (9) : Cannot raise FD limit to 24640, limit is 4096.'
]);

// a reload that takes longer: rpcd waits at most APPLY_WAIT_MS, then
// answers "applying" with the token that status will carry
setup('home', { state: null });
slept = 0;
check('apply: a long reload is not waited for: applying, with its token', [ call('apply'), slept <= APPLY_WAIT_MS + 100 ],
	[ { applied: null, applying: true, token: '0102030405060708',
	    message: 'still applying in the background: see "ubus call reterm status"' }, true ]);
setup('home', { state: null });
r = call('device_set', { mac: '98:e8:fa:12:34:56', enabled: true });
check('device_set: saved, applying in the background', [ r.applied, r.applying, r.token, uci.mock_calls()[-1] ],
	[ null, true, '0102030405060708', [ 'commit', 'reterm' ] ]);
fs.mock_file('/var/run/reterm/apply.want', '0102030405060708\n');
check('status: a request not yet taken is "applying"', call('status').applying, true);

setup('home');
r = call('device_set', { mac: '98:e8:fa:12:34:56', ports: 'web', enabled: false });
check('device_set: matches the upper-case MAC in the config', r, {
	sections: [ 'cfg020f15' ],
	device: { name: 'nintendo-3ds', mac: '98:e8:fa:12:34:56', ports: 'web', enabled: false },
	applied: true
});
check('device_set: writes only the given options', uci.mock_calls(), [
	[ 'set', 'reterm', 'cfg020f15', 'enabled', '0' ],
	[ 'set', 'reterm', 'cfg020f15', 'ports', 'web' ],
	[ 'commit', 'reterm' ]
]);
check('device_set: reload', sys_calls, [ RELOAD ]);

setup('home');
r = call('device_set', { mac: '00:D9:D1:AA:BB:CC', name: 'ps4-pro' });
check('device_set: rename', [ r.sections, r.device.name, r.device.ports ], [ [ 'ps4' ], 'ps4-pro', 'web' ]);

setup('home');
r = call('device_remove', { mac: '00:d9:d1:aa:bb:cc' });
check('device_remove: reply', r, { sections: [ 'ps4' ], mac: '00:d9:d1:aa:bb:cc', applied: true });
check('device_remove: delete then commit', uci.mock_calls(), [ [ 'delete', 'reterm', 'ps4' ], [ 'commit', 'reterm' ] ]);
let gone = filter(call('hosts').hosts, x => x.mac == '00:d9:d1:aa:bb:cc')[0];
check('device_remove: the host stays, no longer re-terminated', [ gone.reterm, gone.section, gone.audit.rwnd_limited_pct ], [ false, null, null ]);

setup('home');
check('apply: reloads', [ call('apply'), sys_calls, writes() ], [ { applied: true }, [ RELOAD ], [] ]);

setup('home', { rc: 1 });
check('apply: failure is internal', call('apply'), { error: 'internal', message: 'not applied: "/usr/libexec/reterm/apply-bg" could not start the reload (exit 1)' });

setup('home');
check('audit_start: default 10 minutes', call('audit_start'), { running: true, lan_device: 'br-lan', minutes: 10, remaining_s: 600 });
check('audit_start: one nft run, fixed argv', sys_calls, [ [ 'nft',
	join('; ', [ ...map(SETS, s => `flush set inet fw4 reterm_audit_${s}`),
		'add element inet fw4 reterm_audit_on { "br-lan" timeout 10m }' ]) ] ]);
check('audit_start: writes no config', writes(), []);

setup('home');
check('audit_start: 120 minutes', [ call('audit_start', { minutes: 120 }).remaining_s, match(sys_calls[0][1], /timeout 120m/) != null ], [ 7200, true ]);

setup('home', { rc: 1 });
check('audit_start: nft failing (rules not loaded) is not_running', call('audit_start', { minutes: 5 }).error, 'not_running');

setup('disabled');
check('audit_start: disabled service is not_running, nft not run',
	[ call('audit_start').error, sys_calls ], [ 'not_running', [] ]);

setup('disabled');
check('status of a disabled service', call('status').enabled, false);

// ---- malformed input: error, no write, no commit, no system() ---------

let long = '';
for (let i = 0; i < 5000; i++) long += 'a';

const BAD_NAMES = [ 'a"b', "a'b", 'a{b', 'a}b', 'a;b', 'a\nb', 'a b', 'a\\b', '-a', '', long, substr(long, 0, 33), 'nintendo-3ds\n' ];
const BAD_PORTS = [ 'all; flush ruleset', '80 }', '80\n443', '"80"', '80;443', '0', '65536', '443-80', '80,443',
	'all web', 'ALL', '', '{ 80 }', long, join(' ', map(split(substr(long, 0, 65), ''), c => '80')) ];
const BAD_MACS = [ '02:00:00:00:3d:51"', '02:00:00:00:3d:51\n', '02:00:00:00:3d:51;', '02:00:00:00:3d:51 }',
	'{ 02:00:00:00:3d:51 }', "02:00:00:00:3d:51'", '02:00:00:00:3d:51; flush ruleset',
	'01:00:5e:00:00:01', '00:00:00:00:00:00', '02-00-00-00-3d-51', '', long ];

let cases = [];

for (let m in BAD_MACS) {
	push(cases, [ 'device_add', { name: 'x', mac: m }, 'invalid_argument' ]);
	push(cases, [ 'device_set', { mac: m, enabled: true }, 'invalid_argument' ]);
	push(cases, [ 'device_remove', { mac: m }, 'invalid_argument' ]);
	push(cases, [ 'audit_result', { mac: m }, 'invalid_argument' ]);
}

for (let n in BAD_NAMES) {
	push(cases, [ 'device_add', { name: n, mac: '02:00:00:00:3d:99' }, 'invalid_argument' ]);
	push(cases, [ 'device_set', { mac: '98:e8:fa:12:34:56', name: n }, 'invalid_argument' ]);
}

for (let p in BAD_PORTS) {
	push(cases, [ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', ports: p }, 'invalid_argument' ]);
	push(cases, [ 'device_set', { mac: '98:e8:fa:12:34:56', ports: p }, 'invalid_argument' ]);
}

push(cases,
	// wrong types
	[ 'device_add', { name: 1, mac: '02:00:00:00:3d:99' }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: 2 }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: [ '02:00:00:00:3d:99' ] }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: { m: '02:00:00:00:3d:99' } }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', ports: [ '80' ] }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', ports: 80 }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', enabled: '1' }, 'invalid_argument' ],
	[ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', enabled: 1 }, 'invalid_argument' ],
	[ 'device_set', { mac: '98:e8:fa:12:34:56', enabled: 'true' }, 'invalid_argument' ],
	[ 'device_set', { mac: true, enabled: true }, 'invalid_argument' ],
	[ 'device_remove', { mac: 5 }, 'invalid_argument' ],
	[ 'audit_start', { minutes: '10' }, 'invalid_argument' ],
	[ 'audit_start', { minutes: 10.5 }, 'invalid_argument' ],
	[ 'audit_start', { minutes: true }, 'invalid_argument' ],
	[ 'audit_result', { rtt_ms: '130' }, 'invalid_argument' ],
	[ 'audit_result', { mac: 1 }, 'invalid_argument' ],
	// missing fields
	[ 'device_add', { mac: '02:00:00:00:3d:99' }, 'invalid_argument' ],
	[ 'device_add', { name: 'x' }, 'invalid_argument' ],
	[ 'device_add', {}, 'invalid_argument' ],
	[ 'device_set', { name: 'x' }, 'invalid_argument' ],
	[ 'device_set', { mac: '98:e8:fa:12:34:56' }, 'invalid_argument' ],
	[ 'device_remove', {}, 'invalid_argument' ],
	// unknown arguments
	[ 'device_add', { name: 'x', mac: '02:00:00:00:3d:99', comment: 'hi' }, 'invalid_argument' ],
	[ 'device_set', { mac: '98:e8:fa:12:34:56', enabled: true, section: 'ps4' }, 'invalid_argument' ],
	[ 'device_remove', { mac: '98:e8:fa:12:34:56', all: true }, 'invalid_argument' ],
	[ 'audit_start', { minutes: 10, device: 'eth0' }, 'invalid_argument' ],
	[ 'audit_result', { mac: '98:e8:fa:12:34:56', verbose: true }, 'invalid_argument' ],
	// ranges
	[ 'audit_start', { minutes: 0 }, 'invalid_argument' ],
	[ 'audit_start', { minutes: -5 }, 'invalid_argument' ],
	[ 'audit_start', { minutes: 121 }, 'invalid_argument' ],
	[ 'audit_start', { minutes: 2147483647 }, 'invalid_argument' ],
	[ 'audit_result', { rtt_ms: 0 }, 'invalid_argument' ],
	[ 'audit_result', { rtt_ms: 2001 }, 'invalid_argument' ],
	// unknown / existing devices
	[ 'device_set', { mac: '02:00:00:00:99:99', enabled: true }, 'not_found' ],
	[ 'device_remove', { mac: '02:00:00:00:99:99' }, 'not_found' ],
	[ 'device_add', { name: 'again', mac: '98:e8:fa:12:34:56' }, 'exists' ],
	[ 'device_add', { name: 'again', mac: '00:D9:D1:AA:BB:CC' }, 'exists' ],
	[ 'audit_result', { mac: '02:00:00:00:99:99' }, 'not_found' ]
);

for (let c in cases) {
	setup('home');

	let what = sprintf('%s %.J', c[0], c[1]);
	if (length(what) > 120)
		what = substr(what, 0, 117) + '...';

	let res = call(c[0], c[1]);

	// { error, message } and, for an argument, the field it names
	if (type(res) != 'object' || res.error != c[2] || type(res.message) != 'string' || length(res.message) < 1 ||
	    length(filter(keys(res), k => !(k in [ 'error', 'message', 'field' ])))) {
		notok(`${what} -> ${c[2]}`, sprintf('got %.J', res));
		continue;
	}

	// the message quotes hostile input JSON-escaped: never a raw newline
	if (index(res.message, '\n') >= 0) {
		notok(`${what}: raw newline in message`, res.message);
		continue;
	}

	let w = writes();

	if (length(w) || length(sys_calls) || length(fs.mock_log().write))
		notok(`${what}: wrote something`, sprintf('uci %.J\nsystem %.J', w, sys_calls));
	else
		ok(what);
}

print(`api: ${passed} passed, ${failed} failed\n`);
exit(failed ? 1 : 0);
