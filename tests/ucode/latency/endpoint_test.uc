// SPDX-License-Identifier: Apache-2.0
//
// The guided test's endpoints (issue 14) through test_start on a
// simulated clock: no URL means the built-in endpoints in order, each
// resolved, checked and (https://) asked once per direction before the
// test; a failing one hands over to the next with its reason kept in
// `tried`; every failure has its code and a message that names the
// endpoint; custom URLs and an endpoint id are checked as arguments.

'use strict';

import * as S from 'reterm.latency.service';
import * as E from 'reterm.latency.test.endpoints';
import { failure } from 'reterm.latency.test.tlsload';
import { checker, sim, prober, load, memfs } from 'sim';

let c = checker('monitor/endpoint');

const CF4 = '104.16.1.1', CF6 = '2606:4700::6810:101', T2 = '90.130.70.73';
const CA = '/etc/ssl/certs/ca-certificates.crt';

// o.names: host -> addresses; o.check: url host+dir -> failure kind
function world(o) {
	let s = sim(1718000000000), ids = 0;
	let fs = memfs(o.ca === false ? {} : { [o.ca ?? CA]: 'PEM' });
	let loads = [], checks = [], inner = load(s, () => 10000000);
	let env = {
		clock: s.clock, timer: s.timer, prober: prober(s, () => 20),
		readfile: () => null,
		qdisc: { show: (cb) => cb(null), close: () => null },
		load: (dir, url, streams) => {
			push(loads, { dir, url: url.url, scheme: url.scheme, addrs: url.addrs, ca: url.ca,
			              referer: url.referer?.url, seconds: url.seconds });
			return inner(dir, url, streams);
		},
		fs, fsync: fs.fsync, id: () => sprintf('%08x', ++ids), log: () => null,
		resolve: (host, cb) => {
			let t = s.timer(100, () => (o.names?.[host] == null) ? cb(null, 'no such name') : cb(o.names[host], null));

			return { cancel: () => t.cancel() };
		},
		check: (q, cb) => {
			push(checks, { url: q.url.url, dir: q.dir, ca: q.ca, referer: q.referer?.url, name: q.name, uniform: q.uniform });

			let kind = o.check?.[`${q.url.host} ${q.dir}`];
			let t = s.timer(200, () => cb(kind ? failure(kind, q.url, q.name, q.ca) : null));

			return { cancel: () => t.cancel() };
		},
		policy: () => ({ test_servers: [], proxy_port: 15001, ca_file: o.ca || CA })
	};
	let svc = S.create(env, { enabled: true, reflectors: [ '1.1.1.1' ], prober: 'auto',
	                          wan: null, shaper: null, cake: null, warnings: [] });

	return { s, m: svc.methods, loads, checks };
}

// test_start, then the clock runs until its deferred reply came
function start(w, a) {
	let later = null, now = w.m.test_start(a, (r) => { later = r; });

	w.s.advance(5000);

	return now ?? later;
}

const NAMES = { 'speed.cloudflare.com': [ CF4, CF6 ], 'speedtest.tele2.net': [ T2 ] };

// ---- no URL: the first endpoint -------------------------------------------------

let w = world({ names: NAMES });
let r = start(w, {});

c.eq('no URL: started on the first endpoint', [ r.started, r.endpoint, r.tried ],
	[ true, { id: 'cloudflare', name: 'Cloudflare speed test' }, [] ]);
c.eq('asked once per direction, with the CA file and the Referer', w.checks, [
	{ url: 'https://speed.cloudflare.com/__down?bytes=25000000', dir: 'down', ca: CA, referer: 'https://speed.cloudflare.com/', name: 'Cloudflare speed test', uniform: false },
	{ url: 'https://speed.cloudflare.com/__up', dir: 'up', ca: CA, referer: 'https://speed.cloudflare.com/', name: 'Cloudflare speed test', uniform: false } ]);
w.s.advance(8000);
c.eq('the download load gets https, the checked addresses, CA, Referer, the test length', w.loads[0],
	{ dir: 'down', url: 'https://speed.cloudflare.com/__down?bytes=25000000', scheme: 'https', addrs: [ CF4, CF6 ],
	  ca: CA, referer: 'https://speed.cloudflare.com/', seconds: 44 });

c.ok('every object asked for is below 100 000 000 bytes', length(filter(E.ENDPOINTS, (e) => {
	let m = match(e.download, /bytes=([0-9]+)/);
	return m && +m[1] >= 100000000;
})) == 0);

// ---- fallback -----------------------------------------------------------------------

for (let f in [
	[ 'wrong CA', 'tls_verify', 'tls_failed', /certificate of speed\.cloudflare\.com could not be verified/ ],
	[ 'throttled', 'http_403', 'throttled', /refused the test \(HTTP 403\)/ ],
	[ 'too many requests', 'http_429', 'throttled', /HTTP 429/ ],
	[ 'endpoint down', 'connect', 'unreachable', /no answer from speed\.cloudflare\.com: retry/ ],
	[ 'endpoint silent', 'timeout', 'unreachable', /no answer from speed\.cloudflare\.com: retry/ ],
	[ 'certificate for another name', 'tls_name', 'tls_failed', /not for that name/ ],
	[ 'no fence (test/fence.uc)', 'fence', 'tls_failed', /cannot be held to the checked addresses/ ]
]) {
	w = world({ names: NAMES, check: { 'speed.cloudflare.com down': f[1] } });
	r = start(w, {});
	c.eq(`${f[0]}: the next endpoint is used`, [ r.started, r.endpoint?.id, length(r.tried), r.tried[0]?.endpoint, r.tried[0]?.error ],
		[ true, 'tele2', 1, 'cloudflare', f[2] ]);
	c.ok(`${f[0]}: the reason names the endpoint: ${r.tried[0]?.message}`,
		match(r.tried[0]?.message ?? '', f[3]) && index(r.tried[0].message, 'Cloudflare speed test: ') == 0);
}

w = world({ names: { 'speed.cloudflare.com': [ '10.0.0.1' ], 'speedtest.tele2.net': [ T2 ] } });
r = start(w, {});
c.eq('an endpoint resolving to a private address is passed over', [ r.endpoint?.id, r.tried[0]?.error ], [ 'tele2', 'target_refused' ]);
c.eq('... and never asked', length(w.checks), 0);

w = world({ names: { 'speedtest.tele2.net': [ T2 ] } });
r = start(w, {});
c.eq('DNS failure: dns_failed, next endpoint', [ r.endpoint?.id, r.tried[0]?.error ], [ 'tele2', 'dns_failed' ]);

w = world({ names: {} });
r = start(w, {});
c.eq('every endpoint failed: no_endpoint with each reason', [ r.error, length(r.tried), map(r.tried, (t) => t.error) ],
	[ 'no_endpoint', 2, [ 'dns_failed', 'dns_failed' ] ]);
c.ok('... the message names both and the way forward', match(r.message, /Cloudflare speed test: .*Tele2 speed test .*Advanced/));
c.eq('... and no test runs', w.m.test_status({}).state, 'idle');

w = world({ names: NAMES, ca: false });
r = start(w, {});
c.eq('no CA bundle: tls_failed naming the file, next endpoint', [ r.endpoint?.id, r.tried[0]?.error ], [ 'tele2', 'tls_failed' ]);
c.ok('... and says how to fix it', index(r.tried[0].message, 'install the ca-bundle package') >= 0);

w = world({ names: NAMES, ca: '/tmp/lab-ca.pem' });
r = start(w, {});
c.eq('the admin CA file is what the check uses', w.checks[0]?.ca, '/tmp/lab-ca.pem');

// ---- choosing -----------------------------------------------------------------------

w = world({ names: NAMES });
r = start(w, { endpoint: 'tele2' });
c.eq('endpoint tele2: used first, plain HTTP needs no check', [ r.endpoint?.id, length(w.checks) ], [ 'tele2', 0 ]);

w = world({ names: NAMES });
r = start(w, { download_url: 'https://speed.example.net/dl', upload_url: 'https://speed.example.net/ul' });
c.eq('custom https:// URLs: a name that does not resolve is refused (target_refused)', r.error, 'target_refused');

w = world({ names: { 'speed.example.net': [ '93.184.216.34' ] }, check: { 'speed.example.net up': 'http_429' } });
r = start(w, { download_url: 'https://speed.example.net/dl', upload_url: 'https://speed.example.net/ul' });
c.eq('custom https:// URL throttled: its own error, no fallback', [ r.error, r.tried ], [ 'throttled', [] ]);
c.ok('... the message names the host', index(r.message, 'speed.example.net refused the test (HTTP 429)') >= 0);
c.eq('... checked as a caller\'s own URL: no answer is told at one time (uniform)', map(w.checks, (q) => q.uniform), [ true, true ]);
c.eq('... and the gap follows a failed check too: too_soon', start(w, {})?.error, 'too_soon');

w = world({ names: {} });
start(w, {});
c.eq('the gap follows no_endpoint too', start(w, { endpoint: 'tele2' })?.error, 'too_soon');

for (let bad in [
	[ { download_url: 'http://93.184.216.34/x' }, /go together/ ],
	[ { upload_url: 'http://93.184.216.34/x' }, /go together/ ],
	[ { endpoint: 'tele2', download_url: 'http://93.184.216.34/x', upload_url: 'http://93.184.216.34/y' }, /either an endpoint/ ],
	[ { endpoint: 'nope' }, /no test endpoint "nope"/ ],
	[ { endpoint: 'Bad;id' }, /built-in test endpoint/ ],
	[ { download_url: 'https://93.184.216.34/x', upload_url: 'https://93.184.216.34/y' }, /https:\/\/ with a host name/ ]
]) {
	w = world({ names: NAMES });
	r = w.m.test_start(bad[0], () => null);
	c.ok(`refused with invalid_argument: ${bad[0]}`, r?.error == 'invalid_argument' && match(r.message, bad[1]));
}

c.eq('status lists the endpoints, default first', map(world({}).m.status({}).endpoints, (e) => e.id), [ 'cloudflare', 'tele2' ]);

c.done();
