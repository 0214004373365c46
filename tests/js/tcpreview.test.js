import { describe, it, expect, beforeAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createHarness } from './harness/luci.js';

let tp, cake;

beforeAll(async () => {
	const h = createHarness();
	tp = await h.require('reterm.shaping.preview');
	cake = await h.require('reterm.shaping.cake');
});

const REDIRECT = 'tc filter add dev %d parent ffff: protocol all prio 10 u32 match u32 0 0 flowid 1:1 action mirred egress redirect dev %i';
const redirect = (dev, ifb) => REDIRECT.replace('%d', dev).replace('%i', ifb);

/* expected command lists: what sqm-scripts runs (see tcpreview.js for the
 * functions mirrored); the lab runs lists like these on a real kernel */
const FIXTURES = {
	'ethernet 20/20 Mbit at 90 %, nat + per-host isolation (piece_of_cake, sqm 1.6)': {
		section: { interface: 'eth1', download: '18000', upload: '18000', script: 'piece_of_cake.qos',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 root cake bandwidth 18000kbit besteffort internet dual-srchost nat ethernet',
			'tc qdisc add dev eth1 handle ffff: ingress',
			'tc qdisc add dev ifb4eth1 root cake bandwidth 18000kbit besteffort wash internet dual-dsthost nat ethernet ingress',
			'ip link set dev ifb4eth1 up',
			redirect('eth1', 'ifb4eth1')
		]
	},
	'the same with sqm 1.7 defaults (diffserv3 nat before besteffort)': {
		sqm: '1.7',
		section: { interface: 'eth1', download: '18000', upload: '18000', script: 'piece_of_cake.qos',
			iqdisc_opts: 'internet dual-dsthost nat ethernet ingress', eqdisc_opts: 'internet dual-srchost nat ethernet' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 root cake bandwidth 18000kbit diffserv3 nat besteffort internet dual-srchost nat ethernet',
			'tc qdisc add dev eth1 handle ffff: ingress',
			'tc qdisc add dev ifb4eth1 root cake bandwidth 18000kbit diffserv3 nat besteffort wash internet dual-dsthost nat ethernet ingress',
			'ip link set dev ifb4eth1 up',
			redirect('eth1', 'ifb4eth1')
		]
	},
	'docsis cable, layer_cake with diffserv4 on the upload, ack-filter': {
		section: { interface: 'eth0', download: '200000', upload: '10000', script: 'layer_cake.qos',
			iqdisc_opts: 'rtt 45ms dual-dsthost nat docsis ingress', eqdisc_opts: 'rtt 45ms diffserv4 dual-srchost nat ack-filter docsis' },
		commands: [
			'ip link add name ifb4eth0 type ifb',
			'tc qdisc add dev eth0 root cake bandwidth 10000kbit diffserv3 rtt 45ms diffserv4 dual-srchost nat ack-filter docsis',
			'tc qdisc add dev eth0 handle ffff: ingress',
			'tc qdisc add dev ifb4eth0 root cake bandwidth 200000kbit diffserv3 besteffort wash rtt 45ms dual-dsthost nat docsis ingress',
			'ip link set dev ifb4eth0 up',
			redirect('eth0', 'ifb4eth0')
		]
	},
	'VDSL2 with PPPoE on pppoe-wan, DSCP kept on ingress': {
		section: { interface: 'pppoe-wan', download: '90000', upload: '36000', script: 'layer_cake.qos',
			squash_dscp: '0', squash_ingress: '0',
			iqdisc_opts: 'internet dual-dsthost nat pppoe-ptm ether-vlan ingress', eqdisc_opts: 'internet dual-srchost nat pppoe-ptm ether-vlan' },
		commands: [
			'ip link add name ifb4pppoe-wan type ifb',
			'tc qdisc add dev pppoe-wan root cake bandwidth 36000kbit diffserv3 internet dual-srchost nat pppoe-ptm ether-vlan',
			'tc qdisc add dev pppoe-wan handle ffff: ingress',
			'tc qdisc add dev ifb4pppoe-wan root cake bandwidth 90000kbit diffserv3 internet dual-dsthost nat pppoe-ptm ether-vlan ingress',
			'ip link set dev ifb4pppoe-wan up',
			redirect('pppoe-wan', 'ifb4pppoe-wan')
		]
	},
	'ADSL: atm overhead 44, metro rtt': {
		section: { interface: 'pppoe-wan', download: '14000', upload: '900', script: 'piece_of_cake.qos',
			iqdisc_opts: 'metro dual-dsthost nat atm overhead 44 ingress', eqdisc_opts: 'metro dual-srchost nat atm overhead 44' },
		commands: [
			'ip link add name ifb4pppoe-wan type ifb',
			'tc qdisc add dev pppoe-wan root cake bandwidth 900kbit besteffort metro dual-srchost nat atm overhead 44',
			'tc qdisc add dev pppoe-wan handle ffff: ingress',
			'tc qdisc add dev ifb4pppoe-wan root cake bandwidth 14000kbit besteffort wash metro dual-dsthost nat atm overhead 44 ingress',
			'ip link set dev ifb4pppoe-wan up',
			redirect('pppoe-wan', 'ifb4pppoe-wan')
		]
	},
	'download 0: only the upload is shaped (the IFB is still created, as sqm does)': {
		section: { interface: 'eth1', download: '0', upload: '18000', script: 'piece_of_cake.qos', eqdisc_opts: 'nat' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 root cake bandwidth 18000kbit besteffort nat'
		]
	},
	'upload 0: only the download is shaped': {
		section: { interface: 'eth1', download: '18000', upload: '0', script: 'piece_of_cake.qos', iqdisc_opts: 'nat ingress' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 handle ffff: ingress',
			'tc qdisc add dev ifb4eth1 root cake bandwidth 18000kbit besteffort wash nat ingress',
			'ip link set dev ifb4eth1 up',
			redirect('eth1', 'ifb4eth1')
		]
	},
	'luci-app-sqm style link layer (ethernet, overhead 34): sqm adds "overhead 34 mpu 0"': {
		section: { interface: 'eth1', download: '50000', upload: '10000', script: 'piece_of_cake.qos',
			linklayer: 'ethernet', overhead: '34' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 root cake bandwidth 10000kbit overhead 34 mpu 0 besteffort',
			'tc qdisc add dev eth1 handle ffff: ingress',
			'tc qdisc add dev ifb4eth1 root cake bandwidth 50000kbit overhead 34 mpu 0 besteffort wash',
			'ip link set dev ifb4eth1 up',
			redirect('eth1', 'ifb4eth1')
		]
	},
	'tc_stab link layer adaptation: the stab goes before "cake"': {
		section: { interface: 'eth1', download: '8000', upload: '800', script: 'piece_of_cake.qos',
			linklayer: 'atm', overhead: '44', tcMPU: '64', linklayer_adaptation_mechanism: 'tc_stab' },
		commands: [
			'ip link add name ifb4eth1 type ifb',
			'tc qdisc add dev eth1 root stab mtu 2047 tsize 512 mpu 64 overhead 44 linklayer atm cake bandwidth 800kbit besteffort',
			'tc qdisc add dev eth1 handle ffff: ingress',
			'tc qdisc add dev ifb4eth1 root stab mtu 2047 tsize 512 mpu 64 overhead 44 linklayer atm cake bandwidth 8000kbit besteffort wash',
			'ip link set dev ifb4eth1 up',
			redirect('eth1', 'ifb4eth1')
		]
	}
};

describe('commands', () => {
	it.each(Object.entries(FIXTURES))('%s', (name, fx) => {
		const r = tp.commands(fx.section, { sqm: fx.sqm });
		expect(r.errors).toEqual([]);
		expect(r.ok).toBe(true);
		expect(r.commands).toEqual(fx.commands);
		expect(r.steps.filter(s => !s.silent).map(s => s.argv.join(' '))).toEqual(fx.commands);
	});

	it('lists sqm\'s error-tolerant clean-ups as silent steps, in order', () => {
		const r = tp.commands(FIXTURES[Object.keys(FIXTURES)[0]].section);
		expect(r.steps.filter(s => s.silent).map(s => s.cmd)).toEqual([
			'tc qdisc del dev eth1 root', 'tc qdisc del dev eth1 handle ffff: ingress', 'tc qdisc del dev ifb4eth1 root'
		]);
		expect(r.steps.map(s => s.cmd).indexOf('tc qdisc del dev eth1 root')).toBe(1);
		expect(r).toMatchObject({ ifb: 'ifb4eth1', egress: true, ingress: true });
	});

	it('notes a direction at 0 and deletes its old qdisc', () => {
		const r = tp.commands({ interface: 'eth1', download: '0', upload: '', script: 'piece_of_cake.qos' });
		expect(r.ok).toBe(true);
		expect(r.commands).toEqual(['ip link add name ifb4eth1 type ifb']);
		expect(r).toMatchObject({ egress: false, ingress: false });
		expect(r.notes.join(' ')).toMatch(/Upload is 0.*Download is 0/);
		expect(r.steps.filter(s => s.silent).map(s => s.cmd)).toEqual([
			'tc qdisc del dev eth1 root', 'tc qdisc del dev ifb4eth1 root', 'tc qdisc del dev eth1 ingress']);
	});

	it('cuts the IFB name to 15 characters like sqm\'s ifb_name()', () => {
		expect(tp.ifbName('eth0.1234567890')).toBe('ifb4eth0.123456');
		expect(tp.commands({ interface: 'wan-very-long', download: '1', upload: '1', script: 'piece_of_cake.qos' }).ifb)
			.toBe('ifb4wan-very-lo');
		expect(tp.ifbName('eth1;reboot')).toBeNull();
	});

	it('notes a disabled queue and use_mq', () => {
		const r = tp.commands({ interface: 'eth1', download: '1000', upload: '1000', script: 'layer_cake.qos', enabled: '0', use_mq: '1' });
		expect(r.notes.join(' ')).toMatch(/cake_mq/);
		expect(r.notes.join(' ')).toMatch(/disabled/);
	});

	it.each([
		['an interface with shell characters', { interface: 'eth1;reboot' }],
		['no interface', { interface: '' }],
		['an interface longer than 15 characters', { interface: 'a234567890123456' }],
		['an unsupported script', { script: 'simple.qos' }],
		['injected download options', { iqdisc_opts: 'nat $(reboot)' }],
		['injected upload options', { eqdisc_opts: 'nat;reboot' }],
		['a newline in the options', { eqdisc_opts: 'nat\nreboot' }],
		['a negative rate', { upload: '-5' }],
		['a rate with a unit', { download: '18mbit' }],
		['a bad link layer', { linklayer: 'ethernet', overhead: '34;x' }],
		['an unknown link layer', { linklayer: 'fddi' }]
	])('refuses %s', (name, over) => {
		const r = tp.commands(Object.assign({ interface: 'eth1', download: '1000', upload: '1000', script: 'piece_of_cake.qos' }, over));
		expect(r.ok).toBe(false);
		expect(r.commands).toEqual([]);
		expect(r.errors.length).toBeGreaterThan(0);
	});

	it('returns null for non-objects and an error for an unknown sqm version', () => {
		for (const bad of [null, undefined, 'eth1', 5, []])
			expect(tp.commands(bad)).toBeNull();
		expect(tp.commands({ interface: 'eth1' }, { sqm: '0.9' }).errors).toEqual(['Unknown sqm-scripts version']);
	});

	it('builds the preview from reterm.shaping.cake output', () => {
		const b = cake.build(cake.defaults());
		const r = tp.commands(Object.assign({ interface: 'eth1', download: '18000', upload: '18000', script: 'piece_of_cake.qos' }, b));
		expect(r.commands).toEqual(FIXTURES[Object.keys(FIXTURES)[0]].commands);
	});
});

describe('profileFromDefaults', () => {
	it('tells sqm 1.6 from 1.7 by the default CAKE options', () => {
		expect(tp.profileFromDefaults('[ -z "$INGRESS_CAKE_OPTS" ] && INGRESS_CAKE_OPTS="diffserv3"\n')).toBe('1.6');
		expect(tp.profileFromDefaults('[ -z "$INGRESS_CAKE_OPTS" ] && INGRESS_CAKE_OPTS="diffserv3 nat"\n')).toBe('1.7');
		expect(tp.profileFromDefaults('nothing here')).toBeNull();
		expect(tp.profileFromDefaults(null)).toBeNull();
	});
});

describe('the lab CLI (tests/lab/shaping-opts.mjs)', () => {
	const cli = fileURLToPath(new URL('../lab/shaping-opts.mjs', import.meta.url));
	/* a run boots LuCI in jsdom (about a second): two runs, at once, for
	 * what the command prints and how it exits; the plans and the refusals
	 * in this process, with the modules of this file's page */
	const run = args => new Promise(resolve => {
		const p = spawn(process.execPath, [cli, ...args]);
		let stdout = '', stderr = '';
		p.stdout.on('data', d => { stdout += d; });
		p.stderr.on('data', d => { stderr += d; });
		p.on('close', status => resolve({ args, status, stdout, stderr }));
	});
	let good, bad, opts, mods;
	beforeAll(async () => {
		opts = await import('../lab/shaping-opts.mjs');
		mods = { cake, tcpreview: tp, shaping: await createHarness().require('reterm.shaping.sqm') };
		[good, bad] = await Promise.all([run(['--wan', 'eth1', '--down-kbit', '18000', '--up-kbit', '18000', '--overhead', 'ethernet',
			'--rtt', 'internet']), run(['--wan', 'eth1;x'])]);
	}, 60000);
	const plan = argv => opts.plan(opts.parseArgs(argv), mods);

	it('prints the option strings and commands for a 20 Mbit/s link at 90 %', () => {
		expect(good.status).toBe(0);
		const j = JSON.parse(good.stdout);
		expect(j.iqdisc_opts).toBe('internet dual-dsthost nat ethernet ingress');
		expect(j.eqdisc_opts).toBe('internet dual-srchost nat ethernet');
		expect(j.script).toBe('piece_of_cake.qos');
		expect(j.commands).toEqual(FIXTURES[Object.keys(FIXTURES)[0]].commands);
	});

	it('takes a number for --rtt as milliseconds and diffserv4 via layer_cake', () => {
		const j = plan(['--wan', 'veth-r', '--down-kbit', '1000', '--up-kbit', '0', '--rtt', '45', '--diffserv', 'diffserv4',
			'--no-nat', '--overhead', 'atm', '--overhead-bytes', '44']);
		expect(j.eqdisc_opts).toBe('rtt 45ms diffserv4 dual-srchost nonat atm overhead 44');
		expect(j.script).toBe('layer_cake.qos');
		expect(j.commands[0]).toBe('ip link add name ifb4veth-r type ifb');
		expect(j.commands.some(c => c.startsWith('tc qdisc add dev veth-r root'))).toBe(false);
	});

	it('refuses bad arguments: exit code 2 and the reason on stderr', () => {
		expect(bad.status).toBe(2);
		expect(bad.stderr).toMatch(/^shaping-opts: invalid device name "eth1;x"\nusage:/);
		for (const args of [[], ['--wan', 'eth1;x'], ['--wan', 'eth1', '--rtt', '2000'], ['--wan', 'eth1', '--overhead-bytes', '300'],
			['--wan', 'eth1', '--extra-egress', 'nat'], ['--wan', 'eth1', '--down-kbit', '18M'], ['--wan', 'eth1', '--bogus', '1']])
			expect(() => plan(args), args.join(' ')).toThrow(opts.UsageError);
	});
});

/*
 * Syntax check with the real tc in a private network namespace with a veth
 * pair (needs root, unshare, tc and veth support; else the tests count as
 * skipped). A kernel without sch_cake answers "Specified qdisc kind is
 * unknown" only after tc parsed every argument, so a command passes when
 * it succeeds or fails that way; a parse error ("What is ...", usage text)
 * fails the test.
 */
function canMakeVeth() {
	const probe = 'tc -V && ip link add probe0 type veth peer name probe1';
	return spawnSync('unshare', ['-n', 'sh', '-c', probe], { stdio: 'ignore' }).status === 0;
}

describe.skipIf(!canMakeVeth())('real tc accepts the commands (network namespace)', () => {
	it.each(Object.entries(FIXTURES))('%s', (name, fx) => {
		const dev = fx.section.interface;
		const script = [
			'set -u',
			`ip link add ${dev} type veth peer name peer0 || exit 1`,
			`ip link set ${dev} up`,
			...fx.commands.map(c => `out=$(${c} 2>&1); rc=$?; if [ $rc -ne 0 ] && ! printf '%s' "$out" | grep -q 'qdisc kind is unknown'; then echo "FAILED: ${c}: $out"; exit 1; fi`)
		].join('\n');
		const r = spawnSync('unshare', ['-n', 'sh', '-c', script], { encoding: 'utf8' });
		expect(r.stdout + r.stderr).not.toMatch(/FAILED|What is|Usage:/);
		expect(r.status).toBe(0);
	});
});
