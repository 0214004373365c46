// SPDX-License-Identifier: Apache-2.0
//
// monitor/hops-live (tests/ucode/latency/hops.sh): one near-hop scan
// towards ARGV[0] with the real ttl_probe ARGV[1]: 'icmp' (raw socket) or
// 'fping'; prints { hops, near, echoes }.

'use strict';

import * as uloop from 'uloop';
import * as fs from 'fs';
import * as socket from 'socket';
import * as H from 'reterm.latency.probe.hops';

uloop.init();

let base = { uloop, fs, socket, rand: () => 0x4242 };
let real = (ARGV[1] == 'fping') ? H.fping_ttl(base) : H.icmp_ttl(base), echoes = 0, got = null;

if (!real)
	die(`${ARGV[1]}: not available\n`);

let sc = H.scanner({
	timer: (ms, cb) => uloop.timer(ms, cb),
	ttl_probe: function(target, ttl, cb) {
		echoes++;

		return real(target, ttl, cb);
	}
});

sc.start(ARGV[0], (h) => { got = h; uloop.end(); });
uloop.timer(20000, () => uloop.end());
uloop.run();
print(sprintf('%J\n', { hops: got, near: (got != null) ? H.pick(got, ARGV[0]) : null, echoes }));
