import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';
import { RESULT } from './fixtures/wizard-result.js';

let w;
beforeAll(async () => { w = await createHarness().require('reterm.wizard.state'); });

describe('state machine', () => {
	const SNAP = { sqm: { sid: 'q', values: { '.type': 'queue', enabled: '0', interface: 'eth1' } }, retermEnabled: '0' };

	it('walks look → measure → propose → apply → devices, each needing its input', () => {
		let s = w.create(SNAP);
		expect([s.step, s.reached]).toEqual(['look', 0]);
		s = w.next(s);
		expect(s.step).toBe('measure');
		expect(w.next(s).step).toBe('measure');           /* no result yet */
		s = w.record(s, { type: 'measured', result: RESULT() });
		s = w.next(s);
		expect(s.step).toBe('propose');
		expect(w.next(s).step).toBe('propose');           /* no proposal yet */
		s = w.next(w.record(s, { type: 'proposed', proposal: { download: 1 } }));
		expect(s.step).toBe('apply');
		expect(w.next(s).step).toBe('apply');             /* not applied or skipped */
		s = w.record(s, { type: 'applied' });
		s = w.record(s, { type: 'verified', result: RESULT({ grade: 'A' }) });
		s = w.next(s);
		expect([s.step, s.reached, s.applied.shaping, s.after.grade]).toEqual(['devices', 4, true, 'A']);
		s = w.record(s, { type: 'devicesApplied' });
		expect([s.done, s.applied.devices]).toEqual([true, true]);
		expect(w.next(s).step).toBe('devices');
	});

	it('skipping apply reaches the devices step; back always works', () => {
		let s = w.create(SNAP);
		s = w.go(w.record(w.go(s, 'measure'), { type: 'measured', result: RESULT() }), 'propose');
		s = w.go(w.record(s, { type: 'proposed', proposal: {} }), 'apply');
		s = w.next(w.record(s, { type: 'skipApply' }));
		expect(s.step).toBe('devices');
		expect(w.back(w.back(s)).step).toBe('propose');
		expect(w.back(w.create(SNAP)).step).toBe('look');
		expect(w.go(s, 'nowhere').step).toBe('devices');
	});

	it('a new measurement drops the old proposal and after result', () => {
		let s = w.record(w.record(w.create(SNAP), { type: 'measured', result: RESULT() }), { type: 'proposed', proposal: {} });
		s = w.record(s, { type: 'measured', result: RESULT({ id: 'b' }), asIs: true });
		expect([s.proposal, s.before.id, s.measuredAsIs]).toEqual([null, 'b', true]);
	});

	it('does not change the state it was given', () => {
		const s = w.create(SNAP), copy = JSON.stringify(s);
		w.next(s); w.record(s, { type: 'measured', result: RESULT() }); w.go(s, 'measure');
		expect(JSON.stringify(s)).toBe(copy);
	});

	it('serialises to a plain object and resumes', () => {
		let s = w.record(w.go(w.create(SNAP), 'measure'), { type: 'measured', result: RESULT() });
		s = w.go(s, 'propose');
		const plain = w.serialize(s);
		expect(JSON.parse(JSON.stringify(plain))).toEqual(plain);
		expect(w.restore(plain)).toEqual(s);
		expect(w.restore(JSON.stringify(plain))).toEqual(s);
	});

	it('refuses foreign or broken data and never resumes into a step without its input', () => {
		for (const bad of [null, 'x{', '{}', { v: 1, step: 'look', applied: {}, reached: 0 }, { v: 3, step: 'look', applied: {}, reached: 0 },
			{ v: 2, step: 'warp', applied: {}, reached: 0 }, 42])
			expect(w.restore(bad)).toBeNull();
		const s = w.restore({ v: 2, step: 'apply', reached: 3, applied: { shaping: false }, snapshot: SNAP, before: RESULT(), proposal: null });
		expect(s.step).toBe('propose');
		expect(w.restore({ v: 2, step: 'propose', reached: 2, applied: {}, before: null }).step).toBe('measure');
	});

	it('cancel before applying has nothing to restore', () => {
		let s = w.record(w.create(SNAP), { type: 'measured', result: RESULT() });
		s = w.record(s, { type: 'proposed', proposal: {} });
		expect(w.cancel(s)).toEqual({ restore: false, sqm: null, retermEnabled: null, devices: null, autorate: null });
	});

	it('cancel after applying gives back the snapshot', () => {
		let s = w.record(w.create(SNAP), { type: 'applied' });
		expect(w.cancel(s)).toEqual({ restore: true, sqm: SNAP.sqm, retermEnabled: null, devices: null, autorate: null });
		s = w.record(s, { type: 'devicesApplied' });
		expect(w.cancel(s).retermEnabled).toBe('0');
		expect(w.cancel(s).devices).toEqual({ remove: [], disable: [] });
		const fresh = w.record(w.create({ sqm: null, retermEnabled: '1' }), { type: 'applied' });
		expect(w.cancel(fresh).sqm).toEqual({ sid: null, values: null });
	});

	it('follows the test it started: testStarted → measured / verified / testEnded', () => {
		let s = w.record(w.go(w.create(SNAP), 'measure'), { type: 'testStarted', kind: 'before', id: 7, paused: ['eth1', 3] });
		expect(s.test).toEqual({ kind: 'before', id: '7', paused: ['eth1', '3'] });
		expect(w.restore(JSON.stringify(s)).test).toEqual(s.test);
		expect(w.record(s, { type: 'measured', result: RESULT() }).test).toBeNull();
		expect(w.record(s, { type: 'testEnded' }).test).toBeNull();
		s = w.record(s, { type: 'testStarted', kind: 'after', id: null });
		expect(s.test).toEqual({ kind: 'after', id: null, paused: null });
		expect(w.record(s, { type: 'verified', result: RESULT() }).test).toBeNull();
		expect(w.next(w.record(s, { type: 'measured', result: RESULT() })).step).toBe('propose');
	});

	it('restoreChanges lists the options to set and unset', () => {
		expect(w.restoreChanges({ '.type': 'queue', enabled: '0', interface: 'eth1', download: '5000' },
			{ '.type': 'queue', '.name': 'q', enabled: '1', interface: 'eth1', upload: '900', download: '18000' }))
			.toEqual([['upload', null], ['enabled', '0'], ['download', '5000']]);
		expect(w.restoreChanges(null, { enabled: '1' })).toBeNull();
	});
});

describe('device offers', () => {
	const HOSTS = [
		{ mac: '02:00:00:00:00:0A', name: 'laptop', class: 'other', audit: { recommendation: 'ok', scaling: true, syn_count: 4 } },
		{ mac: '02:00:00:00:00:0B', name: 'tv', class: 'other', audit: { recommendation: 'reterm', scaling: false, window: 16384, syn_count: 3, noscale_syns: 3, rtt_ms: 130 } },
		{ mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld', audit: null },
		{ mac: '02:00:00:00:00:04', name: 'ps4', class: 'console', audit: null, reterm: true, enabled: true, section: 'cfg01' },
		{ mac: 'bogus', name: 'x', class: 'console' }
	];

	it('sorts consoles and handhelds first', () => {
		expect(w.sortHosts(HOSTS).map(h => h.name)).toEqual(['3ds', 'ps4', 'x', 'laptop', 'tv']);
		expect(w.sortHosts(null)).toEqual([]);
	});

	it('offers consoles, handhelds and audit-flagged devices with evidence', () => {
		const o = w.offers(HOSTS);
		expect(o.map(x => [x.name, x.reason, x.active])).toEqual([['3ds', 'handheld', false], ['ps4', 'console', true], ['tv', 'audit', false]]);
		expect(o[0].evidence).toMatch(/handhelds.*An audit on the Devices page shows whether this one does/);
		expect(o[2].evidence).toMatch(/no scaling.*Re-termination helps/);
		expect(o[0].mac).toBe('02:00:00:00:3d:51');
	});

	it('plans sections for the chosen devices and enables the service', () => {
		const o = w.offers(HOSTS);
		const secs = [{ '.name': 'cfg01', '.type': 'device', mac: '02:00:00:00:00:04', enabled: '0' }];
		expect(w.devicePlan(o, ['02:00:00:00:3D:51', '02:00:00:00:00:04'], secs)).toEqual([
			{ op: 'add', values: { name: '3ds', mac: '02:00:00:00:3d:51', enabled: '1', ports: 'all' } },
			{ op: 'set', section: 'cfg01', values: { enabled: '1' } },
			{ op: 'set', section: 'main', values: { enabled: '1' } }
		]);
		expect(w.devicePlan(o, [], secs)).toEqual([]);
	});
});

describe('adaptive shaping switched on by the apply step', () => {
	const AR = { '.name': 'eth1', '.type': 'autorate', enabled: '0', dl_min: '1000', dl_base: '4000', dl_max: '8000',
		ul_min: '250', ul_base: '1000', ul_max: '2000', delay_ms: '20' };

	it('keeps the section as it was before the first apply that changed it, through a reload', () => {
		let s = w.record(w.create({ sqm: null, retermEnabled: '0' }), { type: 'proposed', proposal: { device: 'eth1' } });
		s = w.record(s, { type: 'applied', rx: 1, tx: 1, autorate: { sid: 'eth1', values: AR } });
		s = w.record(s, { type: 'applied', rx: 2, tx: 2, autorate: { sid: 'eth1', values: { ...AR, enabled: '1' } } });
		expect(w.restore(JSON.stringify(s)).autorate).toEqual({ sid: 'eth1', values: AR });
		expect(w.cancel(s).autorate).toEqual({ sid: 'eth1', values: AR });
	});

	it('cancel puts an existing section back: enabled, rates, an option the apply added goes', () => {
		const c = { restore: true, sqm: null, autorate: { sid: 'eth1', values: AR } };
		const now = { ...AR, enabled: '1', dl_min: '4500', dl_base: '18000', dl_max: '36000', extra: 'x' };
		expect(w.cancelOps(c, { queues: [], devices: [], main: true, autorate: now })).toEqual([
			[ 'set', 'reterm', 'eth1', 'extra', null ], [ 'set', 'reterm', 'eth1', 'enabled', '0' ],
			[ 'set', 'reterm', 'eth1', 'dl_min', '1000' ], [ 'set', 'reterm', 'eth1', 'dl_base', '4000' ],
			[ 'set', 'reterm', 'eth1', 'dl_max', '8000' ] ]);
	});

	it('cancel removes a section the apply added, and nothing when it is gone already', () => {
		const c = { restore: true, sqm: null, autorate: { sid: 'eth1', values: null } };
		expect(w.cancelOps(c, { queues: [], devices: [], main: true, autorate: { '.type': 'autorate', enabled: '1' } }))
			.toEqual([ [ 'remove', 'reterm', 'eth1' ] ]);
		expect(w.cancelOps(c, { queues: [], devices: [], main: true, autorate: null })).toEqual([]);
	});
});

describe('cancel after the devices step', () => {
	it('lists the sections added and switched on', () => {
		let s = w.record(w.create({ sqm: null, retermEnabled: '0' }), { type: 'skipApply' });
		s = w.record(s, { type: 'devicesApplied', added: ['02:00:00:00:3D:51', 'bogus'], enabled: ['cfg01'] });
		expect([s.devicesAdded, s.devicesEnabled, s.done]).toEqual([['02:00:00:00:3d:51'], ['cfg01'], true]);
		expect(w.cancel(s)).toEqual({ restore: true, sqm: null, retermEnabled: '0',
			devices: { remove: ['02:00:00:00:3d:51'], disable: ['cfg01'] }, autorate: null });
		expect(w.restore(JSON.stringify(s)).devicesAdded).toEqual(['02:00:00:00:3d:51']);
	});
});

describe('issue 12: the test URLs survive the reload after an apply', () => {
	it('records the URLs typed in step 2 and keeps them through serialize → restore', () => {
		let s = w.go(w.create({ sqm: null, retermEnabled: '0' }), 'measure');
		s = w.record(s, { type: 'urls', download: ' http://192.0.2.10/bytes ', upload: 'http://192.0.2.10/upload' });
		const back = w.restore(JSON.stringify(w.serialize(s)));
		expect(back.urls).toEqual({ download: 'http://192.0.2.10/bytes', upload: 'http://192.0.2.10/upload' });
		expect(w.create({ sqm: null }).urls).toEqual({ download: '', upload: '' });
	});
});

describe('issue 12: words', () => {
	it('a handheld without an audit is not said to lack window scaling', () => {
		const [deck] = w.offers([{ mac: 'e0:31:9e:10:20:30', name: 'steamdeck', class: 'handheld', audit: null }]);
		expect(deck.evidence).not.toMatch(/3DS|without scaling|no scaling/);
		expect(deck.evidence).toMatch(/audit/);
		const [ds] = w.offers([{ mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld',
			audit: { recommendation: 'reterm', scaling: false, window: 16384, syn_count: 3, noscale_syns: 3, rtt_ms: 130 } }]);
		expect(ds.evidence).toMatch(/no scaling/);
	});

	it('menu paths in messages use the menu titles (Network → Re-termination → …)', async () => {
		const { readFileSync } = await import('node:fs');
		const { collect } = await import('../../tools/i18n-scan.mjs');
		const menu = JSON.parse(readFileSync(new URL('../../root/usr/share/luci/menu.d/luci-app-reterm.json', import.meta.url), 'utf8'));
		const top = menu['admin/network/reterm'].title;
		const pages = Object.keys(menu).filter(k => k.startsWith('admin/network/reterm/')).map(k => menu[k].title);
		const paths = collect().map(e => e.msgid).filter(m => /Network → /.test(m)).flatMap(m => m.match(/Network → [^.,;)]*/g));
		const ours = paths.filter(p => !/^Network → (Interfaces|Firewall)$/.test(p));
		expect(ours.length).toBeGreaterThan(0);
		for (const p of ours)
			expect(p).toMatch(new RegExp(`^Network → ${top} → (${pages.join('|')})$`));
	});
});

describe('issue 12: the rates to wait for', () => {
	it('records the rates to wait for when shaping is applied', () => {
		let s = w.record(w.create({ sqm: null }), { type: 'applied', rx: 17000000, tx: 900000 });
		expect(s.applyWait).toEqual({ rx: 17000000, tx: 900000 });
		expect(w.restore(JSON.stringify(s)).applyWait).toEqual({ rx: 17000000, tx: 900000 });
		s = w.record(s, { type: 'applyConfirmed' });
		expect([s.applyWait, s.applied.shaping]).toEqual([null, true]);
	});
});

describe('moved out of the view', () => {
	it('cancelOps: the UCI operations of a cancel', () => {
		const snap = { sqm: { sid: 'q', values: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000' } }, retermEnabled: '0' };
		let s = w.record(w.create(snap), { type: 'applied' });
		s = w.record(s, { type: 'devicesApplied', added: ['02:00:00:00:3d:51'], enabled: ['tv'] });
		const now = { queueSid: 'q', main: true,
			queues: [{ '.name': 'q', enabled: '1', interface: 'eth1', download: '17000', upload: '900' }, { '.name': 'q2', enabled: '0' }],
			devices: [{ '.name': 'cfg1', mac: '02:00:00:00:3D:51' }, { '.name': 'tv', mac: '02:00:00:00:00:0b', enabled: '1' }, { '.name': 'pc', mac: '02:00:00:00:00:0c' }] };
		expect(w.cancelOps(w.cancel(s), now)).toEqual([
			['set', 'sqm', 'q', 'upload', null], ['set', 'sqm', 'q', 'download', '5000'],
			['remove', 'reterm', 'cfg1'], ['set', 'reterm', 'tv', 'enabled', '0'], ['set', 'reterm', 'main', 'enabled', '0']]);
		const fresh = w.record(w.create({ sqm: null }), { type: 'applied' });
		expect(w.cancelOps(w.cancel(fresh), { queueSid: 'cfg9', queues: [] })).toEqual([['remove', 'sqm', 'cfg9']]);
		expect(w.cancelOps(w.cancel(w.create({ sqm: null })), { queues: [] })).toEqual([]);
	});

	it('wan', () => {
		expect(w.wan([{ name: 'wan', proto: 'dhcp', device: null }, { name: 'wan6', proto: 'dhcpv6', device: 'eth1' }]))
			.toMatchObject({ name: 'wan6' });
		expect(w.wan([])).toBeNull();
		expect(w.wan(null)).toBeNull();
	});
});
