import { describe, it, expect } from 'vitest';
import { createHarness } from './harness/luci.js';

/*
 * Adaptive shaping's fields on the Shaping page (reterm.shaping.autorate):
 * stored in /etc/config/reterm as `config autorate '<queue>'`, typed in
 * Mbit/s, checked as reterm-latencyd checks them, nothing written for an
 * untouched queue, values kept when switched off.
 */

const QUEUE = { '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '4500',
	qdisc: 'cake', script: 'piece_of_cake.qos', iqdisc_opts: 'internet ingress', eqdisc_opts: 'internet' };

async function page(reterm) {
	const h = createHarness();
	h.uci.seed('sqm', { q: { ...QUEUE } });
	h.uci.seed('reterm', reterm || { main: { '.type': 'reterm', enabled: '0' } });
	h.rpc.handle('reterm', 'wan_info', { interfaces: [ { name: 'wan', proto: 'dhcp', device: 'eth1', l3device: 'eth1',
		default_route: true, speed: 1000, zone: 'wan' } ], bridges: {}, offload: false, offload_hw: false });
	h.fs.files['/var/run/sqm/available_qdiscs/cake'] = '';
	h.fs.files['/usr/lib/sqm/defaults.sh'] = '';
	const v = await h.require('view.reterm.shaping');
	await h.rendered(v);
	const map = h.form.maps[0];
	return { h, v, map, val: (opt) => h.form.widget(map, 'q', opt).value, checked: (opt) => h.form.widget(map, 'q', opt).checked };
}

describe('check() as reterm-latencyd checks', () => {
	const ok = { dl_min: '4', dl_base: '18', dl_max: '30', ul_min: '1', ul_base: '4.5', ul_max: '6' };

	it('accepts a sound set, with or without a delay threshold', async () => {
		const h = createHarness();
		const f = await h.require('reterm.shaping.autorate');
		expect(f.check(ok)).toBe(null);
		expect(f.check({ ...ok, delay_ms: '30' })).toBe(null);
	});

	it('names the first bad value', async () => {
		const h = createHarness();
		const f = await h.require('reterm.shaping.autorate');
		expect(f.check({ ...ok, dl_min: '40' })).toMatch(/^Download: the minimum must not be above the base/);
		expect(f.check({ ...ok, ul_max: '4' })).toMatch(/^Upload: the minimum must not be above the base/);
		expect(f.check({ ...ok, dl_max: '' })).toBe('Download maximum (Mbit/s) is needed');
		expect(f.check({ ...ok, ul_base: 'fast' })).toMatch(/^Upload base \(Mbit\/s\): Enter a rate/);
		expect(f.check({ ...ok, dl_max: '20000' })).toMatch(/must be between 0.064 and 10000 Mbit\/s/);
		expect(f.check({ ...ok, dl_min: '0' })).toMatch(/must be between 0.064 and 10000 Mbit\/s/);
		expect(f.check({ ...ok, delay_ms: '3' })).toBe('Delay threshold: whole milliseconds, 5 to 200');
		expect(f.check({ ...ok, delay_ms: '15; reboot' })).toBe('Delay threshold: whole milliseconds, 5 to 200');
	});
});

describe('on the Shaping page', () => {
	it('is off by default and proposes the rates reterm-latencyd would take (base = sqm, a quarter, twice)', async () => {
		const { val, checked } = await page();
		expect(checked('_autorate')).toBe(false);
		expect([ val('_ar_dl_min'), val('_ar_dl_base'), val('_ar_dl_max') ]).toEqual([ '4.5', '18', '36' ]);
		expect([ val('_ar_ul_min'), val('_ar_ul_base'), val('_ar_ul_max') ]).toEqual([ '1.125', '4.5', '9' ]);
	});

	it('writes nothing for an untouched queue', async () => {
		const { h, v } = await page();
		await v.handleSave();
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('sends rpcd no write for /etc/config/reterm when the page is saved untouched (LuCI\'s Flag writes its value on every save)', async () => {
		const { h, v } = await page();
		const before = h.uci.dump('reterm');
		await v.handleSave();
		expect(h.uci.writes.filter(w => w.params.config === 'reterm')).toEqual([]);
		expect(h.uci.dump('reterm')).toEqual(before);
	});

	it('switched on: one autorate section named after the queue, rates in kbit/s', async () => {
		const { h, v, map } = await page();
		h.form.setValue(map, 'q', '_autorate', '1');
		h.form.setValue(map, 'q', '_ar_dl_max', '40');
		h.form.setValue(map, 'q', '_ar_delay_ms', '20');
		await v.handleSave();
		expect(h.uci.dump('reterm').q).toMatchObject({ '.type': 'autorate', enabled: '1', dl_min: '4500', dl_base: '18000',
			dl_max: '40000', ul_min: '1125', ul_base: '4500', ul_max: '9000', delay_ms: '20' });
		expect(h.uci.stagedChanges().sqm).toBeUndefined();
	});

	it('refuses a bad set and saves nothing', async () => {
		const { h, v, map } = await page();
		h.form.setValue(map, 'q', '_autorate', '1');
		h.form.setValue(map, 'q', '_ar_dl_min', '50');
		await expect(v.handleSave()).rejects.toBeTruthy();
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('switched off: enabled 0, the rates kept for next time', async () => {
		const { h, v, map } = await page({ q: { '.type': 'autorate', enabled: '1', dl_min: '5000', dl_base: '20000',
			dl_max: '40000', ul_min: '1000', ul_base: '5000', ul_max: '8000' } });
		h.form.setValue(map, 'q', '_autorate', '0');
		await v.handleSave();
		expect(h.uci.dump('reterm').q).toMatchObject({ enabled: '0', dl_min: '5000', dl_max: '40000', ul_max: '8000' });
	});
});
