import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';
import { RESULT } from './fixtures/wizard-result.js';

/* reterm.wizard.steps: the wizard view's small pure helpers */
let w;
beforeAll(async () => { w = await createHarness().require('reterm.wizard.steps'); });

describe('compare', () => {
	it('gives grades, added latency and throughput cost per direction', () => {
		const after = RESULT({ grade: 'A', download: { grade: 'A', added_ms: 8, throughput_bps: 17000000 }, upload: { grade: 'A+', added_ms: 3, throughput_bps: 1000000 } });
		const c = w.compare(RESULT(), after);
		expect(c.grade).toEqual({ before: 'D', after: 'A' });
		expect(c.download).toEqual({ before: 250, after: 8, gradeBefore: 'D', gradeAfter: 'A', throughputBefore: 20000000, throughputAfter: 17000000, costPct: 15 });
		expect(c.upload.costPct).toBe(0);
		expect(c.better).toBe(true);
	});
	it('copes with missing data', () => {
		const c = w.compare(RESULT({ download: { throughput_bps: 0 } }), null);
		expect(c.download.costPct).toBeNull();
		expect(c.better).toBeNull();
		expect(w.compare(RESULT({ grade: 'B' }), RESULT({ grade: 'B' })).better).toBe(false);
		expect(w.compare(RESULT({ upload: { throughput_bps: 1000 } }), RESULT({ upload: { throughput_bps: 1200 } })).upload.costPct).toBe(-20);
	});
});

describe('issue 12: waiting for the router to report the applied rates', () => {
	const ON = { state: 'awake', shaper: { rx: 9000000, tx: 2000000 }, cake: { dl: 'ifb4eth1', ul: 'eth1' } };
	const OFF = { state: 'awake', shaper: null, cake: null };

	it('reads shaping from reterm-latencyd\'s status', () => {
		expect(w.shapingReport(ON)).toEqual({ on: true, shaper: { rx: 9000000, tx: 2000000 } });
		expect(w.shapingReport(OFF)).toEqual({ on: false, shaper: null });
		expect(w.shapingReport({ shaper: null, cake: { dl: 'ifb4eth1', ul: 'eth1' } }).on).toBe(true);   /* CAKE without rates */
		expect(w.shapingReport({ state: 'awake' })).toBeNull();                                        /* says nothing */
		expect(w.shapingReport({ error: 'not_running' })).toBeNull();
		expect(w.shapingReport(null)).toBeNull();
	});

	it('confirms the applied rates; waits; times out after CONFIRM_TIMEOUT_S', () => {
		const NEW = { rx: 16851000, tx: 4257000 };
		expect(w.CONFIRM_TIMEOUT_S).toBe(120);
		expect(w.confirmWait(NEW, ON, 5000)).toBe('wait');                   /* still the old rates */
		expect(w.confirmWait(NEW, Object.assign({}, ON, { shaper: NEW }), 5000)).toBe('confirmed');
		expect(w.confirmWait({ rx: 16851000, tx: null }, Object.assign({}, ON, { shaper: NEW }), 0)).toBe('confirmed');
		expect(w.confirmWait(NEW, OFF, 119999)).toBe('wait');
		expect(w.confirmWait(NEW, { error: 'not_running' }, 119999)).toBe('wait');
		expect(w.confirmWait(NEW, ON, 120000)).toBe('timeout');
		expect(w.confirmWait(null, ON, 0)).toBe('wait');
	});

});

describe('compareRows and testProblem', () => {
	it('gives the before/after rows and why a result cannot be used', () => {
		const a = RESULT({ grade: 'A', download: { added_ms: 8, throughput_bps: 17000000 }, upload: { added_ms: 3, throughput_bps: 880000 } });
		expect(w.compareRows(RESULT(), a)).toEqual([['Grade', 'D', 'A'], ['Added latency, download', '250.0 ms', '8.0 ms'],
			['Added latency, upload', '120.0 ms', '3.0 ms'], ['Download', '20 Mbit/s', '17 Mbit/s (15 % less)'], ['Upload', '1 Mbit/s', '880 kbit/s (12 % less)']]);
		expect(w.testProblem(RESULT(), null)).toBeNull();
		expect(w.testProblem(null, null)).toMatch(/without a result/);
		expect(w.testProblem({ stopped: true }, null)).toMatch(/stopped/);
		expect([w.problemCode(null, 'x'), w.problemCode(null, null), w.problemCode({ stopped: true }), w.problemCode({ error: 'no_idle_rtt' }), w.problemCode({})])
			.toEqual(['status', 'no_result', 'stopped', 'no_idle_rtt', 'no_data']);
	});
});

describe('reload, grade hint, shaper check, countdown', () => {
	it('gradeNotImproved: never for an A+ after, else when not better than before', () => {
		const g = (b, a) => w.gradeNotImproved({ grade: b }, { grade: a });
		expect([g('A+', 'A+'), g('D', 'A+'), g('B', 'A'), g('A', 'A'), g('A', 'C'), g(null, 'C')]).toEqual([false, false, false, true, true, false]);
	});
	it('arrive: a reload within 5 min of an apply is no return, and only once', () => {
		const s = w.expectReload({ step: 'apply' }, 1000);
		expect(w.arrive(s, 2000)).toEqual({ state: { step: 'apply' }, resumed: false });
		expect(w.arrive(s, 1000 + 6 * 60000).resumed).toBe(true);
		expect(w.arrive({ step: 'apply' }, 2000).resumed).toBe(true);
		expect(w.arrive(null, 2000)).toEqual({ state: null, resumed: false });
	});
	it('unshaped: measured above 1.5x the applied shaper rate', () => {
		const r = { download: { throughput_bps: 24e9 }, upload: { throughput_bps: 1.4e6 } };
		expect(w.unshaped(r, { rx: 20e6, tx: 1e6 })).toEqual([{ dir: 'download', measured: 24e9, shaper: 20e6 }]);
		expect(w.unshaped(r, { rx: 0, tx: null })).toEqual([]);
	});
	it('waitSeconds / secondsLeft / failure', () => {
		expect([w.waitSeconds({ error: 'too_soon', wait_s: 12 }), w.waitSeconds({ error: 'busy' }), w.waitSeconds({ error: 'too_soon' })]).toEqual([12, null, null]);
		expect([w.secondsLeft(5000, 3500), w.secondsLeft(5000, 6000)]).toEqual([2, 0]);
		const s = w.setFailure({}, { kind: 'before', text: 'x', code: 'no_idle_rtt' });
		expect(w.failure(s)).toEqual({ kind: 'before', text: 'x', code: 'no_idle_rtt' });
		expect(w.failure(w.setFailure(s, null))).toBeNull();
	});
});
