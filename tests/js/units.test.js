import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let units;

beforeAll(async () => {
	units = await createHarness().require('reterm.units');
});

const k = 1e3, M = 1e6, G = 1e9, Ki = 1024, Mi = 1024 * 1024;

/* inputs every parser must refuse: wrong types, signs, exponents, junk */
const BAD = [
	'', ' ', '\t\n', '-5M', '-1', '+5M', '- 5M', '1e999', '1e6', '1E3', 'NaN', 'Infinity', '-Infinity',
	'0x10', '0b11', '1,000', '1 000', '.5M', '5.M', '5..5M', '1.2.3', 'M', 'Mbit', 'abc',
	'20M; rm -rf /', '20M && reboot', '20M | nc x 1', '$(reboot)', '`id`', '20M\nx', '20\n0M',
	'"20M"', "'20M'", "20M'", '20M"', '{20M}', '[20]', '20M}', '${20}', '20M\u0000', '２０M',
	'20 M bit', '20 Mbit/h', '20 Mbit/ss', '20 kbit 5', '9'.repeat(400), '9'.repeat(30)
];

const NOT_STRINGS = [null, undefined, {}, [], ['20M'], true, () => '20M', { toString: () => '20M' }, Symbol('x'), NaN, Infinity, -1];

describe('parseRate', () => {
	it.each([
		['20M', 20 * M], ['20 Mbit', 20 * M], ['20Mbit/s', 20 * M], ['20 mbps', 20 * M], ['20 Mb/s', 20 * M],
		['20 MBIT/S', 20 * M], ['1.5G', 1.5 * G], ['1.5 Gbit/s', 1.5 * G], ['900k', 900 * k], ['900 kbit', 900 * k],
		['900 Kbps', 900 * k], ['800000', 800000], ['800000 bit/s', 800000], ['0', 0], ['0M', 0], ['2T', 2e12],
		['  20M  ', 20 * M], ['20\tM', 20 * M], ['0.001k', 1]
	])('%j → %d bit/s', (input, bps) => {
		expect(units.parseRate(input)).toBe(bps);
	});

	it('counts byte units ×8 and lets the case of a lone b decide bits vs bytes', () => {
		expect(units.parseRate('12.5MB/s')).toBe(100 * M);
		expect(units.parseRate('12.5 MBps')).toBe(100 * M);
		expect(units.parseRate('12.5 MByte/s')).toBe(100 * M);
		expect(units.parseRate('500 KB/s')).toBe(4 * M);
		expect(units.parseRate('100 B/s')).toBe(800);
		expect(units.parseRate('5 bytes')).toBe(40);
		expect(units.parseRate('12.5Mb/s')).toBe(12.5 * M);
		expect(units.parseRate('20 MBPS')).toBe(160 * M);
	});

	it('reads binary prefixes as powers of 1024', () => {
		expect(units.parseRate('2 MiB/s')).toBe(2 * Mi * 8);
		expect(units.parseRate('1 Mibit')).toBe(Mi);
		expect(units.parseRate('3Ki')).toBe(3 * Ki);
	});

	it('rounds to a whole bit/s', () => {
		expect(units.parseRate('1.1M')).toBe(1100000);
		expect(units.parseRate('0.0004k')).toBe(0);
		expect(units.parseRate('1.0006k')).toBe(1001);
		expect(units.parseRate(1234.6)).toBe(1235);
	});

	it('takes a finite non-negative JS number as bit/s', () => {
		expect(units.parseRate(20e6)).toBe(20 * M);
		expect(units.parseRate(0)).toBe(0);
	});

	it.each(BAD)('refuses %j', input => {
		expect(units.parseRate(input)).toBeNull();
	});

	it.each(NOT_STRINGS.map(v => [v]))('refuses non-string %s', value => {
		expect(units.parseRate(value)).toBeNull();
	});

	it('refuses results beyond Number.MAX_SAFE_INTEGER', () => {
		expect(units.parseRate('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
		expect(units.parseRate('9007199254740992')).toBeNull();
		expect(units.parseRate('99999999T')).toBeNull();
	});
});

describe('formatRate', () => {
	it.each([
		[19.06 * M, '19.1 Mbit/s'], [19.1 * M, '19.1 Mbit/s'], [950 * k, '950 kbit/s'], [1.25 * G, '1.25 Gbit/s'],
		[0, '0 bit/s'], [999, '999 bit/s'], [20 * M, '20 Mbit/s'], [18 * M, '18 Mbit/s'], [1.5 * k, '1.5 kbit/s'],
		[0.5, '0.5 bit/s'], [2.5e12, '2.5 Tbit/s'], [5e15, '5000 Tbit/s']
	])('%d bit/s → %s', (bps, text) => {
		expect(units.formatRate(bps)).toBe(text);
	});

	it('moves to the next prefix when rounding reaches 1000', () => {
		expect(units.formatRate(999999)).toBe('1 Mbit/s');
		expect(units.formatRate(999.96)).toBe('1 kbit/s');
		expect(units.formatRate(999.4)).toBe('999 bit/s');
	});

	it('honours the significant digits argument', () => {
		expect(units.formatRate(19.06 * M, 2)).toBe('19 Mbit/s');
		expect(units.formatRate(19.06 * M, 4)).toBe('19.06 Mbit/s');
		expect(units.formatRate(1234567, 1)).toBe('1 Mbit/s');
	});

	it('accepts decimal strings such as uci values', () => {
		expect(units.formatRate('18000000')).toBe('18 Mbit/s');
	});

	it.each([[-1], [NaN], [Infinity], [null], [undefined], ['20M'], ['1e3'], ['-5'], [{}], [[]]])('refuses %j', v => {
		expect(units.formatRate(v)).toBeNull();
	});

	it.each([[0], [16], [2.5], ['3'], [null], [-1]])('refuses digits=%j', d => {
		expect(units.formatRate(20 * M, d)).toBeNull();
	});

	it('round-trips through parseRate within the 3-digit rounding', () => {
		for (const bps of [1, 37, 999, 1000, 12345, 987654, 19.06 * M, 123456789, 4.2 * G]) {
			const back = units.parseRate(units.formatRate(bps));
			expect(Math.abs(back - bps) / bps).toBeLessThan(0.005);
		}
	});
});

describe('parseBytes / formatBytes', () => {
	it.each([
		['16K', 16 * Ki], ['16 KB', 16 * Ki], ['16KiB', 16 * Ki], ['16kib', 16 * Ki], ['16kb', 16 * Ki],
		['65535', 65535], ['4M', 4 * Mi], ['6MB', 6 * Mi], ['6 MiB', 6 * Mi], ['1G', 1024 * Mi],
		['1.5K', 1536], ['16 bytes', 16], ['16 B', 16], ['0', 0], [' 7 KiB ', 7 * Ki]
	])('%j → %d bytes', (input, bytes) => {
		expect(units.parseBytes(input)).toBe(bytes);
	});

	it('rounds to a whole byte', () => {
		expect(units.parseBytes('1.3K')).toBe(Math.round(1.3 * 1024));
		expect(units.parseBytes(100.5)).toBe(101);
	});

	it.each([...BAD, '16 KB/s', '16 bit', '16 Kbit', '16 KiBs'])('refuses %j', input => {
		expect(units.parseBytes(input)).toBeNull();
	});

	it.each(NOT_STRINGS.map(v => [v]))('refuses non-string %s', value => {
		expect(units.parseBytes(value)).toBeNull();
	});

	it.each([
		[0, '0 B'], [512, '512 B'], [1000, '1000 B'], [1023, '1023 B'], [1024, '1 KiB'], [16384, '16 KiB'],
		[1536, '1.5 KiB'], [1.5 * Mi, '1.5 MiB'], [6 * Mi, '6 MiB'], [1048575, '1 MiB'], [1875000, '1.79 MiB']
	])('%d bytes → %s', (bytes, text) => {
		expect(units.formatBytes(bytes)).toBe(text);
	});

	it('refuses invalid input and digits', () => {
		for (const v of [-1, NaN, Infinity, null, '16K', {}])
			expect(units.formatBytes(v)).toBeNull();
		expect(units.formatBytes(16384, 0)).toBeNull();
	});

	it('round-trips through parseBytes within the 3-digit rounding', () => {
		for (const b of [1, 700, 1023, 1024, 16384, 65535, 131072, 3 * Mi + 12345, 5 * 1024 * Mi]) {
			const back = units.parseBytes(units.formatBytes(b));
			expect(Math.abs(back - b) / b).toBeLessThan(0.005);
		}
	});
});

describe('bdp and maxThroughput (window / RTT arithmetic)', () => {
	it('puts a 3DS (16 KiB window, 130 ms) at about 1 Mbit/s, short of a 1.2 Mbit/s stream', () => {
		const ceiling = units.maxThroughput(units.parseBytes('16 KB'), 130);
		expect(ceiling).toBeCloseTo(16384 * 8 / 0.130, 6);
		expect(ceiling / M).toBeCloseTo(1.008, 3);
		expect(units.formatRate(ceiling)).toBe('1.01 Mbit/s');
		expect(ceiling).toBeLessThan(units.parseRate('1.2M'));
	});

	it('is linear in the window and inverse in the RTT', () => {
		const base = units.maxThroughput(7 * Ki, 100);
		expect(units.maxThroughput(14 * Ki, 100)).toBeCloseTo(2 * base, 6);
		expect(units.maxThroughput(7 * Ki, 200)).toBeCloseTo(base / 2, 6);
		expect(units.maxThroughput(0, 100)).toBe(0);
	});

	it('computes the BDP of 100 Mbit/s × 150 ms as 1.875 MB (≈ 1.79 MiB)', () => {
		expect(units.bdp(100 * M, 150)).toBe(1875000);
		expect(units.formatBytes(units.bdp(100 * M, 150))).toBe('1.79 MiB');
		expect(units.bdp(20 * M, 130)).toBe(325000);
	});

	it('rounds the BDP up to a whole byte, without float noise', () => {
		expect(units.bdp(1, 1)).toBe(1);
		expect(units.bdp(0, 100)).toBe(0);
		expect(units.bdp(3 * M, 7)).toBe(2625);
		expect(units.bdp(1e6 / 3, 3)).toBe(125);
	});

	it('agrees with maxThroughput: a BDP-sized window fills the path', () => {
		for (const [bps, rtt] of [[20 * M, 130], [100 * M, 150], [1 * M, 600]])
			expect(units.maxThroughput(units.bdp(bps, rtt), rtt)).toBeCloseTo(bps, -2);
	});

	it('refuses invalid operands', () => {
		for (const [a, b] of [[-1, 10], [10, -1], [NaN, 10], [10, Infinity], ['20M', 10], [null, 10], [10, undefined]]) {
			expect(units.bdp(a, b)).toBeNull();
			expect(units.maxThroughput(a, b)).toBeNull();
		}
		expect(units.maxThroughput(16384, 0)).toBeNull();
	});
});

describe('kbitFromMbit / mbitFromKbit (sqm stores kbit/s integers)', () => {
	it('converts Mbit/s to the nearest whole kbit/s', () => {
		expect(units.kbitFromMbit(18)).toBe(18000);
		expect(units.kbitFromMbit('18.5')).toBe(18500);
		expect(units.kbitFromMbit(18.3)).toBe(18300);
		expect(units.kbitFromMbit(0.0126)).toBe(13);
		expect(units.kbitFromMbit(0.0124)).toBe(12);
		expect(Number.isInteger(units.kbitFromMbit(17.1234))).toBe(true);
	});

	it('keeps 0 as 0 (sqm: off) but never rounds a positive rate down to 0', () => {
		expect(units.kbitFromMbit(0)).toBe(0);
		expect(units.kbitFromMbit(0.0004)).toBe(1);
	});

	it('converts kbit/s back exactly', () => {
		expect(units.mbitFromKbit(18500)).toBe(18.5);
		expect(units.mbitFromKbit('18333')).toBe(18.333);
		expect(units.mbitFromKbit(0)).toBe(0);
		for (const kbit of [1, 999, 18000, 123457])
			expect(units.kbitFromMbit(units.mbitFromKbit(kbit))).toBe(kbit);
	});

	it('refuses invalid input', () => {
		for (const v of [-1, NaN, Infinity, null, undefined, '', '18M', '-5', '1e3', {}, []])
			expect(units.kbitFromMbit(v)).toBeNull();
		for (const v of [-1, 1.5, '18.5', '', '18k', NaN, null, '1e3'])
			expect(units.mbitFromKbit(v)).toBeNull();
	});
});

describe('formatMs', () => {
	it('one decimal with the translated unit', () => {
		expect(units.formatMs(14.66)).toBe('14.7 ms');
		expect(units.formatMs(0)).toBe('0.0 ms');
		expect(units.formatMs(1234)).toBe('1234.0 ms');
	});
	it('signed: + for a rise or zero, a real minus sign for a fall', () => {
		expect(units.formatMs(3, true)).toBe('+3.0 ms');
		expect(units.formatMs(0, true)).toBe('+0.0 ms');
		expect(units.formatMs(-0.04, true)).toBe('+0.0 ms');
		expect(units.formatMs(-209.46, true)).toBe('−209.5 ms');
	});
	it.each([null, undefined, '5', NaN, Infinity, -Infinity, {}, [5]])('refuses %j', v => {
		expect(units.formatMs(v)).toBeNull();
		expect(units.formatMs(v, true)).toBeNull();
	});
	it('refuses a negative value unless signed', () => {
		expect(units.formatMs(-1)).toBeNull();
	});
});

describe('formatPercent', () => {
	it('a fraction as per cent with the given decimals', () => {
		expect(units.formatPercent(0.284)).toBe('28.4 %');
		expect(units.formatPercent(1)).toBe('100.0 %');
		expect(units.formatPercent(-0.094, 0)).toBe('-9 %');
		expect(units.formatPercent(0.5, 2)).toBe('50.00 %');
	});
	it.each([null, '0.5', NaN, Infinity])('refuses %j', v => {
		expect(units.formatPercent(v)).toBeNull();
	});
	it.each([-1, 7, 1.5, '1'])('refuses %j digits', d => {
		expect(units.formatPercent(0.5, d)).toBeNull();
	});
});

describe('rateScale', () => {
	it.each([
		[0, 1, 'bit/s'], [999, 1, 'bit/s'], [1000, 1e3, 'kbit/s'], [300e3, 1e3, 'kbit/s'],
		[19.4e6, 1e6, 'Mbit/s'], [2.5e9, 1e9, 'Gbit/s'], [4e15, 1e12, 'Tbit/s']
	])('%d bit/s → ÷%d %s', (bps, div, unit) => {
		expect(units.rateScale(bps)).toEqual({ div, unit });
	});
	it.each([null, '5', -1, NaN, Infinity])('refuses %j', v => {
		expect(units.rateScale(v)).toBeNull();
	});
});
