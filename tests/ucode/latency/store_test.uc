// SPDX-License-Identifier: Apache-2.0
//
// Where the guided test results are written and read (security review,
// issue 13): one fixed place whatever uci says; only plain regular files
// of bounded size are read; RAM on every result, flash at most every 30
// minutes and on a clean stop, fsynced before the rename.  Through the
// service on a simulated clock, with the in-memory fs of store_fs.uc.

'use strict';

import * as S from 'reterm.latency.service';
import * as store from 'reterm.latency.test.store';
import { checker, sim, prober, load } from 'sim';
import { store_fs } from 'store_fs';

let c = checker('monitor/store');
const WALL0 = 1718000000000;
const RAM = '/var/run/reterm/results.json', FLASH = '/etc/reterm/results.json';
const ARGS = { download_url: 'http://10.0.0.2/bytes/100000000', upload_url: 'http://10.0.0.2/upload' };

// a check that also fails (instead of ending the file) when the code under
// test throws, e.g. a function the old code did not have
function check(what, fn) {
	let r = null;

	try {
		r = fn();
	}
	catch (e) {
		r = `threw: ${e}`;
	}

	if (r !== true)
		print(sprintf('# %s: %J\n', what, r));

	c.ok(what, r === true);
}

// uci stand-in: `config latency 'latency'` with these options, no sqm
function uci(monitor) {
	return {
		get_all: (conf, sec) => (conf == 'reterm' && sec == 'latency') ? monitor : null,
		foreach: () => null
	};
}

function service(s, fs, cfg) {
	let ids = 0;

	return S.create({
		clock: s.clock,
		timer: s.timer,
		prober: prober(s, () => 20),
		readfile: () => null,
		qdisc: { show: (cb) => cb(null), close: () => null },
		load: load(s, () => 10000000),
		fs,
		fsync: fs.fsync,
		id: () => sprintf('%08x', ++ids),
		policy: () => ({ test_servers: [ '10.0.0.2' ] })	// a LAN speed test box (reterm_admin)
	}, { ...(cfg ?? S.load_config(uci({}), () => 'eth1')), test_gap_ms: 0 });
}

// one guided test through the methods, to its end
function run_test(s, svc) {
	svc.methods.test_start(ARGS);
	s.advance(60000);

	return svc.methods.test_status({}).result;
}

function world(setup, cfg) {
	let s = sim(WALL0), fs = store_fs(s.clock.wall);

	setup?.(fs);
	splice(fs.ops, 0);
	splice(fs.reads, 0);

	return { s, fs, svc: service(s, fs, cfg) };
}

function ids(text) {
	return map(json(text ?? '{"results":[]}').results, r => r.id);
}

// ---- one fixed place, whatever uci says -----------------------------------------

let cfg = S.load_config(uci({ results: '/etc/shadow' }), () => 'eth1');

c.ok('results option pointing at /etc/shadow: ignored, with a warning',
	cfg.results == null && length(filter(cfg.warnings, w => index(w, '/etc/shadow') >= 0)) == 1);
c.eq('the old default in /etc/config/reterm is no reason to warn',
	S.load_config(uci({ results: FLASH }), () => 'eth1').warnings, []);

let sh = world((fs) => { fs.files['/etc/shadow'] = 'root:$1$secret:19000:0:99999:7:::\n'; }, cfg);

run_test(sh.s, sh.svc);

c.ok('a finished test with results=/etc/shadow leaves /etc/shadow alone',
	sh.fs.files['/etc/shadow'] == 'root:$1$secret:19000:0:99999:7:::\n');
check('... and is kept in RAM at the fixed path', () => length(ids(sh.fs.files[RAM])) == 1);

// ---- only plain regular files of bounded size are read ---------------------------

let leak = '{"v":1,"results":[{"id":"leak"}]}';
let ln = world((fs) => { fs.files['/etc/secret'] = leak; fs.links[FLASH] = '/etc/secret'; });

c.eq('a symlink at the results path is not followed', [ ln.svc.results(), ln.fs.reads ], [ [], [] ]);

let dev = world((fs) => { fs.devices[FLASH] = 'char'; });

c.eq('a device at the results path (/dev/zero) is never read', [ dev.svc.results(), dev.fs.reads ], [ [], [] ]);

let big = world((fs) => {
	let pad = '0123456789abcdef';

	while (length(pad) < 300000)
		pad += pad;

	fs.files[FLASH] = sprintf('{"v":1,"results":[{"id":"big","pad":"%s"}]}', pad);
});

c.eq('a results file over 256 KB is refused', length(big.svc.results()), 0);
c.ok('... and never read whole', length(filter(big.fs.reads, r => r[1] == null || r[1] > store.MAX_BYTES + 1)) == 0);

let pl = world((fs) => {
	fs.files['/etc/shadow'] = 'root:x:0:0\n';
	fs.mkdir('/var/run/reterm');
	fs.mkdir('/etc/reterm');
	fs.links[`${RAM}.tmp`] = '/etc/shadow';
	fs.links[`${FLASH}.tmp`] = '/etc/shadow';
});

run_test(pl.s, pl.svc);

c.ok('a symlink planted at the temporary name is not written through', pl.fs.files['/etc/shadow'] == 'root:x:0:0\n');
check('... and the result is saved all the same', () => ids(pl.fs.files[RAM])[0] != null && ids(pl.fs.files[FLASH])[0] != null);

check('saved files stay under 256 KB: the oldest results give way', () => {
	let s = sim(WALL0), fs = store_fs(s.clock.wall), st = store.open(fs, { timer: s.timer, clock: s.clock, fsync: fs.fsync });
	let pad = '0123456789abcdef';

	while (length(pad) < 60000)
		pad += pad;

	for (let i = 0; i < 10; i++)
		st.add({ id: sprintf('r%d', i), pad });

	let kept = ids(fs.files[RAM]);

	return length(fs.files[RAM]) <= store.MAX_BYTES && kept[-1] == 'r9' && length(kept) == length(st.list()) &&
		length(kept) < 10 ? true : { bytes: length(fs.files[RAM]), kept };
});

// ---- RAM now, flash at most every 30 minutes and on a clean stop -----------------

let w = world(), first = run_test(w.s, w.svc);

check('a finished test is in RAM at once', () => ids(w.fs.files[RAM])[0] == first.id);
c.eq('the first result goes to flash at once (no copy there yet)', ids(w.fs.files[FLASH]), [ first.id ]);
check('flash write: fsync of the new file before the rename, then of the directory', () => {
	let o = w.fs.ops, r = index(o, `rename ${FLASH}.tmp ${FLASH}`);

	return (r > 0 && o[r - 1] == `fsync ${FLASH}.tmp` && o[r + 1] == 'fsync /etc/reterm') ? true : o;
});

let flash_writes = () => length(filter(w.fs.ops, o => o == `rename ${FLASH}.tmp ${FLASH}`));

run_test(w.s, w.svc);
run_test(w.s, w.svc);
c.eq('two more tests within 30 minutes: still one flash write', flash_writes(), 1);
check('... both in RAM', () => length(ids(w.fs.files[RAM])) == 3);

w.s.advance(30 * 60000);
c.eq('30 minutes after the last flash write the pending results follow', [ flash_writes(), length(ids(w.fs.files[FLASH])) ], [ 2, 3 ]);

run_test(w.s, w.svc);
check('persist() (reterm-latencyd on SIGTERM) writes what is pending at once', () => {
	w.svc.persist();

	return flash_writes() == 3 && length(ids(w.fs.files[FLASH])) == 4;
});
check('persist() with nothing pending writes nothing', () => {
	w.svc.persist();

	return flash_writes() == 3;
});

// ---- restarts ---------------------------------------------------------------------

let r = world((fs) => {
	fs.mkdir('/var/run/reterm');
	fs.mkdir('/etc/reterm');
	fs.files[RAM] = '{"v":1,"results":[{"id":"a"},{"id":"b"}]}';
	fs.files[FLASH] = '{"v":1,"results":[{"id":"a"}]}';
});

c.eq('a restart reads the RAM copy when there is one', map(r.svc.results(), x => x.id), [ 'a', 'b' ]);
check('... and saves what flash lacks within 30 minutes (after a crash)', () => {
	r.s.advance(30 * 60000);

	return join(' ', ids(r.fs.files[FLASH])) == 'a b';
});

let boot = world((fs) => {
	fs.mkdir('/etc/reterm');
	fs.files[FLASH] = '{"v":1,"results":[{"id":"a"}]}';
});

c.eq('after a reboot (no RAM copy) it reads flash', map(boot.svc.results(), x => x.id), [ 'a' ]);
c.eq('... and writes nothing until there is something new', boot.fs.ops, []);

// OpenWrt 24.10's ucode: file.flush() answers null when it worked (and
// true when it did not); the size on disk says whether the write held
let rel = world((fs) => { fs.release = '24.10'; });

run_test(rel.s, rel.svc);
c.eq('on 24.10\'s ucode (flush() null when it worked) the result reaches flash', length(ids(rel.fs.files[FLASH])), 1);

let full = world((fs) => {
	fs.release = '24.10';
	fs.files[FLASH] = '{"v":1,"results":[{"id":"old"}]}';
});

full.fs.full = true;
run_test(full.s, full.svc);
c.eq('a full disk (the file cut short) never replaces the flash copy, on 24.10\'s ucode too',
	full.fs.files[FLASH], '{"v":1,"results":[{"id":"old"}]}');

c.done();
