import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let grade;

beforeAll(async () => {
	grade = await createHarness().require('reterm.grade');
});

const BAD_NUMBERS = [NaN, -1, -0.001, Infinity, -Infinity, '10', null, undefined, {}, [], true];

/* probes every 50 ms from t0 with the given RTTs (null = lost) */
function probes(rtts, t0 = 0, every = 50) {
	return rtts.map((rtt, i) => ({ t: t0 + i * every, rtt }));
}

describe('grade', () => {
	it.each([
		[0, 'A+'], [4.999, 'A+'], [5, 'A'], [29.999, 'A'], [30, 'B'], [59.9, 'B'], [60, 'C'],
		[199.99, 'C'], [200, 'D'], [399.9, 'D'], [400, 'F'], [5000, 'F']
	])('%d ms added → %s (a value on a bound gets the worse grade)', (ms, g) => {
		expect(grade.grade(ms)).toBe(g);
	});

	it.each(BAD_NUMBERS.map(v => [v]))('refuses %s', v => {
		expect(grade.grade(v)).toBeNull();
	});

	it('lists the bands behind the scale, for graphs', () => {
		expect(grade.bands()).toEqual([
			{ grade: 'A+', key: 'aplus', from: 0, to: 5 }, { grade: 'A', key: 'a', from: 5, to: 30 },
			{ grade: 'B', key: 'b', from: 30, to: 60 }, { grade: 'C', key: 'c', from: 60, to: 200 },
			{ grade: 'D', key: 'd', from: 200, to: 400 }, { grade: 'F', key: 'f', from: 400, to: Infinity }
		]);
		expect(grade.GRADES).toEqual(['A+', 'A', 'B', 'C', 'D', 'F']);
		expect(grade.gradeKey('A+')).toBe('aplus');
		expect(grade.gradeKey('a')).toBeNull();
	});
});

describe('overall', () => {
	it('is the worse direction', () => {
		expect(grade.overall('A+', 'C')).toBe('C');
		expect(grade.overall('F', 'A')).toBe('F');
		expect(grade.overall('B', 'B')).toBe('B');
		expect(grade.overall('A', 'A+')).toBe('A');
	});

	it('needs two grades', () => {
		expect(grade.overall('A', null)).toBeNull();
		expect(grade.overall(undefined, 'B')).toBeNull();
		expect(grade.overall('A', 'G')).toBeNull();
		expect(grade.overall('a+', 'A')).toBeNull();
	});
});

describe('rpm', () => {
	it('is 60000 / RTT', () => {
		expect(grade.rpm(60)).toBe(1000);
		expect(grade.rpm(200)).toBe(300);
		expect(grade.rpm(10)).toBe(6000);
		expect(grade.rpm(0.5)).toBe(120000);
		expect(grade.rpm(7)).toBeCloseTo(8571.43, 2);
	});

	it.each([[0], ...BAD_NUMBERS.map(v => [v])])('refuses %s', v => {
		expect(grade.rpm(v)).toBeNull();
	});

	it.each([
		[0, 'poor'], [299.9, 'poor'], [300, 'fair'], [999.9, 'fair'], [1000, 'good'],
		[6000, 'good'], [6000.1, 'excellent'], [1e6, 'excellent']
	])('class of %d RPM is %s', (rpm, cls) => {
		expect(grade.rpmClass(rpm)).toBe(cls);
	});

	it('classes RTTs through rpm(): 200 ms is Fair, 201 ms Poor, 10 ms Good', () => {
		expect(grade.rpmClass(grade.rpm(200))).toBe('fair');
		expect(grade.rpmClass(grade.rpm(201))).toBe('poor');
		expect(grade.rpmClass(grade.rpm(10))).toBe('good');
		expect(grade.rpmClass(grade.rpm(9))).toBe('excellent');
	});

	it('labels classes through _() and refuses bad input', () => {
		expect(['poor', 'fair', 'good', 'excellent'].map(k => grade.rpmLabel(k))).toEqual(['Poor', 'Fair', 'Good', 'Excellent']);
		expect(grade.rpmLabel('meh')).toBeNull();
		for (const v of BAD_NUMBERS)
			expect(grade.rpmClass(v)).toBeNull();
	});
});

describe('percentile', () => {
	it('uses the nearest rank', () => {
		const v = Array.from({ length: 100 }, (_, i) => 100 - i);
		expect(grade.percentile(v, 95)).toBe(95);
		expect(grade.percentile(v, 50)).toBe(50);
		expect(grade.percentile(v, 100)).toBe(100);
		expect(grade.percentile(v, 0)).toBe(1);
		expect(grade.percentile([7], 95)).toBe(7);
		expect(grade.percentile([1, 2, 3, 4], 95)).toBe(4);
	});

	it('skips unusable values and refuses bad input', () => {
		expect(grade.percentile([3, null, NaN, -2, 'x', 1], 50)).toBe(1);
		expect(grade.percentile([], 50)).toBeNull();
		expect(grade.percentile([NaN], 50)).toBeNull();
		expect(grade.percentile('1,2', 50)).toBeNull();
		expect(grade.percentile([1, 2], 101)).toBeNull();
		expect(grade.percentile([1, 2], -1)).toBeNull();
	});
});

describe('phaseStats', () => {
	it('gives mean, p95, peak above the baseline and the loss', () => {
		/* 20 probes at 30 ms over a 20 ms baseline */
		const st = grade.phaseStats(probes(Array(20).fill(30)), 20);
		expect(st).toMatchObject({ mean: 10, p95: 10, peak: 10, loss: 0, sent: 20, lost: 0 });
		expect(st.rtt).toEqual({ mean: 30, p95: 30, min: 30, max: 30 });
	});

	it('smooths the peak over 400 ms: one 50 ms spike counts 1/8', () => {
		const rtts = Array(40).fill(20);
		rtts[20] = 180;                        /* +160 ms for one probe */
		const st = grade.phaseStats(probes(rtts), 20);
		expect(st.peak).toBeCloseTo(160 / 8, 9);
		expect(st.p95).toBe(0);                /* 1 of 40 is above the 95th percentile */
		expect(st.mean).toBeCloseTo(160 / 40, 9);
	});

	it('a sustained rise of 400 ms reaches the peak in full', () => {
		const rtts = Array(40).fill(20);
		for (let i = 10; i < 18; i++) rtts[i] = 120;
		expect(grade.phaseStats(probes(rtts), 20).peak).toBe(100);
		/* 7 probes (350 ms) never fill a window */
		rtts[17] = 20;
		expect(grade.phaseStats(probes(rtts), 20).peak).toBeCloseTo(700 / 8, 9);
	});

	it('does not let the first probe of a phase stand alone in its window', () => {
		const rtts = Array(40).fill(20);
		rtts[0] = 180;
		expect(grade.phaseStats(probes(rtts), 20).peak).toBeCloseTo(160 / 8, 9);
	});

	it('a phase shorter than one window has the mean as its peak', () => {
		const st = grade.phaseStats(probes([20, 60, 40]), 20);
		expect(st.peak).toBe(20);
		expect(st.mean).toBe(20);
	});

	it('averages only answered probes in a window; lost probes count as loss', () => {
		const rtts = Array(40).fill(30);
		rtts[5] = null;
		rtts[6] = undefined;
		rtts[7] = NaN;
		const st = grade.phaseStats(probes(rtts), 20);
		expect(st).toMatchObject({ mean: 10, peak: 10, lost: 3, sent: 40 });
		expect(st.loss).toBeCloseTo(3 / 40, 12);
	});

	it('sorts samples by time and accepts [t, rtt] pairs', () => {
		const pairs = probes(Array(16).fill(25)).map(s => [s.t, s.rtt]).reverse();
		expect(grade.phaseStats(pairs, 20)).toMatchObject({ mean: 5, peak: 5, loss: 0 });
	});

	it('never reports negative added latency', () => {
		const st = grade.phaseStats(probes(Array(20).fill(18)), 20);
		expect(st).toMatchObject({ mean: 0, p95: 0, peak: 0 });
	});

	it('every probe lost: loss 1, latencies null', () => {
		expect(grade.phaseStats(probes([null, null, null]), 20)).toEqual({
			mean: null, p95: null, peak: null, loss: 1, sent: 3, lost: 3, rtt: null
		});
	});

	it('ignores samples without a time and refuses bad input', () => {
		expect(grade.phaseStats([{ rtt: 30 }, { t: 'x', rtt: 30 }, { t: 0, rtt: 30 }], 20)).toMatchObject({ sent: 1, mean: 10 });
		expect(grade.phaseStats([], 20)).toBeNull();
		expect(grade.phaseStats([{ rtt: 30 }, null, 5, 'x'], 20)).toBeNull();
		expect(grade.phaseStats('samples', 20)).toBeNull();
		expect(grade.phaseStats(null, 20)).toBeNull();
		for (const b of BAD_NUMBERS)
			expect(grade.phaseStats(probes([30]), b)).toBeNull();
	});
});

describe('inconclusive', () => {
	it('flags throughput below 80 % of the shaper', () => {
		const r = grade.inconclusive({ throughputBps: 14e6, shaperBps: 18e6, loss: 0 });
		expect(r.inconclusive).toBe(true);
		expect(r.reasons).toEqual(['throughput']);
		expect(r.messages[0]).toBe('Throughput reached only 77% of the shaper rate (at least 80% needed).');
	});

	it('exactly 80 % and exactly 2.5 % loss are conclusive', () => {
		expect(grade.inconclusive({ throughputBps: 0.8 * 18e6, shaperBps: 18e6, loss: 0.025 }))
			.toEqual({ inconclusive: false, reasons: [], messages: [] });
	});

	it('flags probe loss above 2.5 %', () => {
		const r = grade.inconclusive({ throughputBps: 18e6, shaperBps: 18e6, loss: 0.026 });
		expect(r.reasons).toEqual(['loss']);
		expect(r.messages[0]).toBe('2.6% of the probes were lost (at most 2.5% allowed).');
	});

	it('reports both reasons', () => {
		expect(grade.inconclusive({ throughputBps: 1e6, shaperBps: 18e6, loss: 0.5 }).reasons).toEqual(['throughput', 'loss']);
	});

	it('skips the throughput rule without a shaper rate (missing, null or 0)', () => {
		expect(grade.inconclusive({ throughputBps: 1e6, loss: 0 }).inconclusive).toBe(false);
		expect(grade.inconclusive({ throughputBps: 1e6, shaperBps: null }).inconclusive).toBe(false);
		expect(grade.inconclusive({ throughputBps: 1e6, shaperBps: 0 }).inconclusive).toBe(false);
		expect(grade.inconclusive({}).inconclusive).toBe(false);
	});

	it.each([
		[null], [undefined], ['x'], [[]], [{ throughputBps: -1, shaperBps: 1 }], [{ throughputBps: NaN }],
		[{ shaperBps: '18M' }], [{ loss: 1.5 }], [{ loss: -0.1 }], [{ loss: Infinity }]
	])('refuses %j', input => {
		expect(grade.inconclusive(input)).toBeNull();
	});
});

describe('cdf', () => {
	it('gives one point per distinct value with the share at or below it', () => {
		expect(grade.cdf([3, 1, 2, 2])).toEqual([{ x: 1, p: 0.25 }, { x: 2, p: 0.75 }, { x: 3, p: 1 }]);
		expect(grade.cdf([5])).toEqual([{ x: 5, p: 1 }]);
	});

	it('ends at 1 and rises monotonically', () => {
		const c = grade.cdf(Array.from({ length: 1000 }, (_, i) => (i * 7919) % 101));
		expect(c[c.length - 1].p).toBe(1);
		expect(c.every((pt, i) => i === 0 || (pt.x > c[i - 1].x && pt.p > c[i - 1].p))).toBe(true);
	});

	it('skips unusable values, null when none remain', () => {
		expect(grade.cdf([NaN, 2, null, -1, 'x'])).toEqual([{ x: 2, p: 1 }]);
		expect(grade.cdf([])).toBeNull();
		expect(grade.cdf([NaN, -1])).toBeNull();
		expect(grade.cdf(null)).toBeNull();
		expect(grade.cdf('1 2 3')).toBeNull();
	});
});
