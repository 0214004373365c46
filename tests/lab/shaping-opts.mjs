#!/usr/bin/env node
/*
 * Print the sqm option strings the Shaping view writes for a link, and
 * the tc/ip commands sqm-scripts runs for them, as JSON:
 *
 *   node tests/lab/shaping-opts.mjs --wan eth1 --down-kbit 18000 --up-kbit 18000 \
 *        --overhead ethernet --rtt internet
 *   { "iqdisc_opts": "...", "eqdisc_opts": "...", "script": "piece_of_cake.qos",
 *     "ifb": "ifb4eth1", "commands": ["ip link add name ifb4eth1 type ifb", ...],
 *     "steps": [{ "cmd", "argv", "silent" }], "notes": [...], "section": {...} }
 *
 * "commands" are the steps that must succeed, in order; "steps" adds
 * sqm's error-tolerant "tc qdisc del" clean-ups (silent: true).
 * "section" is the queue section as the Shaping view saves it for an
 * enabled queue (reterm.shaping.sqm newSection() + changes(), the rates in
 * kbit/s). --defaults FILE reads the sqm version from an installed
 * /usr/lib/sqm/defaults.sh as the view does ("profile" in the output).
 * --batch: read a JSON array of such argument lists on stdin, print the
 * array of results (one node start for many links).
 * Loads the real reterm.shaping.cake / preview / sqm modules through
 * OpenWrt's LuCI in the JS tier's harness (tests/js/harness/luci.js).
 * Exit 2 on bad arguments (message on stderr), 3 without LuCI built.
 * As a module: parseArgs(), loadModules(), plan() (a bad argument throws
 * UsageError).
 */

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createHarness, luciMissing } from '../js/harness/luci.js';

const USAGE = `usage: shaping-opts.mjs --wan DEV [--down-kbit N] [--up-kbit N]
  [--overhead ethernet|docsis|pppoe-ptm|bridged-ptm|atm|raw|none] [--overhead-bytes N] [--mpu N]
  [--vlan 0|1|2] [--rtt lan|metro|regional|internet|oceanic|satellite|MS]
  [--nat | --no-nat] [--isolation dual|triple-isolate|flows|none]
  [--diffserv besteffort|diffserv3|diffserv4] [--ack-filter]
  [--extra-ingress "WORDS"] [--extra-egress "WORDS"]
  [--squash-dscp 0|1] [--squash-ingress 0|1] [--sqm 1.6|1.7 | --defaults FILE]
       shaping-opts.mjs --batch < [[ARG...], ...]
defaults: --overhead ethernet --rtt internet --nat --isolation dual --diffserv besteffort --sqm 1.6;
--rtt with a number means that many milliseconds ("rtt 45ms").`;

const FLAGS = new Set(['--nat', '--no-nat', '--ack-filter', '--help']);

/** A bad argument: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

function fail(msg) {
	throw new UsageError(msg);
}

/** The arguments of one link: { '--wan': 'eth1', '--nat': true, ... } */
export function parseArgs(argv) {
	const a = {};
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i];
		if (FLAGS.has(k)) { a[k] = true; continue; }
		if (!/^--[a-z-]+$/.test(k)) fail(`unexpected argument "${k}"`);
		if (i + 1 >= argv.length) fail(`${k} needs a value`);
		a[k] = argv[++i];
	}
	return a;
}

const KNOWN = ['--wan', '--down-kbit', '--up-kbit', '--overhead', '--overhead-bytes', '--mpu', '--vlan', '--rtt',
	'--nat', '--no-nat', '--isolation', '--diffserv', '--ack-filter', '--extra-ingress', '--extra-egress',
	'--squash-dscp', '--squash-ingress', '--sqm', '--defaults', '--help'];

/** The modules the plan needs, as the browser runs them: L.require
 * through OpenWrt's LuCI (the JS tier's harness); null when LuCI is not
 * built (luciMissing says why). close() ends the page. */
export async function loadModules() {
	if (luciMissing)
		return null;
	const page = createHarness();
	const [cake, tcpreview, shaping] = await Promise.all(['reterm.shaping.cake', 'reterm.shaping.preview', 'reterm.shaping.sqm']
		.map(n => page.require(n)));
	return { cake, tcpreview, shaping, close: () => page.close() };
}

const int = (k, v) => {
	if (!/^-?[0-9]+$/.test(v)) fail(`${k} must be a whole number`);
	return +v;
};

/** The output for one link (parseArgs()), with loadModules()'s modules. */
export function plan(args, { cake, tcpreview, shaping }) {
	for (const k of Object.keys(args))
		if (!KNOWN.includes(k)) fail(`unknown option ${k}`);
	if (!args['--wan']) fail('--wan is required');

	const model = cake.defaults();
	if (args['--rtt'] !== undefined)
		model.rtt = /^[0-9]+$/.test(args['--rtt']) ? +args['--rtt'] : args['--rtt'];
	if (args['--overhead'] !== undefined)
		model.overhead = args['--overhead'] === 'none' ? null : args['--overhead'];
	if (args['--overhead-bytes'] !== undefined)
		model.overheadBytes = int('--overhead-bytes', args['--overhead-bytes']);
	if (args['--mpu'] !== undefined)
		model.mpu = int('--mpu', args['--mpu']);
	if (args['--vlan'] !== undefined)
		model.vlan = int('--vlan', args['--vlan']);
	if (args['--nat'] && args['--no-nat'])
		fail('--nat and --no-nat exclude each other');
	if (args['--no-nat'])
		model.nat = false;
	if (args['--isolation'] !== undefined)
		model.isolation = args['--isolation'] === 'none' ? null : args['--isolation'];
	model.diffserv = args['--diffserv'] ?? 'besteffort';
	if (args['--ack-filter'])
		model.ackFilter = true;

	const unknown = { ingress: [], egress: [] };
	for (const [k, side] of [['--extra-ingress', 'ingress'], ['--extra-egress', 'egress']]) {
		if (args[k] === undefined) continue;
		const err = cake.validateExtra(side, args[k]);
		if (err) fail(`${k}: ${err}`);
		unknown[side] = cake.tokens(args[k]);
	}

	const err = cake.validateModel(model);
	if (err) fail(err);

	for (const k of ['--down-kbit', '--up-kbit'])
		if (args[k] !== undefined && !/^[0-9]+$/.test(args[k])) fail(`${k} must be a whole number of kbit/s`);

	/* what the view saves: a new queue for the device, the CAKE settings
	 * (the script carries besteffort / diffserv3 itself), enabled, rates */
	const base = shaping.newSection(args['--wan']);
	if (!base) fail(`invalid device name "${args['--wan']}"`);
	const changes = shaping.changes(base, model, unknown);
	if (!changes) fail('invalid CAKE settings');
	const section = Object.assign(base, changes, {
		enabled: '1',
		download: args['--down-kbit'] ?? '0',
		upload: args['--up-kbit'] ?? '0'
	});
	if (args['--squash-dscp'] !== undefined) section.squash_dscp = args['--squash-dscp'];
	if (args['--squash-ingress'] !== undefined) section.squash_ingress = args['--squash-ingress'];

	let profile = args['--sqm'] ?? '1.6';
	if (args['--defaults'] !== undefined) {
		if (args['--sqm'] !== undefined) fail('--sqm and --defaults exclude each other');
		let text;
		try { text = readFileSync(args['--defaults'], 'utf8'); }
		catch (e) { fail(`cannot read ${args['--defaults']}: ${e.message}`); }
		profile = tcpreview.profileFromDefaults(text) || '1.6';
	}

	const res = tcpreview.commands(section, { sqm: profile });
	if (!res || !res.ok) fail((res && res.errors.join('; ')) || 'cannot build the commands');
	return {
		iqdisc_opts: section.iqdisc_opts,
		eqdisc_opts: section.eqdisc_opts,
		script: section.script,
		profile,
		ifb: res.ifb,
		commands: res.commands,
		steps: res.steps,
		notes: res.notes,
		section
	};
}

async function main(argv) {
	if (argv.includes('--help')) {
		process.stdout.write(USAGE + '\n');
		return 0;
	}
	let batch = null, one = null;
	if (argv.length === 1 && argv[0] === '--batch') {
		try { batch = JSON.parse(readFileSync(0, 'utf8')); }
		catch (e) { fail(`--batch: stdin is not JSON: ${e.message}`); }
		if (!Array.isArray(batch) || !batch.every(a => Array.isArray(a) && a.every(w => typeof w === 'string')))
			fail('--batch: stdin must be an array of argument lists (strings)');
		batch = batch.map(parseArgs);
	}
	else
		one = parseArgs(argv);
	const mods = await loadModules();
	if (!mods) {
		process.stderr.write(`shaping-opts: ${luciMissing}\n`);
		return 3;
	}
	try {
		const out = batch ? batch.map(a => plan(a, mods)) : plan(one, mods);
		process.stdout.write(JSON.stringify(out, null, 2) + '\n');
		return 0;
	}
	finally {
		mods.close();
	}
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
	main(process.argv.slice(2)).then(code => { process.exitCode = code; }, e => {
		if (!(e instanceof UsageError))
			throw e;
		process.stderr.write(`shaping-opts: ${e.message}\n${USAGE}\n`);
		process.exitCode = 2;
	});
