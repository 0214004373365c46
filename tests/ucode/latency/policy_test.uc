// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.service: what the guided test may reach (issue 13 item
// 5), through the test_start method on a simulated clock.
//
//   targets   public Internet addresses only, after resolution, on port
//             80, 443 or 8080; never this router (its addresses, the
//             networks on its links), loopback, private, CGNAT,
//             link-local, ULA, multicast, broadcast, documentation or
//             benchmark ranges, and never reterm's proxy listener; one
//             server named in the admin-only option (reterm_admin) may be
//             private and use any port
//   replies   every refused target gets the same code and text (the
//             reason goes to the log only)
//   names     resolved without blocking: test_start's reply comes later
//             (a deferred ubus reply), the loop runs meanwhile, a
//             resolver that hangs ends in a refusal; the load connects
//             only to the addresses that were checked
//   pace      one test (or start) at a time, then a 30 s gap: too_soon
//             with the seconds to wait

'use strict';

import * as S from 'reterm.latency.service';
import * as T from 'reterm.latency.target';
import { checker, sim, prober, load, memfs } from 'sim';
import { cursor } from 'uci';

let c = checker('monitor/policy');

// the router: WAN 81.2.69.160/27, LAN 192.168.1.1/24 with the delegated
// IPv6 prefix 2a02:1234:5678:1::/64 (what /proc shows)
const FIB = `Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     |-- 81.2.69.160
        /27 link UNICAST
     |-- 192.168.1.0
        /24 link UNICAST
Local:
  +-- 0.0.0.0/0 3 0 5
     |-- 81.2.69.170
        /32 host LOCAL
     |-- 81.2.69.191
        /32 link BROADCAST
     |-- 127.0.0.1
        /32 host LOCAL
     |-- 192.168.1.1
        /32 host LOCAL
Id 100:
  |-- 0.0.0.0
     /0 host LOCAL
`;
const IF6 = `00000000000000000000000000000001 01 80 10 80       lo
2a021234567800010000000000000001 05 40 00 80   br-lan
fe800000000000000000000000000001 05 40 20 80   br-lan
2a0212345678ff000000000000000002 03 80 00 80     eth1
`;
// its routes (/proc/net/ipv6_route, /proc/net/route): the defaults out of
// eth1 (one source-specific), the ISP's route for 2001:4860::/32 there,
// the delegated 2a02:1234:5678::/56 unreachable but for the LAN's /64, a
// /60 of it delegated on to a router behind the LAN, a WireGuard peer's
// 2a05:abcd::/48, a public IPv4 /29 routed to a LAN host, a blackholed
// 9.9.9.0/24; reterm's own "local default dev lo" in its table and the
// kernel's null route
const ROUTE6 = `00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 80000001       lo
00000000000000000000000000000000 00 2a021234567800000000000000000000 38 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth1
20014860000000000000000000000000 20 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth1
2a021234567800010000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000004 00000000 00000001   br-lan
2a021234567800100000000000000000 3c 00000000000000000000000000000000 00 fe800000000000000000000000000099 00000400 00000001 00000000 00000003   br-lan
2a021234567800000000000000000000 38 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00200200       lo
2a05abcd000000000000000000000000 30 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 00000001      wg0
fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001   br-lan
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth1
2a021234567800010000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000003 00000000 80200001   br-lan
ff000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000003 00000000 00000001   br-lan
00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000002 00000000 00200200       lo
`;
const ROUTE4 = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
eth1	00000000	A1450251	0003	0	0	0	00000000	0	0	0
br-lan	00070605	3201A8C0	0003	0	0	0	F8FFFFFF	0	0	0
*	00090909	00000000	0001	0	0	0	00FFFFFF	0	0	0
eth1	A0450251	00000000	0001	0	0	0	E0FFFFFF	0	0	0
br-lan	0001A8C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
`;
const PROC = { '/proc/net/fib_trie': FIB, '/proc/net/if_inet6': IF6, '/proc/net/ipv6_route': ROUTE6, '/proc/net/route': ROUTE4 };

const PUBLIC4 = '93.184.216.34', PUBLIC6 = '2606:4700::1111';

function world(o) {
	let s = sim(1718000000000), fs = memfs(), ids = 0;
	let loads = [], logs = [], resolves = [];
	let inner = load(s, () => 10000000);
	let env = {
		clock: s.clock,
		timer: s.timer,
		prober: prober(s, () => 20),
		readfile: (p) => PROC[p],
		qdisc: { show: (cb) => cb(null), close: () => null },
		load: (dir, url, streams) => {
			push(loads, { dir, host: url.host, port: url.port, addrs: url.addrs });
			return inner(dir, url, streams);
		},
		fs,
		fsync: fs.fsync,
		id: () => sprintf('%08x', ++ids),
		log: (m) => push(logs, m),
		// names -> addresses after resolve_ms; a name not listed does not
		// resolve; o.hang: the resolver never answers
		resolve: (host, cb) => {
			push(resolves, host);

			if (o?.hang)
				return { cancel: () => null };

			let t = s.timer(o?.resolve_ms ?? 300, () => {
				let a = o?.names?.[host];

				(a == null) ? cb(null, 'no such name') : cb(a, null);
			});

			return { cancel: () => t.cancel() };
		},
		policy: () => ({ test_servers: o?.servers ?? [], proxy_port: 15001 })
	};
	let svc = S.create(env, {
		enabled: true, reflectors: [ '1.1.1.1' ], prober: 'auto',
		wan: null, shaper: null, cake: null, warnings: []
	});

	return { s, svc, m: svc.methods, loads, logs, resolves, env };
}

function urls(dl, ul) {
	return { download_url: dl, upload_url: ul ?? dl };
}

// test_start with a reply callback: [ immediate reply, () -> later reply ]
function start(w, a) {
	let later = null, now = w.m.test_start(a, (r) => { later = r; });

	return [ now, () => later ];
}

// ---- refused targets ----------------------------------------------------------

let refused = [
	[ 'http://127.0.0.1:15001/', "reterm's proxy listener" ],
	[ 'http://127.0.0.1/bytes/1', 'loopback' ],
	[ 'http://127.1.2.3/', 'loopback' ],
	[ 'http://[::1]/', 'loopback (IPv6)' ],
	[ 'http://0.0.0.0/', 'unspecified' ],
	[ 'http://[::]/', 'unspecified (IPv6)' ],
	[ 'http://10.0.0.2/', 'RFC 1918' ],
	[ 'http://172.16.5.4/', 'RFC 1918' ],
	[ 'http://172.31.255.254/', 'RFC 1918' ],
	[ 'http://192.168.1.20/', 'RFC 1918 (LAN host)' ],
	[ 'http://192.168.1.1/', 'the router (LAN address)' ],
	[ 'http://100.64.1.1/', 'CGNAT' ],
	[ 'http://169.254.1.1/', 'link-local' ],
	[ 'http://[fe80::1]/', 'link-local (IPv6)' ],
	[ 'http://[fd00::1]/', 'ULA' ],
	[ 'http://[fc12::1]/', 'ULA' ],
	[ 'http://224.0.0.1/', 'multicast' ],
	[ 'http://239.255.255.250/', 'multicast (SSDP)' ],
	[ 'http://[ff02::1]/', 'multicast (IPv6)' ],
	[ 'http://255.255.255.255/', 'broadcast' ],
	[ 'http://240.0.0.1/', 'reserved' ],
	[ 'http://192.0.2.10/', 'documentation' ],
	[ 'http://198.51.100.7/', 'documentation' ],
	[ 'http://203.0.113.9/', 'documentation' ],
	[ 'http://198.18.0.1/', 'benchmark' ],
	[ 'http://[2001:db8::2]/', 'documentation (IPv6)' ],
	[ 'http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback' ],
	[ 'http://[::ffff:10.0.0.1]/', 'IPv4-mapped private' ],
	[ 'http://[64:ff9b::a00:1]/', 'NAT64 of a private address' ],
	[ 'http://[2002:c0a8:101::1]/', '6to4 of a private address' ],
	[ 'http://81.2.69.170/', "the router's WAN address" ],
	[ 'http://81.2.69.161/', "a host on the router's WAN link" ],
	[ 'http://81.2.69.191/', "the WAN link's broadcast" ],
	[ 'http://[2a02:1234:5678:1::50]/', "a LAN host's global IPv6 address" ],
	[ 'http://[2a02:1234:5678:1::1]/', "the router's LAN IPv6 address" ],
	[ 'http://[64:ff9b::5102:45aa]/', "NAT64 of the router's WAN address" ],
	[ 'http://[::ffff:81.2.69.170]/', "the router's WAN address, IPv4-mapped" ],
	[ 'http://[2002:5102:45aa::1]/', "6to4 of the router's WAN address" ],
	[ 'http://[64:ff9b::5102:45a1]/', "NAT64 of a host on the router's WAN link" ],
	[ 'http://[2a02:1234:5678:10::5]/', 'behind a router on the LAN (a /60 of the delegated prefix routed there)' ],
	[ 'http://[2a02:1234:5678:ff::1]/', 'the delegated prefix outside the LAN (unreachable route)' ],
	[ 'http://[2a05:abcd::1]/', "a WireGuard peer's network" ],
	[ 'http://5.6.7.1/', 'a public IPv4 /29 routed to a LAN host' ],
	[ 'http://[64:ff9b::506:701]/', 'NAT64 of the /29 routed to a LAN host' ],
	[ 'http://9.9.9.9/', 'a blackholed network' ],
	[ `http://${PUBLIC4}:22/`, 'port 22' ],
	[ `http://${PUBLIC4}:15001/`, 'port 15001' ],
	[ `http://${PUBLIC4}:8081/`, 'port 8081' ],
	[ `http://[${PUBLIC6}]:25/`, 'port 25 (IPv6)' ]
];
let messages = {};

for (let r in refused) {
	let w = world();
	let now = start(w, urls(r[0], `http://${PUBLIC4}/upload`))[0];

	c.eq(`refused: ${r[0]} (${r[1]})`, now?.error, 'target_refused');
	c.eq(`... nothing loaded, the prober not taken (${r[0]})`, [ length(w.loads), w.m.test_status({}).state ], [ 0, 'idle' ]);
	messages[now?.message ?? 'none'] = true;

	// as the upload URL too (a new router: a refusal starts the gap)
	let up = start(world(), urls(`http://${PUBLIC4}/bytes/1`, r[0]))[0];

	c.eq(`refused as the upload URL: ${r[0]}`, up?.error, 'target_refused');
}

c.eq('every refusal reads the same (the reason is not told)', length(keys(messages)), 1);

let text = keys(messages)[0];

c.ok(sprintf('the refusal says the rule (%J)', text), index(text, 'public') >= 0 && index(text, '80, 443') >= 0);

for (let word in [ 'loopback', 'refused', 'private', 'RFC', '127.0.0.1', 'unreachable', 'timed out', 'listener' ])
	c.ok(`... and does not say "${word}"`, index(text, word) < 0);

let lw = world();

start(lw, urls('http://10.0.0.2/bytes/1', `http://${PUBLIC4}/upload`));
c.ok(sprintf('the reason goes to the log (%J)', lw.logs), length(filter(lw.logs, (l) => index(l, '10.0.0.2') >= 0 && index(l, 'private') >= 0)) == 1);

for (let r in [ [ 'http://[2a02:1234:5678:10::5]/', 'routed by this router to br-lan, not to the Internet (2a02:1234:5678:10::/60)' ],
                [ 'http://[64:ff9b::5102:45aa]/', "81.2.69.170 inside: this router's own address" ],
                [ 'http://[2a02:1234:5678:ff::1]/', 'in 2a02:1234:5678::/56, which this router does not route' ] ]) {
	let rw = world();

	start(rw, urls(r[0], `http://${PUBLIC4}/upload`));
	c.ok(sprintf('the log says why %s is refused (%J)', r[0], rw.logs), length(filter(rw.logs, (l) => index(l, r[1]) >= 0)) == 1);
}

// /proc/net/route on a big-endian router prints addresses in network order
c.eq('routes: /proc/net/route of a big-endian router', T.routes(null,
	'br-lan\t05060700\tC0A80132\t0003\t0\t0\t0\tFFFFFFF8\t0\t0\t0\n', false),
	[ { net: [ 5, 6, 7, 0 ], len: 29, dev: 'br-lan', reject: false } ]);

// ---- allowed targets ---------------------------------------------------------------

for (let u in [ `http://${PUBLIC4}/bytes/1`, `http://${PUBLIC4}:443/x`, `http://${PUBLIC4}:8080/x`, `http://[${PUBLIC6}]/x`,
                'http://1.1.1.1/', 'http://[2a00:1450:4001::200e]/', `http://[64:ff9b::5db8:d822]/`,
                'http://[2001:4860:4860::8888]/' ]) {
	let w = world();
	let now = start(w, urls(u, u))[0];

	c.eq(`allowed: ${u}`, [ now?.started, now?.error ], [ true, null ]);
}

// the load connects to exactly the checked addresses
let pw = world();

start(pw, urls(`http://${PUBLIC4}/bytes/1`, `http://[${PUBLIC6}]:8080/upload`));
pw.s.advance(20000);
c.eq('the loads get the checked addresses pinned', map(pw.loads, (l) => [ l.dir, l.host, l.port, l.addrs ]), [
	[ 'down', PUBLIC4, 80, [ PUBLIC4 ] ], [ 'up', PUBLIC6, 8080, [ PUBLIC6 ] ]
]);

// ---- host names: resolved without blocking -------------------------------------------

let names = {
	'speed.example.net': [ PUBLIC4, PUBLIC6 ],
	'intranet.example.net': [ '10.1.2.3' ],
	'mixed.example.net': [ PUBLIC4, '192.168.1.20' ],
	'rebind.example.net': [ '127.0.0.1' ],
	'wan.example.net': [ '81.2.69.170' ]
};
let nw = world({ names, resolve_ms: 400 });
let ns = start(nw, urls('http://speed.example.net/bytes/1', 'http://speed.example.net/upload'));
let now = ns[0], later = ns[1];

c.eq('a name: no reply yet (deferred), no test yet', [ now, later(), nw.m.test_status({}).state ], [ null, null, 'idle' ]);
c.eq('... one resolution for the host of both URLs', nw.resolves, [ 'speed.example.net' ]);
c.eq('... the daemon answers other calls meanwhile', nw.m.status({}).state, 'awake');
c.eq('... a second test_start meanwhile is busy', nw.m.test_start(urls(`http://${PUBLIC4}/`), () => null)?.error, 'busy');
nw.s.advance(200);
c.eq('... still resolving after 200 ms', later(), null);
nw.s.advance(300);
c.eq('... the reply when the resolver answered', [ later()?.started, later()?.error ], [ true, null ]);
nw.s.advance(10000);
c.eq('... the loads keep the name in the URL and connect to the checked addresses',
	map(nw.loads, (l) => [ l.dir, l.host, l.addrs ]), [ [ 'down', 'speed.example.net', [ PUBLIC4, PUBLIC6 ] ] ]);

for (let n in [ 'intranet', 'mixed', 'rebind', 'wan', 'nonexistent' ]) {
	let w = world({ names });
	let ab = start(w, urls(`http://${n}.example.net/bytes/1`, `http://${PUBLIC4}/upload`)), a = ab[0], b = ab[1];

	w.s.advance(1000);
	c.eq(`a name resolving to ${n == 'nonexistent' ? 'nothing' : join(' ', names[`${n}.example.net`])}: refused, the same text`,
		[ a, b()?.error, b()?.message, length(w.loads) ], [ null, 'target_refused', text, 0 ]);
}

let hw = world({ hang: true });
let hs = start(hw, urls('http://slow.example.net/bytes/1')), h0 = hs[0], h1 = hs[1];

hw.s.advance(4000);
c.eq('a resolver that hangs: no reply yet after 4 s', [ h0, h1() ], [ null, null ]);
hw.s.advance(3000);
c.eq('... refused by 7 s, the same text', [ h1()?.error, h1()?.message ], [ 'target_refused', text ]);
c.eq('... and the gap follows it: too_soon', start(hw, urls(`http://${PUBLIC4}/`))[0]?.error, 'too_soon');

let noreply = world({ names }).m.test_start(urls('http://speed.example.net/x'));

c.eq('a name without a way to reply later: an error, no test', [ noreply?.started, noreply?.error ], [ null, 'internal' ]);

// ---- the admin-only test server --------------------------------------------------------

let aw = world({ servers: [ '10.0.0.2', 'speed.lan', '127.0.0.1' ], names: { 'speed.lan': [ '192.168.1.9' ] } });

c.eq('admin server 10.0.0.2, any port', start(aw, urls('http://10.0.0.2:5201/bytes/1', 'http://10.0.0.2/upload'))[0]?.started, true);
aw.m.test_stop({});

let aw2 = world({ servers: [ '10.0.0.2', 'speed.lan', '127.0.0.1' ], names: { 'speed.lan': [ '192.168.1.9' ] } });
let an = start(aw2, urls('http://speed.lan:81/bytes/1')), n0 = an[0], n1 = an[1];

aw2.s.advance(1000);
c.eq('admin server by name, resolving to a private address', [ n0, n1()?.started ], [ null, true ]);

let aw3 = world({ servers: [ '10.0.0.2', '127.0.0.1' ] });

c.eq('admin server on loopback: never the proxy listener port', start(aw3, urls('http://127.0.0.1:15001/'))[0]?.error, 'target_refused');
aw3.s.advance(30000);
c.eq('... another port of it is fine', start(aw3, urls('http://127.0.0.1:8081/bytes/1'))[0]?.started, true);

let aw4 = world({ servers: [ '10.0.0.2' ] });

c.eq('a private address not named there is still refused', start(aw4, urls('http://10.0.0.3/'))[0]?.error, 'target_refused');
aw4.s.advance(30000);
c.eq('the named server does not open the other URL', start(aw4, urls('http://10.0.0.2/', 'http://10.0.0.3/'))[0]?.error, 'target_refused');

// ---- one at a time, then a gap -------------------------------------------------------------

let gw = world();
let g1 = start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0];

c.eq('gap: the first test starts', g1?.started, true);
c.eq('gap: a second one while it runs is busy', start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.error, 'busy');
gw.s.advance(45000);
c.eq('gap: the test is done', gw.m.test_status({}).state, 'done');

let soon = start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0];

c.eq('gap: right after it: too_soon, 29-30 s to wait', [ soon?.error, soon?.wait_s >= 29 && soon?.wait_s <= 30 ], [ 'too_soon', true ]);
c.ok(sprintf('gap: the message says how long (%J)', soon?.message), index(soon?.message ?? '', `${soon?.wait_s} s`) >= 0);
gw.s.advance(20000);
c.eq('gap: 20 s later: wait 9-10 s more', start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.wait_s >= 9, true);
gw.s.advance(10000);
c.eq('gap: 30 s after the end: starts', start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.started, true);
gw.s.advance(3000);
gw.m.test_stop({});
c.eq('gap: also after a stopped test', start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.error, 'too_soon');
gw.s.advance(30000);
c.eq('gap: ... until 30 s after the stop', start(gw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.started, true);

// every attempt, not only a test that ran: a refused or failed start is
// followed by the same gap (a caller cannot try targets back to back);
// an argument error is no attempt
for (let a in [
	[ 'a port refused at once', urls(`http://${PUBLIC4}:22/`) ],
	[ 'an address refused', urls('http://10.0.0.2/') ],
	[ 'a name that does not resolve', urls('http://nonexistent.example.net/') ],
	[ 'a name resolving to a private address', urls('http://intranet.example.net/') ]
]) {
	let w = world({ names });
	let ab = start(w, a[1]);

	w.s.advance(1000);

	let first = ab[0] ?? ab[1](), next = start(w, urls(`http://${PUBLIC4}/bytes/1`))[0];

	c.eq(`gap after ${a[0]}: target_refused, then too_soon with 29-30 s to wait`,
		[ first?.error, next?.error, next?.wait_s >= 29 && next?.wait_s <= 30 ], [ 'target_refused', 'too_soon', true ]);
	w.s.advance(30000);
	c.eq(`... and 30 s after it: starts (${a[0]})`, start(w, urls(`http://${PUBLIC4}/bytes/1`))[0]?.started, true);
}

let iw = world();

c.eq('an argument error is no attempt: no gap after it', [ iw.m.test_start({ download_url: `http://${PUBLIC4}/x` }, () => null)?.error,
	start(iw, urls(`http://${PUBLIC4}/bytes/1`))[0]?.started ], [ 'invalid_argument', true ]);

// ---- where the admin names it -----------------------------------------------------------

let fsm = require('fs'), now_c = clock(true);
let dir = sprintf('%s/reterm-policy-%d-%d', getenv('TMPDIR') ?? '/tmp', now_c[0], now_c[1]);

fsm.mkdir(dir);
fsm.writefile(`${dir}/reterm_admin`, "config latency 'latency'\n\tlist test_server 'Speed.LAN'\n\tlist test_server '10.0.0.02'\n\tlist test_server 'fd00:0::1'\n");
fsm.writefile(`${dir}/reterm`, "config reterm 'main'\n\toption port '15002'\n\nconfig latency 'latency'\n\toption test_server '10.0.0.9'\n");

let pol = S.load_policy(cursor(dir));

c.eq('reterm_admin: names canonical, junk left out with a warning, the proxy port from reterm.main',
	[ pol.test_servers, length(pol.warnings), pol.proxy_port ], [ [ 'speed.lan', 'fd00::1' ], 1, 15002 ]);
c.ok('test_server in /etc/config/reterm (writable through LuCI) is ignored, with a warning',
	length(filter(S.load_config(cursor(dir), () => 'eth1').warnings, (w) => index(w, 'reterm_admin') >= 0)) == 1);
c.eq('no reterm_admin: no admin server, proxy port 15001, the ca-bundle CA file', S.load_policy(cursor('/nonexistent')),
	{ test_servers: [], proxy_port: 15001, ca_file: '/etc/ssl/certs/ca-certificates.crt', warnings: [] });

for (let ca in [ [ '/tmp/lab/ca.pem', '/tmp/lab/ca.pem', 0 ], [ '/etc/../etc/shadow', '/etc/ssl/certs/ca-certificates.crt', 1 ],
                 [ 'relative.pem', '/etc/ssl/certs/ca-certificates.crt', 1 ], [ '/tmp/a b', '/etc/ssl/certs/ca-certificates.crt', 1 ],
                 [ '/tmp/$(reboot)', '/etc/ssl/certs/ca-certificates.crt', 1 ] ]) {
	fsm.writefile(`${dir}/reterm_admin`, sprintf("config latency 'latency'\n\toption ca_file %J\n", ca[0]));
	pol = S.load_policy(cursor(dir));
	c.eq(`reterm_admin ca_file ${ca[0]}: ${ca[1]}, ${ca[2]} warning(s)`, [ pol.ca_file, length(pol.warnings) ], [ ca[1], ca[2] ]);
}

for (let f in [ 'reterm_admin', 'reterm' ])
	fsm.unlink(`${dir}/${f}`);

fsm.rmdir(dir);

c.done();
