import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/* reterm.httpurl and reterm.testresult on their own (monitor.test.js checks them through monitor) */
let url, result;

beforeAll(async () => {
	const h = createHarness();
	url = await h.require('reterm.httpurl');
	result = await h.require('reterm.testresult');
});

describe('httpurl', () => {
	it('parses http and https URLs as reterm-latencyd does', () => {
		expect(url.parse('http://[2001:db8::1]:8080/x')).toMatchObject({ host: '2001:db8::1', port: 8080, path: '/x', family: 6 });
		expect(url.parse('https://example.net/')).toMatchObject({ scheme: 'https', host: 'example.net', port: 443 });
		expect(url.parse('https://192.0.2.1/')).toBeNull();
		expect(url.parse('http://256.1.1.1/')).toBeNull();
	});
});

describe('testresult', () => {
	it('names phases and gives null for no result', () => {
		expect(result.phaseName('both')).toBe('Both');
		expect(result.phaseLabel('idle', 0)).toBe('Idle: measuring the baseline');
		expect(result.summary(null)).toBeNull();
		expect(result.phaseRows({})).toEqual([]);
		expect(result.cdfSeries({})).toEqual([]);
	});
});
