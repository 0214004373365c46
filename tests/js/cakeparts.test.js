import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/* the modules reterm.shaping.cake is built from, on their own (cake.test.js checks them through cake) */
let tokens, read, check;

beforeAll(async () => {
	const h = createHarness();
	tokens = await h.require('reterm.shaping.cakeopts');
	read = await h.require('reterm.shaping.cakeopts');
	check = await h.require('reterm.shaping.cakeopts');
});

describe('caketokens', () => {
	it('splits on blanks, reads tc times and refuses shell words', () => {
		expect(tokens.tokenize('  rtt   45ms ')).toEqual(['rtt', '45ms']);
		expect(tokens.timeMs('45ms')).toBe(45);
		expect(tokens.timeMs('100')).toBe(0.1);
		expect(tokens.isToken('nat;reboot')).toBe(false);
		expect(tokens.checkOpts('nat $(reboot)')).toMatch(/may only contain/);
		expect(tokens.checkOpts('rtt')).toBe('"rtt" needs a value');
	});
});

describe('cakeread', () => {
	it('reads one side into fields and keeps the words it does not manage', () => {
		const r = read.side('rtt 45ms nat memlimit 32mb', 'egress');
		expect(r.fields).toMatchObject({ rtt: 45, nat: true });
		expect(r.unknown).toEqual(['memlimit', '32mb']);
		expect(r.invalid).toEqual([]);
		expect(read.checkExtra('egress', ['nat'])).toMatch(/has its own field/);
	});
});

describe('cakecheck', () => {
	it('checks typed numbers against their range with one message each', () => {
		expect(check.rtt('45')).toBeNull();
		expect(check.rtt('0')).toBe('The RTT must be between 1 and 1000 ms');
		expect(check.overhead('x')).toBe('Enter the overhead as a whole number of bytes');
		expect(check.mpu('257')).toBe('The MPU must be between 0 and 256 bytes');
		expect(check.model({ isolation: 'nope' })).toBe('Unknown flow isolation mode');
	});
});
