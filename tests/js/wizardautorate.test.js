import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/*
 * The wizard's adaptive-shaping choice (reterm.wizard.autorate): a new
 * queue's name, and what the apply step writes to /etc/config/reterm.
 */

let wa;
beforeAll(async () => { wa = await createHarness().require('reterm.wizard.autorate'); });

const P = { device: 'eth1', download: 18000, upload: 4500, adaptive: true };
const RATES = { dl_min: '4500', dl_base: '18000', dl_max: '36000', ul_min: '1125', ul_base: '4500', ul_max: '9000' };

describe('queueName()', () => {
	it('is the device as a UCI name, not one taken', () => {
		expect(wa.queueName('eth1', [])).toBe('eth1');
		expect(wa.queueName('pppoe-wan', [ 'eth1' ])).toBe('pppoe_wan');
		expect(wa.queueName('eth0.2', [ 'eth0_2', 'eth0_2_2' ])).toBe('eth0_2_3');
		expect(wa.queueName('', [])).toBe('wan');
		expect(wa.queueName('eth1;reboot', [])).toMatch(/^[A-Za-z0-9_]+$/);
	});
});

describe('ops()', () => {
	it('ticked, no section yet: adds it, enabled, rates as reterm-latencyd derives them (a quarter, base, twice)', () => {
		expect(wa.ops(P, 'eth1', null)).toEqual([ [ 'add', 'reterm', 'autorate', 'eth1' ],
			[ 'set', 'reterm', 'eth1', 'enabled', '1' ], ...Object.entries(RATES).map(([ k, v ]) => [ 'set', 'reterm', 'eth1', k, v ]) ]);
	});

	it('ticked, a section that holds those already: nothing; its delay threshold is kept', () => {
		expect(wa.ops(P, 'eth1', { '.type': 'autorate', enabled: '1', delay_ms: '25', ...RATES })).toEqual([]);
	});

	it('ticked, off before with other rates: on, the new rates', () => {
		expect(wa.ops(P, 'eth1', { '.type': 'autorate', enabled: '0', ...RATES, dl_base: '9000' }))
			.toEqual([ [ 'set', 'reterm', 'eth1', 'enabled', '1' ], [ 'set', 'reterm', 'eth1', 'dl_base', '18000' ] ]);
	});

	it('not ticked: switched off where it was on, nothing where it was off or absent', () => {
		const off = { ...P, adaptive: false };
		expect(wa.ops(off, 'eth1', { '.type': 'autorate', enabled: '1', ...RATES })).toEqual([ [ 'set', 'reterm', 'eth1', 'enabled', '0' ] ]);
		expect(wa.ops(off, 'eth1', { '.type': 'autorate', enabled: '0' })).toEqual([]);
		expect(wa.ops(off, 'eth1', null)).toEqual([]);
	});

	it('a direction left unshaped (0): nothing (adaptive shaping moves both)', () => {
		expect(wa.ops({ ...P, upload: 0 }, 'eth1', null)).toEqual([]);
	});

	it('a reterm section of that name that is not an autorate one is left alone', () => {
		expect(wa.ops(P, 'main', { '.type': 'reterm', enabled: '1' })).toEqual([]);
	});
});

describe('isOn()', () => {
	it('is an autorate section with enabled 1 (not a reterm section that shares the queue\'s name)', () => {
		expect(wa.isOn({ '.type': 'autorate', enabled: '1' })).toBe(true);
		expect(wa.isOn({ '.type': 'autorate', enabled: '0' })).toBe(false);
		expect(wa.isOn({ '.type': 'reterm', enabled: '1' })).toBe(false);
		expect(wa.isOn(null)).toBe(false);
	});
});
