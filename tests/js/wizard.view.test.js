import { describe, it, expect, vi, afterEach } from 'vitest';
import { createHarness } from './harness/loader.js';
import { aclViolations } from './harness/acl.js';

/* recorded replies (shapes of reterm.monitor.test / api.uc) */
const PHASES = [['idle', 0, 5], ['download', 5, 15], ['idle', 15, 17], ['upload', 17, 27], ['idle', 27, 29], ['both', 29, 39], ['cooldown', 39, 44]]
	.map(([name, start, end]) => ({ name, start, end, mean: name === 'idle' ? 0.5 : 40, p95: 60, peak: 80, loss: 0 }));
const samples = bloat => Array.from({ length: 440 }, (_, i) => [i * 100, 14 + ((i > 50 && i < 390) ? bloat : 0)]);
const BEFORE = { v: 1, id: 'b1', duration: 44, idle_rtt: 14, baseline: 14, grade: 'D', rpm: 200, rpm_class: 'poor',
	reflector_idle: [{ target: '1.1.1.1', rtt: 14 }, { target: '9.9.9.9', rtt: 21 }], phases: PHASES, samples: samples(250),
	download: { grade: 'D', added_ms: 250, p95_ms: 300, throughput_bps: 20000000, inconclusive: false, reasons: [] },
	upload: { grade: 'C', added_ms: 120, p95_ms: 150, throughput_bps: 1000000, inconclusive: false, reasons: [] },
	inconclusive: false, reasons: [], errors: [] };
const AFTER = Object.assign({}, BEFORE, { id: 'a1', grade: 'A', samples: samples(8),
	download: { grade: 'A', added_ms: 8, throughput_bps: 17000000 }, upload: { grade: 'A+', added_ms: 3, throughput_bps: 880000 } });
const HOSTS = [
	{ mac: '02:00:00:00:00:0a', name: 'laptop', class: 'other', ipv4: ['192.168.1.10'], audit: null },
	{ mac: '02:00:00:00:00:0b', name: 'tv', class: 'other', ipv4: ['192.168.1.11'],
		audit: { recommendation: 'reterm', scaling: false, window: 16384, syn_count: 3, noscale_syns: 3, rtt_ms: 130 } },
	{ mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld', ipv4: ['192.168.1.20'], audit: null }
];

function setup(opts = {}) {
	const h = createHarness();
	const proto = opts.proto || 'dhcp';
	if (opts.sqm !== null)
		h.uci.seed('sqm', opts.sqm || {});
	/* reterm wan_info (the API's shape, tests/ucode/api) */
	h.rpc.handle('reterm', 'wan_info', opts.wanInfo || { interfaces: [
		{ name: 'lan', proto: 'static', device: 'br-lan', l3device: 'br-lan', default_route: false, speed: null, zone: 'lan' },
		{ name: 'wan', proto, device: 'eth1', l3device: proto === 'pppoe' ? 'pppoe-wan' : 'eth1', default_route: true,
			speed: opts.speed ?? null, zone: 'wan' }
	], bridges: { 'br-lan': ['lan1'] }, offload: !!opts.offload, offload_hw: !!opts.offload });
	h.uci.seed('reterm', Object.assign({
		main: { '.type': 'reterm', enabled: '0' },
		monitor: { '.type': 'monitor', download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload' }
	}, opts.reterm));
	h.fs.files['/usr/lib/sqm/defaults.sh'] = '';
	h.rpc.handle('reterm', 'hosts', { hosts: HOSTS });
	/* retermd's status: shaper/cake from the sqm config as applied, read
	 * again `lag` polls after a change (the real one reloads on a procd
	 * trigger); `was` = sqm queue values it still reports at first */
	h.monitor = { lag: opts.lag || 0, shown: opts.was ? shapingOf([opts.was]) : null, behind: 0 };
	h.rpc.handle('reterm', 'monitor_status', () => {
		if (opts.monitorDown)
			return { error: 'not_running', message: 'the latency monitor (retermd) is not running' };
		const m = h.monitor, now = shapingOf(Object.values(h.uci.dump('sqm') || {}));
		if (m.shown && JSON.stringify(now) !== JSON.stringify(m.shown) && m.behind++ < m.lag)
			return Object.assign({ state: 'awake' }, m.shown);
		m.shown = now;
		m.behind = 0;
		return Object.assign({ state: 'awake', pause: h.router.pause }, now);
	});
	/* retermd's guided test and its shaping pause (reterm.monitor.pause):
	 * pause_shaping pauses the enabled queue's device; h.replies are the
	 * test_status replies in turn (the last one stays), with the pause
	 * record of h.router.pause unless a reply has its own; test ids
	 * h.router.ids in turn (BEFORE's, then AFTER's) */
	h.router = { pause: opts.pause || null, ids: ['b1', 'a1'] };
	h.rpc.handle('reterm', 'test_start', opts.start || (p => {
		const r = { started: true, id: h.router.ids.length > 1 ? h.router.ids.shift() : h.router.ids[0], total: 44 };
		if (p.pause_shaping) {
			r.paused = Object.values(h.uci.dump('sqm') || {}).filter(q => q.enabled === '1').map(q => q.interface);
			h.router.pause = r.paused.length ? { ifaces: r.paused, state: 'paused', until: 2000000000 } : null;
		}
		return r;
	}));
	h.rpc.handle('reterm', 'test_stop', () => ({ state: 'stopped', pause: h.router.pause }));
	h.rpc.handle('reterm', 'server_rtts', opts.servers || { rtts: [], source: 'ss' });
	h.replies = [];
	h.rpc.handle('reterm', 'test_status', () => opts.monitorDown ? { error: 'not_running', message: 'the latency monitor (retermd) is not running' }
		: Object.assign({ state: 'idle', pause: h.router.pause }, h.replies.length > 1 ? h.replies.shift() : h.replies[0]));
	if (opts.storage)
		h.window.sessionStorage = opts.storage;
	return h;
}

/* what retermd reports for these sqm queues: the first enabled one */
function shapingOf(queues) {
	const q = queues.find(s => s && s['.type'] === 'queue' && s.enabled === '1');
	if (!q)
		return { shaper: null, cake: null };
	const rx = (+q.download || 0) * 1000, tx = (+q.upload || 0) * 1000;
	return { shaper: (rx || tx) ? { rx, tx } : null, cake: { dl: `ifb4${q.interface}`, ul: q.interface } };
}

const flush = async () => { for (let i = 0; i < 10; i++) await Promise.resolve(); };

async function open(h) {
	const v = await h.require('view.reterm.wizard');
	const root = await h.rendered(v);
	const $ = sel => root.querySelector(sel);
	const text = sel => h.text(sel ? root.querySelector(sel) : root);
	const step = () => h.text(root.querySelector('.reterm-wizard-step.active'));
	return { v, root, $, text, step };
}

async function measure(h, p, result) {
	h.replies.length = 0;
	h.replies.push({ state: 'running', phase: 'download', progress: 0.25, rtt: 260 }, { state: 'done', result });
	await p.$('.reterm-wizard-start').click();
	await h.poll.tick();
	expect(p.text('.reterm-run-progress-text')).toMatch(/Download load · 0 s of 44 s · RTT 260\.0 ms/);
	await h.poll.tick();
	expect(h.poll.queue).toHaveLength(0);
}

const memoryStorage = (init = {}) => ({ data: Object.assign({}, init), getItem(k) { return this.data[k] ?? null }, setItem(k, v) { this.data[k] = String(v) }, removeItem(k) { delete this.data[k] } });

describe('step 1: look', () => {
	it('shows the PPPoE WAN device, sqm state, offloading and hosts with handhelds first', async () => {
		const h = setup({ proto: 'pppoe', offload: true });
		const p = await open(h);
		expect(p.step()).toBe('1. Look');
		expect(p.text('.reterm-wizard-facts')).toMatch(/pppoe-wan \(PPPoE on eth1\)/);
		expect(p.text('.reterm-wizard-facts')).toMatch(/Shaping \(sqm\)off/);
		expect(p.text()).toMatch(/Hardware flow offloading is on/);
		expect(p.root.querySelectorAll('.reterm-wizard-hosts li').map(li => h.text(li).trim().split(' ')[0]))
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
		const h = setup({ storage });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('2. Measure');
		expect(p.$('.reterm-wizard-next')).toBeNull();

		await measure(h, p, BEFORE);
		expect(h.rpc.callsTo('reterm', 'test_start')[0].params).toEqual({ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true });
		expect(p.text('.reterm-wizard-grade')).toMatch(/Grade D/);
		expect(p.$('.reterm-wizard-result svg')).not.toBeNull();
		expect(JSON.parse(storage.data['reterm-wizard']).before.id).toBe('b1');

		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('3. Propose');
		expect([p.$('#reterm-wizard-down').value, p.$('#reterm-wizard-up').value, p.$('#reterm-wizard-rtt').value, p.$('#reterm-wizard-overhead').value])
			.toEqual(['18', '0.9', 'internet', 'ethernet']);
		expect(p.text('.reterm-wizard-preview')).toMatch(/tc qdisc add dev eth1 root cake bandwidth 900kbit/);
		expect(p.text()).toMatch(/98 % of the 2 round-trip times .* at most 21\.0 ms/);

		p.$('#reterm-wizard-down').value = '17';
		p.$('#reterm-wizard-down').dispatchEvent({ type: 'input' });
		expect(p.text('.reterm-wizard-preview')).toMatch(/ifb4eth1 root cake bandwidth 17000kbit/);
		expect(h.uci.stagedChanges()).toEqual({});

		await p.$('.reterm-wizard-accept').click();
		expect(p.step()).toBe('4. Apply & verify');
		expect(p.text()).toMatch(/Shaping eth1 at 17 Mbit\/s download/);
		expect(h.ui.applied).toEqual([]);

		await p.$('.reterm-wizard-apply').click();
		expect(h.ui.applied).toEqual([{ checked: true }]);
		const [q] = Object.values(h.uci.dump('sqm'));
		expect(q).toMatchObject({ '.type': 'queue', enabled: '1', interface: 'eth1', download: '17000', upload: '900',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' });
		expect(JSON.parse(storage.data['reterm-wizard']).applied.shaping).toBe(true);
		await h.poll.tick();               /* the router reports the new rates */

		await measure(h, p, AFTER);
		const cmp = p.text('.reterm-wizard-compare');
		expect(cmp).toMatch(/GradeDA/);
		expect(cmp).toMatch(/Added latency, download250\.0 ms8\.0 ms/);
		expect(cmp).toMatch(/15 % less/);
		expect(cmp).toMatch(/12 % less/);

		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('5. Devices');
		const offers = p.root.querySelectorAll('.reterm-wizard-offers li').map(li => h.text(li));
		expect(offers).toHaveLength(2);
		expect(offers[0]).toMatch(/3ds.*An audit on the Devices page shows whether this one does/);
		expect(offers[0]).not.toMatch(/3DS|without scaling/);
		expect(offers[1]).toMatch(/tv.*no scaling.*Re-termination helps/);

		p.root.querySelectorAll('input.reterm-wizard-offer')[1].checked = false;
		await p.$('.reterm-wizard-apply-devices').click();
		expect(h.ui.applied).toHaveLength(2);
		const r = h.uci.dump('reterm');
		expect(r.main.enabled).toBe('1');
		expect(Object.values(r).filter(s => s['.type'] === 'device')).toEqual([
			expect.objectContaining({ name: '3ds', mac: '02:00:00:00:3d:51', enabled: '1', ports: 'all' })]);
		expect(p.text()).toMatch(/Done\. The chosen devices are re-terminated/);
		expect(JSON.parse(storage.data['reterm-wizard']).devicesAdded).toEqual(['02:00:00:00:3d:51']);
		await p.$('.reterm-wizard-close').click();
		expect(storage.data['reterm-wizard']).toBeUndefined();
		expect(p.step()).toBe('1. Look');
	});

	it('refuses an invalid edit and stays on the proposal', async () => {
		const h = setup();
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		p.$('#reterm-wizard-down').value = 'fast';
		await p.$('.reterm-wizard-accept').click();
		expect(p.step()).toBe('3. Propose');
		expect(p.text('.reterm-wizard-error')).toMatch(/Enter a rate/);
		p.$('#reterm-wizard-down').value = '0';
		p.$('#reterm-wizard-up').value = '0';
		await p.$('.reterm-wizard-accept').click();
		expect(p.text('.reterm-wizard-error')).toMatch(/nothing would be shaped/);
	});

	it('resumes a stored state and rebuilds a PPPoE proposal', async () => {
		const w = await createHarness().require('reterm.wizard');
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
		const h = setup({ reterm: { monitor: { '.type': 'monitor' } } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		const adv = p.$('details.reterm-wizard-urls');
		expect(adv).not.toBeNull();
		expect(adv.hasAttribute('open')).toBe(false);
		h.replies.push({ state: 'done', result: BEFORE });
		await p.$('.reterm-wizard-start').click();
		expect(h.rpc.callsTo('reterm', 'test_start').map(c => c.params)).toEqual([{ streams: 4, pause_shaping: true }]);
	});

	it('the Overview\'s endpoint choice is passed on; URLs set: Advanced is open', async () => {
		let h = setup({ reterm: { monitor: { '.type': 'monitor', endpoint: 'tele2' } } });
		let p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-start').click();
		expect(h.rpc.callsTo('reterm', 'test_start')[0].params).toEqual({ endpoint: 'tele2', streams: 4, pause_shaping: true });
		h = setup();
		p = await open(h);
		await p.$('.reterm-wizard-next').click();
		expect(p.$('details.reterm-wizard-urls').hasAttribute('open')).toBe(true);
	});
});

describe('failures', () => {
	it('retermd not running: says so, retry works once it runs', async () => {
		const h = setup({ monitorDown: true });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		expect(p.text()).toMatch(/latency monitor \(retermd\) is not running/);
		expect(p.$('.reterm-wizard-shaping').getAttribute('href')).toMatch(/reterm\/shaping$/);
		h.rpc.handle('reterm', 'test_status', { state: 'idle' });
		await p.$('.reterm-wizard-retry').click();
		expect(p.$('.reterm-wizard-start')).not.toBeNull();
	});

	it('no reflector answers: clear message, skip leads to the devices', async () => {
		const h = setup();
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, { v: 1, id: 'b1', error: 'no_idle_rtt', message: 'no probe was answered', phases: [], samples: [] });
		expect(p.text()).toMatch(/No reflector answered/);
		await p.$('.reterm-wizard-skip').click();
		expect(p.step()).toBe('5. Devices');
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('test URL unreachable: names the load errors', async () => {
		const h = setup();
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, Object.assign({}, BEFORE, { download: { grade: 'A', added_ms: 0, throughput_bps: null },
			upload: { grade: 'A', added_ms: 0, throughput_bps: null }, errors: ['download: connection refused'] }));
		expect(p.text()).toMatch(/test URL could not be reached.*connection refused/);
		expect(p.$('.reterm-wizard-retry')).not.toBeNull();
	});

	it('a test already running: says so', async () => {
		const h = setup({ start: { error: 'busy', message: 'a test is already running' } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-start').click();
		expect(p.text()).toMatch(/A test is already running/);
		expect(h.poll.queue).toHaveLength(0);
	});

	it('shaping on, measured as is on request: nothing applied', async () => {
		const h = setup({ sqm: { q: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000', upload: '500' } } });
		const p = await open(h);
		expect(p.text('.reterm-wizard-facts')).toMatch(/on: 5 Mbit\/s down/);
		await p.$('.reterm-wizard-next').click();
		expect(p.text()).toMatch(/Shaping is on/);
		h.replies.push({ state: 'done', result: BEFORE });
		await p.$('.reterm-wizard-asis').click();
		await h.poll.tick();
		expect(h.rpc.callsTo('reterm', 'test_start')[0].params).toEqual({ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4 });
		expect([h.ui.applied, h.uci.stagedChanges(), h.router.pause]).toEqual([[], {}, null]);
		await p.$('.reterm-wizard-next').click();
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
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-accept').click();
		expect(p.step()).toBe('4. Apply & verify');
		await p.$('.reterm-wizard-cancel').click();
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
		const h = setup({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1', download: '5000' } } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-accept').click();
		await p.$('.reterm-wizard-apply').click();
		expect(h.uci.dump('sqm').q).toMatchObject({ enabled: '1', download: '18000' });
		await p.$('.reterm-wizard-cancel').click();
		expect(h.ui.applied).toEqual([{ checked: true }, { checked: true }]);
		const q = h.uci.dump('sqm').q;
		expect(q).toEqual({ '.name': 'q', '.type': 'queue', '.anonymous': false, '.index': 0, enabled: '0', interface: 'eth1', download: '5000' });
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/previous settings are back/);
	});

	it('after applying to a new queue removes it again', async () => {
		const h = setup();
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-accept').click();
		await p.$('.reterm-wizard-apply').click();
		expect(Object.keys(h.uci.dump('sqm'))).toHaveLength(1);
		await p.$('.reterm-wizard-cancel').click();
		expect(h.uci.dump('sqm')).toEqual({});
	});
});

const SHAPED = { q: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000', upload: '500' } };
const stored = storage => JSON.parse(storage.data['reterm-wizard']);
const pauseAt = (state, extra) => Object.assign({ ifaces: ['eth1'], state, until: 2000000000 }, extra);

describe('measuring with shaping off: the router pauses it (issue 13 item 9)', () => {
	it('asks test_start to pause shaping; nothing is staged or applied; shows the pause and its end', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		expect(p.text()).toMatch(/the router pauses it for the test and turns it back on by itself .* also when this page is closed/);
		h.replies.push({ state: 'running', phase: 'download', progress: 0.25, rtt: 260 }, { state: 'done', result: BEFORE, pause: pauseAt('restoring') });
		await p.$('.reterm-wizard-start').click();
		expect(h.rpc.callsTo('reterm', 'test_start').map(c => c.params)).toEqual([
			{ download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload', streams: 4, pause_shaping: true }]);
		expect(stored(storage).test).toEqual({ kind: 'before', id: 'b1', paused: ['eth1'] });
		expect(p.text('.reterm-wizard-pause')).toMatch(/Shaping is paused on eth1 for this test.*also when this page is closed/);
		expect(p.$('.reterm-wizard-next')).toBeNull();
		await h.poll.tick();
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
		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('3. Propose');
		expect(p.text()).not.toMatch(/Measured with shaping on/);
		expect(p.$('#reterm-wizard-down').value).toBe('18');
	});

	it('nothing shaped on the WAN: paused [] and no pause note', async () => {
		const h = setup({ sqm: { q: { '.type': 'queue', enabled: '0', interface: 'eth1' } } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		expect(p.$('.reterm-wizard-asis')).toBeNull();
		h.replies.push({ state: 'done', result: BEFORE });
		await p.$('.reterm-wizard-start').click();
		expect(h.rpc.callsTo('reterm', 'test_start')[0].params.pause_shaping).toBe(true);
		await h.poll.tick();
		expect([p.text('.reterm-wizard-pause'), h.poll.queue.length]).toEqual(['', 0]);
		expect(p.text('.reterm-wizard-grade')).toMatch(/Grade D/);
	});

	it('pause_failed: says why and that nothing started; retry or measure with shaping on', async () => {
		const h = setup({ sqm: SHAPED, start: p => p.pause_shaping
			? { error: 'pause_failed', message: 'sqm did not stop on eth1: the test did not start, shaping is on' }
			: { started: true, id: 'b2', total: 44 } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-start').click();
		expect(p.text()).toMatch(/Shaping could not be paused for the test, so the test did not start: sqm did not stop on eth1/);
		expect([h.poll.queue.length, h.ui.applied.length, p.$('.reterm-wizard-retry') != null]).toEqual([0, 0, true]);
		h.replies.push({ state: 'done', result: Object.assign({}, BEFORE, { id: 'b2' }) });
		await p.$('.reterm-wizard-ways .reterm-wizard-asis').click();
		expect(h.rpc.callsTo('reterm', 'test_start')[1].params.pause_shaping).toBeUndefined();
		await h.poll.tick();
		await p.$('.reterm-wizard-next').click();
		expect(p.text()).toMatch(/Measured with shaping on/);
	});

	it('a failed test or a stop: the router restores shaping, the wizard shows it', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'done', result: { v: 1, id: 'b1', error: 'no_idle_rtt', phases: [], samples: [] }, pause: pauseAt('restored') });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick();
		expect(p.text()).toMatch(/No reflector answered/);
		expect(p.text('.reterm-wizard-pause')).toMatch(/Shaping on eth1 is back on/);
		expect(h.poll.queue).toHaveLength(0);

		h.replies.length = 0;
		h.replies.push({ state: 'running', phase: 'idle', progress: 0.05 });
		await p.$('.reterm-wizard-retry').click();
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick();
		h.router.pause = pauseAt('restoring');
		await p.$('.reterm-wizard-stop').click();
		expect(h.rpc.callsTo('reterm', 'test_stop')).toHaveLength(1);
		expect(p.text('.reterm-wizard-pause')).toMatch(/turning shaping on eth1 back on/);
		h.router.pause = pauseAt('restored');
		await h.poll.tick();
		expect([p.text('.reterm-wizard-pause'), h.poll.queue.length, h.ui.applied.length]).toEqual(['Shaping on eth1 is back on.', 0, 0]);
	});

	it('the router could not start sqm again: says so, with the way forward', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'done', result: BEFORE, pause: pauseAt('failed', { message: 'sqm did not start again on eth1: run /etc/init.d/sqm restart' }) });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick();
		expect(p.text('.reterm-wizard-pause .alert-message.danger')).toMatch(/Shaping on eth1 could not be turned back on: sqm did not start again on eth1.*Restart sqm on the router/);
		expect(p.$('.reterm-wizard-pause a.reterm-wizard-shaping').getAttribute('href')).toMatch(/reterm\/shaping$/);
		expect(h.poll.queue).toHaveLength(0);
	});

	it('cancel during the test stops it; the router ends the pause, nothing to undo in UCI', async () => {
		const h = setup({ sqm: SHAPED });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'running', phase: 'download', progress: 0.3 });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick();
		await p.$('.reterm-wizard-cancel').click();
		expect(h.rpc.callsTo('reterm', 'test_stop')).toHaveLength(1);
		expect([h.poll.queue.length, h.ui.applied.length, h.uci.stagedChanges()]).toEqual([0, 0, {}]);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/nothing was changed/);
	});

	it('closing the page mid-test and coming back: picks the test up and shows the router\'s pause', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'running', phase: 'download', progress: 0.3 });
		await p.$('.reterm-wizard-start').click();

		/* a new page from what is stored, the test still runs on the router */
		const h2 = setup({ sqm: SHAPED, storage, pause: pauseAt('paused') });
		h2.replies.push({ state: 'running', id: 'b1', phase: 'upload', progress: 0.6 }, { state: 'done', result: BEFORE, pause: pauseAt('restored') });
		const p2 = await open(h2);
		await flush();
		expect(p2.step()).toBe('2. Measure');
		expect(h2.rpc.callsTo('reterm', 'test_start')).toHaveLength(0);
		expect(p2.text('.reterm-wizard-test')).toMatch(/Upload load/);
		expect(p2.text('.reterm-wizard-pause')).toMatch(/Shaping is paused on eth1/);
		await h2.poll.tick(2);
		expect(p2.text('.reterm-wizard-grade')).toMatch(/Grade D/);
		expect(p2.text('.reterm-wizard-pause')).toMatch(/Shaping on eth1 is back on/);
		expect([stored(storage).test, h2.poll.queue.length]).toEqual([null, 0]);
	});

	it('coming back after the test ended: takes its result, only if it is the wizard\'s test', async () => {
		const storage = memoryStorage();
		const p = await open(setup({ sqm: SHAPED, storage }));
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-start').click();
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
		const h = setup({ sqm: { q: Object.assign({}, SHAPED.q, { enabled: '0' }) }, storage });
		const p = await open(h);
		await flush();
		expect([h.uci.dump('sqm').q.enabled, h.ui.applied]).toEqual(['1', [{ checked: true }]]);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/An earlier version of this wizard had turned shaping off for a measurement \(q\); it is turned back on now/);
		expect(stored(storage)).toMatchObject({ v: 2, step: 'measure', test: null });
		expect(stored(storage).legacyPause).toBeUndefined();
		expect(stored(storage).paused).toBeUndefined();
		h.replies.push({ state: 'done', result: BEFORE });
		await p.$('.reterm-wizard-start').click();
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
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		expect(p.$('#reterm-wizard-rtt').value).toBe('oceanic');
		expect(p.text()).toMatch(/98 % of the 5 round-trip times .*to 3 servers.* at most 162\.3 ms/);
		expect(p.text('.reterm-wizard-preview')).toMatch(/oceanic/);
	});

	it('an older rpcd without server_rtts: reflectors only', async () => {
		const h = setup({ servers: { error: 'rpc' } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		expect(p.$('#reterm-wizard-rtt').value).toBe('internet');
	});
});

describe('cancel after the devices step', () => {
	it('removes the sections the wizard added and restores the ones it switched on', async () => {
		const w = await createHarness().require('reterm.wizard');
		const s = w.go(w.record(w.go(w.create({ sqm: null, retermEnabled: '0' }), 'measure'), { type: 'skipApply' }), 'devices');
		const h = setup({ storage: memoryStorage({ 'reterm-wizard': JSON.stringify(s) }),
			reterm: { keep: { '.type': 'device', name: 'pc', mac: '02:00:00:00:00:0c', enabled: '1' },
				tvsec: { '.type': 'device', name: 'tv', mac: '02:00:00:00:00:0B', enabled: '0' } } });
		const before = JSON.stringify(h.uci.dump('reterm'));
		const p = await open(h);
		expect(p.step()).toBe('5. Devices');
		await p.$('.reterm-wizard-apply-devices').click();
		let r = h.uci.dump('reterm');
		expect([r.main.enabled, r.tvsec.enabled, Object.values(r).filter(x => x.mac === '02:00:00:00:3d:51').length]).toEqual(['1', '1', 1]);
		await p.$('.reterm-wizard-cancel').click();
		expect(h.ui.applied).toHaveLength(2);
		expect(JSON.stringify(h.uci.dump('reterm'))).toBe(before);
		expect(h.ui.notifications.map(n => n.text).join()).toMatch(/previous settings are back/);
	});
});

describe('issue 12: the wizard on real LuCI', () => {
	afterEach(() => vi.restoreAllMocks());

	const NO_URLS = { monitor: { '.type': 'monitor' } };
	const type = (p, sel, value) => { p.$(sel).value = value; p.$(sel).dispatchEvent({ type: 'input' }); };

	it('the URLs typed in step 2 survive a page reload', async () => {
		const storage = memoryStorage();
		const h = setup({ storage, reterm: NO_URLS });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		type(p, '#reterm-wizard-dl', 'http://198.51.100.7/big');
		type(p, '#reterm-wizard-ul', 'http://198.51.100.7/up');

		/* the reload: a new view from what is stored */
		const h2 = setup({ storage, reterm: NO_URLS });
		const p2 = await open(h2);
		expect(p2.step()).toBe('2. Measure');
		expect([p2.$('#reterm-wizard-dl').value, p2.$('#reterm-wizard-ul').value]).toEqual(['http://198.51.100.7/big', 'http://198.51.100.7/up']);
		await measure(h2, p2, BEFORE);
		expect(h2.rpc.callsTo('reterm', 'test_start')[0].params).toEqual({ download_url: 'http://198.51.100.7/big', upload_url: 'http://198.51.100.7/up', streams: 4, pause_shaping: true });
	});

	it('the check after applying starts only once the router reports the new rates', async () => {
		const h = setup({ lag: 2 });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-accept').click();
		await p.$('.reterm-wizard-apply').click();
		expect(h.ui.applied).toHaveLength(1);
		expect(p.$('.reterm-wizard-start')).toBeNull();
		expect(p.text()).toMatch(/Waiting for the router to confirm that the new shaping is active/);
		await h.poll.tick(2);
		expect(p.$('.reterm-wizard-start')).toBeNull();
		await h.poll.tick();
		expect(p.$('.reterm-wizard-start')).not.toBeNull();
		expect(h.poll.queue).toHaveLength(0);
	});

	it('does not propose 11 Gbit/s measured unshaped on a line shaped at 9 Mbit/s', async () => {
		const q = { '.type': 'queue', enabled: '1', interface: 'eth1', download: '50000', upload: '9000' };
		const h = setup({ sqm: { q } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'done', result: Object.assign({}, BEFORE, { upload: Object.assign({}, BEFORE.upload, { throughput_bps: 11056384444 }) }) });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick(3);
		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('3. Propose');
		expect([p.$('#reterm-wizard-down').value, p.$('#reterm-wizard-up').value]).toEqual(['18', '9']);
		expect(p.text()).toMatch(/The measured upload rate of 11\.1 Gbit\/s is above 10 Gbit\/s.*not proposed\. The upload field keeps the current rate \(9 Mbit\/s\)/);
		expect(p.text('.reterm-wizard-preview')).toMatch(/dev eth1 root cake bandwidth 9000kbit/);
		expect(p.text('.reterm-wizard-preview')).not.toMatch(/9950746kbit/);
	});

	it('counts of one read right: "the 1 round-trip time … is", "1 server"', async () => {
		const h = setup({ servers: { rtts: [40], source: 'ss' } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, Object.assign({}, BEFORE, { reflector_idle: [] }));
		await p.$('.reterm-wizard-next').click();
		expect(p.text()).toMatch(/98 % of the 2 round-trip times the router measured \(to the test reflectors and to 1 server of open connections\) are at most 40\.0 ms/);
		const h1 = setup();
		const p1 = await open(h1);
		await p1.$('.reterm-wizard-next').click();
		await measure(h1, p1, Object.assign({}, BEFORE, { reflector_idle: [{ target: '1.1.1.1', rtt: 14 }] }));
		await p1.$('.reterm-wizard-next').click();
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
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		expect(p.step()).toBe('3. Propose');
		expect(aclViolations(h)).toEqual([]);
	});

	it('takes the WAN port\'s link speed from wan_info: a rate above it is not proposed', async () => {
		const h = setup({ speed: 100 });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, Object.assign({}, BEFORE, { download: Object.assign({}, BEFORE.download, { throughput_bps: 400000000 }) }));
		await p.$('.reterm-wizard-next').click();
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
		const w = await createHarness().require('reterm.wizard');
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
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'done', result: FAILED });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick(3);
		expect(p.text()).toMatch(/No reflector answered/);

		/* the page is reloaded */
		const h2 = setup({ sqm: SHAPED, storage });
		const p2 = await open(h2);
		await flush();
		expect(p2.step()).toBe('2. Measure');
		expect(p2.text()).toMatch(/No reflector answered/);
		expect(JSON.parse(storage.data['reterm-wizard']).failure).toMatchObject({ kind: 'before', code: 'no_idle_rtt' });
		await p2.$('.reterm-wizard-retry').click();
		expect(p2.text()).not.toMatch(/No reflector answered/);
		expect(p2.$('.reterm-wizard-start')).not.toBeNull();
		expect(JSON.parse(storage.data['reterm-wizard']).failure).toBeNull();
	});

	it('1: moving on forgets the failure', async () => {
		const storage = memoryStorage();
		const h = setup({ sqm: SHAPED, storage });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'done', result: FAILED });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick(3);
		await p.$('.reterm-wizard-back').click();
		const p2 = await open(setup({ sqm: SHAPED, storage }));
		await p2.$('.reterm-wizard-next').click();
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
		await p.$('.reterm-wizard-next').click();
		await measure(h, p, BEFORE);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-accept').click();
		await p.$('.reterm-wizard-apply').click();
		await h.poll.tick();
		const p2 = await open(setup({ storage, sqm: h.uci.dump('sqm') }));
		expect(p2.step()).toBe('4. Apply & verify');
		expect(p2.text()).not.toMatch(/Resumed where you left/);
		/* coming back later is resuming */
		const p3 = await open(setup({ storage, sqm: h.uci.dump('sqm') }));
		expect(p3.text()).toMatch(/Resumed where you left/);
	});

	it('4: too_soon: counts the given seconds down, then starts by itself', async () => {
		let now = 1e12;
		vi.spyOn(Date, 'now').mockImplementation(() => now);
		const replies = [{ error: 'too_soon', wait_s: 3, message: 'the last test ended less than 30 s ago: wait 3 s and start again' },
			{ started: true, id: 'b1', total: 44 }];
		const h = setup({ start: () => replies.shift() });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'running', phase: 'download', progress: 0.25, rtt: 260 });
		await p.$('.reterm-wizard-start').click();
		expect(p.text()).toMatch(/The test starts by itself in 3 seconds/);
		expect(p.$('.reterm-wizard-retry')).toBeNull();
		expect(p.text()).not.toMatch(/wait 3 s and start again/);
		now += 1000;
		await h.poll.tick();
		expect(p.text()).toMatch(/starts by itself in 2 seconds/);
		now += 2000;
		await h.poll.tick();
		expect(h.rpc.callsTo('reterm', 'test_start')).toHaveLength(2);
		await h.poll.tick();
		expect(p.text('.reterm-run-progress-text')).toMatch(/Download load/);
		expect(h.rpc.callsTo('reterm', 'test_start')[1].params.pause_shaping).toBe(true);
	});

	it('4: target_refused reads as reterm.testrun\'s translated text', async () => {
		const h = setup({ start: { error: 'target_refused', message: 'the test server is not allowed: …' } });
		const p = await open(h);
		await p.$('.reterm-wizard-next').click();
		await p.$('.reterm-wizard-start').click();
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
		await p.$('.reterm-wizard-next').click();
		h.replies.push({ state: 'running', phase: 'download', progress: 0.25 });
		await p.$('.reterm-wizard-start').click();
		await h.poll.tick();
		const run = p.$('.reterm-wizard-running');
		expect(run.querySelectorAll('.cbi-progressbar')).toHaveLength(1);
		expect(h.text(run).match(/Download load/g)).toHaveLength(1);
		expect(p.$('.reterm-wizard-running .cbi-progressbar').getAttribute('aria-valuenow')).toBe('25');
	});
});
