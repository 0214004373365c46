import { it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let errtext, L;

beforeAll(async () => {
	const h = createHarness();
	errtext = await h.require('reterm.errtext');
	L = h.L;
});

it('drops the stack trace LuCI\'s raise() appends to a message', () => {
	let e;
	try { L.raise('RPCError', 'RPC call to %s/%s failed with error %d: %s', 'reterm', 'hosts', -32000, 'Object not found'); }
	catch (x) { e = x; }
	expect(e.message).toMatch(/\n {2}at /);
	expect(errtext.of(e)).toBe('RPC call to reterm/hosts failed with error -32000: Object not found');
});

it('keeps a message of several lines, takes a string or nothing', () => {
	expect(errtext.of(new Error('first\nsecond'))).toBe('first\nsecond');
	expect(errtext.of('plain')).toBe('plain');
	expect(errtext.of(null)).toBe('');
	expect(errtext.of(undefined)).toBe('');
});
