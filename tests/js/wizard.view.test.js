import { describe, it, expect } from 'vitest';
import { createHarness, click, fire, settleAll } from './harness/luci.js';
import { samples, BEFORE, AFTER, setup, open, measure, reloaded, memoryStorage } from './wizard.view.kit.js';

describe('step 1: look', () => {
	it('shows the PPPoE WAN device, sqm state, offloading and hosts with handhelds first', async () => {
		const h = setup({ proto: 'pppoe', offload: true });
		const p = await open(h);
		expect(p.step()).toBe('1. Look');
		expect(p.text('.reterm-wizard-facts')).toMatch(/pppoe-wan \(PPPoE on eth1\)/);
		expect(p.text('.reterm-wizard-facts')).toMatch(/Shaping \(sqm\)off/);
		expect(p.text()).toMatch(/Hardware flow offloading is on/);
		expect([...p.root.querySelectorAll('.reterm-wizard-hosts li')].map(li => h.text(li).trim().split(' ')[0]))
			.toEqual(['Handheld', 'laptop', 'tv']);
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('says when sqm-scripts is missing', async () => {
		const p = await open(setup({ sqm: null }));
		expect(p.text()).toMatch(/sqm-scripts is not installed/);
	});
});

describe('the whole flow', () => {
	it('measures, proposes, applies with rollback, verifies and re-terminates devices', async () => {
		const storage = memoryStorage();
		let h = setup({ storage });
		let p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('2. Measure');
		expect(p.$('.reterm-wizard-next')).toBeNull();

		await measure(h, p, BEFORE);
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[0].params).toEqual({ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true });
		expect(p.text('.reterm-wizard-grade')).toMatch(/Grade D/);
		expect(p.$('.reterm-wizard-result svg')).not.toBeNull();
		expect(JSON.parse(storage.data['reterm-wizard']).before.id).toBe('b1');

		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('3. Propose');
		expect([p.$('#reterm-wizard-down').value, p.$('#reterm-wizard-up').value, p.$('#reterm-wizard-rtt').value, p.$('#reterm-wizard-overhead').value])
			.toEqual(['18', '0.9', 'internet', 'ethernet']);
		expect(p.text('.reterm-wizard-preview')).toMatch(/tc qdisc add dev eth1 root cake bandwidth 900kbit/);
		expect(p.text()).toMatch(/98 % of the 2 round-trip times .* at most 21\.0 ms/);

		p.$('#reterm-wizard-down').value = '17';
		fire(p.$('#reterm-wizard-down'), 'input');
		expect(p.text('.reterm-wizard-preview')).toMatch(/ifb4eth1 root cake bandwidth 17000kbit/);
		expect(h.uci.stagedChanges()).toEqual({});

		await click(p.$('.reterm-wizard-accept'));
		expect(p.step()).toBe('4. Apply & verify');
		expect(p.text()).toMatch(/Shaping eth1 at 17 Mbit\/s download/);
		expect(h.ui.applied).toEqual([]);

		await click(p.$('.reterm-wizard-apply'));
		expect(h.ui.applied).toEqual([{ checked: true }]);
		const [q] = Object.values(h.uci.dump('sqm'));
		expect(q).toMatchObject({ '.type': 'queue', enabled: '1', interface: 'eth1', download: '17000', upload: '900',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' });
		expect(JSON.parse(storage.data['reterm-wizard']).applied.shaping).toBe(true);
		/* LuCI confirms the apply and reloads the page: the wizard goes on
		 * once the router reports the new rates */
		({ h, p } = await reloaded(h));
		expect(p.step()).toBe('4. Apply & verify');
		expect(p.text()).not.toMatch(/Resumed where you left/);

		await measure(h, p, AFTER);
		const cmp = p.text('.reterm-wizard-compare');
		expect(cmp).toMatch(/GradeDA/);
		expect(cmp).toMatch(/Added latency, download250\.0 ms8\.0 ms/);
		expect(cmp).toMatch(/15 % less/);
		expect(cmp).toMatch(/12 % less/);

		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('5. Devices');
		const offers = [...p.root.querySelectorAll('.reterm-wizard-offers li')].map(li => h.text(li));
		expect(offers).toHaveLength(2);
		expect(offers[0]).toMatch(/3ds.*An audit on the Devices page shows whether this one does/);
		expect(offers[0]).not.toMatch(/3DS|without scaling/);
		expect(offers[1]).toMatch(/tv.*no scaling.*Re-termination helps/);

		p.root.querySelectorAll('input.reterm-wizard-offer')[1].checked = false;
		await click(p.$('.reterm-wizard-apply-devices'));
		expect(h.ui.applied).toHaveLength(2);
		({ h, p } = await reloaded(h));
		const r = h.uci.dump('reterm');
		expect(r.main.enabled).toBe('1');
		expect(Object.values(r).filter(s => s['.type'] === 'device')).toEqual([
			expect.objectContaining({ name: '3ds', mac: '02:00:00:00:3d:51', enabled: '1', ports: 'all' })]);
		expect(p.text()).toMatch(/Done\. The chosen devices are re-terminated/);
		expect(JSON.parse(storage.data['reterm-wizard']).devicesAdded).toEqual(['02:00:00:00:3d:51']);
		await click(p.$('.reterm-wizard-close'));
		expect(storage.data['reterm-wizard']).toBeUndefined();
		expect(p.step()).toBe('1. Look');
	});

	it('refuses an invalid edit and stays on the proposal', async () => {
		const h = setup();
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		p.$('#reterm-wizard-down').value = 'fast';
		await click(p.$('.reterm-wizard-accept'));
		expect(p.step()).toBe('3. Propose');
		expect(p.text('.reterm-wizard-error')).toMatch(/Enter a rate/);
		p.$('#reterm-wizard-down').value = '0';
		p.$('#reterm-wizard-up').value = '0';
		await click(p.$('.reterm-wizard-accept'));
		expect(p.text('.reterm-wizard-error')).toMatch(/nothing would be shaped/);
	});

	it('resumes a stored state and rebuilds a PPPoE proposal', async () => {
		const w = await createHarness().require('reterm.wizard.state');
		let s = w.create({ sqm: null, retermEnabled: '0' });
		s = w.go(w.record(w.go(s, 'measure'), { type: 'measured', result: BEFORE }), 'propose');
		const h = setup({ proto: 'pppoe', storage: memoryStorage({ 'reterm-wizard': JSON.stringify(s) }) });
		const p = await open(h);
		expect(p.step()).toBe('3. Propose');
		expect(p.text()).toMatch(/Resumed where you left/);
		expect(p.$('#reterm-wizard-overhead').value).toBe('pppoe-ptm');
		expect(p.text('.reterm-wizard-preview')).toMatch(/dev pppoe-wan root cake/);
	});
});

describe('no server of your own (issue 14)', () => {
	it('nothing set: one click measures against the router\'s endpoints, the URLs wait under Advanced', async () => {
		const h = setup({ reterm: { latency: { '.type': 'latency' } } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		const adv = p.$('details.reterm-wizard-urls');
		expect(adv).not.toBeNull();
		expect(adv.hasAttribute('open')).toBe(false);
		h.replies.push({ state: 'done', result: BEFORE });
		await click(p.$('.reterm-wizard-start'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start').map(c => c.params)).toEqual([{ streams: 4, pause_shaping: true }]);
	});

	it('the Overview\'s endpoint choice is passed on; URLs set: Advanced is open', async () => {
		let h = setup({ reterm: { latency: { '.type': 'latency', endpoint: 'tele2' } } });
		let p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-start'));
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[0].params).toEqual({ endpoint: 'tele2', streams: 4, pause_shaping: true });
		h = setup();
		p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		expect(p.$('details.reterm-wizard-urls').hasAttribute('open')).toBe(true);
	});
});

describe('failures', () => {
	it('reterm-latencyd not running: says so, retry works once it runs', async () => {
		const h = setup({ monitorDown: true });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/latency monitor \(reterm-latencyd\) is not running/);
		expect(p.$('.reterm-wizard-shaping').getAttribute('href')).toMatch(/reterm\/shaping$/);
		h.rpc.handle('reterm.latency', 'test_status', { state: 'idle' });
		await click(p.$('.reterm-wizard-retry'));
		expect(p.$('.reterm-wizard-start')).not.toBeNull();
	});

	it('no reflector answers: clear message, skip leads to the devices', async () => {
		const h = setup();
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, { v: 1, id: 'b1', error: 'no_idle_rtt', message: 'no probe was answered', phases: [], samples: [] });
		expect(p.text()).toMatch(/No reflector answered/);
		await click(p.$('.reterm-wizard-skip'));
		expect(p.step()).toBe('5. Devices');
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('test URL unreachable: names the load errors', async () => {
		const h = setup();
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, Object.assign({}, BEFORE, { download: { grade: 'A', added_ms: 0, throughput_bps: null },
			upload: { grade: 'A', added_ms: 0, throughput_bps: null }, errors: ['download: connection refused'] }));
		expect(p.text()).toMatch(/test URL could not be reached.*connection refused/);
		expect(p.$('.reterm-wizard-retry')).not.toBeNull();
	});

	it('a test already running: says so', async () => {
		const h = setup({ start: { error: 'busy', message: 'a test is already running' } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-start'));
		expect(p.text()).toMatch(/A test is already running/);
		expect(h.poll.queue).toHaveLength(0);
	});

	it('shaping on, measured as is on request: nothing applied', async () => {
		const h = setup({ sqm: { q: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000', upload: '500' } } });
		const p = await open(h);
		expect(p.text('.reterm-wizard-facts')).toMatch(/on: 5 Mbit\/s down/);
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/Shaping is on/);
		h.replies.push({ state: 'done', result: BEFORE });
		await click(p.$('.reterm-wizard-asis'));
		await h.poll.tick();
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[0].params).toEqual({ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4 });
		expect([h.ui.applied, h.uci.stagedChanges(), h.router.pause]).toEqual([[], {}, null]);
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/Measured with shaping on: the rates below are 90 % of the rates measured through the current shaper/);
		expect(p.text()).not.toMatch(/90 % of the shaped rates/);
	});
});

describe('cancel', () => {
	it('before applying leaves UCI untouched', async () => {
		const storage = memoryStorage();
		const h = setup({ storage, sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1' } } });
		const before = JSON.stringify(h.uci.dump('sqm'));
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-accept'));
		expect(p.step()).toBe('4. Apply & verify');
		await click(p.$('.reterm-wizard-cancel'));
		expect(p.step()).toBe('1. Look');
		expect(h.uci.stagedChanges()).toEqual({});
		expect(h.uci.pendingChanges()).toEqual({});
		expect(h.uci.commits).toEqual([]);
		expect(h.ui.applied).toEqual([]);
		expect(JSON.stringify(h.uci.dump('sqm'))).toBe(before);
		expect(storage.data['reterm-wizard']).toBeUndefined();
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/nothing was changed/);
	});

	it('after applying puts the previous queue back', async () => {
		let h = setup({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1', download: '5000' } } });
		let p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-accept'));
		await click(p.$('.reterm-wizard-apply'));
		expect(h.uci.dump('sqm').q).toMatchObject({ enabled: '1', download: '18000' });
		/* LuCI confirms the apply and reloads the page; then cancel */
		({ h, p } = await reloaded(h));
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.ui.applied).toEqual([{ checked: true }, { checked: true }]);
		const q = h.uci.dump('sqm').q;
		expect(q).toEqual({ '.name': 'q', '.type': 'queue', '.anonymous': false, '.index': 0, enabled: '0', interface: 'eth1', download: '5000' });
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/previous settings are back/);
	});

	it('after applying to a new queue removes it again', async () => {
		let h = setup();
		let p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-accept'));
		await click(p.$('.reterm-wizard-apply'));
		expect(Object.keys(h.uci.dump('sqm'))).toHaveLength(1);
		/* LuCI confirms the apply and reloads the page; then cancel */
		({ h, p } = await reloaded(h));
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.uci.dump('sqm')).toEqual({});
	});
});

describe('adaptive shaping (issue 16)', () => {
	const propose = async (h) => {
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		return p;
	};

	it('ticked on a new queue: the queue is named after its device and its autorate section comes in the same apply; cancel takes both back', async () => {
		let h = setup();
		let p = await propose(h);
		const box = p.$('#reterm-wizard-adaptive');
		expect(box.checked).toBe(false);	/* the measured throughput held steady */
		box.checked = true;
		fire(box, 'change');
		await click(p.$('.reterm-wizard-accept'));
		expect(p.text()).toMatch(/Adaptive shaping moves both rates with the line/);
		await click(p.$('.reterm-wizard-apply'));
		expect(h.ui.applied).toEqual([{ checked: true }]);
		expect(Object.keys(h.uci.dump('sqm'))).toEqual([ 'eth1' ]);
		expect(h.uci.dump('reterm').eth1).toMatchObject({ '.type': 'autorate', enabled: '1', dl_min: '4500', dl_base: '18000',
			dl_max: '36000', ul_min: '225', ul_base: '900', ul_max: '1800' });
		/* LuCI confirms the apply and reloads the page; then cancel */
		({ h, p } = await reloaded(h));
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.uci.dump('sqm')).toEqual({});
		expect(h.uci.dump('reterm').eth1).toBeUndefined();
	});

	it('on for the queue already: the box starts ticked; unticked, the apply switches it off and cancel on again', async () => {
		const AR = { '.type': 'autorate', enabled: '1', dl_min: '1000', dl_base: '5000', dl_max: '9000', ul_min: '100', ul_base: '500', ul_max: '900' };
		let h = setup({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1', download: '5000', upload: '500' } },
			reterm: { q: AR } });
		let p = await propose(h);
		const box = p.$('#reterm-wizard-adaptive');
		expect(box.checked).toBe(true);
		box.checked = false;
		fire(box, 'change');
		await click(p.$('.reterm-wizard-accept'));
		await click(p.$('.reterm-wizard-apply'));
		expect(h.uci.dump('reterm').q).toMatchObject({ ...AR, enabled: '0' });
		/* LuCI confirms the apply and reloads the page; then cancel */
		({ h, p } = await reloaded(h));
		await click(p.$('.reterm-wizard-cancel'));
		expect(h.uci.dump('reterm').q).toMatchObject(AR);
	});

	it('a rate of 0 with the box ticked: refused, nothing staged', async () => {
		const h = setup();
		const p = await propose(h);
		p.$('#reterm-wizard-adaptive').checked = true;
		p.$('#reterm-wizard-up').value = '0';
		fire(p.$('#reterm-wizard-up'), 'input');
		await click(p.$('.reterm-wizard-accept'));
		expect(p.step()).toBe('3. Propose');
		expect(p.text('.reterm-wizard-error')).toMatch(/Adaptive shaping moves both rates/);
		expect(h.uci.stagedChanges()).toEqual({});
	});
});
