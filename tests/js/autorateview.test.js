import { describe, it, expect } from 'vitest';
import { createHarness } from './harness/luci.js';

/* reterm autorate_status as reterm-latencyd answers it (tests/ucode/latency/autoshaper_test.uc) */
const T = 1718000100;
const STATUS = {
	enabled: true, queue: 'eth1', devices: { dl: 'ifb4eth1', ul: 'eth1' },
	settings: { dl_min: 4000, dl_base: 18000, dl_max: 30000, ul_min: 1000, ul_base: 4500, ul_max: 6000, delay_ms: 15 },
	rates: { dl: { rate_kbit: 23400, achieved_kbit: 22100, share: 94.4 }, ul: { rate_kbit: 4500, achieved_kbit: 80, share: 1.8 } },
	reflectors: [ { target: '1.1.1.1', state: 'used', why: null, baseline_ms: 12.1, one_way: false, answered: 10, probes: 10, hop: null },
		{ target: '198.51.100.1', state: 'used', why: null, baseline_ms: 8.3, one_way: true, answered: 10, probes: 10, hop: 2 },
		{ target: '192.0.2.53', state: 'used', why: null, baseline_ms: 9.1, one_way: true, answered: 10, probes: 10, hop: null },
		{ target: '9.9.9.9', state: 'shunned', why: '5 of its last 10 probes unanswered', baseline_ms: null, answered: 0, probes: 0 } ],
	decisions: [
		{ time: T, time_end: T + 6, dir: 'dl', from: 18000, to: 27000, reason: 'dl loaded (100 %), delay low', kind: 'raise' },
		{ time: T + 9, dir: 'dl', from: 27000, to: 23400, reason: 'delay +38.2 ms with dl at 92 % of its rate', kind: 'cut' }
	],
	hops: [ { ttl: 1, addr: '192.168.100.1', used: false }, { ttl: 2, addr: '198.51.100.1', used: true } ],
	evidence: true, cake: { dl: true, ul: true }, probes_per_s: 5
};

async function box(reply) {
	const h = createHarness();
	h.rpc.handle('reterm.latency', 'autorate_status', reply);
	const m = await h.require('reterm.overview.autorate');
	const b = m.create();
	await b.poll();
	return { h, m, b, text: h.text(b.node) };
}

describe('adaptive shaping box', () => {
	it('lists the decisions newest first with direction, change and reason', async () => {
		const { m } = await box(STATUS);
		const rows = m.events(STATUS);
		expect(rows.map(r => r.slice(1))).toEqual([
			[ 'Download', '27 Mbit/s → 23.4 Mbit/s', 'delay +38.2 ms with dl at 92 % of its rate' ],
			[ 'Download', '18 Mbit/s → 27 Mbit/s', 'dl loaded (100 %), delay low' ]
		]);
		expect(m.events({})).toEqual([]);
	});

	it('shows the rates now, their bounds, the probe rate, the near hops, which reflectors give one-way delays and why a reflector is not used', async () => {
		const { b, text } = await box(STATUS);
		expect(b.node.style.display).toBe('');
		expect(text).toContain('Download 23.4 Mbit/s (4 Mbit/s–30 Mbit/s, base 18 Mbit/s)');
		expect(text).toContain('Upload 4.5 Mbit/s (1 Mbit/s–6 Mbit/s, base 4.5 Mbit/s)');
		expect(text).toContain('5 probes/s; reflectors: 1.1.1.1, 198.51.100.1 (hop 2, one-way delays), 192.0.2.53 (one-way delays), 9.9.9.9 (not used: 5 of its last 10 probes unanswered)');
		expect(b.node.querySelectorAll('tr').length).toBe(3);
	});

	it('is hidden while adaptive shaping is off or reterm-latencyd does not answer', async () => {
		expect((await box({ enabled: false, reason: null, probes_per_s: 1 })).b.node.style.display).toBe('none');
		const h = createHarness();
		const m = await h.require('reterm.overview.autorate');
		const b = m.create();
		await b.poll();
		expect(b.node.style.display).toBe('none');
	});

	it('warns with reterm-latencyd\'s reason when the settings were refused', async () => {
		const { b, text } = await box({ enabled: false, reason: 'autorate not started: dl: minimum 40000 <= base 18000 <= maximum 30000 kbit/s does not hold' });
		expect(b.node.style.display).toBe('');
		expect(text).toContain('Adaptive shaping is not running: autorate not started: dl: minimum 40000');
	});
});
