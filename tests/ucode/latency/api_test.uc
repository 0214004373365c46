// SPDX-License-Identifier: Apache-2.0
//
// The arguments of reterm.latency's methods (reterm.latency.api, checked
// by reterm.reply): the URL grammar of the guided test (reterm.validate;
// injection attempts refused), the other arguments, and the
// { error, message, field } replies.

'use strict';

import * as a from 'reterm.validate';
import { METHODS } from 'reterm.latency.api';
import { check } from 'reterm.reply';
import { checker } from 'sim';

let c = checker('latency/api');

let good = [
	[ 'http://10.0.0.2/bytes/100000000', { host: '10.0.0.2', port: 80, path: '/bytes/100000000', family: 4 } ],
	[ 'http://10.0.0.2:8080/upload', { host: '10.0.0.2', port: 8080, path: '/upload', family: 4 } ],
	[ 'http://[2001:db8::2]/bytes/1', { host: '2001:db8::2', port: 80, path: '/bytes/1', family: 6 } ],
	[ 'http://[2001:DB8:0::2]:81/', { host: '2001:db8::2', port: 81, path: '/', family: 6 } ],
	[ 'http://Speed.Example.org', { host: 'speed.example.org', port: 80, path: '/', family: null } ],
	[ 'http://speed-test.example.net/dl?size=100M&x=%20', { host: 'speed-test.example.net', port: 80, path: '/dl?size=100M&x=%20', family: null } ],
	[ 'http://h/a~b_c.d,e+f:g@h', { host: 'h', port: 80, path: '/a~b_c.d,e+f:g@h', family: null } ]
];

for (let g in good) {
	let u = a.http_url(g[0]);

	c.eq(`accepts ${g[0]}`, u ? { host: u.host, port: u.port, path: u.path, family: u.family } : null, g[1]);
}

let bad = [
	'https://10.0.0.2/', 'ftp://h/', 'http:/h/', 'http://', 'http:///x', 'HTTP://h/',
	'http://h/a b', 'http://h /', 'http://h/a\nb', 'http://h/\nHost: evil', 'http://h/a\r\nX: 1', 'http://h/a\tb',
	'http://h/"x', "http://h/'x", 'http://h/`id`', 'http://h/$(id)', 'http://h/${IFS}', 'http://h/a;reboot',
	'http://h;reboot/', 'http://h/a|b', 'http://h/a&&b<c', 'http://h/a>b', 'http://h/a\\b', 'http://h/#frag',
	'http://h/{a}', 'http://h/a(b)', 'http://h/\u00e9', 'http://h/\x00',
	'http://user:pw@h/', 'http://h:0/', 'http://h:65536/', 'http://h:08/', 'http://h:/x', 'http://h:80x/',
	'http://256.1.1.1/', 'http://1.2.3/', 'http://01.2.3.4/', 'http://[::1/', 'http://[10.0.0.1]/',
	'http://[fe80::1%eth0]/', 'http://-h/', 'http://h-/', 'http://a..b/', 'http://.h/',
	'http://' + join('', map([ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26 ], x => 'aaaaaaaaaa')) + '/',
	'http://h/' + join('', map([ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25 ], x => 'aaaaaaaaaa')),
	'', null, 42, [ 'http://h/' ], { url: 'http://h/' }
];

for (let b in bad)
	c.eq(sprintf('refuses %J', b), a.http_url(b), null);

c.ok('a 256 character URL is fine', a.http_url('http://h/' + substr(join('', map([ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26 ], x => 'bbbbbbbbbb')), 0, 247)) != null);

// IP literals for reflectors
c.eq('ip v4', a.ip('1.1.1.1'), '1.1.1.1');
c.eq('ip v6 canonical', a.ip('2606:4700:4700:0::1111'), '2606:4700:4700::1111');

for (let b in [ '1.1.1', '1.1.1.1/32', 'fe80::1%lo', 'one.one', '1.1.1.1 ', '1.1.1.1\n', '', null ])
	c.eq(sprintf('ip refuses %J', b), a.ip(b), null);

// method arguments
let S = {};

for (let k, m in METHODS)
	S[k] = m.args;

c.eq('samples defaults', check({}, S.samples), { args: { since: 0, step: 1 } });
c.eq('samples null args', check(null, S.samples), { args: { since: 0, step: 1 } });
c.eq('samples since/step', check({ since: 1718000000, step: 60 }, S.samples), { args: { since: 1718000000, step: 60 } });
c.eq('rpcd session is ignored', check({ ubus_rpc_session: 'x', since: 5 }, S.samples).args.since, 5);

function error_of(args, spec) {
	let r = check(args, spec);

	return r.error ? [ r.error, r.message ] : r;
}

c.eq('step 2', error_of({ step: 2 }, S.samples),
	[ 'invalid_argument', "argument 'step' must be 1 (seconds, 10 minutes) or 60 (minutes, 24 hours)" ]);
c.eq('since negative', error_of({ since: -1 }, S.samples)[0], 'invalid_argument');
c.eq('since as a string', error_of({ since: '5' }, S.samples), [ 'invalid_argument', "argument 'since' must be an integer" ]);
c.eq('since as a double', error_of({ since: 5.5 }, S.samples)[0], 'invalid_argument');
c.eq('unknown argument', error_of({ sinse: 1 }, S.samples), [ 'invalid_argument', 'unknown argument "sinse"' ]);
c.eq('not an object', error_of([ 1 ], S.samples), [ 'invalid_argument', 'arguments must be an object' ]);

let ts = { download_url: 'http://10.0.0.2/bytes/100000000', upload_url: 'http://10.0.0.2/upload' };
let ok = check(ts, S.test_start);

c.eq('test_start: streams default 4, URLs parsed', [ ok.args.streams, ok.args.download_url.host, ok.args.upload_url.path ],
	[ 4, '10.0.0.2', '/upload' ]);
c.eq('test_start: no URL at all is fine (the built-in endpoints)', check({}, S.test_start), { args: { streams: 4, pause_shaping: false } });
c.eq('test_start: an https:// URL with a host name', check({ download_url: 'https://speed.example.net/__down?bytes=1000', upload_url: 'https://speed.example.net/__up' }, S.test_start).args?.download_url?.port, 443);
c.eq('test_start: https:// with an IP literal is refused', error_of({ download_url: 'https://93.184.216.34/', upload_url: ts.upload_url }, S.test_start)?.[0], 'invalid_argument');

for (let n in [ 0, 17, -1, 100 ])
	c.eq(`test_start: streams ${n}`, error_of({ ...ts, streams: n }, S.test_start),
		[ 'invalid_argument', "argument 'streams' must be an integer 1-16" ]);

c.eq('test_start: streams 16', check({ ...ts, streams: 16 }, S.test_start).args.streams, 16);
c.eq('test_start: streams "4"', error_of({ ...ts, streams: '4' }, S.test_start)[0], 'invalid_argument');

for (let inj in [ 'http://h/$(reboot)', 'http://h/`reboot`', "http://h/';reboot;'", 'http://h/"; reboot; "',
                  'http://h/x\nreboot', 'http://h/ x', 'http://h/x;reboot' ]) {
	let e = error_of({ ...ts, upload_url: inj }, S.test_start);

	c.eq(sprintf('test_start refuses upload_url %J', inj), e[0], 'invalid_argument');
	c.ok(sprintf('the message does not echo the value %J', inj), index(e[1], inj) < 0);
}

c.eq('results id', check({ id: '406fc086' }, S.results).args.id, '406fc086');
c.eq('results bad id', error_of({ id: '../x' }, S.results)[0], 'invalid_argument');
c.eq('status takes nothing', error_of({ x: 1 }, S.status), [ 'invalid_argument', 'unknown argument "x"' ]);

c.done();
