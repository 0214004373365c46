import { describe, it, expect, beforeAll } from 'vitest';
import { createHarness } from './harness/luci.js';

let cake;

beforeAll(async () => {
	cake = await createHarness().require('reterm.shaping.cake');
});

const model = over => Object.assign({
	rtt: null, overhead: null, overheadBytes: null, mpu: null, vlan: 0,
	nat: null, isolation: null, diffserv: null, ackFilter: null, ingress: null
}, over);

/* words that must never reach sqm's shell */
const INJECTIONS = [
	'nat;reboot', ';', '$(reboot)', '`id`', '${IFS}', "'nat'", '"nat"', '{nat}', 'nat|nc', 'nat&', '&&',
	'a>b', 'a<b', 'nat\\', '*', 'na?', '[a]', '#x', '~root', 'a=b', '!x', '\u0000', 'ｎａｔ', '--help', '-x'
];

describe('build', () => {
	it('writes the recommended settings for a NAT router', () => {
		expect(cake.build(cake.defaults())).toEqual({
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress',
			eqdisc_opts: 'internet dual-srchost nat ethernet'
		});
	});

	it('orders our words: rtt, diffserv, isolation, nat, ack-filter, framing, overhead, mpu, vlan, ingress', () => {
		expect(cake.build(model({ rtt: 45, diffserv: 'diffserv4', isolation: 'dual', nat: true, ackFilter: true,
			overhead: 'pppoe-ptm', overheadBytes: 34, mpu: 72, vlan: 1, ingress: true }))).toEqual({
			iqdisc_opts: 'rtt 45ms dual-dsthost nat pppoe-ptm overhead 34 mpu 72 ether-vlan ingress',
			eqdisc_opts: 'rtt 45ms diffserv4 dual-srchost nat ack-filter pppoe-ptm overhead 34 mpu 72 ether-vlan'
		});
	});

	it.each([
		[{ overhead: 'atm', overheadBytes: 44 }, 'atm overhead 44'],
		[{ overhead: 'docsis' }, 'docsis'],
		[{ overhead: 'bridged-ptm' }, 'bridged-ptm'],
		[{ overhead: 'raw', overheadBytes: -4 }, 'raw overhead -4'],
		[{ overhead: 'none' }, ''],
		[{ overhead: 'ethernet', vlan: 2 }, 'ethernet ether-vlan ether-vlan'],
		[{ nat: false }, 'nonat'],
		[{ isolation: 'host' }, 'srchost'],
		[{ isolation: 'triple-isolate' }, 'triple-isolate'],
		[{ isolation: 'flows' }, 'flows'],
		[{ ackFilter: 'aggressive' }, 'ack-filter-aggressive'],
		[{ ackFilter: false }, 'no-ack-filter'],
		[{ rtt: 'satellite' }, 'satellite'],
		[{ rtt: 1000 }, 'rtt 1000ms'],
		[{ ingress: true }, '']
	])('egress of %j is "%s"', (over, eq) => {
		expect(cake.build(model(over)).eqdisc_opts).toBe(eq);
	});

	it('keeps direction-specific words on their side', () => {
		const b = cake.build(model({ isolation: 'host', diffserv: 'besteffort', ackFilter: true, ingress: false }));
		expect(b).toEqual({ iqdisc_opts: 'dsthost egress', eqdisc_opts: 'besteffort srchost ack-filter' });
	});

	it('appends the words it does not manage, in their order', () => {
		expect(cake.build(model({ nat: true }), { ingress: ['memlimit', '32mb', 'wash'], egress: ['split-gso', 'fwmark', '0xff'] }))
			.toEqual({ iqdisc_opts: 'nat memlimit 32mb wash', eqdisc_opts: 'nat split-gso fwmark 0xff' });
	});

	it('emits custom overhead keywords verbatim', () => {
		expect(cake.build(model({ overhead: 'custom', overheadTokens: ['overhead', '40', 'ethernet'] })).eqdisc_opts)
			.toBe('overhead 40 ethernet');
	});

	it.each([
		['rtt 0', { rtt: 0 }], ['rtt 1001', { rtt: 1001 }], ['rtt 45.5', { rtt: 45.5 }], ['rtt string', { rtt: '45' }],
		['rtt unknown preset', { rtt: 'fast' }], ['overhead 257', { overheadBytes: 257 }], ['overhead -65', { overheadBytes: -65 }],
		['overhead string', { overheadBytes: '44' }], ['overhead 4.5', { overheadBytes: 4.5 }], ['mpu -1', { mpu: -1 }],
		['mpu 257', { mpu: 257 }], ['mpu NaN', { mpu: NaN }], ['vlan 3', { vlan: 3 }], ['framing bogus', { overhead: 'bogus' }],
		['custom without tokens', { overhead: 'custom' }], ['custom with nat', { overhead: 'custom', overheadTokens: ['nat'] }],
		['custom injection', { overhead: 'custom', overheadTokens: ['$(reboot)'] }], ['nat string', { nat: 'yes' }],
		['isolation', { isolation: 'dual-srchost' }], ['diffserv', { diffserv: 'diffserv5' }], ['ack', { ackFilter: 'yes' }],
		['ingress', { ingress: 1 }]
	])('refuses an invalid model (%s)', (name, over) => {
		expect(cake.build(model(over))).toBeNull();
		expect(cake.validateModel(model(over))).toEqual(expect.any(String));
	});

	it.each(INJECTIONS.map(t => [t]))('refuses the extra word %j', word => {
		expect(cake.build(model({}), { egress: ['wash', word] })).toBeNull();
		expect(cake.build(model({}), { ingress: [word] })).toBeNull();
	});

	it('refuses bad arguments without throwing', () => {
		for (const bad of [null, undefined, 'nat', 5, [], () => {}])
			expect(cake.build(bad)).toBeNull();
		for (const unk of ['nat', 5, { egress: 'nat' }, { ingress: [5] }, { egress: ['memlimit'] }, { egress: ['nat'] },
			{ ingress: ['rtt', '45ms'] }, { egress: ['ethernet'] }])
			expect(cake.build(model({}), unk)).toBeNull();
	});
});

describe('parse', () => {
	const OURS = [
		() => cake.defaults(),
		() => model({}),
		() => model({ rtt: 45, overhead: 'atm', overheadBytes: 44, nat: true, isolation: 'dual', diffserv: 'diffserv4', ackFilter: true, ingress: true }),
		() => model({ rtt: 'lan', overhead: 'docsis', mpu: 64, nat: false, isolation: 'triple-isolate', diffserv: 'besteffort' }),
		() => model({ rtt: 'oceanic', overhead: 'pppoe-ptm', vlan: 1, isolation: 'flows', ackFilter: 'aggressive', ingress: false }),
		() => model({ rtt: 1, overhead: 'raw', overheadBytes: -64, mpu: 0, vlan: 2, isolation: 'host', diffserv: 'diffserv3' }),
		() => model({ rtt: 1000, overhead: 'bridged-ptm', overheadBytes: 256, mpu: 256, ackFilter: false }),
		() => model({ rtt: 'satellite', overhead: 'ethernet' }),
		() => model({ rtt: 'datacentre', overhead: 'pppoe-llcsnap', isolation: 'hosts', diffserv: 'diffserv8' })
	];

	it.each(OURS.map((f, i) => [i, f]))('reads our own output back exactly (%i)', (i, make) => {
		const m = make();
		const b = cake.build(m, { ingress: ['memlimit', '16mb'], egress: ['wash'] });
		const p = cake.parse(b.iqdisc_opts, b.eqdisc_opts);
		expect(p.model).toEqual(m);
		expect(p.unknown).toEqual({ ingress: ['memlimit', '16mb'], egress: ['wash'] });
		expect(p.mismatch).toEqual([]);
		expect(p.invalid).toEqual([]);
		expect(cake.build(p.model, p.unknown)).toEqual(b);
	});

	it('reads a typical hand-written sqm config and keeps what it does not manage', () => {
		const iq = 'nat dual-dsthost ingress memlimit 32mb';
		const eq = 'nat dual-srchost wash split-gso';
		const p = cake.parse(iq, eq);
		expect(p.model).toEqual(model({ nat: true, isolation: 'dual', ingress: true }));
		expect(p.unknown).toEqual({ ingress: ['memlimit', '32mb'], egress: ['wash', 'split-gso'] });
		expect(p.mismatch).toEqual([]);

		const b = cake.build(p.model, p.unknown);
		expect(b).toEqual({ iqdisc_opts: 'dual-dsthost nat ingress memlimit 32mb', eqdisc_opts: 'dual-srchost nat wash split-gso' });
		/* stable: a second pass changes nothing */
		const p2 = cake.parse(b.iqdisc_opts, b.eqdisc_opts);
		expect(p2.model).toEqual(p.model);
		expect(cake.build(p2.model, p2.unknown)).toEqual(b);
	});

	it('keeps unknown words in their relative order, with their arguments', () => {
		const p = cake.parse('', 'wash rtt 50ms fwmark 0xff nat no-split-gso memlimit 1mb diffserv-llt');
		expect(p.unknown.egress).toEqual(['wash', 'fwmark', '0xff', 'no-split-gso', 'memlimit', '1mb', 'diffserv-llt']);
		expect(cake.build(p.model, p.unknown).eqdisc_opts).toBe('rtt 50ms nat wash fwmark 0xff no-split-gso memlimit 1mb diffserv-llt');
	});

	it('takes the last of competing keywords, as CAKE does', () => {
		const p = cake.parse('', 'rtt 50ms metro nonat nat flows dual-srchost diffserv4 besteffort ack-filter no-ack-filter');
		expect(p.model).toEqual(model({ rtt: 'metro', nat: true, isolation: 'dual', diffserv: 'besteffort', ackFilter: false }));
		expect(p.unknown.egress).toEqual([]);
	});

	it('reads rtt times in tc units (no unit = microseconds)', () => {
		expect(cake.parse('', 'rtt 0.5s').model.rtt).toBe(500);
		expect(cake.parse('', 'rtt 45000us').model.rtt).toBe(45);
		expect(cake.parse('', 'rtt 45msec').model.rtt).toBe(45);
		expect(cake.parse('', 'rtt 45').model.rtt).toBe(0.045);
		expect(cake.validateModel(cake.parse('', 'rtt 45').model)).toMatch(/RTT/);
		expect(cake.validateModel(cake.parse('', 'rtt 2s').model)).toMatch(/RTT/);
	});

	it('keeps order-sensitive overhead words verbatim when not in canonical order', () => {
		for (const eq of ['overhead 40 ethernet', 'ether-vlan ethernet', 'ethernet atm', 'mpu 64 docsis', 'ethernet ether-vlan ether-vlan ether-vlan']) {
			const p = cake.parse(eq, eq);
			expect(p.model.overhead).toBe('custom');
			expect(p.model.overheadTokens).toEqual(eq.split(' '));
			expect(cake.build(p.model, p.unknown)).toEqual({ iqdisc_opts: eq, eqdisc_opts: eq });
		}
	});

	it('reads canonical overhead words into fields', () => {
		expect(cake.parse('', 'atm overhead 44').model).toMatchObject({ overhead: 'atm', overheadBytes: 44, mpu: null });
		expect(cake.parse('', 'ethernet ether-vlan').model).toMatchObject({ overhead: 'ethernet', vlan: 1 });
		expect(cake.parse('', 'overhead 18 mpu 64').model).toMatchObject({ overhead: null, overheadBytes: 18, mpu: 64 });
		expect(cake.parse('', 'conservative').model).toMatchObject({ overhead: 'conservative' });
	});

	it('reports fields the two directions disagree on; upload wins', () => {
		const p = cake.parse('rtt 80ms nonat ethernet', 'rtt 50ms nat docsis');
		expect(p.mismatch.sort()).toEqual(['nat', 'overhead', 'rtt']);
		expect(p.model).toMatchObject({ rtt: 50, nat: true, overhead: 'docsis' });
		const q = cake.parse('nat ingress', '');
		expect(q.model.nat).toBe(true);
		expect(q.mismatch).toEqual(['nat']);
	});

	it('maps isolation per direction and flags one written for the other direction', () => {
		expect(cake.parse('dual-dsthost', 'dual-srchost').model.isolation).toBe('dual');
		expect(cake.parse('dsthost', 'srchost').model.isolation).toBe('host');
		const p = cake.parse('dual-srchost', 'dual-srchost');
		expect(p.model.isolation).toBe('dual');
		expect(p.mismatch).toContain('isolation');
		expect(cake.build(p.model, p.unknown)).toEqual({ iqdisc_opts: 'dual-dsthost', eqdisc_opts: 'dual-srchost' });
	});

	it('leaves direction-specific keywords on the other side alone', () => {
		const p = cake.parse('diffserv4 ack-filter', 'ingress');
		expect(p.model).toEqual(model({}));
		expect(p.unknown).toEqual({ ingress: ['diffserv4', 'ack-filter'], egress: ['ingress'] });
	});

	it('flags injected and malformed words and refuses to rebuild them', () => {
		for (const w of INJECTIONS.filter(w => !/\s/.test(w))) {
			const p = cake.parse('', `nat ${w}`);
			expect(p.invalid).toContain(w);
			expect(cake.build(p.model, p.unknown)).toBeNull();
		}
		for (const s of ['rtt', 'overhead', 'mpu x', 'rtt fast', 'overhead 4.5', 'memlimit', 'memlimit lots', 'fwmark 0xZZ', 'rtt $(reboot)']) {
			const p = cake.parse(s, '');
			expect(p.invalid.length).toBe(1);
			expect(cake.build(p.model, p.unknown)).toBeNull();
		}
	});

	it('splits on any blank and tolerates null, undefined and empty strings', () => {
		expect(cake.parse(' nat\tingress  ', null).model).toMatchObject({ nat: true, ingress: true });
		expect(cake.parse(undefined, '').model).toEqual(model({}));
		expect(cake.parse(null, null).unknown).toEqual({ ingress: [], egress: [] });
	});

	it('returns null for non-string input', () => {
		for (const bad of [5, {}, [], true])
			expect(cake.parse(bad, '')).toBeNull();
		expect(cake.parse('', ['nat'])).toBeNull();
	});
});

describe('validators', () => {
	const ok = v => expect(v).toBeNull();
	const bad = v => expect(v).toEqual(expect.any(String));

	it('validateRtt: whole ms 1…1000', () => {
		['1', '45', '1000', 45].forEach(v => ok(cake.validateRtt(v)));
		['0', '-5', '1001', '4.5', '45ms', 'abc', '', ' ', '1e2', '0x10', '+5', null, undefined, {}, [], NaN, 4.5, -1,
			'45;reboot', '$(reboot)', '`id`', '45\n', ' 100 '].forEach(v => bad(cake.validateRtt(v)));
	});

	it('validateOverhead: whole bytes -64…256', () => {
		['-64', '0', '44', '256', -64, 256].forEach(v => ok(cake.validateOverhead(v)));
		['-65', '257', '4.5', 'abc', '', null, '0x10', '44;x', '44 ', '1e1', '--4', 999999999999999].forEach(v =>
			bad(cake.validateOverhead(v)));
	});

	it('validateMpu: whole bytes 0…256', () => {
		['0', '64', '84', '256', 0].forEach(v => ok(cake.validateMpu(v)));
		['-1', '257', 'x', '', null, '6.4', '$(x)', -1].forEach(v => bad(cake.validateMpu(v)));
	});

	it('validateToken: one safe shell word', () => {
		['nat', '-4', '32mb', '0xff', 'dual-srchost', 'a.b_c'].forEach(v => ok(cake.validateToken(v)));
		['', 'a b', 'a\nb', 'a'.repeat(33), null, 5].concat(INJECTIONS).forEach(v => bad(cake.validateToken(v)));
	});

	it('validateOpts: a whole option string', () => {
		['', null, 'nat ingress', 'rtt 45ms overhead -4 mpu 64', ' nat\t'].forEach(v => ok(cake.validateOpts(v)));
		['rtt', 'nat overhead', 'nat;reboot', 'nat $(reboot)', 'nat\nreboot', 'nat | nc x', "nat 'x'", 'x'.repeat(300), 5, {}]
			.concat(INJECTIONS.map(w => `nat ${w}`)).forEach(v => bad(cake.validateOpts(v)));
	});

	it('validateExtra: unmanaged words only, with valid arguments', () => {
		ok(cake.validateExtra('ingress', 'memlimit 32mb wash'));
		ok(cake.validateExtra('egress', 'fwmark 0xff split-gso'));
		ok(cake.validateExtra('egress', ''));
		ok(cake.validateExtra('ingress', 'diffserv4'));
		ok(cake.validateExtra('egress', 'ingress'));
		for (const [side, s] of [['egress', 'nat'], ['ingress', 'nonat'], ['egress', 'rtt 45ms'], ['egress', 'internet'],
			['egress', 'ethernet'], ['egress', 'overhead 4'], ['egress', 'mpu 64'], ['egress', 'ether-vlan'],
			['egress', 'dual-srchost'], ['ingress', 'dual-dsthost'], ['egress', 'diffserv4'], ['egress', 'ack-filter'],
			['ingress', 'ingress'], ['egress', 'memlimit'], ['egress', 'fwmark zz'], ['egress', 'bandwidth x'],
			['egress', 'wash;reboot'], ['egress', 'wash $(reboot)'], ['up', 'wash']])
			bad(cake.validateExtra(side, s));
	});

	it('validateModel: null for valid models', () => {
		ok(cake.validateModel(cake.defaults()));
		ok(cake.validateModel(model({ overhead: 'atm' })));
		bad(cake.validateModel(null));
		bad(cake.validateModel([]));
	});
});

describe('helpers', () => {
	it('exposes presets and converts rtt to ms', () => {
		expect(cake.RTT_PRESETS).toEqual({ lan: 1, metro: 10, regional: 30, internet: 100, oceanic: 300, satellite: 1000 });
		expect(cake.OVERHEAD_PRESETS).toEqual(['ethernet', 'docsis', 'pppoe-ptm', 'bridged-ptm', 'atm', 'raw', 'none']);
		expect(cake.rttMs('internet')).toBe(100);
		expect(cake.rttMs(45)).toBe(45);
		expect(cake.rttMs('x')).toBeNull();
		expect(cake.tokens(' a  b ')).toEqual(['a', 'b']);
		expect(cake.tokens(5)).toBeNull();
	});
});
