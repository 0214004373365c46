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
	it('does not propose absurd rates and flags inconclusive results', () => {
		const p = w.propose({ result: RESULT({ inconclusive: true, download: { throughput_bps: 1e13 } }), device: 'eth1' });
		expect([p.download, p.rejected.download, p.ok]).toEqual([0, 'max', true]);
		expect(p.notes.join(' ')).toMatch(/download rate of 10 Tbit\/s is above 10 Gbit\/s/);
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
	it('changes only values sqm may source as root; hand-set options it does not manage stay as they are', async () => {
		const shaping = await createHarness().require('reterm.shaping');
		const cur = { '.name': 'q', enabled: '0', interface: 'eth1', debug_logging: '1', squash_dscp: '1',
			iqdisc_opts: 'ingress', eqdisc_opts: 'wash' };
		for (const [p, current] of [[P(), null], [P({ device: 'pppoe-wan', overhead: 'atm' }), null], [P({ rtt: 'satellite' }), cur]]) {
			const v = w.sqmValues(p, current);
			const changed = Object.keys(v).filter(k => k.charAt(0) !== '.' && (!current || String(current[k] ?? '') !== v[k]));
			expect(changed.length).toBeGreaterThan(3);
			for (const k of changed)
				expect(shaping.sqmValueError(k, v[k]), `${k}=${v[k]}`).toBeNull();
			if (current)
				expect([v.debug_logging, v.squash_dscp]).toEqual(['1', '1']);
		}
		expect(w.sqmValues(P(), Object.assign({}, cur, { eqdisc_opts: 'wash;reboot' }))).toBeNull();
	});
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
		expect(o[0].evidence).toMatch(/handhelds.*An audit on the Devices page shows whether this one does/);
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

describe('issue 12: the test URLs survive the reload after an apply', () => {
	it('records the URLs typed in step 2 and keeps them through serialize → restore', () => {
		let s = w.go(w.create({ sqm: null, retermEnabled: '0' }), 'measure');
		s = w.record(s, { type: 'urls', download: ' http://192.0.2.10/bytes ', upload: 'http://192.0.2.10/upload' });
		s = w.record(s, { type: 'pausing', sids: ['q'] });
		const back = w.restore(JSON.stringify(w.serialize(s)));
		expect(back.urls).toEqual({ download: 'http://192.0.2.10/bytes', upload: 'http://192.0.2.10/upload' });
		expect(back.paused.phase).toBe('pausing');
		expect(w.create({ sqm: null }).urls).toEqual({ download: '', upload: '' });
	});
});

describe('issue 12: sanity check of the measured rates', () => {
	const Q = (download, upload, enabled = '1') => ({ '.type': 'queue', enabled, interface: 'eth1', download, upload });
	const PH = (name, start, end) => ({ name, start, end });
	const PHASES = [PH('idle', 0, 5), PH('download', 5, 15), PH('idle', 15, 17), PH('upload', 17, 27)];

	it('does not propose 11 Gbit/s measured unshaped on a line shaped at 9 Mbit/s (cake bandwidth 9950746kbit)', () => {
		const r = RESULT({ phases: PHASES, download: { throughput_bps: 20000000 }, upload: { throughput_bps: 11056384444 } });
		expect(w.bandwidthKbit(11056384444)).toBe(9950746);
		const p = w.propose({ result: r, device: 'eth1', proto: 'dhcp', queue: Q('50000', '9000') });
		expect(p.upload).toBe(9000);
		expect(p.download).toBe(18000);
		expect(p.rejected).toEqual({ download: null, upload: 'max' });
		const n = p.notes.join(' ');
		expect(n).toMatch(/The measured upload rate of 11\.1 Gbit\/s is above 10 Gbit\/s.*not proposed/);
		expect(n).toMatch(/The upload field keeps the current rate \(9 Mbit\/s\)\. Measure again.*or type the rate/);
		expect(w.sqmValues(p, Q('50000', '9000')).upload).toBe('9000');
	});

	it.each([
		/* bps, queue, link Mbit/s → reason */
		[180000001, Q('50000', '9000'), null, 'ratio'],          /* > 20 × 9 Mbit/s */
		[180000000, Q('50000', '9000'), null, null],             /* exactly 20 × */
		[2000000000, Q('50000', '9000', '0'), null, null],       /* a queue that is off does not count */
		[1200000000, null, 1000, 'link'],                        /* above the WAN port's link speed */
		[940000000, null, 1000, null],
		[10000000001, null, null, 'max'],
		[10000000000, null, null, null],
		[11056384444, null, 25000, 'max']
	])('%s bit/s, queue %j, link %s Mbit/s → %s', (bps, queue, link, reason) => {
		const p = w.propose({ result: RESULT({ phases: PHASES, upload: { throughput_bps: bps } }), device: 'eth1', queue, linkMbit: link });
		expect(p.rejected.upload).toBe(reason);
		expect(p.upload).toBe(reason ? (queue ? +queue.upload : 0) : w.bandwidthKbit(bps));
	});

	it('refuses a rate from a phase with too few seconds or bytes', () => {
		const cut = RESULT({ phases: [PH('idle', 0, 5), PH('download', 5, 8)] });
		expect(w.propose({ result: cut, device: 'eth1' }).rejected.download).toBe('short');
		const trickle = RESULT({ phases: PHASES, upload: { throughput_bps: 50000 } });
		const p = w.propose({ result: trickle, device: 'eth1' });
		expect([p.rejected.upload, p.upload]).toEqual(['short', 0]);
		expect(p.notes.join(' ')).toMatch(/upload rate of 50 kbit\/s rests on too little data \(49 KB? in 8 s\)|upload rate of 50 kbit\/s rests on too little data/);
		expect(p.notes.join(' ')).toMatch(/The upload field stays at 0 \(unshaped\)/);
		/* no phase data (older results): only the other checks */
		expect(w.propose({ result: RESULT({ upload: { throughput_bps: 50000 } }), device: 'eth1' }).rejected.upload).toBeNull();
	});

	it('checkRate gives the reason and the limit', () => {
		expect(w.checkRate(11056384444, { currentKbit: 9000 })).toMatchObject({ reason: 'max', limit: 10000000000 });
		expect(w.checkRate(500000000, { currentKbit: 9000 })).toMatchObject({ reason: 'ratio', limit: 180000000 });
		expect(w.checkRate(1200000000, { linkMbit: 1000 })).toMatchObject({ reason: 'link', limit: 1000000000 });
		expect(w.checkRate(20000000, { currentKbit: 9000, linkMbit: 1000, secs: 8, bytes: 20000000 })).toBeNull();
		expect(w.checkRate(20000000, { linkMbit: -1 })).toBeNull();           /* no carrier: speed unknown */
	});
});

describe('issue 12: words', () => {
	it('a handheld without an audit is not said to lack window scaling', () => {
		const [deck] = w.offers([{ mac: 'e0:31:9e:10:20:30', name: 'steamdeck', class: 'handheld', audit: null }]);
		expect(deck.evidence).not.toMatch(/3DS|without scaling|no scaling/);
		expect(deck.evidence).toMatch(/audit/);
		const [ds] = w.offers([{ mac: '02:00:00:00:3d:51', name: '3ds', class: 'handheld',
			audit: { recommendation: 'reterm', scaling: false, window: 16384, syn_count: 3, noscale_syns: 3, rtt_ms: 130 } }]);
		expect(ds.evidence).toMatch(/no scaling/);
	});

	it('menu paths in messages use the menu titles (Network → Re-termination → …)', async () => {
		const { readFileSync } = await import('node:fs');
		const { collect } = await import('../../tools/i18n-scan.mjs');
		const menu = JSON.parse(readFileSync(new URL('../../root/usr/share/luci/menu.d/luci-app-reterm.json', import.meta.url), 'utf8'));
		const top = menu['admin/network/reterm'].title;
		const pages = Object.keys(menu).filter(k => k.startsWith('admin/network/reterm/')).map(k => menu[k].title);
		const paths = collect().map(e => e.msgid).filter(m => /Network → /.test(m)).flatMap(m => m.match(/Network → [^.,;)]*/g));
		const ours = paths.filter(p => !/^Network → (Interfaces|Firewall)$/.test(p));
		expect(ours.length).toBeGreaterThan(0);
		for (const p of ours)
			expect(p).toMatch(new RegExp(`^Network → ${top} → (${pages.join('|')})$`));
	});
});

describe('issue 12: waiting for the router', () => {
	const ON = { state: 'awake', shaper: { rx: 9000000, tx: 2000000 }, cake: { dl: 'ifb4eth1', ul: 'eth1' } };
	const OFF = { state: 'awake', shaper: null, cake: null };

	it('reads shaping from retermd\'s status', () => {
		expect(w.shapingReport(ON)).toEqual({ on: true, shaper: { rx: 9000000, tx: 2000000 } });
		expect(w.shapingReport(OFF)).toEqual({ on: false, shaper: null });
		expect(w.shapingReport({ shaper: null, cake: { dl: 'ifb4eth1', ul: 'eth1' } }).on).toBe(true);   /* CAKE without rates */
		expect(w.shapingReport({ state: 'awake' })).toBeNull();                                        /* says nothing */
		expect(w.shapingReport({ error: 'not_running' })).toBeNull();
		expect(w.shapingReport(null)).toBeNull();
	});

	it('confirms off, on or the applied rates; waits; times out after CONFIRM_TIMEOUT_S', () => {
		expect(w.CONFIRM_TIMEOUT_S).toBe(120);
		expect(w.confirmWait('off', ON, 0)).toBe('wait');
		expect(w.confirmWait('off', OFF, 0)).toBe('confirmed');
		expect(w.confirmWait('on', OFF, 1000)).toBe('wait');
		expect(w.confirmWait('on', ON, 1000)).toBe('confirmed');
		expect(w.confirmWait({ rx: 16851000, tx: 4257000 }, ON, 5000)).toBe('wait');                   /* still the old rates */
		expect(w.confirmWait({ rx: 16851000, tx: 4257000 }, Object.assign({}, ON, { shaper: { rx: 16851000, tx: 4257000 } }), 5000)).toBe('confirmed');
		expect(w.confirmWait('off', { error: 'not_running' }, 119999)).toBe('wait');
		expect(w.confirmWait('off', ON, 120000)).toBe('timeout');
		expect(w.confirmWait('off', OFF, 500000)).toBe('confirmed');
	});

	it('records the rates to wait for when shaping is applied', () => {
		let s = w.record(w.create({ sqm: null }), { type: 'applied', rx: 17000000, tx: 900000 });
		expect(s.applyWait).toEqual({ rx: 17000000, tx: 900000 });
		expect(w.restore(JSON.stringify(s)).applyWait).toEqual({ rx: 17000000, tx: 900000 });
		s = w.record(s, { type: 'applyConfirmed' });
		expect([s.applyWait, s.applied.shaping]).toEqual([null, true]);
	});
});

describe('moved out of the view', () => {
	it('cancelOps: the UCI operations of a cancel', () => {
		const snap = { sqm: { sid: 'q', values: { '.type': 'queue', enabled: '1', interface: 'eth1', download: '5000' } }, retermEnabled: '0' };
		let s = w.record(w.record(w.create(snap), { type: 'pausing', sids: ['q', 'q2'] }), { type: 'applied' });
		s = w.record(s, { type: 'devicesApplied', added: ['02:00:00:00:3d:51'], enabled: ['tv'] });
		const now = { queueSid: 'q', main: true,
			queues: [{ '.name': 'q', enabled: '1', interface: 'eth1', download: '17000', upload: '900' }, { '.name': 'q2', enabled: '0' }],
			devices: [{ '.name': 'cfg1', mac: '02:00:00:00:3D:51' }, { '.name': 'tv', mac: '02:00:00:00:00:0b', enabled: '1' }, { '.name': 'pc', mac: '02:00:00:00:00:0c' }] };
		expect(w.cancelOps(w.cancel(s), now)).toEqual([
			['set', 'sqm', 'q', 'upload', null], ['set', 'sqm', 'q', 'download', '5000'], ['set', 'sqm', 'q2', 'enabled', '1'],
			['remove', 'reterm', 'cfg1'], ['set', 'reterm', 'tv', 'enabled', '0'], ['set', 'reterm', 'main', 'enabled', '0']]);
		const fresh = w.record(w.create({ sqm: null }), { type: 'applied' });
		expect(w.cancelOps(w.cancel(fresh), { queueSid: 'cfg9', queues: [] })).toEqual([['remove', 'sqm', 'cfg9']]);
		expect(w.cancelOps(w.cancel(w.create({ sqm: null })), { queues: [] })).toEqual([]);
	});

	it('compareRows, startError, testProblem, wan', () => {
		const a = RESULT({ grade: 'A', download: { added_ms: 8, throughput_bps: 17000000 }, upload: { added_ms: 3, throughput_bps: 880000 } });
		expect(w.compareRows(RESULT(), a)).toEqual([['Grade', 'D', 'A'], ['Added latency, download', '250 ms', '8 ms'],
			['Added latency, upload', '120 ms', '3 ms'], ['Download', '20 Mbit/s', '17 Mbit/s (15 % less)'], ['Upload', '1 Mbit/s', '880 kbit/s (12 % less)']]);
		expect(w.startError({ error: 'busy' })).toMatch(/already running/);
		expect(w.startError({ error: 'not_running' })).toMatch(/System → Startup → retermd/);
		expect(w.startError({ error: 'x', message: 'boom' })).toBe('The test did not start: boom');
		expect(w.testProblem(RESULT(), null)).toBeNull();
		expect(w.testProblem(null, null)).toMatch(/without a result/);
		expect(w.testProblem({ stopped: true }, null)).toMatch(/stopped/);
		expect(w.wan([{ name: 'wan', proto: 'dhcp', device: null }, { name: 'wan6', proto: 'dhcpv6', device: 'eth1' }]))
			.toMatchObject({ name: 'wan6' });
		expect(w.wan([])).toBeNull();
		expect(w.wan(null)).toBeNull();
	});
});

describe('reterm.wizardsteps', () => {
	let st;
	beforeAll(async () => { st = await createHarness().require('reterm.wizardsteps'); });
	it('gradeNotImproved: never for an A+ after, else when not better than before', () => {
		const g = (b, a) => st.gradeNotImproved({ grade: b }, { grade: a });
		expect([g('A+', 'A+'), g('D', 'A+'), g('B', 'A'), g('A', 'A'), g('A', 'C'), g(null, 'C')]).toEqual([false, false, false, true, true, false]);
	});
	it('arrive: a reload within 5 min of an apply is no return, and only once', () => {
		const s = st.expectReload({ step: 'apply' }, 1000);
		expect(st.arrive(s, 2000)).toEqual({ state: { step: 'apply' }, resumed: false });
		expect(st.arrive(s, 1000 + 6 * 60000).resumed).toBe(true);
		expect(st.arrive({ step: 'apply' }, 2000).resumed).toBe(true);
		expect(st.arrive(null, 2000)).toEqual({ state: null, resumed: false });
	});
	it('unshaped: measured above 1.5x the applied shaper rate', () => {
		const r = { download: { throughput_bps: 24e9 }, upload: { throughput_bps: 1.4e6 } };
		expect(st.unshaped(r, { rx: 20e6, tx: 1e6 })).toEqual([{ dir: 'download', measured: 24e9, shaper: 20e6 }]);
		expect(st.unshaped(r, { rx: 0, tx: null })).toEqual([]);
	});
	it('waitSeconds / secondsLeft / failure', () => {
		expect([st.waitSeconds({ error: 'too_soon', wait_s: 12 }), st.waitSeconds({ error: 'busy' }), st.waitSeconds({ error: 'too_soon' })]).toEqual([12, null, null]);
		expect([st.secondsLeft(5000, 3500), st.secondsLeft(5000, 6000)]).toEqual([2, 0]);
		const s = st.setFailure({}, { kind: 'before', text: 'x', code: 'no_idle_rtt' });
		expect(st.failure(s)).toEqual({ kind: 'before', text: 'x', code: 'no_idle_rtt' });
		expect(st.failure(st.setFailure(s, null))).toBeNull();
	});
});
