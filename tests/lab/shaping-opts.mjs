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
 * Loads the real reterm.cake / reterm.tcpreview modules through the JS
 * test harness. Exit 2 on bad arguments (message on stderr).
 */

import { createHarness } from '../js/harness/loader.js';

const USAGE = `usage: shaping-opts.mjs --wan DEV [--down-kbit N] [--up-kbit N]
  [--overhead ethernet|docsis|pppoe-ptm|bridged-ptm|atm|raw|none] [--overhead-bytes N] [--mpu N]
  [--vlan 0|1|2] [--rtt lan|metro|regional|internet|oceanic|satellite|MS]
  [--nat | --no-nat] [--isolation dual|triple-isolate|flows|none]
  [--diffserv besteffort|diffserv3|diffserv4] [--ack-filter]
  [--extra-ingress "WORDS"] [--extra-egress "WORDS"]
  [--squash-dscp 0|1] [--squash-ingress 0|1] [--sqm 1.6|1.7]
defaults: --overhead ethernet --rtt internet --nat --isolation dual --diffserv besteffort --sqm 1.6;
--rtt with a number means that many milliseconds ("rtt 45ms").`;

const FLAGS = new Set(['--nat', '--no-nat', '--ack-filter', '--help']);

function fail(msg) {
	process.stderr.write(`shaping-opts: ${msg}\n${USAGE}\n`);
	process.exit(2);
}

function parseArgs(argv) {
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
	'--squash-dscp', '--squash-ingress', '--sqm', '--help'];

const args = parseArgs(process.argv.slice(2));
if (args['--help']) { process.stdout.write(USAGE + '\n'); process.exit(0); }
for (const k of Object.keys(args))
	if (!KNOWN.includes(k)) fail(`unknown option ${k}`);
if (!args['--wan']) fail('--wan is required');

const h = createHarness();
const cake = h.requireSync('reterm.cake');
const tcpreview = h.requireSync('reterm.tcpreview');

const int = (k, v) => {
	if (!/^-?[0-9]+$/.test(v)) fail(`${k} must be a whole number`);
	return +v;
};

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

/* the script carries besteffort / diffserv3 itself, as the view writes it */
const shaping = h.requireSync('reterm.shaping');
const split = shaping.forScript(model, 'piece_of_cake.qos');
const opts = cake.build(split.model, unknown);
if (!opts) fail('invalid CAKE settings');

const section = {
	interface: args['--wan'],
	download: args['--down-kbit'] ?? '0',
	upload: args['--up-kbit'] ?? '0',
	qdisc: 'cake',
	script: split.script,
	linklayer: 'none',
	iqdisc_opts: opts.iqdisc_opts,
	eqdisc_opts: opts.eqdisc_opts
};
if (args['--squash-dscp'] !== undefined) section.squash_dscp = args['--squash-dscp'];
if (args['--squash-ingress'] !== undefined) section.squash_ingress = args['--squash-ingress'];

for (const k of ['--down-kbit', '--up-kbit'])
	if (args[k] !== undefined && !/^[0-9]+$/.test(args[k])) fail(`${k} must be a whole number of kbit/s`);

const res = tcpreview.commands(section, { sqm: args['--sqm'] ?? '1.6' });
if (!res || !res.ok) fail((res && res.errors.join('; ')) || 'cannot build the commands');

process.stdout.write(JSON.stringify({
	iqdisc_opts: opts.iqdisc_opts,
	eqdisc_opts: opts.eqdisc_opts,
	script: section.script,
	ifb: res.ifb,
	commands: res.commands,
	steps: res.steps,
	notes: res.notes,
	section
}, null, 2) + '\n');
