'use strict';
'require baseclass';

/*
 * Which devices are the WAN and the LAN, from the reply of ubus "reterm
 * wan_info" (the views never read uci network or firewall: README
 * "Scripting (ubus)", wan_info). Pure: plain objects in, device names
 * out; every name is checked against the kernel's device name grammar.
 * Used by the Shaping view and the wizard.
 * Use as: 'require reterm.shaping.wan as wandetect';
 */

const DEVICE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/;

/* netifd names the device of a ppp-based interface "<proto>-<interface>" */
const PPP_PROTOS = { pppoe: true, pppoa: true, pptp: true, l2tp: true, ppp: true, '3g': true };

const str = (v) => (v == null) ? '' : Array.isArray(v) ? v.join(' ') : String(v);
const validDevice = (d) => typeof d === 'string' && DEVICE_RE.test(d);
const words = (v) => (v == null) ? [] : Array.isArray(v) ? v.map(String) : String(v).trim().split(/\s+/).filter((x) => x !== '');

function pushUnique(arr, v) {
	if (v != null && arr.indexOf(v) < 0)
		arr.push(v);
}

/**
 * The device sqm must shape for one WAN interface.
 * @param {{name: string, proto: string, device: string, l3device:
 *   string}} net ppp-based protocols (pppoe, pppoa, ...) give
 *   "<proto>-<name>" (e.g. pppoe-wan) even while down; others their
 *   layer 3 device, else their configured device
 * @returns {string|null}
 */
function wanDevice(net) {
	if (net == null || typeof net !== 'object')
		return null;

	const proto = str(net.proto), name = str(net.name), l3 = str(net.l3device), dev = str(net.device);

	if (validDevice(l3))
		return l3;

	if (PPP_PROTOS[proto] && validDevice(proto + '-' + name))
		return proto + '-' + name;

	return validDevice(dev) ? dev : null;
}

return baseclass.extend({
	__name__: 'reterm.shaping.wan',

	/** @returns {boolean} a device name the kernel accepts (1-15 characters) */
	validDevice,

	wanDevice,

	/**
	 * WAN devices, unique, in order.
	 * @param {Array<Object>} nets see wanDevice()
	 * @returns {string[]}
	 */
	wanDevices(nets) {
		const out = [];

		(Array.isArray(nets) ? nets : []).forEach((n) => pushUnique(out, wanDevice(n)));

		return out;
	},

	/**
	 * The reply of ubus "reterm wan_info" as the views use it. Anything
	 * malformed, or an error reply, gives empty lists.
	 * @param {Object} reply {interfaces: [{name, proto, device, l3device,
	 *   default_route, speed, zone}], bridges, offload, offload_hw}
	 * @returns {{wan: Array<{name, proto, device, l3device, speed}>,
	 *   lan: Array<{name, proto, device, l3device}>, bridges:
	 *   Object<string, string[]>, offload: boolean, offloadHw: boolean}}
	 *   wan: the interfaces with a default route, then those of the
	 *   firewall zone wan; lan: those of the zone lan; offloadHw:
	 *   hardware flow offloading is on (fw4 uses it only together with
	 *   software offloading)
	 */
	wanInfo(reply) {
		const r = (reply != null && typeof reply === 'object' && !Array.isArray(reply) && reply.error == null) ? reply : {},
		    ifs = [], wan = [], bridges = {};

		(Array.isArray(r.interfaces) ? r.interfaces : []).forEach((i) => {
			if (i == null || typeof i !== 'object' || typeof i.name !== 'string' || i.name === '')
				return;

			ifs.push({
				name: i.name,
				proto: (typeof i.proto === 'string') ? i.proto : '',
				device: validDevice(i.device) ? i.device : null,
				l3device: validDevice(i.l3device) ? i.l3device : null,
				speed: (typeof i.speed === 'number' && isFinite(i.speed) && i.speed > 0) ? i.speed : null,
				route: i.default_route === true,
				zone: (i.zone === 'wan' || i.zone === 'lan') ? i.zone : null
			});
		});

		ifs.forEach((i) => { if (i.route) wan.push(i); });
		ifs.forEach((i) => { if (i.zone === 'wan' && wan.indexOf(i) < 0) wan.push(i); });

		if (r.bridges != null && typeof r.bridges === 'object' && !Array.isArray(r.bridges))
			for (const b in r.bridges)
				if (validDevice(b) && Array.isArray(r.bridges[b]))
					bridges[b] = r.bridges[b].filter(validDevice);

		return {
			wan,
			lan: ifs.filter((i) => i.zone === 'lan'),
			bridges,
			offload: r.offload === true,
			offloadHw: r.offload === true && r.offload_hw === true
		};
	},

	/**
	 * Devices that belong to the LAN: the devices of the LAN networks
	 * (wanInfo().lan), with their bridge ports.
	 * @param {Array<{name, device, l3device}>} nets
	 * @param {Object<string, string[]>} bridges bridge -> ports
	 * @returns {string[]}
	 */
	lanDevices(nets, bridges) {
		const out = [];

		(Array.isArray(nets) ? nets : []).forEach((n) => {
			if (!n)
				return;

			[ str(n.device), str(n.l3device) ].forEach((d) => {
				if (!validDevice(d))
					return;

				pushUnique(out, d);
				words((bridges || {})[d]).forEach((p) => { if (validDevice(p)) pushUnique(out, p); });
			});
		});

		return out;
	}
});
