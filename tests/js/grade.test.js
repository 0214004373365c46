import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let grade;

beforeAll(async () => {
	grade = await createHarness().require('reterm.grade');
});

const BAD_NUMBERS = [NaN, -1, -0.001, Infinity, -Infinity, '10', null, undefined, {}, [], true];

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

describe('rpmLabel', () => {
	it('labels the daemon\'s RPM classes through _() and refuses others', () => {
		expect(['poor', 'fair', 'good', 'excellent'].map(k => grade.rpmLabel(k))).toEqual(['Poor', 'Fair', 'Good', 'Excellent']);
		expect(grade.rpmLabel('meh')).toBeNull();
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
