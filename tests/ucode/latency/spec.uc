// SPDX-License-Identifier: Apache-2.0
//
// The adaptive shaper's fixed constants as the spec states them: the
// "Fixed constants" table of docs/adaptive-shaping.md, read here so that
// the tests judge the controller by what the page promises, not by the
// numbers of the module under test.
//
//   import { constants } from 'spec';
//   constants()  -> { RAISE_HOLD_MS: 1500, SHUN_MS: 600000, WINDOW: 6, ... }
//
// A value is "N [unit]"; ms, s and min become milliseconds, any other
// word (answers) is dropped; a value without a unit whose name ends in
// _MS takes the unit written last in its row ("800, 1500, 800 ms").

'use strict';

import * as fs from 'fs';

const UNITS = { ms: 1, s: 1000, min: 60000 };

function die_unless(cond, msg) {
	if (!cond)
		die(msg);
}

function doc_path() {
	let fixtures = getenv('RETERM_FIXTURES');

	die_unless(fixtures, 'spec: RETERM_FIXTURES not set (the tests find docs/ beside it)');
	return `${fixtures}/../../docs/adaptive-shaping.md`;
}

function value(text) {
	let m = match(trim(text), /^([0-9]+(\.[0-9]+)?)( ([a-z]+))?$/);

	die_unless(m, `spec: cannot read the value '${text}'`);
	return { n: +m[1], unit: m[4] };
}

export function constants() {
	let text = fs.readfile(doc_path());

	die_unless(text, `spec: cannot read ${doc_path()}`);

	let part = split(text, '## Fixed constants')[1];

	die_unless(part, 'spec: no "Fixed constants" section');

	let out = {};

	for (let line in split(part, '\n')) {
		let cells = match(line, /^\| (`[A-Z_]+`(, `[A-Z_]+`)*) \| ([^|]+) \|/);

		// a row of constants this cannot read is an error, not a row less
		die_unless(cells || substr(line, 0, 3) != '| `', `spec: cannot read the row: ${line}`);

		if (!cells)
			continue;

		let names = map(split(cells[1], ', '), (n) => replace(n, /`/g, ''));
		let vals = map(split(trim(cells[3]), ', '), value);
		let last = null;

		die_unless(length(names) == length(vals), `spec: ${length(names)} names, ${length(vals)} values: ${line}`);

		for (let v in vals)
			if (v.unit in UNITS)
				last = v.unit;

		for (let i, name in names) {
			let v = vals[i], unit = v.unit ?? ((substr(name, -3) == '_MS') ? last : null);

			out[name] = (unit in UNITS) ? v.n * UNITS[unit] : v.n;
		}
	}

	die_unless(length(keys(out)) > 0, 'spec: the constants table is empty');
	return out;
};
