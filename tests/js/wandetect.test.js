import { describe, it, expect } from 'vitest';
import { createHarness } from './harness/luci.js';

/* reterm.shaping.wan: which devices are the WAN and the LAN (wan_info) */

describe('reterm.shaping.wan wanInfo: the wan_info reply as the views use it', () => {
	it('orders WAN candidates (default route, then the wan zone), keeps LAN nets, checks every name', async () => {
		const wd = await createHarness().require('reterm.shaping.wan');
		const r = wd.wanInfo({
			interfaces: [
				{ name: 'lan', proto: 'static', device: 'br-lan', l3device: 'br-lan', default_route: false, speed: null, zone: 'lan' },
				{ name: 'wan', proto: 'pppoe', device: 'eth1', l3device: null, default_route: false, speed: 1000, zone: 'wan' },
				{ name: 'wwan', proto: 'dhcp', device: 'wlan1', l3device: 'wlan1', default_route: true, speed: -1, zone: null },
				{ name: 'x', proto: 'dhcp', device: 'eth1;reboot', l3device: 'a b', default_route: true, zone: 'wan' },
				'junk', null
			],
			bridges: { 'br-lan': ['lan1', 'lan2', '$(x)'], 'a"b': ['lan3'] },
			offload: true, offload_hw: true
		});
		expect(r.wan.map(n => n.name)).toEqual(['wwan', 'x', 'wan']);
		expect(r.wan[1]).toMatchObject({ device: null, l3device: null });
		expect(r.wan.map(n => n.speed)).toEqual([null, null, 1000]);
		expect(r.lan.map(n => n.name)).toEqual(['lan']);
		expect(r.bridges).toEqual({ 'br-lan': ['lan1', 'lan2'] });
		expect([r.offload, r.offloadHw]).toEqual([true, true]);
		expect(wd.wanDevices(r.wan)).toEqual(['wlan1', 'pppoe-wan']);
		expect(wd.lanDevices(r.lan, r.bridges)).toEqual(['br-lan', 'lan1', 'lan2']);
	});

	it('answers empty lists for an error reply or nothing', async () => {
		const wd = await createHarness().require('reterm.shaping.wan');
		for (const bad of [null, undefined, 6, 'x', { error: 'internal', message: 'x' }, { interfaces: 'x', bridges: [] }])
			expect(wd.wanInfo(bad)).toEqual({ wan: [], lan: [], bridges: {}, offload: false, offloadHw: false });
		expect(wd.wanInfo({ offload: false, offload_hw: true }).offloadHw).toBe(false);
	});
});