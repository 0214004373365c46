import { describe, it, expect } from 'vitest';
import { createHarness } from './harness/luci.js';

/*
 * What the wizard stages in LuCI's uci when it applies a step or is
 * cancelled (reterm.wizard.stage): a refused proposal or no device chosen
 * stages nothing; otherwise only the options that change, a new queue
 * named after its device. The flows around it (save, apply with rollback,
 * cancel after a reload) are wizard.view.test.js's.
 */

const P = (over) => Object.assign({ device: 'eth1', download: 18000, upload: 900, rtt: 'internet', overhead: 'ethernet' }, over);
const QUEUE = { '.type': 'queue', enabled: '1', interface: 'eth1', download: '9000', upload: '900', qdisc: 'cake',
	script: 'piece_of_cake.qos', linklayer: 'none', qdisc_advanced: '1', qdisc_really_really_advanced: '1',
	iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' };

async function load(sqm, reterm) {
	const h = createHarness();
	h.uci.seed('sqm', sqm || {});
	h.uci.seed('reterm', reterm || { main: { '.type': 'reterm', enabled: '0' } });
	await h.uci.load([ 'sqm', 'reterm' ]);
	return { h, stage: await h.require('reterm.wizard.stage') };
}

describe('shaping()', () => {
	it('a refused proposal: its error, nothing staged', async () => {
		const { h, stage } = await load();
		for (const p of [ P({ download: 0, upload: 0 }), P({ device: 'eth1;reboot' }), P({ adaptive: true, upload: 0 }) ]) {
			expect(stage.shaping(p, null).error).toMatch(/nothing would be shaped|device name|Adaptive shaping moves both rates/);
			expect(h.uci.pendingChanges()).toEqual({});
		}
	});

	it('an existing queue: only the options that change, adaptive shaping left alone when not ticked', async () => {
		const { h, stage } = await load({ wanq: QUEUE });
		const q = Object.assign({ '.name': 'wanq' }, QUEUE);
		expect(stage.shaping(P(), q)).toEqual({ sid: 'wanq', autorate: null });
		expect(h.uci.pendingChanges()).toEqual({ sqm: [ [ 'set', 'wanq', 'download', '18000' ] ] });
	});

	it('a new queue named after its device, its adaptive shaping section beside it', async () => {
		const { h, stage } = await load({ eth1: { ...QUEUE, interface: 'eth0' } });
		const r = stage.shaping(P({ adaptive: true }), null);
		expect(r).toEqual({ sid: 'eth1_2', autorate: { sid: 'eth1_2', values: null } });
		const staged = h.uci.pendingChanges();
		expect(staged.sqm[0]).toEqual([ 'add', 'eth1_2', 'queue' ]);
		expect(staged.sqm).toContainEqual([ 'set', 'eth1_2', 'interface', 'eth1' ]);
		expect(staged.reterm).toContainEqual([ 'add', 'eth1_2', 'autorate' ]);
		expect(staged.reterm).toContainEqual([ 'set', 'eth1_2', 'dl_base', '18000' ]);
	});
});

describe('devices()', () => {
	const OFFERS = [ { mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld' } ];

	it('none chosen: null, nothing staged (not even main)', async () => {
		const { h, stage } = await load({}, {});
		expect(stage.devices(OFFERS, [])).toBe(null);
		expect(h.uci.pendingChanges()).toEqual({});
	});

	it('a chosen new device: its section, main added where missing', async () => {
		const { h, stage } = await load({}, {});
		const r = stage.devices(OFFERS, [ '02:00:00:00:3d:51' ]);
		expect(r).toEqual({ added: [ '02:00:00:00:3d:51' ], enabled: [] });
		const ops = h.uci.pendingChanges().reterm;
		expect(ops[0]).toEqual([ 'add', 'main', 'reterm' ]);
		expect(ops).toContainEqual(expect.arrayContaining([ 'set', 'mac', '02:00:00:00:3d:51' ]));
	});
});

/*
 * cancel(): what shaping() and devices() staged, saved as the wizard saves
 * it, is put back by what cancel() stages, saved again: the session's
 * configuration is the seeded one, option for option.
 */
describe('cancel()', () => {
	const DEVICES = {
		main: { '.type': 'reterm', enabled: '0' },
		ps4: { '.type': 'device', mac: '02:00:00:00:00:04', name: 'ps4', enabled: '0' }
	};
	const OFFERS = [ { mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld' },
		{ mac: '02:00:00:00:00:04', name: 'ps4', class: 'console' } ];

	async function save(h) {
		await (await h.require('uci')).save();
		return { sqm: h.uci.dump('sqm'), reterm: h.uci.dump('reterm') };
	}

	it('an existing queue, its adaptive section, a new and a re-enabled device: all back as they were', async () => {
		const { h, stage } = await load({ wanq: QUEUE }, DEVICES);
		const before = { sqm: h.uci.dump('sqm'), reterm: h.uci.dump('reterm') };
		const q = Object.assign({ '.name': 'wanq' }, QUEUE);
		const sh = stage.shaping(P({ adaptive: true }), q);
		const dev = stage.devices(OFFERS, [ '02:00:00:00:3d:51', '02:00:00:00:00:04' ]);
		(await h.require('uci')).set('reterm', 'main', 'enabled', '1');
		const applied = await save(h);
		expect(applied.sqm.wanq.download).toBe('18000');
		expect(applied.reterm.wanq['.type']).toBe('autorate');
		expect(dev).toEqual({ added: [ '02:00:00:00:3d:51' ], enabled: [ 'ps4' ] });
		expect(Object.keys(applied.reterm).length).toBe(Object.keys(before.reterm).length + 2);

		stage.cancel({ restore: true, sqm: { sid: 'wanq', values: QUEUE }, autorate: sh.autorate,
			retermEnabled: '0', devices: { remove: dev.added, disable: dev.enabled } }, 'wanq', h.uci.sections('sqm', 'queue'));
		expect(await save(h)).toEqual(before);
	});

	it('a queue the wizard created: it and its adaptive section removed, nothing else touched', async () => {
		const { h, stage } = await load({ eth1: { ...QUEUE, interface: 'eth0' } }, DEVICES);
		const before = { sqm: h.uci.dump('sqm'), reterm: h.uci.dump('reterm') };
		const sh = stage.shaping(P({ adaptive: true }), null);
		const applied = await save(h);
		expect(Object.keys(applied.sqm)).toEqual([ 'eth1', sh.sid ]);

		stage.cancel({ restore: true, sqm: { sid: null, values: null }, autorate: sh.autorate,
			retermEnabled: null, devices: null }, sh.sid, h.uci.sections('sqm', 'queue'));
		expect(await save(h)).toEqual(before);
	});

	it('cancel before anything was applied stages nothing', async () => {
		const { h, stage } = await load({ wanq: QUEUE }, DEVICES);
		stage.cancel({ restore: false, sqm: null, retermEnabled: null, devices: null, autorate: null }, null, h.uci.sections('sqm', 'queue'));
		expect(h.uci.pendingChanges()).toEqual({});
	});
});
