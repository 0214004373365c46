import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';
import { RESULT } from './fixtures/wizard-result.js';

/* reterm.wizard.propose: the proposal from the "before" measurement */
let pr;
beforeAll(async () => { pr = await createHarness().require('reterm.wizard.propose'); });

describe('bandwidth: 90 % of measured, kbit/s', () => {
	it.each([
		[20000000, 18000], [1000000, 900], [18500000, 16650], [1500, 1], [1, 1], [555, 1], [1111, 1],
		[1e12, 100000000], [1e15, 100000000], [111111111, 100000]
	])('%s bit/s → %s kbit/s', (bps, kbit) => {
		expect(pr.bandwidthKbit(bps)).toBe(kbit);
	});
	it.each([[0], [-5], [NaN], [Infinity], [null], [undefined], ['20000000'], [{}]])('%s → not measured', v => {
		expect(pr.bandwidthKbit(v)).toBeNull();
	});
});

describe('rtt rule', () => {
	const rtt = (reflectors, servers) => pr.proposeRtt({ reflectors, servers });
	it('is CAKE\'s default 100 ms without data', () => {
		expect(rtt([], [])).toMatchObject({ rtt: 'internet', ms: 100, p98: null, samples: 0 });
		expect(pr.proposeRtt()).toMatchObject({ rtt: 'internet', ms: 100 });
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
		expect(pr.clampRtt('lan')).toBe('regional');
		expect(pr.clampRtt('metro')).toBe('regional');
		expect(pr.clampRtt(29)).toBe('regional');
		expect(pr.clampRtt(30)).toBe(30);
		expect(pr.clampRtt('regional')).toBe('regional');
		expect(pr.clampRtt('oceanic')).toBe('oceanic');
		expect(pr.clampRtt('bogus')).toBeNull();
		expect(pr.clampRtt(5000)).toBeNull();
	});
});

describe('overhead from the WAN protocol', () => {
	it.each([['dhcp', false, 'ethernet'], ['static', false, 'ethernet'], ['pppoe', false, 'pppoe-ptm'],
		['pppoa', false, 'pppoe-ptm'], ['dhcp', true, 'docsis'], ['pppoe', true, 'docsis'], [undefined, false, 'ethernet']])(
		'%s (docsis %s) → %s', (proto, docsis, oh) => expect(pr.overheadFor(proto, docsis)).toBe(oh));
});

describe('propose', () => {
	it('combines rates, rtt from the reflector RTTs and overhead', () => {
		const p = pr.propose({ result: RESULT(), device: 'pppoe-wan', proto: 'pppoe' });
		expect(p).toMatchObject({ device: 'pppoe-wan', download: 18000, upload: 900, rtt: 'internet', overhead: 'pppoe-ptm', ok: true, notes: [] });
		expect(p.rttInfo).toMatchObject({ p98: 18, samples: 2 });
	});
	it('uses the server RTTs too', () => {
		expect(pr.propose({ result: RESULT(), device: 'eth1', proto: 'dhcp', servers: [160, 40] }).rtt).toBe('oceanic');
	});
	it('reads the server_rtts reply', () => {
		expect(pr.serverRtts({ rtts: [131.5, 0, -1, 'x', null, 162.25], source: 'ss' })).toEqual([131.5, 162.25]);
		expect(pr.serverRtts({ error: 'rpc' })).toEqual([]);
		expect(pr.serverRtts(null)).toEqual([]);
	});
	it('falls back to idle_rtt without per-reflector medians', () => {
		expect(pr.reflectorRtts(RESULT({ reflector_idle: undefined, idle_rtt: 140 }))).toEqual([140]);
		expect(pr.reflectorRtts(null)).toEqual([]);
	});
	it('leaves an unmeasured direction unshaped and says so', () => {
		const p = pr.propose({ result: RESULT({ upload: null }), device: 'eth1', proto: 'dhcp' });
		expect([p.download, p.upload, p.ok]).toEqual([18000, 0, true]);
		expect(p.notes.join(' ')).toMatch(/upload is left unshaped/);
		const q = pr.propose({ result: RESULT({ download: { throughput_bps: NaN }, upload: { throughput_bps: 0 } }), device: 'eth1' });
		expect([q.download, q.upload, q.ok]).toEqual([0, 0, false]);
		expect(pr.propose({}).ok).toBe(false);
	});
	it('does not propose absurd rates and flags inconclusive results', () => {
		const p = pr.propose({ result: RESULT({ inconclusive: true, download: { throughput_bps: 1e13 } }), device: 'eth1' });
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
		[{ overhead: 'x' }, /Unknown link overhead/], [{ download: 100000001 }, /whole number/],
		[{ adaptive: true, upload: 0 }, /Adaptive shaping moves both rates/]
	])('refuses %j', (over, msg) => expect(pr.validateProposal(P(over))).toMatch(msg));
	it('accepts a valid one', () => expect(pr.validateProposal(P())).toBeNull());

	it('builds a new enabled section with the recommended CAKE options', () => {
		expect(pr.sqmValues(P({ device: 'pppoe-wan', overhead: 'pppoe-ptm', rtt: 'oceanic' }), null)).toEqual({
			enabled: '1', interface: 'pppoe-wan', download: '18000', upload: '900', qdisc: 'cake', script: 'piece_of_cake.qos',
			linklayer: 'none', qdisc_advanced: '1', qdisc_really_really_advanced: '1',
			iqdisc_opts: 'oceanic dual-dsthost nat pppoe-ptm ingress', eqdisc_opts: 'oceanic dual-srchost nat pppoe-ptm' });
	});
	it('keeps the user\'s other settings and extra words of an existing section', () => {
		const v = pr.sqmValues(P({ rtt: 'lan' }), { '.name': 'q', enabled: '0', interface: 'eth1', script: 'layer_cake.qos',
			iqdisc_opts: 'flows nonat ingress memlimit 32mb', eqdisc_opts: 'flows nonat diffserv4 wash' });
		expect(v).toMatchObject({ enabled: '1', script: 'layer_cake.qos', download: '18000',
			iqdisc_opts: 'regional flows nonat ethernet ingress memlimit 32mb', eqdisc_opts: 'regional diffserv4 flows nonat ethernet wash' });
	});
	it('returns null for an invalid proposal', () => expect(pr.sqmValues(P({ download: 0, upload: 0 }), null)).toBeNull());
	it('changes only values sqm may source as root; hand-set options it does not manage stay as they are', async () => {
		const shaping = await createHarness().require('reterm.shaping.sqm');
		const cur = { '.name': 'q', enabled: '0', interface: 'eth1', debug_logging: '1', squash_dscp: '1',
			iqdisc_opts: 'ingress', eqdisc_opts: 'wash' };
		for (const [p, current] of [[P(), null], [P({ device: 'pppoe-wan', overhead: 'atm' }), null], [P({ rtt: 'satellite' }), cur]]) {
			const v = pr.sqmValues(p, current);
			const changed = Object.keys(v).filter(k => k.charAt(0) !== '.' && (!current || String(current[k] ?? '') !== v[k]));
			expect(changed.length).toBeGreaterThan(3);
			for (const k of changed)
				expect(shaping.sqmValueError(k, v[k]), `${k}=${v[k]}`).toBeNull();
			if (current)
				expect([v.debug_logging, v.squash_dscp]).toEqual(['1', '1']);
		}
		expect(pr.sqmValues(P(), Object.assign({}, cur, { eqdisc_opts: 'wash;reboot' }))).toBeNull();
	});
});

describe('issue 12: sanity check of the measured rates', () => {
	const Q = (download, upload, enabled = '1') => ({ '.type': 'queue', enabled, interface: 'eth1', download, upload });
	const PH = (name, start, end) => ({ name, start, end });
	const PHASES = [PH('idle', 0, 5), PH('download', 5, 15), PH('idle', 15, 17), PH('upload', 17, 27)];

	it('does not propose 11 Gbit/s measured unshaped on a line shaped at 9 Mbit/s (cake bandwidth 9950746kbit)', () => {
		const r = RESULT({ phases: PHASES, download: { throughput_bps: 20000000 }, upload: { throughput_bps: 11056384444 } });
		expect(pr.bandwidthKbit(11056384444)).toBe(9950746);
		const p = pr.propose({ result: r, device: 'eth1', proto: 'dhcp', queue: Q('50000', '9000') });
		expect(p.upload).toBe(9000);
		expect(p.download).toBe(18000);
		expect(p.rejected).toEqual({ download: null, upload: 'max' });
		const n = p.notes.join(' ');
		expect(n).toMatch(/The measured upload rate of 11\.1 Gbit\/s is above 10 Gbit\/s.*not proposed/);
		expect(n).toMatch(/The upload field keeps the current rate \(9 Mbit\/s\)\. Measure again.*or type the rate/);
		expect(pr.sqmValues(p, Q('50000', '9000')).upload).toBe('9000');
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
		const p = pr.propose({ result: RESULT({ phases: PHASES, upload: { throughput_bps: bps } }), device: 'eth1', queue, linkMbit: link });
		expect(p.rejected.upload).toBe(reason);
		expect(p.upload).toBe(reason ? (queue ? +queue.upload : 0) : pr.bandwidthKbit(bps));
	});

	it('refuses a rate from a phase with too few seconds or bytes', () => {
		const cut = RESULT({ phases: [PH('idle', 0, 5), PH('download', 5, 8)] });
		expect(pr.propose({ result: cut, device: 'eth1' }).rejected.download).toBe('short');
		const trickle = RESULT({ phases: PHASES, upload: { throughput_bps: 50000 } });
		const p = pr.propose({ result: trickle, device: 'eth1' });
		expect([p.rejected.upload, p.upload]).toEqual(['short', 0]);
		expect(p.notes.join(' ')).toMatch(/upload rate of 50 kbit\/s rests on too little data \(49 KB? in 8 s\)|upload rate of 50 kbit\/s rests on too little data/);
		expect(p.notes.join(' ')).toMatch(/The upload field stays at 0 \(unshaped\)/);
		/* no phase data (older results): only the other checks */
		expect(pr.propose({ result: RESULT({ upload: { throughput_bps: 50000 } }), device: 'eth1' }).rejected.upload).toBeNull();
	});

	it('checkRate gives the reason and the limit', () => {
		expect(pr.checkRate(11056384444, { currentKbit: 9000 })).toMatchObject({ reason: 'max', limit: 10000000000 });
		expect(pr.checkRate(500000000, { currentKbit: 9000 })).toMatchObject({ reason: 'ratio', limit: 180000000 });
		expect(pr.checkRate(1200000000, { linkMbit: 1000 })).toMatchObject({ reason: 'link', limit: 1000000000 });
		expect(pr.checkRate(20000000, { currentKbit: 9000, linkMbit: 1000, secs: 8, bytes: 20000000 })).toBeNull();
		expect(pr.checkRate(20000000, { linkMbit: -1 })).toBeNull();           /* no carrier: speed unknown */
	});
});

describe('adaptive shaping proposed for a line whose rate moves', () => {
	const PH = (dl, both, spread) => [
		{ name: 'download', start: 5, end: 15, rx_bps: dl, tx_bps: 1e5, rx_spread: spread, tx_spread: null },
		{ name: 'upload', start: 17, end: 27, rx_bps: 1e5, tx_bps: 5e6, rx_spread: null, tx_spread: 0.05 },
		{ name: 'both', start: 29, end: 39, rx_bps: both, tx_bps: 5e6, rx_spread: 0.1, tx_spread: 0.1 }];

	it('within a phase: more than 30 %', () => {
		expect(pr.variability(RESULT({ phases: PH(20e6, 19e6, 0.45) }))).toEqual({ varied: true, share: 0.45, where: 'download' });
		const p = pr.propose({ result: RESULT({ phases: PH(20e6, 19e6, 0.45) }), device: 'eth1', proto: 'dhcp' });
		expect(p.autorate).toBe(true);
		expect(p.adaptive).toBe(true);
		expect(p.notes).toEqual([ 'The throughput moved by 45 % during the measurement (within a phase). A line like this is a candidate for adaptive shaping: it follows the line instead of one fixed rate (the box below; the Shaping page has its settings).' ]);
	});

	it('between the download and the both phase', () => {
		expect(pr.variability(RESULT({ phases: PH(20e6, 12e6, 0.1) }))).toEqual({ varied: true, share: 0.4, where: 'between' });
	});

	it('a steady line, or no phases: nothing proposed', () => {
		expect(pr.variability(RESULT({ phases: PH(20e6, 18e6, 0.12) }))).toEqual({ varied: false, share: 0.12, where: 'download' });
		expect(pr.variability(RESULT())).toEqual({ varied: false, share: null, where: null });
		expect(pr.propose({ result: RESULT({ phases: PH(20e6, 18e6, 0.3) }), device: 'eth1', proto: 'dhcp' }).autorate).toBe(false);
		expect(pr.propose({ result: RESULT({ phases: PH(20e6, 18e6, 0.3) }), device: 'eth1', proto: 'dhcp' }).adaptive).toBe(false);
		/* on for the queue already: the box starts ticked */
		expect(pr.propose({ result: RESULT({ phases: PH(20e6, 18e6, 0.3) }), device: 'eth1', proto: 'dhcp', adaptiveOn: true }).adaptive).toBe(true);
	});
});
