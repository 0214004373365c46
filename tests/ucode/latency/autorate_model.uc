// SPDX-License-Identifier: Apache-2.0
//
// The bottleneck the autorate tests drive reterm.latency.autorate.controller against
// (autorate_test.uc, autorate_reflectors_test.uc): a fluid model on a
// simulated clock.  The shaper passes `rate` while flows are running, the
// line carries `cap`; what exceeds cap queues at the bottleneck and adds
// queue / cap of delay to every probe.  Reflectors answer round robin
// every 200 ms with their own distance plus that delay.

'use strict';

import * as A from 'reterm.latency.autorate.controller';

export const SET = { dl_min: '2000', dl_base: '20000', dl_max: '40000', ul_min: '1000', ul_base: '5000', ul_max: '10000' };
export const REFL = { '192.0.2.1': 8, '192.0.2.2': 12, '192.0.2.3': 20, '192.0.2.4': 30 };

// line(opts): cap(t) kbit/s per direction, load(t) flows on per direction,
// late(target, t) extra ms a reflector adds on its own, silent(target, t),
// sees(target, d): its path crosses d's bottleneck (default yes),
// near: the targets the controller is told are near hops,
// owd(target): it answers ICMP timestamps (its clock 5 s ahead of ours):
// one-way delays, each queue in its own direction,
// ingress: ms, the path's round trip; the download's shaper sits after
// the line (sqm's IFB): the senders follow its rate a round trip later
// (the path's plus the line's queue: they learn of its drops that late),
// the line delivers min(cap, what arrives or is queued) and that is what
// the WAN counter sees; its buffer holds 1000 packets
export function line(set, opts) {
	let ctl = A.create(set, 0);

	if (opts.near)
		ctl.near(opts.near);

	let t = 0, q = { dl: 0, ul: 0 }, i = 0, out = { changes: [], delays: [], delivered: 0, allowed: 0 };
	let past = [];	// the download's rate, a tick each (ingress)
	let targets = keys(opts.refl ?? REFL);

	return {
		ctl,
		out,
		run: function(ms) {
			for (let end = t + ms; t < end; t += 200) {
				let got = {};

				for (let d in A.DIRS) {
					let cap = opts.cap(d, t), r = ctl.rate(d), on = opts.load(d, t);
					let after = d == 'dl' && opts.ingress != null;

					if (after)
						push(past, r);

					// the senders' round trip: the path's plus the line's queue
					let rtt = after ? opts.ingress + q.dl / cap * 1000 : 0;
					let offered = !on ? 0 : after ? past[max(0, length(past) - 1 - int(rtt / 200))] : r;
					// what the line delivers, and of it what the shaper passes
					let line_out = (q[d] > 0) ? cap : min(offered, cap);
					let passed = after ? min(line_out, r) : min(r, cap);

					// kbit queued at the bottleneck (behind a drop-tail
					// buffer of 1000 packets when ingress)
					q[d] = max(0, q[d] + (offered - cap) * 0.2);

					if (after)
						q[d] = min(q[d], 12000);
					got[d == 'dl' ? 'rx' : 'tx'] = on ? (after ? line_out : min(r, cap)) * 1000 : 20000;

					if (d == 'dl' && on) {
						out.delivered += passed * 0.2;
						out.allowed += cap * 0.2;
					}
				}

				let who = targets[i++ % length(targets)];
				// the queue of a direction, as this reflector's path sees it
				let qd = (d) => (opts.sees?.(who, d) ?? true) ? q[d] / opts.cap(d, t) * 1000 : 0;
				let delay = qd('dl') + qd('ul');

				push(out.delays, delay);

				let rtt = (opts.silent?.(who, t)) ? null : (opts.refl ?? REFL)[who] + delay + (opts.late?.(who, t) ?? 0);

				let dist = (opts.refl ?? REFL)[who], ow = (rtt != null && opts.owd?.(who)) ? {
					up: dist / 2 + 5000 + qd('ul'),
					down: dist / 2 - 5000 + qd('dl') + (opts.late?.(who, t) ?? 0)
				} : null;

				// a reflector whose clock stands still (it answers with
				// one time): up falls and down grows with our clock
				if (ow && opts.owd(who) == 'frozen')
					ow = { up: 3600000 - t, down: t + rtt - 3600000 };

				ctl.probe(who, rtt, t, ow);

				for (let ch in ctl.tick(t, got))
					push(out.changes, { t, ...ch });
			}
		},
		now: () => t
	};
};

export function mean(l) {
	let s = 0;

	for (let v in l)
		s += v;

	return length(l) ? s / length(l) : 0;
};

export const good = A.check_settings(SET).settings;


// probe(ctl, t, [ target, rtt, up, down ] ...): one answer each 100 ms
export function feed(ctl, t, ...answers) {
	for (let a in answers) {
		ctl.probe(a[0], a[1], t, (a[2] != null) ? { up: a[2], down: a[3] } : null);
		t += 100;
	}

	return t;
};
