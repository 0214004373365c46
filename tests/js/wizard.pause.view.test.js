import { describe, it, expect } from 'vitest';
import { createHarness, click, fire, settleAll } from './harness/luci.js';
import { samples, BEFORE, setup, flush, open, measure, reloaded, memoryStorage, SHAPED, stored, pauseAt } from './wizard.view.kit.js';


describe('measuring with shaping off: the router pauses it (issue 13 item 9)', () => {
	it('asks test_start to pause shaping; nothing is staged or applied; shows the pause and its end', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/the router pauses it for the test and turns it back on by itself .* also when this page is closed/);
		h.replies.push({ state: 'running', total: 44, elapsed: 11, phase: 'download', phase_index: 1, progress: 0.25, rtt: 260 }, { state: 'done', result: BEFORE, pause: pauseAt('restoring') });
		await click(p.$('.reterm-wizard-start'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start').map(c => c.params)).toEqual([
			{ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true }]);
		expect(stored(storage).test).toEqual({ kind: 'before', id: 'b1', paused: ['eth1'] });
		expect(p.text('.reterm-wizard-pause')).toMatch(/Shaping is paused on eth1 for this test.*also when this page is closed/);
		expect(p.$('.reterm-wizard-next')).toBeNull();
		/* LuCI's poll asks for the status at once */
		expect(p.text('.reterm-wizard-test')).toMatch(/Download load/);
		await h.poll.tick();               /* done; the router is turning sqm back on */
		expect(p.text('.reterm-wizard-grade')).toMatch(/Grade D/);
		expect(p.text('.reterm-wizard-pause')).toMatch(/turning shaping on eth1 back on/);
		expect(h.poll.queue).toHaveLength(1);
		h.router.pause = pauseAt('restored');
		h.replies.length = 0;
		await h.poll.tick();
		expect(p.text('.reterm-wizard-pause')).toMatch(/^Shaping on eth1 is back on\.$/);
		expect(h.poll.queue).toHaveLength(0);
		expect([h.ui.applied, h.uci.stagedChanges(), h.uci.dump('sqm').q.enabled, stored(storage).test]).toEqual([[], {}, '1', null]);
		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('3. Propose');
		expect(p.text()).not.toMatch(/Measured with shaping on/);
		expect(p.$('#reterm-wizard-down').value).toBe('18');
	});

	it('nothing shaped on the WAN: paused [] and no pause note', async () => {
		const h = setup({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1' } } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		expect(p.$('.reterm-wizard-asis')).toBeNull();
		h.replies.push({ state: 'done', result: BEFORE });
		await click(p.$('.reterm-wizard-start'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[0].params.pause_shaping).toBe(true);
		await h.poll.tick();
		expect([p.text('.reterm-wizard-pause'), h.poll.queue.length]).toEqual(['', 0]);
		expect(p.text('.reterm-wizard-grade')).toMatch(/Grade D/);
	});

	it('pause_failed: says why and that nothing started; retry or measure with shaping on', async () => {
		const h = setup({ sqm: SHAPED, start: p => p.pause_shaping
			? { error: 'pause_failed', message: 'sqm did not stop on eth1: the test did not start, shaping is on' }
			: { started: true, id: 'b2', total: 44 } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-start'));
		expect(p.text()).toMatch(/Shaping could not be paused for the test, so the test did not start: sqm did not stop on eth1/);
		expect([h.poll.queue.length, h.ui.applied.length, p.$('.reterm-wizard-retry') != null]).toEqual([0, 0, true]);
		h.replies.push({ state: 'done', result: Object.assign({}, BEFORE, { id: 'b2' }) });
		await click(p.$('.reterm-wizard-ways .reterm-wizard-asis'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[1].params.pause_shaping).toBeUndefined();
		await h.poll.tick();
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/Measured with shaping on/);
	});

	it('a failed test or a stop: the router restores shaping, the wizard shows it', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'done', result: { v: 1, id: 'b1', error: 'no_idle_rtt', phases: [], samples: [] }, pause: pauseAt('restored') });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		expect(p.text()).toMatch(/No reflector answered/);
		expect(p.text('.reterm-wizard-pause')).toMatch(/Shaping on eth1 is back on/);
		expect(h.poll.queue).toHaveLength(0);

		h.replies.length = 0;
		h.replies.push({ state: 'running', phase: 'idle', progress: 0.05 });
		await click(p.$('.reterm-wizard-retry'));
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		h.router.pause = pauseAt('restoring');
		await click(p.$('.reterm-wizard-stop'));
		expect(h.rpc.callsTo('reterm.latency', 'test_stop')).toHaveLength(1);
		expect(p.text('.reterm-wizard-pause')).toMatch(/turning shaping on eth1 back on/);
		h.router.pause = pauseAt('restored');
		await h.poll.tick();
		expect([p.text('.reterm-wizard-pause'), h.poll.queue.length, h.ui.applied.length]).toEqual(['Shaping on eth1 is back on.', 0, 0]);
	});

	it('the router could not start sqm again: says so, with the way forward', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'done', result: BEFORE, pause: pauseAt('failed', { message: 'sqm did not start again on eth1: run /etc/init.d/sqm restart' }) });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		expect(p.text('.reterm-wizard-pause .alert-message.danger')).toMatch(/Shaping on eth1 could not be turned back on: sqm did not start again on eth1.*Restart sqm on the router/);
		expect(p.$('.reterm-wizard-pause a.reterm-wizard-shaping').getAttribute('href')).toMatch(/reterm\/shaping$/);
		expect(h.poll.queue).toHaveLength(0);
	});

	it('cancel during the test stops it; the router ends the pause, nothing to undo in UCI', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'running', total: 44, elapsed: 13.2, phase: 'download', phase_index: 1, progress: 0.3 });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.rpc.callsTo('reterm.latency', 'test_stop')).toHaveLength(1);
		expect([h.poll.queue.length, h.ui.applied.length, h.uci.stagedChanges()]).toEqual([0, 0, {}]);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/nothing was changed/);
	});

	it('closing the page mid-test and coming back: picks the test up and shows the router\'s pause', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'running', total: 44, elapsed: 13.2, phase: 'download', phase_index: 1, progress: 0.3 });
		await click(p.$('.reterm-wizard-start'));

		/* a new page from what is stored, the test still runs on the router */
		const h2 = setup({ sqm: SHAPED, storage, pause: pauseAt('paused') });
		/* asked when the page resumes, and by LuCI's poll at once */
		const up = { state: 'running', id: 'b1', phase: 'upload', progress: 0.6 };
		h2.replies.push(up, up, { state: 'done', result: BEFORE, pause: pauseAt('restored') });
		const p2 = await open(h2);
		await flush();
		expect(p2.step()).toBe('2. Measure');
		expect(h2.rpc.callsTo('reterm.latency', 'test_start')).toHaveLength(0);
		expect(p2.text('.reterm-wizard-test')).toMatch(/Upload load/);
		expect(p2.text('.reterm-wizard-pause')).toMatch(/Shaping is paused on eth1/);
		await h2.poll.tick();
		expect(p2.text('.reterm-wizard-grade')).toMatch(/Grade D/);
		expect(p2.text('.reterm-wizard-pause')).toMatch(/Shaping on eth1 is back on/);
		expect([stored(storage).test, h2.poll.queue.length]).toEqual([null, 0]);
	});

	it('coming back after the test ended: takes its result, only if it is the wizard\'s test', async () => {
		const storage = memoryStorage();
		const p = await open(setup({ sqm: SHAPED, storage }));
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-start'));
		const h2 = setup({ sqm: SHAPED, storage, pause: pauseAt('restored') });
		h2.replies.push({ state: 'done', result: Object.assign({}, BEFORE, { id: 'other' }) });
		const p2 = await open(h2);
		await flush();
		expect(p2.text()).toMatch(/The test ended without a result/);
		expect(p2.$('.reterm-wizard-grade')).toBeNull();
		expect(stored(storage).test).toBeNull();
	});

	it('the router\'s pause as monitor_status reports it on arrival', async () => {
		let p = await open(setup({ sqm: SHAPED, pause: pauseAt('paused') }));
		expect(p.text('.reterm-wizard-pause')).toMatch(/Shaping is paused on eth1/);
		p = await open(setup({ sqm: SHAPED, pause: pauseAt('restored') }));
		expect(p.text('.reterm-wizard-pause')).toBe('');
		p = await open(setup({ sqm: SHAPED, pause: pauseAt('failed', { message: 'x' }) }));
		expect(p.text('.reterm-wizard-pause')).toMatch(/could not be turned back on: x/);
	});
});

describe('a state stored by the previous wizard version (shaping paused in UCI)', () => {
	const v1 = (phase, extra = {}) => Object.assign({ v: 1, step: 'measure', reached: 1, snapshot: { sqm: { sid: 'q', values: SHAPED.q }, retermEnabled: '0' },
		before: null, measuredAsIs: false, proposal: null, applied: { shaping: false, devices: false }, applyWait: null, after: null,
		paused: { sids: ['q'], phase, testId: 'b1' }, urls: { download: '', upload: '' }, devicesAdded: [], devicesEnabled: [], done: false }, extra);

	it('turns the queue it left off back on with rollback, and is not stuck', async () => {
		const storage = memoryStorage({ 'reterm-wizard': JSON.stringify(v1('off')) });
		let h = setup({ sqm: { q: Object.assign({}, SHAPED.q, { enabled: '0' }) }, storage });
		let p = await open(h);
		await flush();
		expect([h.uci.dump('sqm').q.enabled, h.ui.applied]).toEqual(['1', [{ checked: true }]]);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/An earlier version of this wizard had turned shaping off for a measurement \(q\); it is turned back on now/);
		expect(stored(storage)).toMatchObject({ v: 2, step: 'measure', test: null });
		expect(stored(storage).legacyPause).toBeUndefined();
		expect(stored(storage).paused).toBeUndefined();
		/* LuCI confirms that apply and reloads the page */
		({ h, p } = await reloaded(h));
		expect(p.text()).not.toMatch(/An earlier version of this wizard/);
		h.replies.push({ state: 'done', result: BEFORE });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		expect(p.$('.reterm-wizard-next')).not.toBeNull();
	});

	it('a pause that was rolled back or restored already: nothing to apply', async () => {
		for (const phase of ['pausing', 'restoring']) {
			const storage = memoryStorage({ 'reterm-wizard': JSON.stringify(v1(phase, { step: 'propose', reached: 2, before: BEFORE })) });
			const h = setup({ sqm: SHAPED, storage });
			const p = await open(h);
			await flush();
			expect([p.step(), h.ui.applied.length, h.uci.stagedChanges()]).toEqual(['3. Propose', 0, {}]);
		}
	});
});

describe('server RTTs', () => {
	it('feed the rtt rule: long paths to servers → oceanic', async () => {
		const h = setup({ servers: { rtts: [131.5, 162.25, 145], source: 'ss' } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		expect(p.$('#reterm-wizard-rtt').value).toBe('oceanic');
		expect(p.text()).toMatch(/98 % of the 5 round-trip times .*to 3 servers.* at most 162\.3 ms/);
		expect(p.text('.reterm-wizard-preview')).toMatch(/oceanic/);
	});

	it('an older rpcd without server_rtts: reflectors only', async () => {
		const h = setup({ servers: { error: 'rpc' } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		expect(p.$('#reterm-wizard-rtt').value).toBe('internet');
	});
});

describe('cancel after the devices step', () => {
	it('removes the sections the wizard added and restores the ones it switched on', async () => {
		const w = await createHarness().require('reterm.wizard.state');
		const s = w.go(w.record(w.go(w.create({ sqm: null, retermEnabled: '0' }), 'measure'), { type: 'skipApply' }), 'devices');
		let h = setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(s) }),
			reterm: { keep: { '.type': 'device', name: 'pc', mac: '02:00:00:00:00:0c', enabled: '1' },
				tvsec: { '.type': 'device', name: 'tv', mac: '02:00:00:00:00:0B', enabled: '0' } } });
		const before = JSON.stringify(h.uci.dump('reterm'));
		let p = await open(h);
		expect(p.step()).toBe('5. Devices');
		await click(p.$('.reterm-wizard-apply-devices'));
		let r = h.uci.dump('reterm');
		expect([r.main.enabled, r.tvsec.enabled, Object.values(r).filter(x => x.mac === '02:00:00:00:3d:51').length]).toEqual(['1', '1', 1]);
		/* LuCI confirms the apply and reloads the page; then cancel */
		({ h, p } = await reloaded(h));
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.ui.applied).toHaveLength(2);
		expect(JSON.stringify(h.uci.dump('reterm'))).toBe(before);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/previous settings are back/);
	});
});
