'use strict';
'require baseclass';
'require rpc';
'require reterm.devices.rows as devices';

/*
 * What the Devices page asks the router: the LAN hosts (ubus "reterm
 * hosts") and the live numbers of re-terminated devices ("reterm
 * device_stats"; a router without that method, or one that denies it,
 * answers through "hosts", rwnd-limited share only). Failures become an
 * Error with a sentence for the user. Use as:
 * 'require reterm.devices.live as devicelive';
 *
 *   devicelive.hosts()            → Promise of [host…] | rejects Error
 *   const src = devicelive.stats(); src.fetch()
 *                                 → Promise of {mac: stats} | rejects Error
 */

const callHosts = rpc.declare({ object: 'reterm', method: 'hosts' });
const callStats = rpc.declare({ object: 'reterm', method: 'device_stats' });

/* ubus statuses meaning "no such method (for us)": not found, denied */
const MISSING = { 3: true, 6: true };

/* what went wrong with a reterm reply that lacks what was asked for */
function failure(r) {
	if (typeof r === 'number')
		return new Error(_('the router answered with ubus status %d (%s)').format(r, rpc.getStatusText(r)));

	if (r && typeof r.message === 'string' && r.message !== '')
		return new Error(r.message.substring(0, 200));

	return new Error(_('the router sent an unexpected reply'));
}

/* the live numbers of a reply (device_stats: only with its list) */
const live = (r, listed) => {
	const st = listed ? devices.liveStats(r) : null;

	if (st === null)
		throw failure(r);

	return st;
};

const Stats = baseclass.extend({
	__init__() {
		this.fromHosts = false;
	},

	fetch() {
		if (this.fromHosts)
			return callHosts().then((r) => live(r, true));

		return callStats().then((r) => {
			if (typeof r === 'number' && MISSING[r]) {
				this.fromHosts = true;
				return this.fetch();
			}

			return live(r, !!(r && Array.isArray(r.devices)));
		});
	}
});

return baseclass.extend({
	__name__: 'reterm.devices.live',

	hosts: () => callHosts().then((r) => {
		if (r && Array.isArray(r.hosts))
			return r.hosts;

		throw failure(r);
	}),

	stats: () => new Stats()
});
