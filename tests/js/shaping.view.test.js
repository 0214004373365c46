import { describe, it, expect } from 'vitest';
import { createHarness } from './harness/luci.js';
import { aclViolations } from './harness/acl.js';

const DEFAULTS_16 = '[ -z "$INGRESS_CAKE_OPTS" ] && INGRESS_CAKE_OPTS="diffserv3"\n';
const DEFAULTS_17 = '[ -z "$INGRESS_CAKE_OPTS" ] && INGRESS_CAKE_OPTS="diffserv3 nat"\n';

/*
 * reterm wan_info as the API answers it (tests/ucode/api: the same
 * shape): DHCP (or PPPoE) WAN on eth1, wan6 on @wan, br-lan with
 * lan1/lan2. down: the WAN is down (no layer 3 device, no default route).
 */
function wanInfo(opts = {}) {
	const proto = opts.proto || 'dhcp', up = !opts.down;
	return {
		interfaces: [
			{ name: 'lan', proto: 'static', device: 'br-lan', l3device: 'br-lan', default_route: false, speed: null, zone: 'lan' },
			{ name: 'wan', proto, device: 'eth1', l3device: up ? (proto === 'pppoe' ? 'pppoe-wan' : 'eth1') : null,
				default_route: up, speed: up ? 1000 : null, zone: 'wan' },
			{ name: 'wan6', proto: 'dhcpv6', device: null, l3device: null, default_route: false, speed: null, zone: 'wan' }
		],
		bridges: { 'br-lan': ['lan1', 'lan2'] },
		offload: !!opts.offload, offload_hw: !!opts.offload
	};
}

/* a router: sqm config, wan_info, sqm's files */
function router(h, opts = {}) {
	if (opts.sqm !== null)
		h.uci.seed('sqm', opts.sqm || {});
	h.rpc.handle('reterm', 'wan_info', opts.wanInfo || wanInfo(opts));
	if (opts.qdiscs !== null)
		for (const q of opts.qdiscs || ['fq_codel', 'cake'])
			h.fs.files[`/var/run/sqm/available_qdiscs/${q}`] = '';
	h.fs.files['/usr/lib/sqm/defaults.sh'] = opts.defaults || DEFAULTS_16;
}

async function page(opts = {}) {
	const h = createHarness();
	router(h, opts);
	const v = await h.require('view.reterm.shaping');
	const root = await h.rendered(v);
	const map = h.form.maps[0] || null;
	const sid = map ? map.children[0].cfgsections()[0] : null;
	const val = (opt, s = sid) => h.form.widget(map, s, opt).value;
	const checked = (opt, s = sid) => h.form.widget(map, s, opt).checked;
	/* the <pre> keeps one command per line */
	const preview = (s = sid) => {
		const pre = root.querySelector(`#reterm-preview-${s} pre`);
		return pre ? pre.textContent + '\n' : h.text(root.querySelector(`#reterm-preview-${s}`));
	};
	const status = (s = sid) => h.text(root.querySelector(`#reterm-status-${s}`));
	return { h, v, root, map, sid, val, checked, preview, status };
}

const QUEUE = over => Object.assign({ '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '18000',
	qdisc: 'cake', script: 'piece_of_cake.qos', linklayer: 'none', qdisc_advanced: '1', qdisc_really_really_advanced: '1',
	iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' }, over);

describe('rendering', () => {
	it('declares typed fields with help texts on one queue section per WAN device', async () => {
		const { h, map } = await page();
		const d = h.form.describe(map);
		expect(d.config).toBe('sqm');
		expect(d.sections).toHaveLength(1);
		expect(d.sections[0]).toMatchObject({ kind: 'TypedSection', type: 'queue', anonymous: true, addremove: false });
		const opts = Object.fromEntries(d.sections[0].options.map(o => [o.name, o]));
		expect(Object.keys(opts)).toEqual(['_status', 'enabled', 'interface', 'download', 'upload', '_rtt', '_rtt_custom',
			'_overhead', '_advanced', '_overhead_bytes', '_mpu', '_vlan', '_nat', '_isolation', '_diffserv', '_ack_filter',
			'_extra_ingress', '_extra_egress', '_autorate', '_ar_dl_min', '_ar_dl_base', '_ar_dl_max',
			'_ar_ul_min', '_ar_ul_base', '_ar_ul_max', '_ar_delay_ms', '_preview']);
		for (const o of d.sections[0].options.filter(o => o.name !== '_status'))
			expect(o.description, o.name).not.toBe('');
		expect(opts._rtt.choices).toEqual(['lan', 'metro', 'regional', 'internet', 'oceanic', 'satellite', 'custom']);
		expect(opts._rtt.description).toMatch(/98th percentile/);
		expect(opts._rtt.description).toMatch(/280 ms/);
		expect(opts._rtt_custom.depends).toEqual([{ _rtt: 'custom' }]);
		expect(opts._overhead.choices).toEqual(['ethernet', 'docsis', 'pppoe-ptm', 'bridged-ptm', 'atm', 'raw', 'none']);
		expect(opts._isolation.choices).toEqual(['dual', 'triple-isolate', 'flows']);
		expect(opts._diffserv.choices).toEqual(['besteffort', 'diffserv3', 'diffserv4']);
		expect(opts._ack_filter.description).toMatch(/10 times/);
		expect(opts.download.description).toMatch(/90 %/);
		expect(opts.download.description).toMatch(/85–95 %/);
		expect(opts.interface.choices).toEqual(['eth1']);
	});

	it('creates a disabled queue with the recommended CAKE settings when the WAN device has none', async () => {
		const { h, sid, val, checked, preview, status } = await page();
		expect(sid).toMatch(/^new/);
		expect(h.uci.get('sqm', sid)).toMatchObject({ enabled: '0', interface: 'eth1', qdisc: 'cake', script: 'piece_of_cake.qos',
			linklayer: 'none', qdisc_advanced: '1', qdisc_really_really_advanced: '1',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' });
		expect(checked('enabled')).toBe(false);
		expect(val('interface')).toBe('eth1');
		expect(val('download')).toBe('');
		expect([val('_rtt'), val('_overhead'), val('_isolation'), val('_diffserv')]).toEqual(['internet', 'ethernet', 'dual', 'besteffort']);
		expect(checked('_nat')).toBe(true);
		expect(checked('_ack_filter')).toBe(false);
		expect(status()).toMatch(/nothing is shaped/);
		expect(status()).toMatch(/disabled/);
		expect(preview()).toBe('ip link add name ifb4eth1 type ifb\n');
		/* nothing is staged until the user saves */
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('uses pppoe-wan when the WAN protocol is PPPoE', async () => {
		const { h, sid, val } = await page({ proto: 'pppoe' });
		expect(val('interface')).toBe('pppoe-wan');
		expect(h.uci.get('sqm', sid, 'interface')).toBe('pppoe-wan');
	});

	it('finds pppoe-wan from the protocol while the WAN is down', async () => {
		const h = createHarness();
		router(h, { proto: 'pppoe', down: true });
		const v = await h.require('view.reterm.shaping');
		await h.rendered(v);
		const map = h.form.maps[0];
		expect(h.form.widget(map, map.children[0].cfgsections()[0], 'interface').value).toBe('pppoe-wan');
	});

	it('shows an existing section: rates in Mbit/s, opts parsed into the fields, extra words kept', async () => {
		const { sid, val, checked, preview } = await page({ sqm: { q: QUEUE({ download: '18500', upload: '900',
			iqdisc_opts: 'rtt 45ms dual-dsthost nat pppoe-ptm overhead 34 ingress memlimit 32mb',
			eqdisc_opts: 'rtt 45ms diffserv4 dual-srchost nat ack-filter pppoe-ptm overhead 34 wash', script: 'layer_cake.qos' }) } });
		expect(sid).toBe('q');
		expect([val('download'), val('upload')]).toEqual(['18.5', '0.9']);
		expect([val('_rtt'), val('_rtt_custom'), val('_overhead'), val('_overhead_bytes'), val('_diffserv')])
			.toEqual(['custom', '45', 'pppoe-ptm', '34', 'diffserv4']);
		expect([checked('_advanced'), checked('_nat'), checked('_ack_filter')]).toEqual([true, true, true]);
		expect([val('_extra_ingress'), val('_extra_egress')]).toEqual(['memlimit 32mb', 'wash']);
		expect(preview()).toContain('tc qdisc add dev eth1 root cake bandwidth 900kbit diffserv3 rtt 45ms diffserv4 dual-srchost nat ack-filter pppoe-ptm overhead 34 wash');
		expect(preview()).toContain('tc qdisc add dev ifb4eth1 root cake bandwidth 18500kbit diffserv3 besteffort wash rtt 45ms dual-dsthost nat pppoe-ptm overhead 34 ingress memlimit 32mb');
	});

	it('offers values found in hand-written configs as extra choices', async () => {
		const { h, map, val } = await page({ sqm: { q: QUEUE({ iqdisc_opts: 'datacentre hosts conservative', eqdisc_opts: 'datacentre diffserv8 hosts conservative' }) } });
		const opts = Object.fromEntries(h.form.describe(map).sections[0].options.map(o => [o.name, o.choices]));
		expect(opts._rtt).toContain('datacentre');
		expect(opts._overhead).toContain('conservative');
		expect(opts._isolation).toContain('hosts');
		expect(opts._diffserv).toContain('diffserv8');
		expect([val('_rtt'), val('_overhead'), val('_isolation'), val('_diffserv')]).toEqual(['datacentre', 'conservative', 'hosts', 'diffserv8']);
	});

	it('reports that sqm-scripts is missing instead of a form', async () => {
		const { h, root, map } = await page({ sqm: null });
		expect(map).toBeNull();
		expect(h.text(root)).toMatch(/sqm-scripts is not installed/);
		expect(root.querySelectorAll('.cbi-page-actions button')).toHaveLength(0);
	});

	it('warns about hardware flow offloading and a missing CAKE', async () => {
		const { h, root } = await page({ offload: true, qdiscs: ['fq_codel'] });
		const notes = h.text(root.querySelector('.reterm-shaping-notes'));
		expect(notes).toMatch(/Hardware flow offloading is enabled/);
		expect(notes).toMatch(/CAKE is not available/);
		expect(root.querySelectorAll('.reterm-shaping-notes .alert-message.danger')).toHaveLength(1);
	});

	it('warns when the sqm service is disabled (when LuCI may ask)', async () => {
		const h = createHarness();
		router(h);
		h.rpc.handle('luci', 'getInitList', p => ({ [p.name]: { index: 50, enabled: false } }));
		const v = await h.require('view.reterm.shaping');
		const root = await h.rendered(v);
		expect(h.text(root.querySelector('.reterm-shaping-notes'))).toMatch(/The sqm service is disabled/);
		expect(h.rpc.callsTo('luci', 'getInitList')).toEqual([{ object: 'luci', method: 'getInitList', params: { name: 'sqm' } }]);
	});

	it('says when sqm has not probed the qdiscs yet, and nothing when all is well', async () => {
		expect(h0(await page({ qdiscs: null }))).toMatch(/CAKE support is unknown/);
		expect(h0(await page())).toBe('');
		function h0({ h, root }) { return h.text(root.querySelector('.reterm-shaping-notes')) }
	});

	it('warns when the queue is on a LAN device or a bridge port', async () => {
		const { status, h, map } = await page({ sqm: { q: QUEUE({ interface: 'br-lan' }), p: QUEUE({ interface: 'lan2' }) } });
		expect(status('q')).toMatch(/br-lan is a LAN device.*eth1/);
		expect(status('p')).toMatch(/lan2 is a LAN device/);
		/* the WAN device got its own new section */
		expect(map.children[0].cfgsections()).toHaveLength(3);
		expect(h.uci.sections('sqm', 'queue').map(s => s.interface)).toEqual(['br-lan', 'lan2', 'eth1']);
	});

	it('notes option strings that differ between directions and stored words that are not allowed', async () => {
		const { status } = await page({ sqm: { q: QUEUE({ iqdisc_opts: 'rtt 80ms ingress', eqdisc_opts: 'rtt 50ms nat;reboot' }) } });
		expect(status()).toMatch(/differ in: rtt\./);
		expect(status()).toMatch(/not allowed: nat;reboot/);
	});

	it('uses the sqm 1.7 defaults when the installed sqm has them', async () => {
		const { preview, checked } = await page({ defaults: DEFAULTS_17, sqm: { q: QUEUE({ iqdisc_opts: 'ingress', eqdisc_opts: '' }) } });
		expect(preview()).toContain('cake bandwidth 18000kbit diffserv3 nat besteffort\n');
		/* with no nat keyword, 1.7 still has nat from its defaults */
		expect(checked('_nat')).toBe(true);
	});
});

describe('live preview', () => {
	it('follows unsaved edits of rates, rtt, isolation and device', async () => {
		const { h, map, sid, preview, status } = await page();
		h.form.setValue(map, sid, 'download', '18');
		h.form.setValue(map, sid, 'upload', '18');
		expect(preview()).toContain('tc qdisc add dev eth1 root cake bandwidth 18000kbit besteffort internet dual-srchost nat ethernet');
		expect(status()).not.toMatch(/nothing is shaped/);
		h.form.setValue(map, sid, '_rtt', 'custom');
		h.form.setValue(map, sid, '_rtt_custom', '45');
		h.form.setValue(map, sid, '_isolation', 'triple-isolate');
		expect(preview()).toContain('cake bandwidth 18000kbit besteffort rtt 45ms triple-isolate nat ethernet\n');
		h.form.setValue(map, sid, 'upload', '0');
		expect(preview()).not.toContain('dev eth1 root');
		expect(status()).toMatch(/Upload is 0/);
		h.form.setValue(map, sid, 'interface', 'br-lan');
		expect(status()).toMatch(/br-lan is a LAN device/);
		expect(preview()).toContain('ifb4br-lan');
	});

	it('shows the validation problem instead of commands', async () => {
		const { h, map, sid, root } = await page();
		h.form.setValue(map, sid, 'download', 'fast');
		expect(h.text(root.querySelector(`#reterm-preview-${sid}`))).toMatch(/Download \(Mbit\/s\): Enter a rate/);
		h.form.setValue(map, sid, 'download', '10');
		h.form.setValue(map, sid, '_rtt', 'custom');
		h.form.setValue(map, sid, '_rtt_custom', '2000');
		expect(h.text(root.querySelector(`#reterm-preview-${sid}`))).toMatch(/between 1 and 1000/);
	});
});

describe('saving', () => {
	it('stores the rates in kbit/s and writes nothing else when no CAKE field changed', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE({ iqdisc_opts: 'nat  ingress wash', eqdisc_opts: 'nat' }) } });
		h.form.setValue(map, 'q', 'download', '20');
		h.form.setValue(map, 'q', 'upload', '18.5');
		await v.handleSave();
		expect(h.uci.stagedChanges().sqm).toEqual([['set', 'q', 'download', '20000'], ['set', 'q', 'upload', '18500']]);
		/* the hand-written strings stay byte for byte */
		expect(h.uci.dump('sqm').q.iqdisc_opts).toBe('nat  ingress wash');
	});

	it('saves nothing at all for an untouched existing section', async () => {
		const { h, v } = await page({ sqm: { q: QUEUE({ iqdisc_opts: 'ingress nat', eqdisc_opts: 'nat dual-srchost' }) } });
		await v.handleSave();
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it('rewrites the option strings from the fields, keeping hand-typed words, and sets script and flags', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE({ qdisc: 'fq_codel', script: 'simple.qos', linklayer: 'none',
			qdisc_advanced: null, qdisc_really_really_advanced: null,
			iqdisc_opts: 'nat dual-dsthost memlimit 32mb', eqdisc_opts: 'nat dual-srchost wash' }) } });
		h.form.setValue(map, 'q', '_rtt', 'regional');
		h.form.setValue(map, 'q', '_diffserv', 'diffserv4');
		h.form.setValue(map, 'q', '_ack_filter', '1');
		await v.handleSave();
		const q = h.uci.dump('sqm').q;
		expect(q).toMatchObject({ qdisc: 'cake', script: 'layer_cake.qos', linklayer: 'none', qdisc_advanced: '1',
			qdisc_really_really_advanced: '1',
			iqdisc_opts: 'regional dual-dsthost nat ingress memlimit 32mb',
			eqdisc_opts: 'regional diffserv4 dual-srchost nat ack-filter wash' });
	});

	it('lets the script carry besteffort / diffserv3 instead of repeating it', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE({ script: 'layer_cake.qos', iqdisc_opts: 'nat ingress', eqdisc_opts: 'diffserv4 nat' }) } });
		h.form.setValue(map, 'q', '_diffserv', 'besteffort');
		await v.handleSave();
		expect(h.uci.dump('sqm').q).toMatchObject({ script: 'piece_of_cake.qos', eqdisc_opts: 'nat' });
	});

	it('writes the overhead fields: atm with bytes, mpu and VLAN tags', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE() } });
		h.form.setValue(map, 'q', '_overhead', 'atm');
		h.form.setValue(map, 'q', '_overhead_bytes', '44');
		await v.handleSave();
		expect(h.uci.dump('sqm').q.eqdisc_opts).toBe('internet dual-srchost nat atm overhead 44');
		h.form.setValue(map, 'q', '_overhead', 'pppoe-ptm');
		h.form.setValue(map, 'q', '_advanced', '1');
		h.form.setValue(map, 'q', '_overhead_bytes', '');
		h.form.setValue(map, 'q', '_mpu', '68');
		h.form.setValue(map, 'q', '_vlan', '1');
		await v.handleSave();
		expect(h.uci.dump('sqm').q.iqdisc_opts).toBe('internet dual-dsthost nat pppoe-ptm mpu 68 ether-vlan ingress');
	});

	it('turns NAT awareness off with "nonat" and uses srchost/dsthost words per direction', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE() } });
		h.form.setValue(map, 'q', '_nat', '0');
		h.form.setValue(map, 'q', '_isolation', 'flows');
		await v.handleSave();
		expect(h.uci.dump('sqm').q).toMatchObject({ iqdisc_opts: 'internet flows nonat ethernet ingress', eqdisc_opts: 'internet flows nonat ethernet' });
	});

	it('edits the extra words per direction', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE() } });
		h.form.setValue(map, 'q', '_advanced', '1');
		h.form.setValue(map, 'q', '_extra_egress', 'fwmark 0xff');
		await v.handleSave();
		expect(h.uci.dump('sqm').q.eqdisc_opts).toBe('internet dual-srchost nat ethernet fwmark 0xff');
	});

	it('migrates luci-app-sqm link layer settings into CAKE words when a CAKE field changes', async () => {
		const { h, v, map, val } = await page({ sqm: { q: QUEUE({ linklayer: 'ethernet', overhead: '34', iqdisc_opts: 'nat ingress', eqdisc_opts: 'nat' }) } });
		expect([val('_overhead', 'q'), val('_overhead_bytes', 'q'), val('_mpu', 'q')]).toEqual(['none', '34', '0']);
		h.form.setValue(map, 'q', '_rtt', 'metro');
		await v.handleSave();
		expect(h.uci.dump('sqm').q).toMatchObject({ linklayer: 'none', iqdisc_opts: 'metro nat overhead 34 mpu 0 ingress', eqdisc_opts: 'metro nat overhead 34 mpu 0' });
	});

	it('saves a new section for the WAN device and applies it with rollback on Save & Apply', async () => {
		const { h, map, sid, root } = await page();
		h.form.setValue(map, sid, 'enabled', '1');
		h.form.setValue(map, sid, 'download', '18');
		h.form.setValue(map, sid, 'upload', '18');
		await h.click(root.querySelector('.cbi-button-apply'));
		const [q] = Object.values(h.uci.dump('sqm'));
		expect(q).toMatchObject({ '.type': 'queue', enabled: '1', interface: 'eth1', download: '18000', upload: '18000',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' });
		expect(h.ui.applied).toEqual([{ checked: true }]);
	});

	it('a new queue saved with adaptive shaping off leaves /etc/config/reterm alone (LuCI\'s Flag writes "off" on every save)', async () => {
		const { h, v, map, sid } = await page();
		h.form.setValue(map, sid, 'enabled', '1');
		h.form.setValue(map, sid, 'download', '18');
		h.form.setValue(map, sid, 'upload', '18');
		await v.handleSave();
		expect(Object.keys(h.uci.dump('sqm'))).toHaveLength(1);
		expect(h.uci.stagedChanges().reterm).toBeUndefined();
	});

	it('refuses adaptive shaping on a queue not saved yet (its section name comes with the save) and stages nothing', async () => {
		const { h, v, map, sid } = await page();
		h.form.setValue(map, sid, 'enabled', '1');
		h.form.setValue(map, sid, 'download', '18');
		h.form.setValue(map, sid, 'upload', '18');
		h.form.setValue(map, sid, '_autorate', '1');
		await expect(v.handleSave()).rejects.toThrow(/Save the new queue first/);
		expect(h.uci.stagedChanges()).toEqual({});
	});

	it.each([
		['a custom RTT above 1000 ms', [['_rtt', 'custom'], ['_rtt_custom', '2000']], /between 1 and 1000 ms/],
		['a custom RTT of 0', [['_rtt', 'custom'], ['_rtt_custom', '0']], /between 1 and 1000 ms/],
		['a non-numeric RTT', [['_rtt', 'custom'], ['_rtt_custom', '45ms']], /whole number of milliseconds/],
		['an overhead above 256', [['_advanced', '1'], ['_overhead_bytes', '300']], /between -64 and 256/],
		['an overhead below -64', [['_advanced', '1'], ['_overhead_bytes', '-65']], /between -64 and 256/],
		['an MPU below 0', [['_advanced', '1'], ['_mpu', '-1']], /between 0 and 256/],
		['atm without overhead', [['_overhead', 'atm']], /ATM framing needs/],
		['a negative rate', [['download', '-5']], /Enter a rate/],
		['a rate with a unit', [['upload', '18M']], /Enter a rate/],
		['a device with shell characters', [['interface', 'eth1;reboot']], /device name/],
		['an injected extra word', [['_advanced', '1'], ['_extra_egress', 'wash $(reboot)']], /may only contain/],
		['an extra word with its own field', [['_advanced', '1'], ['_extra_ingress', 'nat']], /own field/],
		['an enabled queue without rates', [['enabled', '1']], /Required when the queue is enabled/]
	])('refuses to save %s and stages nothing', async (name, edits, message) => {
		const { h, v, map, sid } = await page();
		for (const [opt, value] of edits)
			h.form.setValue(map, sid, opt, value);
		await expect(v.handleSave()).rejects.toThrow(message);
		expect(h.uci.stagedChanges()).toEqual({});
		expect(h.ui.modals.map(m => m.title)).toEqual(['Save error']);
	});

	it('refuses a stored preset outside 1–1000 ms until another is chosen', async () => {
		const { h, v, map } = await page({ sqm: { q: QUEUE({ iqdisc_opts: 'interplanetary', eqdisc_opts: 'interplanetary' }) } });
		await expect(v.handleSave()).rejects.toThrow(/outside 1–1000 ms/);
		h.form.setValue(map, 'q', '_rtt', 'satellite');
		await v.handleSave();
		expect(h.uci.dump('sqm').q.eqdisc_opts).toBe('satellite');
	});
});

describe('what the page reads (issue 13 item 7)', () => {
	it('gets WAN and LAN facts from reterm wan_info only: no uci network/firewall, nothing outside the ACL', async () => {
		const { h, v, map, sid } = await page();
		expect(h.rpc.callsTo('reterm', 'wan_info')).toHaveLength(1);
		expect(h.uci.loads).not.toContain('network');
		expect(h.uci.loads).not.toContain('firewall');
		h.form.setValue(map, sid, 'download', '18');
		h.form.setValue(map, sid, 'upload', '18');
		await v.handleSave();
		expect(aclViolations(h)).toEqual([]);
	});

	it('takes the default-route interface first, then the wan zone; bridge ports count as LAN', async () => {
		const info = wanInfo();
		info.interfaces.push({ name: 'wwan', proto: 'dhcp', device: 'wlan1', l3device: 'wlan1', default_route: true, speed: null, zone: null });
		const { h, map, status } = await page({ wanInfo: info, sqm: { q: QUEUE({ interface: 'lan1' }) } });
		const opts = Object.fromEntries(h.form.describe(map).sections[0].options.map(o => [o.name, o.choices]));
		/* LuCI's combobox adds the section's own value (lan1) after ours */
		expect(opts.interface).toEqual(['eth1', 'wlan1', 'lan1']);
		expect(status('q')).toMatch(/lan1 is a LAN device/);
	});

	it('works without wan_info (an older backend, or denied): asks for the device by hand', async () => {
		const h = createHarness();
		router(h);
		h.rpc.handle('reterm', 'wan_info', () => h.rpc.status(6));
		const v = await h.require('view.reterm.shaping');
		const root = await h.rendered(v);
		expect(h.text(root.querySelector('.reterm-shaping-notes'))).toMatch(/No WAN device found/);
	});

	it('ignores device names in a reply that sqm could not take unquoted', async () => {
		const info = wanInfo();
		info.interfaces[1].l3device = 'eth1;reboot';
		info.interfaces[1].device = '$(reboot)';
		info.bridges = { 'br-lan': ['lan1', 'a b'] };
		const { h, map } = await page({ wanInfo: info });
		const opts = Object.fromEntries(h.form.describe(map).sections[0].options.map(o => [o.name, o.choices]));
		expect(opts.interface).toEqual([]);
	});
});

/*
 * sqm-scripts exports every queue option into its environment and writes
 * them as VAR="value" lines into /var/run/sqm/<dev>.state, which it
 * sources later as root (run-openwrt.sh stop_statefile): a stored ", $,
 * ` or newline runs commands. Whatever is typed (or a tampered <select>
 * sends), the form may only store these grammars.
 */
const SQM_GRAMMAR = {
	enabled: /^[01]$/,
	interface: /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/,
	download: /^[0-9]{1,9}$/,
	upload: /^[0-9]{1,9}$/,
	qdisc: /^cake$/,
	script: /^(?:piece_of_cake|layer_cake)\.qos$/,
	linklayer: /^none$/,
	qdisc_advanced: /^1$/,
	qdisc_really_really_advanced: /^1$/,
	iqdisc_opts: /^(?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+)(?: (?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+))*$|^$/,
	eqdisc_opts: /^(?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+)(?: (?:[A-Za-z0-9][A-Za-z0-9._-]*|-[0-9]+))*$|^$/
};
const HOSTILE = ['eth1;reboot', '$(reboot)', '`reboot`', 'a"b', "a'b", 'eth1\nreboot', 'a\\b', '18;reboot', '18 ', ' 18',
	'1e3', '0x12', 'internet $(reboot)', 'wash\nreboot', 'wash;reboot', 'fwmark 0xff;reboot', 'memlimit 32mb"', '-5', '99999999999'];
const FIELDS = ['interface', 'download', 'upload', '_rtt', '_rtt_custom', '_overhead', '_overhead_bytes', '_mpu', '_vlan',
	'_isolation', '_diffserv', '_extra_ingress', '_extra_egress'];

function badStored(h) {
	const bad = [];
	for (const conf of [h.uci.stagedChanges(), h.uci.pendingChanges()])
		for (const op of conf.sqm || [])
			if (op[0] === 'set' && op.length === 4 && !(SQM_GRAMMAR[op[2]] && SQM_GRAMMAR[op[2]].test(String(op[3]))))
				bad.push(op);
	return bad;
}

describe('nothing a shell would act on reaches sqm', () => {
	it.each(FIELDS)('%s: hostile values are refused or stored only in sqm\'s strict grammars', async field => {
		/* one page while its saves are refused (nothing reached the
		 * router), a fresh one after a save that stored something */
		let p = null;
		for (const value of HOSTILE) {
			if (!p) {
				p = await page({ sqm: { q: QUEUE() } });
				p.h.form.setValue(p.map, 'q', '_advanced', '1');
				if (field === '_rtt_custom')
					p.h.form.setValue(p.map, 'q', '_rtt', 'custom');
			}
			const { h, v, map, sid } = p;
			/* a <select> gets the value as a tampered page would send it:
			 * LuCI does not check a ListValue against its choices */
			h.form.setValue(map, 'q', field, value, { tamper: true });
			await v.handleSave().catch(() => null);
			expect(badStored(h), `${field} = ${JSON.stringify(value)}`).toEqual([]);
			expect(sid).toBe('q');
			if (Object.keys(h.uci.changes()).length)
				p = null;
		}
	});

	it('every value it stores for a new or edited queue is in the grammar (reterm.shaping.sqm sqmValueError agrees)', async () => {
		const { h, v, map, sid } = await page();
		const shaping = await h.require('reterm.shaping.sqm');
		h.form.setValue(map, sid, 'enabled', '1');
		h.form.setValue(map, sid, 'download', '18.5');
		h.form.setValue(map, sid, 'upload', '1.25');
		h.form.setValue(map, sid, '_diffserv', 'diffserv4');
		h.form.setValue(map, sid, '_advanced', '1');
		h.form.setValue(map, sid, '_extra_egress', 'wash memlimit 32mb');
		await v.handleSave();
		const q = Object.values(h.uci.dump('sqm'))[0];
		for (const [k, val] of Object.entries(q).filter(([k]) => k.charAt(0) !== '.')) {
			expect(SQM_GRAMMAR[k], k).toBeDefined();
			expect(val, k).toMatch(SQM_GRAMMAR[k]);
			expect(shaping.sqmValueError(k, val), k).toBeNull();
		}
		expect(badStored(h)).toEqual([]);
	});

	it('sqmValueError refuses what the state file would run, and options the page never writes', async () => {
		const h = createHarness();
		const shaping = await h.require('reterm.shaping.sqm');
		for (const [k, val] of [['interface', 'eth1;reboot'], ['interface', 'a"b'], ['download', '18;reboot'], ['download', '-1'],
			['download', '100000001'], ['upload', '1e3'], ['enabled', 'yes'], ['qdisc', 'cake;reboot'], ['qdisc', 'fq_codel'],
			['script', '../../../tmp/x.qos'], ['script', 'simple.qos'], ['linklayer', 'atm'], ['qdisc_advanced', '$(reboot)'],
			['iqdisc_opts', 'nat $(reboot)'], ['eqdisc_opts', 'wash\nreboot'], ['eqdisc_opts', 'a"b'], ['iqdisc_opts', 'rtt'],
			['debug_logging', '1'], ['squash_dscp', '1'], ['verbosity', '5'], ['interface', ['eth1']], ['download', 18000]])
			expect(shaping.sqmValueError(k, val), `${k} = ${JSON.stringify(val)}`).not.toBeNull();
		for (const [k, val] of [['interface', 'pppoe-wan'], ['download', '0'], ['download', '100000000'], ['enabled', '0'],
			['script', 'layer_cake.qos'], ['iqdisc_opts', ''], ['eqdisc_opts', 'rtt 45ms overhead -4 fwmark 0xff']])
			expect(shaping.sqmValueError(k, val), `${k} = ${JSON.stringify(val)}`).toBeNull();
	});
});

