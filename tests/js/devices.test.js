import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let d;

beforeAll(async () => {
	d = await createHarness().require('reterm.devices.rows');
});

/* strings that try to break out of UCI, nft, haproxy or a shell */
const HOSTILE = [
	'"', "'", '{', '}', ';', '\n', '\r', '\\', '`', '$(reboot)', '#', '\u0000',
	'80; flush ruleset', '80 } ; flush ruleset', '80 "', "80 '", '80\n443', '80\r443', '{80}',
	'02:00:00:00:3d:51; reboot', '02:00:00:00:3d:51 }', '02:00:00:00:3d:51\n', '\n02:00:00:00:3d:51',
	'02:00:00:00:3d:51"', 'x" accept comment "y', 'a\nb', 'nintendo-3ds;', 'nintendo-3ds\n'
];

const NOT_STRINGS = [null, undefined, 80, {}, true, () => 'all', Symbol('x'), NaN];

const HOST_3DS = {
	mac: '02:00:00:00:3D:51', name: 'Nintendo 3DS', ipv4: ['192.168.1.20'], ipv6: [], vendor: 'Nintendo Co.,Ltd',
	class: 'handheld', reterm: false, enabled: false, ports: 'all', section: null, online: true,
	audit: { syn_count: 12, noscale_syns: 12, small_window_syns: 12, window: 16384, scaling: false,
		ceiling_bps: 1008246, rtt_ms: 130, rwnd_limited_pct: null, recommendation: 'reterm', summary: 'English' }
};

describe('MAC addresses', () => {
	it.each([
		['02:00:00:00:3d:51', '02:00:00:00:3d:51'],
		['02:00:00:00:3D:51', '02:00:00:00:3d:51'],
		['AA:BB:CC:DD:EE:FF', 'aa:bb:cc:dd:ee:ff'],
		['02-00-00-00-3d-51', '02:00:00:00:3d:51'],
		['020000003d51', '02:00:00:00:3d:51'],
		['  02:00:00:00:3d:51\t', '02:00:00:00:3d:51']
	])('normalizes %j', (input, mac) => {
		expect(d.normalizeMac(input)).toBe(mac);
		expect(d.validateMac(input)).toBeNull();
	});

	it.each([
		'01:00:5e:00:00:01', 'ff:ff:ff:ff:ff:ff', 'ab:bb:cc:dd:ee:ff', '00:00:00:00:00:00', '02:00:00:00:3d',
		'02:00:00:00:3d:51:00', '2:0:0:0:3d:51', '02:00:00:00:3d:5g', '02:00-00:00:3d:51', '0200.0000.3d51',
		'02:00:00:00:3d:51\n02:00:00:00:3d:52', '０2:00:00:00:3d:51', '', ' ', '02:00:00:00:3d:51'.repeat(3)
	])('refuses %j', input => {
		expect(d.normalizeMac(input)).toBeNull();
		expect(typeof d.validateMac(input)).toBe('string');
	});

	it('says why a well-formed MAC is refused', () => {
		expect(d.validateMac('01:00:5e:00:00:01')).toMatch(/multicast/);
		expect(d.validateMac('00-00-00-00-00-00')).toMatch(/not the address of a device/);
		expect(d.validateMac('')).toMatch(/Enter a MAC address/);
		expect(d.validateMac('02:00:00:00:3d')).toMatch(/six pairs of hex digits/);
	});

	it.each(HOSTILE.concat(NOT_STRINGS).map(v => [v]))('refuses hostile or non-string %j', v => {
		expect(d.normalizeMac(v)).toBeNull();
		expect(typeof d.validateMac(v)).toBe('string');
	});
});

describe('names', () => {
	it.each(['nintendo-3ds', 'ps4.living_room', '3ds', 'a', 'a'.repeat(32)])('accepts %j', n => {
		expect(d.validateName(n)).toBeNull();
	});

	it.each(['', '-x', '.x', '_x', 'a b', 'évian', 'a'.repeat(33), ...HOSTILE, ...NOT_STRINGS])('refuses %j', n => {
		expect(typeof d.validateName(n)).toBe('string');
	});

	it('derives a valid section name from the host name, else from the MAC', () => {
		expect(d.deviceName({ name: 'Nintendo 3DS', mac: '02:00:00:00:3d:51' })).toBe('Nintendo-3DS');
		expect(d.deviceName({ name: "Anna's PS4 (living room)", mac: '02:00:00:00:3d:51' })).toBe('Anna-s-PS4-living-room');
		expect(d.deviceName({ name: '  --x"; reboot', mac: '02:00:00:00:3d:51' })).toBe('x-reboot');
		expect(d.deviceName({ name: 'a'.repeat(40), mac: '02:00:00:00:3d:51' })).toBe('a'.repeat(32));
		expect(d.deviceName({ name: '', mac: '02:00:00:00:3d:51' })).toBe('device-3d51');
		expect(d.deviceName({ name: '"""', mac: '02:00:00:00:3d:51' })).toBe('device-3d51');
		expect(d.deviceName({ name: 'ニンテンドー', mac: 'aa:bb:cc:dd:ee:ff' })).toBe('device-eeff');
		for (const n of HOSTILE)
			expect(d.validateName(d.deviceName({ name: n, mac: '02:00:00:00:3d:51' }))).toBeNull();
	});
});

describe('ports (the grammar of validate.uc)', () => {
	it.each([
		['all', 'all'],
		['web', [[80, 80], [443, 443]]],
		['443 80', [[80, 80], [443, 443]]],
		['80 443 8080-8090', [[80, 80], [443, 443], [8080, 8090]]],
		['8080-8090 8085 8091 80 79', [[79, 80], [8080, 8091]]],
		['\t80  443\t', [[80, 80], [443, 443]]],
		['1-65535', [[1, 65535]]],
		[['80', '1000-2000'], [[80, 80], [1000, 2000]]],
		[Array.from({ length: 64 }, (x, i) => String(i + 1)).join(' '), [[1, 64]]]
	])('parses %j', (input, out) => {
		expect(d.parsePorts(input)).toEqual(out);
		expect(d.validatePorts(input)).toBeNull();
	});

	it.each([
		[['80 443']], [[]], [''], [' '], ['ALL'], ['all 80'], ['80,443'], ['80;443'], ['0'], ['65536'], ['080'],
		['80-22'], ['0-10'], ['80 - 90'], ['80-'], ['-80'], ['80-90-100'], ['+80'], ['8e1'], ['0x50'],
		[Array.from({ length: 65 }, (x, i) => String(i + 1)).join(' ')], ['1 '.repeat(400)]
	])('refuses %j', input => {
		expect(d.parsePorts(input)).toBeNull();
		expect(typeof d.validatePorts(input)).toBe('string');
	});

	it.each(HOSTILE.concat(NOT_STRINGS).map(v => [v]))('refuses hostile or non-string %j', v => {
		expect(d.parsePorts(v)).toBeNull();
		expect(typeof d.validatePorts(v)).toBe('string');
		expect(d.portsText(v === null || v === undefined ? 'x' : v)).toBeNull();
	});

	it('names the problem', () => {
		expect(d.validatePorts('80,443')).toMatch(/Separate ports with spaces/);
		expect(d.validatePorts('80 http')).toMatch(/"http" is not a port/);
		expect(d.validatePorts('80 70000')).toMatch(/"70000": ports must be between 1 and 65535/);
		expect(d.validatePorts('080')).toMatch(/without leading zeros/);
		expect(d.validatePorts('80 8090-8080')).toMatch(/In range "8090-8080" the first port must not be above the second/);
		expect(d.validatePorts('8080-8090 9000-8000')).toMatch(/"9000-8000"/);
		expect(d.validatePorts(Array.from({ length: 65 }, (x, i) => String(i + 1)).join(' '))).toMatch(/At most 64/);
		expect(d.validatePorts('')).toMatch(/Enter ports/);
		expect(d.validatePorts('1'.repeat(1000))).toMatch(/Too long/);
		expect(d.validatePorts('80 ' + 'x'.repeat(100))).toMatch(/^"x{24}" is not a port/);
	});

	it('stores the tokens as typed, separated by single spaces', () => {
		expect(d.portsText(undefined)).toBe('all');
		expect(d.portsText('all')).toBe('all');
		expect(d.portsText('web')).toBe('web');
		expect(d.portsText('  443\t80  8080-8090 ')).toBe('443 80 8080-8090');
		expect(d.portsText(['80', '443'])).toBe('80 443');
		expect(d.portsText('80,443')).toBeNull();
	});

	it('maps stored ports to the form choice', () => {
		expect(d.portsChoice(undefined)).toEqual({ choice: 'all', custom: '' });
		expect(d.portsChoice('web')).toEqual({ choice: 'web', custom: '' });
		expect(d.portsChoice('80  443')).toEqual({ choice: 'custom', custom: '80 443' });
		expect(d.portsChoice(['80', '443'])).toEqual({ choice: 'custom', custom: '80 443' });
		/* an invalid stored value shows as typed, so the field can say what is wrong */
		expect(d.portsChoice('80,443')).toEqual({ choice: 'custom', custom: '80,443' });
	});

	it('describes ports in words', () => {
		expect(d.describePorts('all')).toBe('all TCP ports');
		expect(d.describePorts('web')).toBe('web (80, 443)');
		expect(d.describePorts('80 443')).toBe('ports 80 443');
		expect(d.describePorts('80;443')).toBe('invalid ports');
	});
});

describe('merge', () => {
	const section = (name, over) => Object.assign({ '.name': name, '.type': 'device', '.anonymous': true }, over);

	it('lists hosts with the staged device sections winning over the router\'s view', () => {
		const rows = d.merge([Object.assign({}, HOST_3DS, { reterm: true, enabled: true, ports: 'web', section: 'cfg01' })],
			[section('cfg01', { name: '3ds', mac: '02:00:00:00:3d:51', enabled: '0', ports: '80 443 8080' })]);
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({
			key: 'h020000003d51', mac: '02:00:00:00:3d:51', name: 'Nintendo 3DS', ipv4: ['192.168.1.20'],
			vendor: 'Nintendo Co.,Ltd', class: 'handheld', online: true, known: true,
			section: 'cfg01', sections: ['cfg01'], sectionName: '3ds', enabled: false, ports: '80 443 8080', portsValid: true
		});
		expect(rows[0].audit.window).toBe(16384);
	});

	it('treats a host the router reports as re-terminated but without a section here as not configured', () => {
		const [r] = d.merge([Object.assign({}, HOST_3DS, { reterm: true, enabled: true, section: 'cfg01' })], []);
		expect(r).toMatchObject({ section: null, enabled: false, ports: 'all' });
	});

	it('adds configured devices the router does not list, named by their section', () => {
		const rows = d.merge([], [section('cfg02', { name: 'ps4', mac: '02:00:00:00:00:04' }),
			section('cfg03', { name: 'old', mac: '02:00:00:00:00:05', enabled: '0', ports: 'web' })]);
		expect(rows.map(r => [r.name, r.known, r.online, r.enabled, r.ports, r.class])).toEqual([
			['old', false, false, false, 'web', 'other'],
			['ps4', false, false, true, 'all', 'other']
		]);
	});

	it('groups duplicate sections of one MAC into one row and skips sections with a bad MAC', () => {
		const sections = [section('a', { name: 'x', mac: '02:00:00:00:00:04' }), section('b', { name: 'y', mac: '02:00:00:00:00:04' }),
			section('c', { name: 'z', mac: 'not-a-mac' }), section('e', { name: 'w' }), { '.name': 'main', '.type': 'reterm', enabled: '1' }];
		const rows = d.merge([], sections);
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({ section: 'a', sections: ['a', 'b'], name: 'x' });
		expect(d.invalidSections(sections)).toEqual([{ section: 'c', mac: 'not-a-mac' }, { section: 'e', mac: '' }]);
	});

	it('marks stored ports that do not validate', () => {
		const [r] = d.merge([], [section('a', { name: 'x', mac: '02:00:00:00:00:04', ports: '80,443' })]);
		expect(r).toMatchObject({ ports: '80,443', portsValid: false });
	});

	it('checks the router\'s reply field by field', () => {
		const rows = d.merge([
			null, 'x', { mac: 'ff:ff:ff:ff:ff:ff' }, { mac: 42 },
			{ mac: '02:00:00:00:00:07', name: 'tv\u0007\n', ipv4: ['192.168.1.7', 7, '<b>', '1.2.3.4 5'], ipv6: 'fe80::1',
				vendor: 42, class: 'toaster', online: 'yes', audit: [1] },
			{ mac: '02:00:00:00:00:07', name: 'duplicate' }
		], []);
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({ name: 'tv', ipv4: ['192.168.1.7', '<b>'], ipv6: [], vendor: null, class: 'other', online: false, audit: null });
	});

	it('puts consoles and handhelds first, then sorts by name (unnamed last), then by MAC', () => {
		const rows = d.merge([
			{ mac: '02:00:00:00:00:01', name: 'zeta', class: 'other' },
			{ mac: '02:00:00:00:00:02', name: '', class: 'console' },
			{ mac: '02:00:00:00:00:03', name: 'Alpha', class: 'other' },
			{ mac: '02:00:00:00:00:04', name: 'PS4', class: 'console' },
			{ mac: '02:00:00:00:00:05', name: '3DS', class: 'handheld' },
			{ mac: '02:00:00:00:00:06', name: '', class: 'other' },
			{ mac: '02:00:00:00:00:00', name: '', class: 'other' }
		], [section('s', { name: 'beta', mac: '02:00:00:00:00:08' })]);
		expect(rows.map(r => r.name || r.mac)).toEqual(['3DS', 'PS4', '02:00:00:00:00:02', 'Alpha', 'beta', 'zeta',
			'02:00:00:00:00:00', '02:00:00:00:00:06']);
	});
});

describe('plan', () => {
	const rows = () => d.merge([HOST_3DS, { mac: '02:00:00:00:00:04', name: 'PS4', class: 'console' }],
		[{ '.name': 'cfg04', '.type': 'device', name: 'ps4', mac: '02:00:00:00:00:04', ports: 'web' },
		 { '.name': 'cfg05', '.type': 'device', name: 'ps4-dup', mac: '02:00:00:00:00:04', ports: 'web' }]);

	it('adds a section when a host is switched on for the first time', () => {
		expect(d.plan(rows(), { h020000003d51: { enabled: true, ports: '80  443' } })).toEqual({ error: null, ops: [
			{ op: 'add', values: { name: 'Nintendo-3DS', mac: '02:00:00:00:3d:51', enabled: '1', ports: '80 443' } }
		] });
		expect(d.plan(rows(), { h020000003d51: { enabled: true, ports: null } }).ops[0].values.ports).toBe('all');
	});

	it('writes nothing for a host left off, whatever its ports say', () => {
		expect(d.plan(rows(), { h020000003d51: { enabled: false, ports: 'web' } })).toEqual({ error: null, ops: [] });
	});

	it('sets only what changed, on every section of the MAC', () => {
		expect(d.plan(rows(), { h020000000004: { enabled: true, ports: 'web' } }).ops).toEqual([]);
		expect(d.plan(rows(), { h020000000004: { enabled: false, ports: null } }).ops).toEqual([
			{ op: 'set', section: 'cfg04', values: { enabled: '0' } },
			{ op: 'set', section: 'cfg05', values: { enabled: '0' } }
		]);
		expect(d.plan(rows(), { h020000000004: { enabled: true, ports: 'all' } }).ops).toEqual([
			{ op: 'set', section: 'cfg04', values: { ports: 'all' } },
			{ op: 'set', section: 'cfg05', values: { ports: 'all' } }
		]);
	});

	it('removes every section of a removed device', () => {
		expect(d.plan(rows(), { h020000000004: { enabled: true, ports: 'x', remove: true } }).ops).toEqual([
			{ op: 'remove', section: 'cfg04' }, { op: 'remove', section: 'cfg05' }
		]);
	});

	it.each(HOSTILE.filter(p => p.trim() !== '').map(p => [p]))('refuses the whole plan for ports %j', ports => {
		const p = d.plan(rows(), { h020000000004: { enabled: false, ports: null }, h020000003d51: { enabled: true, ports } });
		expect(p.ops).toEqual([]);
		expect(p.error).toMatch(/^Nintendo 3DS: /);
	});

	it('ignores rows without edits and edits without rows', () => {
		expect(d.plan(rows(), {})).toEqual({ error: null, ops: [] });
		expect(d.plan(rows(), { hffffffffffff: { enabled: true } })).toEqual({ error: null, ops: [] });
		expect(d.plan([], null)).toEqual({ error: null, ops: [] });
	});
});

describe('badges', () => {
	it('marks consoles and handhelds only', () => {
		expect(d.badge('console')).toEqual({ text: 'Console', cls: 'label reterm-badge reterm-badge-console' });
		expect(d.badge('handheld')).toEqual({ text: 'Handheld', cls: 'label reterm-badge reterm-badge-handheld' });
		expect(d.badge('other')).toBeNull();
		expect(d.badge('"><script>')).toBeNull();
	});
});

describe('auditHint', () => {
	const audit = over => Object.assign({ syn_count: 0, noscale_syns: 0, small_window_syns: 0, window: null, scaling: true,
		ceiling_bps: null, rtt_ms: 130, rwnd_limited_pct: null, recommendation: 'unknown', summary: 'ignored' }, over);

	it('words a 3DS-like device from the numbers, not the router\'s summary', () => {
		expect(d.auditHint(HOST_3DS.audit)).toBe('16 KiB window, no scaling: at most 1 Mbit/s at 130 ms. Re-termination helps.');
	});

	it('computes the ceiling for the RTT asked for', () => {
		expect(d.auditHint(HOST_3DS.audit, 30)).toMatch(/^16 KiB window, no scaling: at most 4.4 Mbit\/s at 30 ms\./);
		expect(d.auditHint(audit({ window: 7168, scaling: false, rtt_ms: 200 }))).toMatch(/^7 KiB window, no scaling: at most 287 kbit\/s at 200 ms\./);
		/* unusable RTTs fall back to the audit's, then 130 ms */
		for (const rtt of [0, -5, 2001, 1.5, '30', NaN])
			expect(d.auditHint(HOST_3DS.audit, rtt)).toMatch(/at 130 ms/);
		expect(d.auditHint(audit({ window: 16384, scaling: false, rtt_ms: 'x' }))).toMatch(/at 130 ms/);
	});

	it('uses the 64 KiB hard limit when scaling is off but no window was seen', () => {
		expect(d.auditHint(audit({ scaling: false, syn_count: 3, noscale_syns: 3, recommendation: 'reterm' })))
			.toBe('No window scaling: at most 4 Mbit/s at 130 ms. Re-termination helps.');
	});

	it('reports the live share of a re-terminated device and mixed SYNs', () => {
		expect(d.auditHint(audit({ window: 131072, scaling: true, rwnd_limited_pct: 62.4, recommendation: 'reterm' })))
			.toBe('128 KiB window with scaling. Its receive window held the router back 62% of the busy time. Re-termination helps.');
		expect(d.auditHint(audit({ syn_count: 10, noscale_syns: 3, scaling: true, recommendation: 'ok' })))
			.toBe('Uses window scaling. 3 of 10 connections without window scaling. The TCP window is not what limits it.');
	});

	it('says when there is not enough data', () => {
		expect(d.auditHint(audit({}))).toBe('Not enough data yet: run an audit while the device downloads.');
		expect(d.auditHint(audit({ recommendation: 'bogus' }))).toMatch(/Not enough data/);
	});

	it('ignores numbers that are not', () => {
		expect(d.auditHint(audit({ window: '16384', scaling: false, rwnd_limited_pct: 250, syn_count: -1, recommendation: 'reterm' })))
			.toBe('No window scaling: at most 4 Mbit/s at 130 ms. Re-termination helps.');
	});

	it('has nothing to say without an audit', () => {
		for (const a of [null, undefined, 'x', 5])
			expect(d.auditHint(a)).toBeNull();
	});

	it('gives a level for styling', () => {
		expect(d.auditLevel(HOST_3DS.audit)).toBe('warning');
		expect(d.auditLevel(audit({ recommendation: 'ok' }))).toBe('success');
		expect(d.auditLevel(audit({}))).toBe('info');
		expect(d.auditLevel(null)).toBeNull();
	});
});

describe('live numbers', () => {
	it('reads device_stats replies by MAC', () => {
		expect(d.liveStats({ devices: [
			{ mac: '02:00:00:00:00:04', sessions: 3, bytes_to: 1048576, bytes_from: 2048, rwnd_limited_pct: 61.5 },
			{ mac: '02:00:00:00:3D:51', sessions: -1, bytes_to: 'x', bytes_from: null, rwnd_limited_pct: 101 },
			{ mac: 'bogus', sessions: 1 }, null
		] })).toEqual({
			'02:00:00:00:00:04': { sessions: 3, bytesTo: 1048576, bytesFrom: 2048, rwndPct: 61.5 },
			'02:00:00:00:3d:51': { sessions: null, bytesTo: null, bytesFrom: null, rwndPct: null }
		});
	});

	it('falls back to the rwnd-limited share of a hosts reply', () => {
		expect(d.liveStats({ hosts: [HOST_3DS, Object.assign({}, HOST_3DS, { mac: '02:00:00:00:00:04',
			audit: Object.assign({}, HOST_3DS.audit, { rwnd_limited_pct: 80 }) })] })).toEqual({
			'02:00:00:00:3d:51': { sessions: null, bytesTo: null, bytesFrom: null, rwndPct: null },
			'02:00:00:00:00:04': { sessions: null, bytesTo: null, bytesFrom: null, rwndPct: 80 }
		});
	});

	it('refuses other replies', () => {
		for (const r of [null, 3, {}, { devices: 'x' }, 'x'])
			expect(d.liveStats(r)).toBeNull();
	});

	it('words them', () => {
		expect(d.liveLines({ sessions: 3, bytesTo: 1048576 * 118, bytesFrom: 2048, rwndPct: 61.5 }))
			.toEqual(['3 open connections', '118 MiB to the device, 2 KiB from it', 'Window-limited 62% of the busy time']);
		expect(d.liveLines({ sessions: 1, bytesTo: 10, bytesFrom: null, rwndPct: null })).toEqual(['1 open connection', '10 B to the device, ? from it']);
		expect(d.liveLines({ sessions: 0, bytesTo: 0, bytesFrom: 0, rwndPct: null })).toEqual(['No open connections']);
		expect(d.liveLines(null)).toEqual(['No open connections']);
		expect(d.liveLines({ sessions: null, bytesTo: null, bytesFrom: null, rwndPct: 80 })).toEqual(['Window-limited 80% of the busy time']);
		expect(d.liveLines({ sessions: null, bytesTo: null, bytesFrom: null, rwndPct: null })).toEqual(['No busy connection right now']);
	});
});
