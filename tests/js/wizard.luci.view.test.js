import { describe, it, expect, vi, afterEach } from 'vitest';
import { createHarness, click, fire, settleAll } from './harness/luci.js';
import { aclViolations } from './harness/acl.js';
import { samples, BEFORE, AFTER, setup, flush, open, measure, reloaded, memoryStorage, SHAPED, stored } from './wizard.view.kit.js';

describe('issue 12: the wizard on real LuCI', () => {
	afterEach(() => vi.restoreAllMocks());

	const NO_URLS = { latency: { '.type': 'latency' } };
	const type = (p, sel, value) => { p.$(sel).value = value; fire(p.$(sel), 'input'); };

	it('the URLs typed in step 2 survive a page reload', async () => {
		const storage = memoryStorage();
		const h = setup({ storage, reterm: NO_URLS });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		type(p, '#reterm-wizard-dl', 'http://198.51.100.7/big');
		type(p, '#reterm-wizard-ul', 'http://198.51.100.7/up');

		/* the reload: a new view from what is stored */
		const h2 = setup({ storage, reterm: NO_URLS });
		const p2 = await open(h2);
		expect(p2.step()).toBe('2. Measure');
		expect([p2.$('#reterm-wizard-dl').value, p2.$('#reterm-wizard-ul').value]).toEqual(['http://198.51.100.7/big', 'http://198.51.100.7/up']);
		await measure(h2, p2, BEFORE);
		expect(h2.rpc.callsTo('reterm.latency', 'test_start')[0].params).toEqual({ download_url: 'http://198.51.100.7/big', upload_url: 'http://198.51.100.7/up', streams: 4, pause_shaping: true });
	});

	it('the check after applying starts only once the router reports the new rates', async () => {
		const storage = memoryStorage();
		let h = setup({ lag: 5, storage });
		let p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-accept'));
		await click(p.$('.reterm-wizard-apply'));
		expect(h.ui.applied).toHaveLength(1);
		expect(p.$('.reterm-wizard-start')).toBeNull();
		expect(p.text()).toMatch(/Waiting for the router to confirm that the new shaping is active/);
		/* after LuCI's reload the router still reports the old rates a few
		 * times (h.monitor.behind counts them) */
		({ h, p } = await reloaded(h));
		expect(h.monitor.behind).toBeGreaterThan(0);
		for (let n = 0; h.monitor.behind > 0; n++) {
			expect(p.$('.reterm-wizard-start')).toBeNull();
			expect(p.text()).toMatch(/Waiting for the router to confirm that the new shaping is active/);
			expect(n).toBeLessThan(10);
			await h.poll.tick();
		}
		expect(p.$('.reterm-wizard-start')).not.toBeNull();
		expect(h.poll.queue).toHaveLength(0);
	});

	it('does not propose 11 Gbit/s measured unshaped on a line shaped at 9 Mbit/s', async () => {
		const q = { '.type': 'queue', enabled: '1', interface: 'eth1', download: '50000', upload: '9000' };
		const h = setup({ sqm: { q } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'done', result: Object.assign({}, BEFORE, { upload: Object.assign({}, BEFORE.upload, { throughput_bps: 11056384444 }) }) });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick(3);
		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('3. Propose');
		expect([p.$('#reterm-wizard-down').value, p.$('#reterm-wizard-up').value]).toEqual(['18', '9']);
		expect(p.text()).toMatch(/The measured upload rate of 11\.1 Gbit\/s is above 10 Gbit\/s.*not proposed\. The upload field keeps the current rate \(9 Mbit\/s\)/);
		expect(p.text('.reterm-wizard-preview')).toMatch(/dev eth1 root cake bandwidth 9000kbit/);
		expect(p.text('.reterm-wizard-preview')).not.toMatch(/9950746kbit/);
	});

	it('counts of one read right: "the 1 round-trip time … is", "1 server"', async () => {
		const h = setup({ servers: { rtts: [40], source: 'ss' } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, Object.assign({}, BEFORE, { reflector_idle: [] }));
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/98 % of the 2 round-trip times the router measured \(to the test reflectors and to 1 server of open connections\) are at most 40\.0 ms/);
		const h1 = setup();
		const p1 = await open(h1);
		await click(p1.$('.reterm-wizard-next'));
		await measure(h1, p1, Object.assign({}, BEFORE, { reflector_idle: [{ target: '1.1.1.1', rtt: 14 }] }));
		await click(p1.$('.reterm-wizard-next'));
		expect(p1.text()).not.toMatch(/1 round-trip times/);
		expect(p1.text()).toMatch(/The 1 round-trip time the router measured \(to the test reflectors\) is 14\.0 ms/);
	});
});

describe('what the wizard reads (issue 13 item 7)', () => {
	it('gets the WAN from reterm wan_info only: no uci network/firewall, nothing outside the ACL', async () => {
		const storage = memoryStorage();
		const h = setup({ storage });
		const p = await open(h);
		expect(h.rpc.callsTo('reterm', 'wan_info')).toHaveLength(1);
		expect(p.text('.reterm-wizard-facts')).toMatch(/eth1 \(dhcp\)/);
		expect([...new Set(h.uci.loads)].sort()).toEqual(['reterm', 'sqm']);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		expect(p.step()).toBe('3. Propose');
		expect(aclViolations(h)).toEqual([]);
	});

	it('takes the WAN port\'s link speed from wan_info: a rate above it is not proposed', async () => {
		const h = setup({ speed: 100 });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, Object.assign({}, BEFORE, { download: Object.assign({}, BEFORE.download, { throughput_bps: 400000000 }) }));
		await click(p.$('.reterm-wizard-next'));
		expect(p.text()).toMatch(/more than the WAN port's link speed \(100 Mbit\/s\)/);
	});

	it('prefers the interface with the default route, then the wan zone', async () => {
		const h = setup({ wanInfo: { interfaces: [
			{ name: 'wan', proto: 'dhcp', device: 'eth1', l3device: null, default_route: false, speed: null, zone: 'wan' },
			{ name: 'wwan', proto: 'dhcp', device: 'wlan1', l3device: 'wlan1', default_route: true, speed: null, zone: null }
		], bridges: {}, offload: false, offload_hw: false } });
		const p = await open(h);
		expect(p.text('.reterm-wizard-facts')).toMatch(/wlan1 \(dhcp\)/);
	});

	it('without wan_info: says that no WAN device was found', async () => {
		const h = setup();
		h.rpc.handle('reterm', 'wan_info', () => h.rpc.status(6));
		const p = await open(h);
		expect(p.text()).toMatch(/No WAN device was found/);
	});
});

describe('issue: the wizard on real LuCI (luci_checks findings)', () => {
	afterEach(() => vi.restoreAllMocks());

	const FAILED = { v: 1, id: 'b1', error: 'no_idle_rtt', phases: [], samples: [] };
	const stateAt = async (before, after, proposal = { device: 'eth1', download: 18000, upload: 900, rtt: 'internet', overhead: 'ethernet' }) => {
		const w = await createHarness().require('reterm.wizard.state');
		let s = w.go(w.create({ sqm: null, retermEnabled: '0' }), 'measure');
		s = w.record(s, { type: 'measured', result: before });
		s = w.record(s, { type: 'proposed', proposal });
		s = w.record(w.go(s, 'apply'), { type: 'applied', rx: proposal.download * 1000, tx: proposal.upload * 1000 });
		s = w.record(w.record(s, { type: 'applyConfirmed' }), { type: 'verified', result: after });
		return w.go(s, 'apply');
	};
	const withGrade = (r, g) => Object.assign({}, r, { grade: g });

	it('1: a failed test keeps its reason over a reload, until a retry', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'done', result: FAILED });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick(3);
		expect(p.text()).toMatch(/No reflector answered/);

		/* the page is reloaded */
		const h2 = setup({ sqm: SHAPED, storage });
		const p2 = await open(h2);
		await flush();
		expect(p2.step()).toBe('2. Measure');
		expect(p2.text()).toMatch(/No reflector answered/);
		expect(JSON.parse(storage.data['reterm-wizard']).failure).toMatchObject({ kind: 'before', code: 'no_idle_rtt' });
		await click(p2.$('.reterm-wizard-retry'));
		expect(p2.text()).not.toMatch(/No reflector answered/);
		expect(p2.$('.reterm-wizard-start')).not.toBeNull();
		expect(JSON.parse(storage.data['reterm-wizard']).failure).toBeNull();
	});

	it('1: moving on forgets the failure', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'done', result: FAILED });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick(3);
		await click(p.$('.reterm-wizard-back'));
		const p2 = await open(setup({ sqm: SHAPED, storage }));
		await click(p2.$('.reterm-wizard-next'));
		expect(p2.text()).not.toMatch(/No reflector answered/);
	});

	it('2: no "did not improve" when the after grade is A+, but when it stays worse', async () => {
		const ap = withGrade(AFTER, 'A+');
		let p = await open(setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(await stateAt(withGrade(BEFORE, 'A+'), ap)) }) }));
		expect(p.step()).toBe('4. Apply & verify');
		expect(p.text('.reterm-wizard-compare')).toMatch(/GradeA\+A\+/);
		expect(p.text()).not.toMatch(/did not improve/);
		p = await open(setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(await stateAt(withGrade(BEFORE, 'B'), withGrade(AFTER, 'B'))) }) }));
		expect(p.text()).toMatch(/The grade did not improve/);
		p = await open(setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(await stateAt(withGrade(BEFORE, 'A'), withGrade(AFTER, 'C'))) }) }));
		expect(p.text()).toMatch(/The grade did not improve/);
	});

	it('3: no "Resumed" note after LuCI\'s own reload following an apply', async () => {
		const storage = memoryStorage();
		const h = setup({ storage });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await measure(h, p, BEFORE);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-accept'));
		await click(p.$('.reterm-wizard-apply'));
		const { h: h2, p: p2 } = await reloaded(h);
		expect(p2.step()).toBe('4. Apply & verify');
		expect(p2.text()).not.toMatch(/Resumed where you left/);
		/* coming back later is resuming */
		const p3 = await open(h2.reload());
		expect(p3.text()).toMatch(/Resumed where you left/);
	});

	it('4: too_soon: counts the given seconds down, then starts by itself', async () => {
		const replies = [{ error: 'too_soon', wait_s: 3, message: 'the last test ended less than 30 s ago: wait 3 s and start again' },
			{ started: true, id: 'b1', total: 44 }];
		const h = setup({ start: () => replies.shift() });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'running', total: 44, elapsed: 11, phase: 'download', phase_index: 1, progress: 0.25, rtt: 260 });
		await click(p.$('.reterm-wizard-start'));
		expect(p.text()).toMatch(/The test starts by itself in 3 seconds/);
		expect(p.$('.reterm-wizard-retry')).toBeNull();
		expect(p.text()).not.toMatch(/wait 3 s and start again/);
		/* the page's clock: one second, then the other two */
		await h.poll.tick();
		expect(p.text()).toMatch(/starts by itself in 2 seconds/);
		await h.poll.tick(2);
		expect(h.rpc.callsTo('reterm.latency', 'test_start')).toHaveLength(2);
		expect(p.text('.reterm-run-progress-text')).toMatch(/Download load/);
		expect(h.rpc.callsTo('reterm.latency', 'test_start')[1].params.pause_shaping).toBe(true);
	});

	it('4: target_refused reads as reterm.guided\'s translated text', async () => {
		const h = setup({ start: { error: 'target_refused', message: 'the test server is not allowed: …' } });
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		await click(p.$('.reterm-wizard-start'));
		expect(p.text()).toMatch(/refused the test server.*public Internet address.*test_server/);
		expect(p.text()).not.toMatch(/is not allowed/);
	});

	it('5: an after test far above the shaper says that shaping is not active', async () => {
		const after = Object.assign({}, AFTER, { grade: 'A+', download: { grade: 'A+', added_ms: 1, throughput_bps: 24e9 } });
		const s = await stateAt(BEFORE, after, { device: 'eth1', download: 20000, upload: 900, rtt: 'internet', overhead: 'ethernet' });
		const p = await open(setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(s) }) }));
		expect(p.text()).toMatch(/Shaping does not seem to be active: the download measured 24 Gbit\/s with the shaper at 20 Mbit\/s/);
		const ok = await open(setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(await stateAt(BEFORE, AFTER)) }) }));
		expect(ok.text()).not.toMatch(/does not seem to be active/);
	});

	it('6: one progress text, under the bar', async () => {
		const h = setup();
		const p = await open(h);
		await click(p.$('.reterm-wizard-next'));
		h.replies.push({ state: 'running', total: 44, elapsed: 11, phase: 'download', phase_index: 1, progress: 0.25 });
		await click(p.$('.reterm-wizard-start'));
		await h.poll.tick();
		const run = p.$('.reterm-wizard-running');
		expect(run.querySelectorAll('.cbi-progressbar')).toHaveLength(1);
		expect(h.text(run).match(/Download load/g)).toHaveLength(1);
		expect(p.$('.reterm-wizard-running .cbi-progressbar').getAttribute('aria-valuenow')).toBe('25');
	});
});
