import { describe, it, expect } from 'vitest';
import { createHarness, click, fire, settleAll, rpcError, ubusStatus } from './harness/luci.js';

const AUDIT_3DS = { syn_count: 12, noscale_syns: 12, small_window_syns: 12, window: 16384, scaling: false,
	ceiling_bps: 1008246, rtt_ms: 130, rwnd_limited_pct: null, recommendation: 'reterm',
	summary: 'English summary from the router' };

const host = over => Object.assign({ mac: '02:00:00:00:00:99', name: '', ipv4: [], ipv6: [], vendor: null, class: 'other',
	reterm: false, enabled: false, ports: 'all', section: null, online: true, audit: null }, over);

/* a LAN: a laptop, a 3DS (audited), a PS4 that is configured (web ports), a Switch offline */
const HOSTS = [
	host({ mac: '02:00:00:00:00:99', name: 'laptop', ipv4: ['192.168.1.30'], ipv6: ['2001:db8::30'] }),
	host({ mac: '02:00:00:00:3d:51', name: 'Nintendo 3DS', ipv4: ['192.168.1.20'], vendor: 'Nintendo Co.,Ltd',
		class: 'handheld', audit: AUDIT_3DS }),
	host({ mac: '02:00:00:00:00:04', name: 'ps4', ipv4: ['192.168.1.4'], vendor: 'Sony Interactive Entertainment Inc.',
		class: 'console', reterm: true, enabled: true, ports: 'web', section: 'cfg0a' }),
	host({ mac: '02:00:00:00:00:05', name: 'switch', vendor: 'Nintendo Co.,Ltd', class: 'console', online: false })
];

const MAIN = { '.type': 'reterm', enabled: '1', port: '15001' };
const PS4 = { '.type': 'device', '.anonymous': true, name: 'ps4', mac: '02:00:00:00:00:04', enabled: '1', ports: 'web' };

const K = { laptop: 'h020000000099', n3ds: 'h020000003d51', ps4: 'h020000000004', sw: 'h020000000005' };

async function page(opts = {}) {
	const h = createHarness();
	h.uci.seed('reterm', opts.uci || { main: MAIN, cfg0a: PS4 });
	if (opts.hosts !== null)
		h.rpc.handle('reterm', 'hosts', typeof opts.hosts === 'function' ? opts.hosts : () => ({ hosts: opts.hosts || HOSTS }));
	if (opts.stats !== null)
		h.rpc.handle('reterm', 'device_stats', opts.stats || (() => ({ devices: [
			{ mac: '02:00:00:00:00:04', sessions: 3, bytes_to: 123 * 1048576, bytes_from: 2048, rwnd_limited_pct: 61.5 }] })));
	const v = await h.require('view.reterm.devices');
	const root = await h.rendered(v);
	const map = h.form.maps[0];
	const hostsSection = map.children[1];
	const keys = () => hostsSection.cfgsections();
	const cell = (key, opt) => h.text(root.querySelector(`[data-field="cbid.reterm.${key}.${opt}"]`));
	const w = (key, opt) => h.form.widget(map, key, opt);
	const set = (key, opt, value) => h.form.setValue(map, key, opt, value);
	const notes = () => h.text(root.querySelector('.reterm-devices-notes'));
	const live = key => h.text(root.querySelector(`#reterm-live-${key}`));
	/* LuCI's Textfield: a frame with the id, the <input> as widget.<id> */
	const add = async (mac, name = '') => {
		await h.type(root.querySelector('[id="widget.reterm-add-mac"]'), mac);
		await h.type(root.querySelector('[id="widget.reterm-add-name"]'), name);
		await click(root.querySelector('#reterm-add-button'));
		return h.text(root.querySelector('#reterm-add-error'));
	};
	return { h, v, root, map, keys, cell, w, set, notes, live, add };
}

describe('rendering', () => {
	it('declares the global switch and one table row per host with virtual fields', async () => {
		const { h, map } = await page();
		const d = h.form.describe(map);
		expect(d.config).toBe('reterm');
		expect(d.sections.map(s => [s.type, s.section])).toEqual([['reterm', 'main'], ['device', undefined]]);
		expect(map.children[0]).toBeInstanceOf(h.form.NamedSection);
		expect(map.children[1]).toBeInstanceOf(h.form.TableSection);
		expect(d.sections[1]).toMatchObject({ anonymous: true, addremove: false });
		expect(d.sections[0].options.map(o => [o.name, o.kind, o.rmempty])).toEqual([['enabled', 'FlagValue', false]]);
		const opts = Object.fromEntries(d.sections[1].options.map(o => [o.name, o]));
		expect(Object.keys(opts)).toEqual(['_host', '_audit', 'enabled', 'ports', '_ports_custom', '_live', '_remove']);
		expect(opts.ports.choices).toEqual(['all', 'web', 'custom']);
		expect(opts.ports.depends).toEqual([{ enabled: '1' }]);
		expect(opts._ports_custom.depends).toEqual([{ enabled: '1', ports: 'custom' }]);
		expect(opts._ports_custom.hasValidate).toBe(true);
	});

	it('lists consoles and handhelds first, with badges, addresses, vendors and offline marks', async () => {
		const { root, keys, cell } = await page();
		expect(keys()).toEqual([K.n3ds, K.ps4, K.sw, K.laptop]);
		expect(cell(K.n3ds, '_host')).toBe('Nintendo 3DS Handheld02:00:00:00:3d:51192.168.1.20Nintendo Co.,Ltd');
		expect(cell(K.ps4, '_host')).toMatch(/^ps4 Console02:00:00:00:00:04192.168.1.4Sony/);
		expect(cell(K.sw, '_host')).toMatch(/^switch Console offline02:00:00:00:00:05No address known/);
		expect(cell(K.laptop, '_host')).toBe('laptop02:00:00:00:00:99192.168.1.30, 2001:db8::30');
		expect(root.querySelectorAll('.reterm-badge-console')).toHaveLength(2);
		expect(root.querySelectorAll('.reterm-badge-handheld')).toHaveLength(1);
	});

	it('labels the inputs of the add box (LuCI\'s Textfield puts its id on a frame, the input is widget.<id>)', async () => {
		const { root } = await page();
		const labels = [...root.querySelectorAll('#reterm-add label')];
		expect(labels.map(l => l.textContent)).toEqual(['MAC address', 'Name']);
		expect(labels.map(l => l.control && l.control.tagName)).toEqual(['INPUT', 'INPUT']);
	});

	it('words the audit from its numbers, not the router\'s English summary', async () => {
		const { h, root } = await page();
		const hint = key => h.text(root.querySelector(`#reterm-audit-${key} .reterm-hint`));
		expect(hint(K.n3ds)).toBe('16 KiB window, no scaling: at most 1 Mbit/s at 130 ms. Re-termination helps.');
		expect(root.querySelector(`[data-field="cbid.reterm.${K.n3ds}._audit"] .reterm-hint-warning`)).not.toBeNull();
		expect(hint(K.laptop)).toBe('No audit data yet.');
		expect(h.text(root)).not.toMatch(/English summary/);
	});
});

/* until the page is idle */
const flush = () => settleAll();

describe('the window audit from the page', () => {
	const RESULT = (running, audit) => ({ running, remaining_s: running ? 540 : null, rtt_ms: 130,
		devices: [ { mac: '02:00:00:00:00:99', name: 'laptop', audit } ] });

	it('Audit starts it for 10 minutes, the row follows that device until it ends, the result stays', async () => {
		const { h, root } = await page();
		let result = RESULT(true, null);
		h.rpc.handle('reterm', 'audit_start', () => ({ running: true, lan_device: 'br-lan', minutes: 10, remaining_s: 600 }));
		h.rpc.handle('reterm', 'audit_result', () => result);
		const box = () => root.querySelector(`#reterm-audit-${K.laptop}`);
		expect(box().querySelector('.reterm-audit-start').textContent).toBe('Audit');
		await click(box().querySelector('.reterm-audit-start'));
		await flush();
		expect(h.rpc.calls.filter(c => c.method === 'audit_start').map(c => [ c.object, c.params ]))
			.toEqual([ [ 'reterm', { minutes: 10 } ] ]);
		expect(h.text(box())).toMatch(/Auditing, 10 min 0 s left: use the device now/);
		expect(box().querySelector('.reterm-audit-start')).toBeNull();
		await h.poll.tick(5);
		expect(h.rpc.calls.filter(c => c.method === 'audit_result').map(c => c.params)).toEqual([ { mac: '02:00:00:00:00:99' } ]);
		expect(h.text(box())).toMatch(/Auditing, 9 min 0 s left/);
		result = RESULT(false, AUDIT_3DS);
		await h.poll.tick(5);
		expect(h.text(box().querySelector('.reterm-hint'))).toBe('16 KiB window, no scaling: at most 1 Mbit/s at 130 ms. Re-termination helps.');
		expect(box().querySelector('.reterm-audit-start').textContent).toBe('Audit again');
		await h.poll.tick(5);
		expect(h.rpc.calls.filter(c => c.method === 'audit_result')).toHaveLength(2);
	});

	it('re-termination off: says the audit needs it applied, nothing followed', async () => {
		const { h, root } = await page();
		h.rpc.handle('reterm', 'audit_start', () => ({ error: 'not_running', message: 'reterm is disabled' }));
		const box = () => root.querySelector(`#reterm-audit-${K.laptop}`);
		await click(box().querySelector('.reterm-audit-start'));
		await flush();
		expect(h.text(box().querySelector('.reterm-audit-error'))).toMatch(/needs re-termination on and applied/);
		await h.poll.tick(5);
		expect(h.rpc.calls.filter(c => c.method === 'audit_result')).toEqual([]);
	});

	it('shows the saved or staged state of each device, not what the router last applied', async () => {
		const { w, cell, map } = await page({ uci: { main: MAIN, cfg0a: Object.assign({}, PS4, { ports: '80 443 8080-8090' }) } });
		expect(w(K.ps4, 'enabled').checked).toBe(true);
		expect(w(K.ps4, 'ports').value).toBe('custom');
		expect(w(K.ps4, '_ports_custom').value).toBe('80 443 8080-8090');
		expect(map.children[1].children.find(o => o.option === '_ports_custom').isActive(K.ps4)).toBe(true);
		expect(w(K.n3ds, 'enabled').checked).toBe(false);
		expect(map.children[1].children.find(o => o.option === 'ports').isActive(K.n3ds)).toBe(false);
		expect(cell(K.ps4, '_remove')).toBe('Remove');
		expect(cell(K.n3ds, '_remove')).toBe('');
	});

	it('lists configured devices the router does not know, marked as not seen', async () => {
		const { keys, cell, w } = await page({ uci: { main: MAIN, cfg0a: PS4,
			cfg0b: { '.type': 'device', name: 'wiiu', mac: '02:00:00:00:00:0b', enabled: '0' } } });
		expect(keys()).toContain('h02000000000b');
		expect(cell('h02000000000b', '_host')).toMatch(/^wiiu not seen02:00:00:00:00:0b/);
		expect(w('h02000000000b', 'enabled').checked).toBe(false);
	});

	it('says how to get devices when none is known', async () => {
		const { notes, root } = await page({ hosts: [], uci: { main: MAIN } });
		expect(notes()).toMatch(/No LAN devices known yet/);
		expect(notes()).toMatch(/add one by its MAC address below/);
		expect(root.querySelector('#reterm-add-mac')).not.toBeNull();
	});

	it('points out device sections without a valid MAC', async () => {
		const { notes, keys } = await page({ uci: { main: MAIN, cfg0a: PS4, bad: { '.type': 'device', name: 'x', mac: 'ff:ff:ff:ff:ff:ff' } } });
		expect(notes()).toMatch(/The device section "bad" has no valid MAC address \(ff:ff:ff:ff:ff:ff\) and is ignored/);
		expect(keys()).not.toContain('hffffffffffff');
	});
});

describe('saving', () => {
	it('stages nothing for an untouched page', async () => {
		const { h, v } = await page();
		await v.handleSave();
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('adds a device section when a host is switched on, named from its host name', async () => {
		const { h, v, set } = await page();
		set(K.n3ds, 'enabled', '1');
		await v.handleSave();
		const [, sid] = h.uci.stagedChanges().reterm[0];
		expect(h.uci.stagedChanges().reterm).toEqual([['add', sid, 'device'], ['set', sid, 'name', 'Nintendo-3DS'],
			['set', sid, 'mac', '02:00:00:00:3d:51'], ['set', sid, 'enabled', '1'], ['set', sid, 'ports', 'all']]);
	});

	it('stores the ports choice: web, or a custom list as typed with single spaces', async () => {
		const { h, v, set } = await page();
		set(K.n3ds, 'enabled', '1');
		set(K.n3ds, 'ports', 'web');
		set(K.laptop, 'enabled', '1');
		set(K.laptop, 'ports', 'custom');
		set(K.laptop, '_ports_custom', ' 443  80 8080-8090 ');
		await v.handleSave();
		const devs = Object.values(h.uci.dump('reterm')).filter(s => s['.type'] === 'device');
		expect(devs.map(s => [s.name, s.mac, s.enabled, s.ports])).toEqual([
			['ps4', '02:00:00:00:00:04', '1', 'web'],
			['Nintendo-3DS', '02:00:00:00:3d:51', '1', 'web'],
			['laptop', '02:00:00:00:00:99', '1', '443 80 8080-8090']
		]);
	});

	it('switches a device off by setting enabled 0, keeping its section and ports', async () => {
		const { h, v, set } = await page();
		set(K.ps4, 'enabled', '0');
		await v.handleSave();
		expect(h.uci.stagedChanges().reterm).toEqual([['set', 'cfg0a', 'enabled', '0']]);
	});

	it('changes only the ports of a configured device', async () => {
		const { h, v, set } = await page();
		set(K.ps4, 'ports', 'all');
		await v.handleSave();
		expect(h.uci.stagedChanges().reterm).toEqual([['set', 'cfg0a', 'ports', 'all']]);
	});

	it('never turns the global switch on by itself', async () => {
		const { h, v, set } = await page({ uci: { main: Object.assign({}, MAIN, { enabled: '0' }) } });
		set(K.n3ds, 'enabled', '1');
		await v.handleSave();
		expect(h.uci.dump('reterm').main.enabled).toBe('0');
	});

	it('applies everything with rollback on Save & Apply', async () => {
		const { h, set, root } = await page();
		set(K.ps4, 'enabled', '0');
		set(K.n3ds, 'enabled', '1');
		await click(root.querySelector('.cbi-button-apply'));
		expect(h.ui.applied).toEqual([{ checked: true }]);
		expect(h.uci.dump('reterm').cfg0a.enabled).toBe('0');
	});

	it.each([
		['a comma list', '80,443', /Separate ports with spaces/],
		['a word', 'http', /"http" is not a port/],
		['port 0', '0', /between 1 and 65535/],
		['a reversed range', '9000-8000', /first port must not be above the second/],
		['an injection', '80; flush ruleset', /is not a port/],
		/* a text <input> drops line breaks (the browser's value sanitization): 80443 */
		['a newline', '80\n443', /between 1 and 65535/],
		['braces', '{80}', /is not a port/],
		['quotes', '"80"', /is not a port/],
		['an empty list', '', /non-empty value/],
		['65 ports', Array.from({ length: 65 }, (x, i) => String(i + 1)).join(' '), /At most 64/]
	])('refuses %s and stages nothing', async (name, ports, message) => {
		const { h, v, set } = await page();
		set(K.ps4, 'enabled', '0');
		set(K.n3ds, 'enabled', '1');
		set(K.n3ds, 'ports', 'custom');
		set(K.n3ds, '_ports_custom', ports);
		await expect(v.handleSave()).rejects.toThrow(message);
		expect(h.uci.stagedChanges()).toEqual({});
		expect(h.uci.pendingChanges()).toEqual({});
		expect(h.ui.modals.map(m => m.title)).toEqual(['Save error']);
	});

	it('does not validate the ports of a device that stays off', async () => {
		const { h, v } = await page({ uci: { main: MAIN, cfg0a: Object.assign({}, PS4, { enabled: '0', ports: '80,443' }) } });
		await v.handleSave();
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('removes a configured device on save, with undo before', async () => {
		const { h, v, root, cell } = await page();
		await click(root.querySelector(`#reterm-remove-${K.ps4} button`));
		expect(cell(K.ps4, '_remove')).toBe('Removed when saved Undo');
		expect(h.uci.stagedChanges()).toEqual({});
		await click(root.querySelector(`#reterm-remove-${K.ps4} button`));
		expect(cell(K.ps4, '_remove')).toBe('Remove');
		await click(root.querySelector(`#reterm-remove-${K.ps4} button`));
		await v.handleSave();
		expect(h.uci.stagedChanges().reterm).toEqual([['remove', 'cfg0a']]);
		/* the host stays listed, now unconfigured */
		expect(cell(K.ps4, '_remove')).toBe('');
		expect(h.form.widget(h.form.maps[0], K.ps4, 'enabled').checked).toBe(false);
	});

	it('forgets remove marks on Reset', async () => {
		const { h, v, root } = await page();
		await click(root.querySelector(`#reterm-remove-${K.ps4} button`));
		await v.handleReset();
		await v.handleSave();
		expect(h.uci.stagedChanges()).toEqual({});
	});
});

describe('the global switch', () => {
	const OFF = { main: Object.assign({}, MAIN, { enabled: '0' }), cfg0a: PS4 };

	it('asks to switch re-termination on while it is off and a device is on', async () => {
		const { notes, root } = await page({ uci: OFF });
		expect(notes()).toMatch(/Re-termination is switched off, so the devices switched on below are not re-terminated yet/);
		expect(root.querySelector('#reterm-main-note button')).not.toBeNull();
	});

	it('says nothing while no device is on, and follows the toggles', async () => {
		const { notes, set } = await page({ uci: { main: Object.assign({}, MAIN, { enabled: '0' }) } });
		expect(notes()).toBe('');
		set(K.n3ds, 'enabled', '1');
		expect(notes()).toMatch(/Re-termination is switched off/);
		set(K.n3ds, 'enabled', '0');
		expect(notes()).toBe('');
	});

	it('ticks the switch when asked, saved with everything else', async () => {
		const { h, v, root, notes, w } = await page({ uci: OFF });
		await click(root.querySelector('#reterm-main-note button'));
		expect(w('main', 'enabled').checked).toBe(true);
		expect(notes()).toBe('');
		expect(h.uci.stagedChanges()).toEqual({});
		await v.handleSave();
		expect(h.uci.stagedChanges().reterm).toEqual([['set', 'main', 'enabled', '1']]);
	});

	it('creates the main section when the config lacks it (staged on save only)', async () => {
		const { h, v, w } = await page({ uci: { cfg0a: PS4 } });
		expect(w('main', 'enabled').checked).toBe(false);
		h.form.setValue(h.form.maps[0], 'main', 'enabled', '1');
		await v.handleSave();
		expect(h.uci.dump('reterm').main).toMatchObject({ '.type': 'reterm', enabled: '1' });
	});
});

describe('adding by MAC', () => {
	it('stages a new device at once, switched on for all ports, and lists it', async () => {
		const { h, add, keys, w, root } = await page();
		expect(await add(' 02-00-00-00-0A-0B ', 'wiiu')).toBe('');
		const staged = h.uci.stagedChanges().reterm;
		const sid = staged[0][1];
		expect(staged).toEqual([['add', sid, 'device'], ['set', sid, 'name', 'wiiu'], ['set', sid, 'mac', '02:00:00:00:0a:0b'],
			['set', sid, 'enabled', '1'], ['set', sid, 'ports', 'all']]);
		expect(keys()).toContain('h020000000a0b');
		expect(w('h020000000a0b', 'enabled').checked).toBe(true);
		expect(root.querySelector('[id="widget.reterm-add-mac"]').value).toBe('');
	});

	it('names it after its MAC when no name is given', async () => {
		const { h, add } = await page();
		await add('02:00:00:00:0a:0b');
		expect(Object.values(h.uci.dump('reterm')).find(s => s.mac === '02:00:00:00:0a:0b').name).toBe('device-0a0b');
	});

	it('keeps the other unsaved edits of the form, as LuCI\'s Add does', async () => {
		const { h, set, add } = await page();
		set(K.ps4, 'ports', 'all');
		await add('02:00:00:00:0a:0b');
		expect(h.uci.dump('reterm').cfg0a.ports).toBe('all');
	});

	it.each([
		['an empty MAC', '', '', /Enter a MAC address/],
		['a short MAC', '02:00:00:00:0a', '', /six pairs of hex digits/],
		['a multicast MAC', '01:00:5e:00:00:01', '', /multicast/],
		['the zero MAC', '00:00:00:00:00:00', '', /not the address of a device/],
		['an injected MAC', '02:00:00:00:0a:0b; reboot', '', /six pairs/],
		['a MAC in braces', '{02:00:00:00:0a:0b}', '', /six pairs/],
		['a quoted name', '02:00:00:00:0a:0b', 'wii"u', /Name: Use letters/],
		['a name with a semicolon', '02:00:00:00:0a:0b', 'wiiu;reboot', /Name: Use letters/],
		['an over-long name', '02:00:00:00:0a:0b', 'x'.repeat(33), /Name: At most 32/],
		['a listed host', '02:00:00:00:3D:51', '', /02:00:00:00:3d:51 is already in the list: switch on "Re-terminate" in its row/],
		['a configured device', '02:00:00:00:00:04', '', /02:00:00:00:00:04 is already in the list\./]
	])('refuses %s and stages nothing', async (name, mac, devname, message) => {
		const { h, add, keys } = await page();
		const before = keys();
		expect(await add(mac, devname)).toMatch(message);
		expect(h.uci.stagedChanges()).toEqual({});
		expect(h.uci.pendingChanges()).toEqual({});
		expect(keys()).toEqual(before);
	});

	it('stores no line break typed into the fields (a text input drops them)', async () => {
		const { h, add } = await page();
		expect(await add('02:00:00:00:0a:0b\n', 'wii\nu')).toBe('');
		const dev = Object.values(h.uci.dump('reterm')).find(x => x.mac === '02:00:00:00:0a:0b');
		expect(dev.name).toBe('wiiu');
	});

	it('refuses while a field of the list is invalid', async () => {
		const { h, set, add } = await page();
		set(K.ps4, 'ports', 'custom');
		set(K.ps4, '_ports_custom', '80;443');
		expect(await add('02:00:00:00:0a:0b')).toMatch(/Correct the marked fields/);
		expect(h.uci.stagedChanges()).toEqual({});
		expect(h.uci.pendingChanges()).toEqual({});
	});
});

describe('live numbers', () => {
	it('polls device_stats while re-terminated devices are listed and updates the numbers', async () => {
		let n = 0;
		const { h, live } = await page({ stats: () => ({ devices: [{ mac: '02:00:00:00:00:04', sessions: ++n, bytes_to: n * 1048576,
			bytes_from: 4096, rwnd_limited_pct: 10 * n }] }) });
		expect(h.poll.queue).toHaveLength(1);
		/* LuCI's poll runs a new entry at once */
		expect(live(K.ps4)).toBe('1 open connection1 MiB to the device, 4 KiB from itWindow-limited 10% of the busy time');
		expect(live(K.n3ds)).toBe('');
		await h.poll.tick(5);
		expect(live(K.ps4)).toBe('2 open connections2 MiB to the device, 4 KiB from itWindow-limited 20% of the busy time');
		expect(h.rpc.callsTo('reterm', 'device_stats')).toHaveLength(2);
	});

	it('does not poll when no device is re-terminated', async () => {
		const { h } = await page({ uci: { main: MAIN } });
		expect(h.poll.queue).toHaveLength(0);
	});

	it('starts polling once a device is added', async () => {
		const { h, add } = await page({ uci: { main: MAIN } });
		await add('02:00:00:00:0a:0b');
		expect(h.poll.queue).toHaveLength(1);
	});

	it('shows "No open connections" for a device without sessions', async () => {
		const { live } = await page({ stats: () => ({ devices: [] }) });
		expect(live(K.ps4)).toBe('No open connections');
	});

	it('falls back to the hosts reply when the router has no device_stats', async () => {
		const hosts = HOSTS.map(x => x.mac === '02:00:00:00:00:04' ? Object.assign({}, x, { audit: Object.assign({}, AUDIT_3DS, { rwnd_limited_pct: 72 }) }) : x);
		const { h, live } = await page({ hosts, stats: () => ubusStatus(3) });
		expect(live(K.ps4)).toBe('Window-limited 72% of the busy time');
		await h.poll.tick(5);
		expect(h.rpc.callsTo('reterm', 'device_stats')).toHaveLength(1);
		expect(h.rpc.callsTo('reterm', 'hosts')).toHaveLength(3);
		expect(h.ui.notifications).toEqual([]);
	});

	it('reports a failing poll once, shows the numbers as unavailable and recovers', async () => {
		let fail = true;
		const { h, live } = await page({ stats: () => {
			/* no answer at all: LuCI rejects the batch */
			if (fail) throw new Error('connection lost');
			return { devices: [{ mac: '02:00:00:00:00:04', sessions: 2 }] };
		} });
		await h.poll.tick(5);
		expect(live(K.ps4)).toBe('unavailable');
		expect(h.ui.notifications.map(n => n.text)).toEqual([
			'Live numbers of the re-terminated devices are unavailable: XHR request aborted by browser. Retrying while this page is open.']);
		fail = false;
		await h.poll.tick(5);
		expect(live(K.ps4)).toBe('2 open connections');
	});
});

describe('when the API fails', () => {
	it('shows a notification with a retry button and still lists the configured devices', async () => {
		let up = false;
		/* rpcd has not loaded reterm's plugin (yet): uhttpd cannot find the object */
		const { h, keys, cell, notes } = await page({ hosts: () => {
			if (!up) return rpcError(-32000, 'Object not found');
			return { hosts: HOSTS };
		} });
		expect(h.ui.notifications).toHaveLength(1);
		const [n] = h.ui.notifications;
		expect(n.title).toBe('Cannot list the LAN devices');
		expect(n.classes).toEqual(['danger']);
		expect(n.text).toMatch(/The router did not answer "reterm hosts": RPC call to reterm\/hosts failed with error -32000: Object not found\. Devices/);
		/* LuCI appends the stack trace to the message of every error it raises */
		expect(n.text).not.toMatch(/ at \S+ \(http/);
		expect(keys()).toEqual([K.ps4]);
		expect(cell(K.ps4, '_host')).not.toMatch(/offline|not seen/);
		expect(notes()).not.toMatch(/No LAN devices known yet/);

		up = true;
		await click(n.node.querySelector('button'));
		expect(keys()).toEqual([K.n3ds, K.ps4, K.sw, K.laptop]);
		expect(cell(K.n3ds, '_audit')).toMatch(/^16 KiB window/);
		/* the retry that worked took the notification away */
		expect(h.ui.notifications).toEqual([]);
	});

	it('notifies again when the retry fails too', async () => {
		const { h } = await page({ hosts: () => rpcError(-32000, 'Object not found') });
		const [first] = h.ui.notifications;
		await click(first.node.querySelector('button'));
		/* the old notification gives way to the new one */
		expect(h.ui.notifications).toHaveLength(1);
		expect(h.ui.notifications[0].node).not.toBe(first.node);
		expect(h.ui.notifications[0].text).toMatch(/: RPC call to reterm\/hosts failed with error -32000: Object not found\. Devices/);
	});

	it.each([
		['a ubus status', h => h.rpc.status(6), /ubus status 6 \(Permission denied\)/],
		['an error reply', () => ({ error: 'internal', message: 'cannot read the leases' }), /cannot read the leases/],
		['a reply without hosts', () => ({ hosts: 'x' }), /unexpected reply/]
	])('explains %s', async (name, reply, message) => {
		const h = createHarness();
		h.uci.seed('reterm', { main: MAIN });
		h.rpc.handle('reterm', 'hosts', () => reply(h));
		const v = await h.require('view.reterm.devices');
		await h.rendered(v);
		expect(h.ui.notifications).toHaveLength(1);
		expect(h.ui.notifications[0].text).toMatch(message);
	});

	it('never calls the scripting methods', async () => {
		const { h, v, set, add } = await page();
		set(K.n3ds, 'enabled', '1');
		await v.handleSave();
		await add('02:00:00:00:0a:0b');
		expect(h.rpc.calls.map(c => c.method).filter(m => /^device_(add|set|remove)$|^apply$/.test(m))).toEqual([]);
	});
});
