// SPDX-License-Identifier: Apache-2.0
//
// docs/adaptive-shaping.md's fixed constants are the ones the adaptive
// shaper runs with: each documented name is exported by exactly one of
// the modules the page names (controller.uc, reflectors.uc, probe/hops.uc)
// with the documented value (the other tests take their thresholds from
// the page, spec.uc).

'use strict';

import * as A from 'reterm.latency.autorate.controller';
import * as R from 'reterm.latency.autorate.reflectors';
import * as H from 'reterm.latency.probe.hops';
import { constants } from 'spec';
import { checker } from 'sim';

let c = checker('latency/spec');
let spec = constants(), mods = { 'controller.uc': A, 'reflectors.uc': R, 'probe/hops.uc': H };

c.ok(`the page documents ${length(keys(spec))} constants (at least the 40 of its table)`, length(keys(spec)) >= 40);

for (let name in sort(keys(spec))) {
	let where = filter(keys(mods), (m) => exists(mods[m], name));

	c.eq(`${name}: exported by one module`, length(where), 1);

	if (length(where) == 1)
		c.eq(`${name} in ${where[0]} is the page's ${spec[name]}`, mods[where[0]][name], spec[name]);
}

c.done();
