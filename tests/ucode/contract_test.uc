// SPDX-License-Identifier: Apache-2.0
//
// One contract per method, held to what docs/ubus-api.md says:
//   - the error codes documented are reterm.reply's CODES, no more, no less;
//   - every error('<code>', ...) the product's ucode calls names a code of
//     CODES (the plugin, reterm-latencyd, the CLIs and every module);
//   - every method of both objects (the rpcd plugin's table, reterm.latency.api)
//     is documented, and its "Errors:" line lists exactly the codes the
//     method declares; every code a method declares is in CODES;
//   - the objects have no method the docs do not describe.
//
//   ucode -L <root>/usr/share/ucode tests/ucode/contract_test.uc <repo root>

'use strict';

import * as fs from 'fs';
import { CODES } from 'reterm.reply';
import { METHODS as LATENCY } from 'reterm.latency.api';

const TOP = ARGV[0];
let passed = 0, failed = 0;

function check(what, got, want) {
	let g = sprintf('%J', got), w = sprintf('%J', want);

	if (g == w) {
		passed++;
		print(`ok - ${what}\n`);
	}
	else {
		failed++;
		print(`not ok - ${what}\n#   got:  ${g}\n#   want: ${w}\n`);
	}
}

function walk(dir, out) {
	for (let n in fs.lsdir(dir) ?? []) {
		let p = `${dir}/${n}`, st = fs.stat(p);

		if (st?.type == 'directory')
			walk(p, out);
		else if (st?.type == 'file')
			push(out, p);
	}

	return out;
}

// the docs: the codes table, and per object and method the Errors line
let doc = fs.readfile(`${TOP}/docs/ubus-api.md`) ?? '';
let codes_doc = [], methods_doc = {}, object = null, method = null, section = null;

for (let line in split(doc, '\n')) {
	let m;

	if ((m = match(line, /^## (.*)$/))) {
		section = m[1];
		object = match(section, /^Object (\S+)$/)?.[1];
		method = null;
	}
	else if ((m = match(line, /^### (\S+)/)) && object) {
		method = m[1];
		methods_doc[`${object} ${method}`] = null;
	}
	else if (section == 'Error codes' && (m = match(line, /^\| `([a-z_]+)` \|/)))
		push(codes_doc, m[1]);
	else if (object && method && (m = match(line, /^Errors:(.*)$/)))
		methods_doc[`${object} ${method}`] = sort(map(match(m[1], /`([a-z_]+)`/g) ?? [], (x) => x[1]));
}

check('docs/ubus-api.md lists exactly the error codes of reterm.reply CODES', sort(codes_doc), sort(keys(CODES)));

// every error('<code>' in the product's ucode
let used = {};

for (let f in walk(`${TOP}/root`, [])) {
	let text = fs.readfile(f) ?? '';

	// the files that make replies with reterm.reply's error() (others,
	// such as https-load, have an error() of their own)
	if (!match(text, /from 'reterm\.reply'/))
		continue;

	for (let m in match(text, /\berror\('([a-z_]+)'/g) ?? [])
		used[m[1]] = f;
}

check('every error() code the product uses is one of CODES',
	filter(sort(keys(used)), (c) => !exists(CODES, c)), []);
check('the error() calls were found (at least 12 codes in use)', length(keys(used)) >= 12, true);

// the methods of both objects
let plugin = loadfile(`${TOP}/root/usr/share/rpcd/ucode/reterm`, { raw_mode: true })();
let declared = {};

for (let n, m in plugin.reterm)
	declared[`reterm ${n}`] = sort(m.codes);

for (let n, m in LATENCY)
	declared[`reterm.latency ${n}`] = sort(m.codes);

check('every method is documented, and no other', sort(keys(methods_doc)), sort(keys(declared)));

for (let k in sort(keys(declared))) {
	check(`${k}: its codes are CODES`, filter(declared[k], (c) => !exists(CODES, c)), []);
	check(`${k}: docs' Errors line = the declared codes`, methods_doc[k], declared[k]);
}

print(`contract: ${passed} passed, ${failed} failed\n`);
exit(failed ? 1 : 0);
