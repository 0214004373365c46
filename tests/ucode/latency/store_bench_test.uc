// SPDX-License-Identifier: Apache-2.0
//
// Flash wear of the results store: 100 guided tests back to back (one a
// minute: 44 s of test and the dashboard's pause), each result as big as
// a real one (taken from a simulated test through the service), then a
// clean stop.  Counts the bytes written to the flash directory
// (/etc/reterm) with the in-memory fs of store_fs.uc.
//
// Last line (for tests/ucode/run.sh and the benchmark table):
//   bench flash_bytes_per_100_tests=N

'use strict';

import * as S from 'reterm.latency.service';
import * as store from 'reterm.latency.test.store';
import { sim, prober, load } from 'sim';
import { store_fs } from 'store_fs';

const TESTS = 100, EVERY_MS = 60000;
const BUDGET_PER_MIN = 8192;	// "a few KB a minute" at most, whatever the loop

let failed = 0;

function check(what, cond, got) {
	if (!cond) {
		failed++;
		print(sprintf('not ok - monitor/store_bench: %s (%J)\n', what, got));
	}
}

// a real result: one guided test through the service
let s = sim(1718000000000), fs = store_fs(s.clock.wall);
let svc = S.create({
	clock: s.clock, timer: s.timer, prober: prober(s, () => 20), readfile: () => null,
	qdisc: { show: (cb) => cb(null), close: () => null }, load: load(s, () => 10000000),
	fs, fsync: fs.fsync, id: () => 'r0000000',
	policy: () => ({ test_servers: [ '10.0.0.2' ] })	// a LAN speed test box (reterm_admin)
}, { enabled: true, reflectors: [ '1.1.1.1', '9.9.9.9' ], prober: 'auto', wan: 'eth1',
     shaper: null, cake: null, warnings: [] });

svc.methods.test_start({ download_url: 'http://10.0.0.2/bytes/100000000', upload_url: 'http://10.0.0.2/upload' });
s.advance(EVERY_MS);

let result = svc.methods.test_status({}).result;

// the loop, on a fresh fs and clock
s = sim(1718000000000);
fs = store_fs(s.clock.wall);

let st = store.open(fs, { timer: s.timer, clock: s.clock, fsync: fs.fsync });

for (let i = 0; i < TESTS; i++) {
	st.add({ ...result, id: sprintf('%08x', i) });
	s.advance(EVERY_MS);
}

let loop_bytes = fs.written('/etc/reterm'), minutes = TESTS * EVERY_MS / 60000;

st.persist();	// reterm-latencyd stopped (SIGTERM)

let total = fs.written('/etc/reterm');

check(sprintf('the loop writes at most %d bytes a minute to flash', BUDGET_PER_MIN),
	loop_bytes <= BUDGET_PER_MIN * minutes, { bytes_per_minute: loop_bytes / minutes, result_bytes: length(sprintf('%J', result)) });
check('the last result reaches flash on a clean stop',
	json(fs.files[store.FLASH_PATH]).results[-1].id == sprintf('%08x', TESTS - 1), fs.files[store.FLASH_PATH] ? 'other' : null);

print(sprintf('bench flash_bytes_per_100_tests=%d\n', total * 100 / TESTS));
exit(failed ? 1 : 0);
