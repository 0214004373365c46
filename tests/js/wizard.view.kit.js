/* Shared set-up of the wizard view's tests (wizard.*view.test.js): a
 * router with its rpc answers, the stored results, and helpers to open
 * the wizard and run its measurement. */
import { expect } from 'vitest';
import { createHarness, click, fire, settleAll, memoryStorage } from './harness/luci.js';

/* recorded replies (shapes of reterm.latency.test / api.uc) */
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
	/* opts.storage: the browser session (memoryStorage) the page opens in */
	const h = createHarness({ session: opts.storage });
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
		latency: { '.type': 'latency', download_url: 'http://192.0.2.10/bytes', upload_url: 'http://192.0.2.10/upload' }
	}, opts.reterm));
	h.fs.files['/usr/lib/sqm/defaults.sh'] = '';
	h.rpc.handle('reterm', 'hosts', { hosts: HOSTS });
	/* reterm-latencyd's status: shaper/cake from the sqm config as applied, read
	 * again `lag` polls after a change (the real one reloads on a procd
	 * trigger); `was` = sqm queue values it still reports at first */
	h.monitor = { lag: opts.lag || 0, shown: opts.was ? shapingOf([opts.was]) : null, behind: 0 };
	h.rpc.handle('reterm.latency', 'status', () => {
		if (opts.monitorDown)
			return { error: 'not_running', message: 'the latency monitor (reterm-latencyd) is not running' };
		const m = h.monitor, now = shapingOf(Object.values(h.uci.dump('sqm') || {}));
		if (m.shown && JSON.stringify(now) !== JSON.stringify(m.shown) && m.behind++ < m.lag)
			return Object.assign({ state: 'awake' }, m.shown);
		m.shown = now;
		m.behind = 0;
		return Object.assign({ state: 'awake', pause: h.router.pause }, now);
	});
	/* reterm-latencyd's guided test and its shaping pause (reterm.latency.test.pause):
	 * pause_shaping pauses the enabled queue's device; h.replies are the
	 * test_status replies in turn (the last one stays), with the pause
	 * record of h.router.pause unless a reply has its own; test ids
	 * h.router.ids in turn (BEFORE's, then AFTER's) */
	h.router = { pause: opts.pause || null, ids: ['b1', 'a1'] };
	h.rpc.handle('reterm.latency', 'test_start', opts.start || (p => {
		const r = { started: true, id: h.router.ids.length > 1 ? h.router.ids.shift() : h.router.ids[0], total: 44 };
		if (p.pause_shaping) {
			r.paused = Object.values(h.uci.dump('sqm') || {}).filter(q => q.enabled === '1').map(q => q.interface);
			h.router.pause = r.paused.length ? { ifaces: r.paused, state: 'paused', until: 2000000000 } : null;
		}
		return r;
	}));
	h.rpc.handle('reterm.latency', 'test_stop', () => ({ state: 'stopped', pause: h.router.pause }));
	h.rpc.handle('reterm', 'server_rtts', opts.servers || { rtts: [], source: 'ss' });
	h.replies = [];
	h.rpc.handle('reterm.latency', 'test_status', () => opts.monitorDown ? { error: 'not_running', message: 'the latency monitor (reterm-latencyd) is not running' }
		: Object.assign({ state: 'idle', pause: h.router.pause }, h.replies.length > 1 ? h.replies.shift() : h.replies[0]));
	return h;
}

/* what reterm-latencyd reports for these sqm queues: the first enabled one */
function shapingOf(queues) {
	const q = queues.find(s => s && s['.type'] === 'queue' && s.enabled === '1');
	if (!q)
		return { shaper: null, cake: null };
	const rx = (+q.download || 0) * 1000, tx = (+q.upload || 0) * 1000;
	return { shaper: (rx || tx) ? { rx, tx } : null, cake: { dl: `ifb4${q.interface}`, ul: q.interface } };
}

/* until the pages are idle */
const flush = () => settleAll();

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
	h.replies.push({ state: 'running', total: 44, elapsed: 11, phase: 'download', phase_index: 1, progress: 0.25, rtt: 260 }, { state: 'done', result });
	await click(p.$('.reterm-wizard-start'));
	/* LuCI's poll asks for the status at once */
	expect(p.text('.reterm-run-progress-text')).toMatch(/Download load · 11 s of 44 s · RTT 260\.0 ms/);
	await h.poll.tick();
	expect(h.poll.queue).toHaveLength(0);
}


/*
 * After an apply: LuCI confirms it (4 s on) and reloads the page (1.5 s
 * later); the wizard opens again in the same browser session, on the same
 * router. The test's handles (replies, router, monitor) go along.
 */
async function reloaded(h) {
	await h.tick(6);
	expect(h.navigations).toHaveLength(1);
	const h2 = h.reload();
	Object.assign(h2, { replies: h.replies, router: h.router, monitor: h.monitor });
	return { h: h2, p: await open(h2) };
}

const SHAPED = { q: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000', upload: '500' } };
const stored = storage => JSON.parse(storage.data['reterm-wizard']);
const pauseAt = (state, extra) => Object.assign({ ifaces: ['eth1'], state, until: 2000000000 }, extra);

export { PHASES, samples, BEFORE, AFTER, HOSTS, setup, shapingOf, flush, open, measure, reloaded, memoryStorage, SHAPED, stored, pauseAt };
