// SPDX-License-Identifier: Apache-2.0
//
// A stand-in for reterm.latency.live.qdisc (latency/daemon-exit puts this
// directory first on reterm-latencyd's module path): CAKE on lo and ifb4lo
// at the rates changed to, each change a line "dev kbit" appended to
// $RETERM_FAKE_TC; once the file $RETERM_FAKE_TC.fault exists, show()
// throws: an exception in the daemon's CAKE timer callback.

'use strict';

import * as fs from 'fs';

export const TC_PATHS = [];

let LOG = getenv('RETERM_FAKE_TC');
let TC = json(fs.readfile(getenv('RETERM_FIXTURES') + '/latency/tc-show-all.json'));
let names = { eth1: 'lo', ifb4eth1: 'ifb4lo' };

export function open(env) {
	let bw = { lo: null, ifb4lo: null };

	return {
		batch: () => true,

		change: function(dev, kbit) {
			bw[dev] = kbit;

			let f = fs.open(LOG, 'a');

			f.write(`${dev} ${kbit}\n`);
			f.close();

			return true;
		},

		show: function(cb) {
			if (fs.access(`${LOG}.fault`))
				die('fault injected by the test');

			cb(sprintf('%J', map(filter(TC, (q) => names[q.dev]), (q) => ({ ...q, dev: names[q.dev],
				options: { ...q.options, bandwidth: (bw[names[q.dev]] ?? 1000) * 125 } }))));
		},

		close: () => null
	};
};
