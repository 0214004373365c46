import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/* reterm.wizard.pause: the router's shaping pause as the wizard reads and
 * tells it, and the previous version's browser-made pause */
let pz, w;
beforeAll(async () => {
	const h = createHarness();
	pz = await h.require('reterm.wizard.pause');
	w = await h.require('reterm.wizard.state');
});

const REC = (state, extra) => Object.assign({ ifaces: ['eth1'], state, until: 1700000105 }, extra);

describe('what the router says', () => {
	it('paused: the ifaces of test_start\'s reply, [] when nothing was shaped, null when not asked', () => {
		expect(pz.paused({ started: true, id: 'b1', paused: ['eth1', 'ifb4eth1'] })).toEqual(['eth1', 'ifb4eth1']);
		expect(pz.paused({ started: true, id: 'b1', paused: [] })).toEqual([]);
		expect(pz.paused({ started: true, id: 'b1' })).toBeNull();
		expect(pz.paused({ paused: ['eth1', 'x; reboot', 7, 'a-very-long-device-name'] })).toEqual(['eth1']);
		expect(pz.paused(null)).toBeNull();
	});

	it('status: the pause record of test_status / monitor_status, checked', () => {
		expect(pz.status({ state: 'running', pause: REC('paused') })).toEqual({ ifaces: ['eth1'], state: 'paused', until: 1700000105, message: null });
		expect(pz.status({ pause: REC('failed', { message: 'sqm did not start again on eth1' }) }).message).toBe('sqm did not start again on eth1');
		expect(pz.status({ pause: REC('restoring', { until: 'soon' }) }).until).toBeNull();
		for (const bad of [null, {}, { pause: null }, { pause: REC('paused'), error: 'not_running' }, { pause: REC('gone') }, { pause: 'paused' }])
			expect(pz.status(bad)).toBeNull();
	});

	it('settled: no record, restored or failed', () => {
		expect([null, REC('paused'), REC('restoring'), REC('restored'), REC('failed')].map(p => pz.settled(p && pz.status({ pause: p }))))
			.toEqual([true, false, false, true, true]);
	});
});

describe('what the wizard tells', () => {
	const note = (state, seen, extra) => pz.note(pz.status({ pause: REC(state, extra) }), seen);

	it('paused: that the router turns shaping back on by itself, also with the page closed', () => {
		expect(note('paused')).toMatchObject({ level: 'info', failed: false });
		expect(note('paused').text).toMatch(/^Shaping is paused on eth1 for this test; the router turns it back on when the test ends\. It does so also when this page is closed, at the latest a minute after the test's planned end; nothing in the configuration changes\.$/);
		expect(note('restoring').text).toBe('The router is turning shaping on eth1 back on…');
	});

	it('restored: only said for a pause this page followed', () => {
		expect(note('restored')).toBeNull();
		expect(note('restored', true)).toEqual({ level: 'success', failed: false, text: 'Shaping on eth1 is back on.' });
	});

	it('failed: the router\'s reason and the way forward', () => {
		const n = note('failed', false, { message: 'sqm did not start again on eth1: run /etc/init.d/sqm restart' });
		expect([n.level, n.failed]).toEqual(['danger', true]);
		expect(n.text).toMatch(/^Shaping on eth1 could not be turned back on: sqm did not start again on eth1: run \/etc\/init\.d\/sqm restart\. Restart sqm on the router/);
	});

	it('nothing to tell without a record or without ifaces', () => {
		expect(pz.note(null)).toBeNull();
		expect(pz.note(pz.status({ pause: REC('paused', { ifaces: [] }) }))).toBeNull();
	});
});

describe('a state stored by the previous version (v 1, shaping paused in UCI)', () => {
	const V1 = (paused, extra) => Object.assign({ v: 1, step: 'measure', reached: 1, snapshot: { sqm: null, retermEnabled: '0' },
		before: null, proposal: null, applied: { shaping: false, devices: false }, paused,
		urls: { download: 'http://192.0.2.10/b', upload: '' } }, extra);
	const Q = (en, en2) => [{ '.name': 'q', enabled: en, interface: 'eth1' }, { '.name': 'q2', enabled: en2, interface: 'lan' }];

	it('migrates to this version: the pause becomes legacyPause, the rest is kept and restores', () => {
		const s = pz.migrate(JSON.stringify(V1({ sids: ['q'], phase: 'off', testId: 'b1' })));
		expect(s).toMatchObject({ v: 2, step: 'measure', test: null, legacyPause: ['q'], urls: { download: 'http://192.0.2.10/b', upload: '' } });
		expect(s.paused).toBeUndefined();
		const back = w.restore(s);
		expect([back.v, back.step, back.legacyPause]).toEqual([2, 'measure', ['q']]);
		expect(w.next(w.record(back, { type: 'measured', result: { grade: 'D' } })).step).toBe('propose');
	});

	it('a v 1 state without a pause migrates without legacyPause; others pass through unchanged', () => {
		expect(pz.migrate(V1(null)).legacyPause).toBeUndefined();
		expect(pz.migrate(V1({ sids: [], phase: 'pausing' })).legacyPause).toBeUndefined();
		const v2 = w.create({ sqm: null });
		expect(pz.migrate(v2)).toBe(v2);
		expect(pz.migrate('x{')).toBeNull();
		expect(pz.migrate(null)).toBeNull();
	});

	it('legacyResume: the sections it turned off that are off still', () => {
		const s = pz.migrate(V1({ sids: ['q', 'q2', 'gone'], phase: 'restoring' }));
		expect(pz.legacyResume(s, Q('0', '0'))).toEqual(['q', 'q2']);
		expect(pz.legacyResume(s, Q('1', '0'))).toEqual(['q2']);
		expect(pz.legacyResume(s, Q('1', '1'))).toEqual([]);
		expect(pz.legacyResume(w.create({ sqm: null }), Q('0', '0'))).toEqual([]);
		expect(pz.legacyDone(s).legacyPause).toBeUndefined();
		expect(s.legacyPause).toEqual(['q', 'q2', 'gone']);
		expect(pz.legacyText(['q'])).toMatch(/\(q\); it is turned back on now/);
		expect(pz.legacyText(['q', 'q2'])).toMatch(/\(q, q2\); they are turned back on now/);
	});
});
