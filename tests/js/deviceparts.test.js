import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

/* reterm.devices.ports and reterm.devices.audit on their own (devices.test.js checks them through devices) */
let ports, audit;

beforeAll(async () => {
	const h = createHarness();
	ports = await h.require('reterm.devices.ports');
	audit = await h.require('reterm.devices.audit');
});

describe('deviceports', () => {
	it('parses, checks and stores ports', () => {
		expect(ports.parse('443 80 81-90')).toEqual([[80, 90], [443, 443]]);
		expect(ports.validate('80,443')).toBe('Separate ports with spaces, e.g. 80 443 8080-8090');
		expect(ports.text(['80', '443'])).toBe('80 443');
		expect(ports.choice('web')).toEqual({ choice: 'web', custom: '' });
		expect(ports.describe('bad')).toBe('invalid ports');
	});
});

describe('deviceaudit', () => {
	it('words the badge, the audit level and an idle live cell', () => {
		expect(audit.badge('console').text).toBe('Console');
		expect(audit.badge('pc')).toBeNull();
		expect(audit.auditLevel({ recommendation: 'reterm' })).toBe('warning');
		expect(audit.liveLines(null)).toEqual(['No open connections']);
		expect(audit.isCount(-1)).toBe(false);
	});
});
