import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/loader.js';

let w;
beforeAll(async () => { w = await createHarness().require('reterm.wizard'); });

const RESULT = (over = {}) => Object.assign({
	v: 1, id: 'a1', grade: 'D', idle_rtt: 12.5, rpm: 250,
	reflector_idle: [{ target: '1.1.1.1', rtt: 12.5 }, { target: '9.9.9.9', rtt: 18 }],
	download: { grade: 'D', added_ms: 250, throughput_bps: 20000000, inconclusive: false },
	upload: { grade: 'C', added_ms: 120, throughput_bps: 1000000, inconclusive: false }
}, over);

describe('bandwidth: 90 % of measured, kbit/s', () => {
	it.each([
		[20000000, 18000], [1000000, 900], [18500000, 16650], [1500, 1], [1, 1], [555, 1], [1111, 1],
		[1e12, 100000000], [1e15, 100000000], [111111111, 100000]
	])('%s bit/s → %s kbit/s', (bps, kbit) => {
		expect(w.bandwidthKbit(bps)).toBe(kbit);
	});
	it.each([[0], [-5], [NaN], [Infinity], [null], [undefined], ['20000000'], [{}]])('%s → not measured', v => {
		expect(w.bandwidthKbit(v)).toBeNull();
	});
});

describe('rtt rule', () => {
	const rtt = (reflectors, servers) => w.proposeRtt({ reflectors, servers });
	it('is CAKE\'s default 100 ms without data', () => {
		expect(rtt([], [])).toMatchObject({ rtt: 'internet', ms: 100, p98: null, samples: 0 });
		expect(w.proposeRtt()).toMatchObject({ rtt: 'internet', ms: 100 });
		expect(rtt([NaN, -1, 0, null], [])).toMatchObject({ rtt: 'internet', samples: 0 });
	});
	it('stays at 100 ms for short paths — never proposes less (≥ 30 ms floor)', () => {
		expect(rtt([1, 2], [])).toMatchObject({ rtt: 'internet', ms: 100 });
		expect(rtt([29], [30])).toMatchObject({ rtt: 'internet' });
		expect(rtt([100], [])).toMatchObject({ rtt: 'internet', p98: 100 });
	});
	it('goes to the next preset up when the paths are longer than 100 ms', () => {
		expect(rtt([100.1], [])).toMatchObject({ rtt: 'oceanic', ms: 300 });
		expect(rtt([12], [180])).toMatchObject({ rtt: 'oceanic', p98: 180 });
		expect(rtt([300], [])).toMatchObject({ rtt: 'oceanic' });
		expect(rtt([300.5], [])).toMatchObject({ rtt: 'satellite', ms: 1000 });
		expect(rtt([5000], [])).toMatchObject({ rtt: 'satellite' });
	});
	it('uses the 98th percentile: one outlier in 50 does not move it', () => {
		const many = Array(49).fill(20).concat([250]);
		expect(rtt(many, [])).toMatchObject({ rtt: 'internet', p98: 20, samples: 50 });
		expect(rtt(many.concat([250]), [])).toMatchObject({ rtt: 'oceanic' });
	});
	it('never lets an edited rtt go below 30 ms', () => {
		expect(w.clampRtt('lan')).toBe('regional');
		expect(w.clampRtt('metro')).toBe('regional');
		expect(w.clampRtt(29)).toBe('regional');
		expect(w.clampRtt(30)).toBe(30);
		expect(w.clampRtt('regional')).toBe('regional');
		expect(w.clampRtt('oceanic')).toBe('oceanic');
		expect(w.clampRtt('bogus')).toBeNull();
		expect(w.clampRtt(5000)).toBeNull();
	});
});

describe('overhead from the WAN protocol', () => {
	it.each([['dhcp', false, 'ethernet'], ['static', false, 'ethernet'], ['pppoe', false, 'pppoe-ptm'],
		['pppoa', false, 'pppoe-ptm'], ['dhcp', true, 'docsis'], ['pppoe', true, 'docsis'], [undefined, false, 'ethernet']])(
		'%s (docsis %s) → %s', (proto, docsis, oh) => expect(w.overheadFor(proto, docsis)).toBe(oh));
});

describe('propose', () => {
	it('combines rates, rtt from the reflector RTTs and overhead', () => {
		const p = w.propose({ result: RESULT(), device: 'pppoe-wan', proto: 'pppoe' });
		expect(p).toMatchObject({ device: 'pppoe-wan', download: 18000, upload: 900, rtt: 'internet', overhead: 'pppoe-ptm', ok: true, notes: [] });
		expect(p.rttInfo).toMatchObject({ p98: 18, samples: 2 });
	});
	it('uses the server RTTs too', () => {
		expect(w.propose({ result: RESULT(), device: 'eth1', proto: 'dhcp', servers: [160, 40] }).rtt).toBe('oceanic');
	});
	it('reads the server_rtts reply', () => {
		expect(w.serverRtts({ rtts: [131.5, 0, -1, 'x', null, 162.25], source: 'ss' })).toEqual([131.5, 162.25]);
		expect(w.serverRtts({ error: 'rpc' })).toEqual([]);
		expect(w.serverRtts(null)).toEqual([]);
	});
	it('falls back to idle_rtt without per-reflector medians', () => {
		expect(w.reflectorRtts(RESULT({ reflector_idle: undefined, idle_rtt: 140 }))).toEqual([140]);
		expect(w.reflectorRtts(null)).toEqual([]);
	});
	it('leaves an unmeasured direction unshaped and says so', () => {
		const p = w.propose({ result: RESULT({ upload: null }), device: 'eth1', proto: 'dhcp' });
		expect([p.download, p.upload, p.ok]).toEqual([18000, 0, true]);
		expect(p.notes.join(' ')).toMatch(/upload is left unshaped/);
		const q = w.propose({ result: RESULT({ download: { throughput_bps: NaN }, upload: { throughput_bps: 0 } }), device: 'eth1' });
		expect([q.download, q.upload, q.ok]).toEqual([0, 0, false]);
		expect(w.propose({}).ok).toBe(false);
	});
	it('caps huge rates and flags inconclusive results', () => {
		const p = w.propose({ result: RESULT({ inconclusive: true, download: { throughput_bps: 1e13 } }), device: 'eth1' });
		expect(p.download).toBe(100000000);
		expect(p.notes.join(' ')).toMatch(/capped/);
		expect(p.notes.join(' ')).toMatch(/inconclusive/);
	});
});

describe('validateProposal and sqmValues', () => {
	const P = over => Object.assign({ device: 'eth1', download: 18000, upload: 900, rtt: 'internet', overhead: 'ethernet' }, over);
	it.each([
		[{ device: 'eth1;reboot' }, /device name/], [{ download: -1 }, /whole number/], [{ upload: 1.5 }, /whole number/],
		[{ download: 0, upload: 0 }, /nothing would be shaped/], [{ rtt: 'warp' }, /Unknown round-trip/],
		[{ overhead: 'x' }, /Unknown link overhead/], [{ download: 100000001 }, /whole number/]
	])('refuses %j', (over, msg) => expect(w.validateProposal(P(over))).toMatch(msg));
	it('accepts a valid one', () => expect(w.validateProposal(P())).toBeNull());

	it('builds a new enabled section with the recommended CAKE options', () => {
		expect(w.sqmValues(P({ device: 'pppoe-wan', overhead: 'pppoe-ptm', rtt: 'oceanic' }), null)).toEqual({
			enabled: '1', interface: 'pppoe-wan', download: '18000', upload: '900', qdisc: 'cake', script: 'piece_of_cake.qos',
			linklayer: 'none', qdisc_advanced: '1', qdisc_really_really_advanced: '1',
			iqdisc_opts: 'oceanic dual-dsthost nat pppoe-ptm ingress', eqdisc_opts: 'oceanic dual-srchost nat pppoe-ptm' });
	});
	it('keeps the user\'s other settings and extra words of an existing section', () => {
		const v = w.sqmValues(P({ rtt: 'lan' }), { '.name': 'q', enabled: '0', interface: 'eth1', script: 'layer_cake.qos',
			iqdisc_opts: 'flows nonat ingress memlimit 32mb', eqdisc_opts: 'flows nonat diffserv4 wash' });
		expect(v).toMatchObject({ enabled: '1', script: 'layer_cake.qos', download: '18000',
			iqdisc_opts: 'regional flows nonat ethernet ingress memlimit 32mb', eqdisc_opts: 'regional diffserv4 flows nonat ethernet wash' });
	});
	it('returns null for an invalid proposal', () => expect(w.sqmValues(P({ download: 0, upload: 0 }), null)).toBeNull());
});

describe('compare', () => {
	it('gives grades, added latency and throughput cost per direction', () => {
		const after = RESULT({ grade: 'A', download: { grade: 'A', added_ms: 8, throughput_bps: 17000000 }, upload: { grade: 'A+', added_ms: 3, throughput_bps: 1000000 } });
		const c = w.compare(RESULT(), after);
		expect(c.grade).toEqual({ before: 'D', after: 'A' });
		expect(c.download).toEqual({ before: 250, after: 8, gradeBefore: 'D', gradeAfter: 'A', throughputBefore: 20000000, throughputAfter: 17000000, costPct: 15 });
		expect(c.upload.costPct).toBe(0);
		expect(c.better).toBe(true);
	});
	it('copes with missing data', () => {
		const c = w.compare(RESULT({ download: { throughput_bps: 0 } }), null);
		expect(c.download.costPct).toBeNull();
		expect(c.better).toBeNull();
		expect(w.compare(RESULT({ grade: 'B' }), RESULT({ grade: 'B' })).better).toBe(false);
		expect(w.compare(RESULT({ upload: { throughput_bps: 1000 } }), RESULT({ upload: { throughput_bps: 1200 } })).upload.costPct).toBe(-20);
	});
});

describe('state machine', () => {
	const SNAP = { sqm: { sid: 'q', values: { '.type': 'queue', enabled: '0', interface: 'eth1' } }, retermEnabled: '0' };

	it('walks look → measure → propose → apply → devices, each needing its input', () => {
		let s = w.create(SNAP);
		expect([s.step, s.reached]).toEqual(['look', 0]);
		s = w.next(s);
		expect(s.step).toBe('measure');
		expect(w.next(s).step).toBe('measure');           /* no result yet */
		s = w.record(s, { type: 'measured', result: RESULT() });
		s = w.next(s);
		expect(s.step).toBe('propose');
		expect(w.next(s).step).toBe('propose');           /* no proposal yet */
		s = w.next(w.record(s, { type: 'proposed', proposal: { download: 1 } }));
		expect(s.step).toBe('apply');
		expect(w.next(s).step).toBe('apply');             /* not applied or skipped */
		s = w.record(s, { type: 'applied' });
		s = w.record(s, { type: 'verified', result: RESULT({ grade: 'A' }) });
		s = w.next(s);
		expect([s.step, s.reached, s.applied.shaping, s.after.grade]).toEqual(['devices', 4, true, 'A']);
		s = w.record(s, { type: 'devicesApplied' });
		expect([s.done, s.applied.devices]).toEqual([true, true]);
		expect(w.next(s).step).toBe('devices');
	});

	it('skipping apply reaches the devices step; back always works', () => {
		let s = w.create(SNAP);
		s = w.go(w.record(w.go(s, 'measure'), { type: 'measured', result: RESULT() }), 'propose');
		s = w.go(w.record(s, { type: 'proposed', proposal: {} }), 'apply');
		s = w.next(w.record(s, { type: 'skipApply' }));
		expect(s.step).toBe('devices');
		expect(w.back(w.back(s)).step).toBe('propose');
		expect(w.back(w.create(SNAP)).step).toBe('look');
		expect(w.go(s, 'nowhere').step).toBe('devices');
	});

	it('a new measurement drops the old proposal and after result', () => {
		let s = w.record(w.record(w.create(SNAP), { type: 'measured', result: RESULT() }), { type: 'proposed', proposal: {} });
		s = w.record(s, { type: 'measured', result: RESULT({ id: 'b' }), asIs: true });
		expect([s.proposal, s.before.id, s.measuredAsIs]).toEqual([null, 'b', true]);
	});

	it('does not change the state it was given', () => {
		const s = w.create(SNAP), copy = JSON.stringify(s);
		w.next(s); w.record(s, { type: 'measured', result: RESULT() }); w.go(s, 'measure');
		expect(JSON.stringify(s)).toBe(copy);
	});

	it('serialises to a plain object and resumes', () => {
		let s = w.record(w.go(w.create(SNAP), 'measure'), { type: 'measured', result: RESULT() });
		s = w.go(s, 'propose');
		const plain = w.serialize(s);
		expect(JSON.parse(JSON.stringify(plain))).toEqual(plain);
		expect(w.restore(plain)).toEqual(s);
		expect(w.restore(JSON.stringify(plain))).toEqual(s);
	});

	it('refuses foreign or broken data and never resumes into a step without its input', () => {
		for (const bad of [null, 'x{', '{}', { v: 2, step: 'look', applied: {}, reached: 0 }, { v: 1, step: 'warp', applied: {}, reached: 0 }, 42])
			expect(w.restore(bad)).toBeNull();
		const s = w.restore({ v: 1, step: 'apply', reached: 3, applied: { shaping: false }, snapshot: SNAP, before: RESULT(), proposal: null });
		expect(s.step).toBe('propose');
		expect(w.restore({ v: 1, step: 'propose', reached: 2, applied: {}, before: null }).step).toBe('measure');
	});

	it('cancel before applying has nothing to restore', () => {
		let s = w.record(w.create(SNAP), { type: 'measured', result: RESULT() });
		s = w.record(s, { type: 'proposed', proposal: {} });
		expect(w.cancel(s)).toEqual({ restore: false, sqm: null, retermEnabled: null, resume: [], devices: null });
	});

	it('cancel after applying gives back the snapshot', () => {
		let s = w.record(w.create(SNAP), { type: 'applied' });
		expect(w.cancel(s)).toEqual({ restore: true, sqm: SNAP.sqm, retermEnabled: null, resume: [], devices: null });
		s = w.record(s, { type: 'devicesApplied' });
		expect(w.cancel(s).retermEnabled).toBe('0');
		expect(w.cancel(s).devices).toEqual({ remove: [], disable: [] });
		const fresh = w.record(w.create({ sqm: null, retermEnabled: '1' }), { type: 'applied' });
		expect(w.cancel(fresh).sqm).toEqual({ sid: null, values: null });
	});

	it('restoreChanges lists the options to set and unset', () => {
		expect(w.restoreChanges({ '.type': 'queue', enabled: '0', interface: 'eth1', download: '5000' },
			{ '.type': 'queue', '.name': 'q', enabled: '1', interface: 'eth1', upload: '900', download: '18000' }))
			.toEqual([['upload', null], ['enabled', '0'], ['download', '5000']]);
		expect(w.restoreChanges(null, { enabled: '1' })).toBeNull();
	});
});

describe('device offers', () => {
	const HOSTS = [
		{ mac: '02:00:00:00:00:0A', name: 'laptop', class: 'other', audit: { recommendation: 'ok', scaling: true, syn_count: 4 } },
		{ mac: '02:00:00:00:00:0B', name: 'tv', class: 'other', audit: { recommendation: 'reterm', scaling: false, window: 16384, syn_count: 3, noscale_syns: 3, rtt_ms: 130 } },
		{ mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld', audit: null },
		{ mac: '02:00:00:00:00:04', name: 'ps4', class: 'console', audit: null, reterm: true, enabled: true, section: 'cfg01' },
		{ mac: 'bogus', name: 'x', class: 'console' }
	];

	it('sorts consoles and handhelds first', () => {
		expect(w.sortHosts(HOSTS).map(h => h.name)).toEqual(['3ds', 'ps4', 'x', 'laptop', 'tv']);
		expect(w.sortHosts(null)).toEqual([]);
	});

	it('offers consoles, handhelds and audit-flagged devices with evidence', () => {
		const o = w.offers(HOSTS);
		expect(o.map(x => [x.name, x.reason, x.active])).toEqual([['3ds', 'handheld', false], ['ps4', 'console', true], ['tv', 'audit', false]]);
		expect(o[0].evidence).toMatch(/3DS/);
		expect(o[2].evidence).toMatch(/no scaling.*Re-termination helps/);
		expect(o[0].mac).toBe('02:00:00:00:3d:51');
	});

	it('plans sections for the chosen devices and enables the service', () => {
		const o = w.offers(HOSTS);
		const secs = [{ '.name': 'cfg01', '.type': 'device', mac: '02:00:00:00:00:04', enabled: '0' }];
		expect(w.devicePlan(o, ['02:00:00:00:3D:51', '02:00:00:00:00:04'], secs)).toEqual([
			{ op: 'add', values: { name: '3ds', mac: '02:00:00:00:3d:51', enabled: '1', ports: 'all' } },
			{ op: 'set', section: 'cfg01', values: { enabled: '1' } },
			{ op: 'set', section: 'main', values: { enabled: '1' } }
		]);
		expect(w.devicePlan(o, [], secs)).toEqual([]);
	});
});

describe('measuring with shaping off', () => {
	const SNAP = { sqm: { sid: 'q', values: { '.type': 'queue', enabled: '1', interface: 'eth1' } }, retermEnabled: '0' };
	const Q = (en, en2) => [{ '.name': 'q', enabled: en, interface: 'eth1' }].concat(en2 === undefined ? [] : [{ '.name': 'q2', enabled: en2, interface: 'lan' }]);

	it('pauses the enabled queues only', () => {
		expect(w.pausePlan(Q('1', '0'))).toEqual(['q']);
		expect(w.pausePlan(Q('1', '1'))).toEqual(['q', 'q2']);
		expect(w.pausePlan(Q('0'))).toEqual([]);
		expect(w.pausePlan(null)).toEqual([]);
	});

	it('walks pausing → off → test → restoring → restored', () => {
		let s = w.go(w.create(SNAP), 'measure');
		expect(w.pauseStatus(s, Q('1'))).toBe('none');
		s = w.record(s, { type: 'pausing', sids: ['q'] });
		expect(s.paused).toEqual({ sids: ['q'], phase: 'pausing', testId: null });
		expect(w.pauseStatus(s, Q('0'))).toBe('off');
		s = w.record(w.record(s, { type: 'paused' }), { type: 'testStarted', id: 'b1' });
		expect(s.paused).toEqual({ sids: ['q'], phase: 'off', testId: 'b1' });
		s = w.record(s, { type: 'measured', result: RESULT(), asIs: true });
		expect(s.measuredAsIs).toBe(false);               /* measured with shaping off */
		expect(w.resumeChanges(s, Q('0'))).toEqual(['q']);
		s = w.record(s, { type: 'restoring' });
		expect(w.pauseStatus(s, Q('0'))).toBe('restoring');
		expect(w.pauseStatus(s, Q('1'))).toBe('restored');
		s = w.record(s, { type: 'restored' });
		expect([s.paused, w.pauseStatus(s, Q('1'))]).toEqual([null, 'none']);
	});

	it('notices a rolled-back pause, ignores removed sections', () => {
		const s = w.record(w.create(SNAP), { type: 'pausing', sids: ['q', 'gone'] });
		expect(w.pauseStatus(s, Q('1'))).toBe('rolledBack');
		expect(w.pauseStatus(s, [])).toBe('off');
		const r = w.record(s, { type: 'restoring' });
		expect(w.resumeChanges(r, Q('0'))).toEqual(['q']);
		expect(w.pauseStatus(r, [])).toBe('restored');
		expect(w.resumeChanges(w.create(SNAP), Q('0'))).toEqual([]);
	});

	it('no later step while shaping is off; resuming a stored pause stays on measure', () => {
		let s = w.record(w.go(w.create(SNAP), 'measure'), { type: 'measured', result: RESULT() });
		s = w.record(s, { type: 'pausing', sids: ['q'] });
		expect(w.canEnter(s, 'propose')).toBe(false);
		expect(w.next(s).step).toBe('measure');
		expect(w.canEnter(s, 'look')).toBe(true);
		const stored = Object.assign({}, s, { step: 'propose', reached: 2 });
		expect(w.restore(JSON.stringify(stored)).step).toBe('measure');
		expect(w.next(w.record(s, { type: 'restored' })).step).toBe('propose');
	});

	it('cancel while paused turns the queues back on', () => {
		const s = w.record(w.record(w.create(SNAP), { type: 'pausing', sids: ['q'] }), { type: 'paused' });
		expect(w.cancel(s)).toEqual({ restore: true, sqm: null, retermEnabled: null, resume: ['q'], devices: null });
	});
});

describe('cancel after the devices step', () => {
	it('lists the sections added and switched on', () => {
		let s = w.record(w.create({ sqm: null, retermEnabled: '0' }), { type: 'skipApply' });
		s = w.record(s, { type: 'devicesApplied', added: ['02:00:00:00:3D:51', 'bogus'], enabled: ['cfg01'] });
		expect([s.devicesAdded, s.devicesEnabled, s.done]).toEqual([['02:00:00:00:3d:51'], ['cfg01'], true]);
		expect(w.cancel(s)).toEqual({ restore: true, sqm: null, retermEnabled: '0', resume: [],
			devices: { remove: ['02:00:00:00:3d:51'], disable: ['cfg01'] } });
		expect(w.restore(JSON.stringify(s)).devicesAdded).toEqual(['02:00:00:00:3d:51']);
	});
});
