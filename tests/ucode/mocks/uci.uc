// SPDX-License-Identifier: Apache-2.0
//
// Mock of ucode's "uci" module for tests: found before the real module via
// "ucode -L tests/ucode/mocks".  cursor(confdir) reads UCI text files from
// confdir (default /etc/config) with a small parser of the UCI syntax:
//
//   config <type> ['<name>']
//   option <name> '<value>'
//   list <name> '<value>'
//
// Values may be bare words, 'single quoted' (no escapes), "double quoted"
// (backslash escapes) or adjacent concatenations of those; quoted values
// may span lines (as in libuci).  "#" starts a comment outside quotes.
//
// Read API: load, unload, get, get_all, foreach.  Write API: add, set,
// delete, commit (save and revert too).  Writes change the cursor's own
// copy; commit() makes them visible to cursors created afterwards (files
// are never written).  Every write is recorded for tests:
//
//   mock_calls()   [ [ "set", conf, section, option, value ], [ "commit", conf ], ... ]
//   mock_reset()   forget recorded calls and committed state

'use strict';

import { readfile } from 'fs';

let last_error = null;

// Committed state per "<confdir>/<conf>" and the recorded write calls.
// In global.mock_uci: a module imported by separately compiled programs
// (a test and the rpcd plugin it loads) has one instance per program.
const S = global.mock_uci ??= { committed: {}, calls: [] };

export function mock_calls() {
	return S.calls;
};

export function mock_reset() {
	S.committed = {};
	S.calls = [];
};

function ident_ok(s) {
	return match(s, /^[A-Za-z0-9_-]+$/) != null && index(s, '\n') < 0;
}

function djb2(str) {
	let h = 5381;

	for (let i = 0; i < length(str); i++)
		h = ((h << 5) + h + ord(str, i)) & 0xffffffff;

	return h;
}

// Split one file into statements: arrays of tokens, one per logical line.
function tokenize(text, file) {
	let stmts = [], toks = [], cur = null, i = 0, n = length(text), line = 1;

	function flush_tok() {
		if (cur != null)
			push(toks, cur);
		cur = null;
	}

	function flush_stmt() {
		flush_tok();
		if (length(toks))
			push(stmts, { line, toks });
		toks = [];
	}

	while (i < n) {
		let c = substr(text, i, 1);

		if (c == '\n') {
			flush_stmt();
			line++;
			i++;
		}
		else if (c == ' ' || c == '\t' || c == '\r') {
			flush_tok();
			i++;
		}
		else if (c == '#' && cur == null) {
			while (i < n && substr(text, i, 1) != '\n')
				i++;
		}
		else if (c == "'") {
			let j = index(substr(text, i + 1), "'");

			if (j < 0)
				die(`${file}:${line}: unterminated '`);

			let s = substr(text, i + 1, j);
			cur = (cur ?? '') + s;
			line += length(split(s, '\n')) - 1;
			i += j + 2;
		}
		else if (c == '"') {
			let s = '';

			i++;

			while (true) {
				if (i >= n)
					die(`${file}:${line}: unterminated "`);

				let d = substr(text, i, 1);

				if (d == '"')
					break;

				if (d == '\\' && i + 1 < n) {
					i++;
					d = substr(text, i, 1);
				}

				if (d == '\n')
					line++;

				s += d;
				i++;
			}

			cur = (cur ?? '') + s;
			i++;
		}
		else if (c == '\\' && i + 1 < n) {
			cur = (cur ?? '') + substr(text, i + 1, 1);
			i += 2;
		}
		else {
			cur = (cur ?? '') + c;
			i++;
		}
	}

	flush_stmt();

	return stmts;
}

function parse(text, file) {
	let sections = [], byname = {}, sec = null;

	for (let st in tokenize(text, file)) {
		let t = st.toks, where = `${file}:${st.line}`;

		switch (t[0]) {
		case 'package':
			break;

		case 'config':
			if (length(t) < 2 || length(t) > 3 || !ident_ok(t[1]))
				die(`${where}: bad config line`);

			if (length(t) == 3) {
				if (!ident_ok(t[2]))
					die(`${where}: bad section name`);

				sec = byname[t[2]];

				if (sec) {
					sec['.type'] = t[1];
					break;
				}

				sec = { '.anonymous': false, '.type': t[1], '.name': t[2] };
			}
			else {
				// libuci: "cfg" + section counter (1-based, 2 hex digits) +
				// djb2 hash of the type (low 16 bits)
				sec = { '.anonymous': true, '.type': t[1],
				        '.name': sprintf('cfg%02x%04x', (length(sections) + 1) & 0xff, djb2(t[1]) & 0xffff) };
			}

			sec['.index'] = length(sections);
			byname[sec['.name']] = sec;
			push(sections, sec);
			break;

		case 'option':
		case 'list':
			if (!sec || length(t) != 3 || !ident_ok(t[1]) || substr(t[1], 0, 1) == '.')
				die(`${where}: bad ${t[0]} line`);

			// like libuci: an empty option value is ignored entirely
			if (t[0] == 'option') {
				if (t[2] != '')
					sec[t[1]] = t[2];
			}
			else if (type(sec[t[1]]) == 'array')
				push(sec[t[1]], t[2]);
			else
				sec[t[1]] = (sec[t[1]] != null) ? [ sec[t[1]], t[2] ] : [ t[2] ];

			break;

		default:
			die(`${where}: unknown keyword ${t[0]}`);
		}
	}

	return sections;
}

function copy(sec) {
	let o = {};

	for (let k, v in sec)
		o[k] = (type(v) == 'array') ? [ ...v ] : v;

	return o;
}

function clone(sections) {
	return map(sections, copy);
}

export function cursor(confdir, savedir) {
	let dir = confdir ?? '/etc/config', cache = {}, counter = {};

	function pkg(conf) {
		if (!exists(cache, conf)) {
			let key = `${dir}/${conf}`;

			if (exists(S.committed, key)) {
				cache[conf] = clone(S.committed[key]);
			}
			else {
				let text = ident_ok(conf) ? readfile(key) : null;
				cache[conf] = (text != null) ? parse(text, key) : null;
			}

			counter[conf] = length(cache[conf] ?? []);
		}

		if (cache[conf] == null)
			last_error = 'Entry not found';

		return cache[conf];
	}

	function find(conf, name) {
		for (let s in pkg(conf) ?? [])
			if (s['.name'] == name)
				return s;

		last_error = 'Entry not found';
		return null;
	}

	// Values are strings or lists of strings; section and option names
	// must be identifiers (as in libuci).
	function value_ok(v) {
		if (type(v) == 'array')
			return length(filter(v, x => type(x) != 'string')) == 0;

		return type(v) == 'string';
	}

	function reindex(conf) {
		let i = 0;

		for (let s in cache[conf])
			s['.index'] = i++;
	}

	return {
		load: (conf) => pkg(conf) != null,
		unload: (conf) => { delete cache[conf]; return true; },

		get: (conf, name, opt) => {
			let s = find(conf, name);

			if (!s)
				return null;

			if (opt == null)
				return s['.type'];

			let v = s[opt];
			return (type(v) == 'array') ? [ ...v ] : v;
		},

		get_all: (conf, name) => {
			if (name == null) {
				let all = {};
				for (let s in pkg(conf) ?? [])
					all[s['.name']] = copy(s);
				return pkg(conf) ? all : null;
			}

			let s = find(conf, name);
			return s ? copy(s) : null;
		},

		foreach: (conf, typ, cb) => {
			let any = false;

			for (let s in pkg(conf) ?? []) {
				if (typ != null && s['.type'] != typ)
					continue;

				any = true;

				if (cb(copy(s)) === false)
					break;
			}

			return any;
		},

		add: (conf, typ) => {
			push(S.calls, [ 'add', conf, typ ]);

			// like ucode's uci: the package must have been loaded
			if (!exists(cache, conf) || cache[conf] == null || type(typ) != 'string' || !ident_ok(typ)) {
				last_error = 'Entry not found';
				return null;
			}

			counter[conf]++;

			let sec = { '.anonymous': true, '.type': typ,
			            '.name': sprintf('cfg%02x%04x', counter[conf] & 0xff, djb2(typ) & 0xffff) };

			push(cache[conf], sec);
			reindex(conf);

			return sec['.name'];
		},

		set: (conf, name, opt, val) => {
			push(S.calls, (val != null) ? [ 'set', conf, name, opt, val ] : [ 'set', conf, name, opt ]);

			if (val == null) {
				// set(conf, name, type): create or retype a named section
				if (type(opt) != 'string' || !ident_ok(opt) || !ident_ok(name ?? '') || pkg(conf) == null) {
					last_error = 'Invalid argument';
					return null;
				}

				let s = find(conf, name);

				if (s)
					s['.type'] = opt;
				else
					push(cache[conf], { '.anonymous': false, '.type': opt, '.name': name });

				reindex(conf);
				return true;
			}

			let s = find(conf, name);

			if (!s || type(opt) != 'string' || !ident_ok(opt) || substr(opt, 0, 1) == '.' || !value_ok(val)) {
				last_error = s ? 'Invalid argument' : 'Entry not found';
				return null;
			}

			s[opt] = (type(val) == 'array') ? [ ...val ] : val;
			return true;
		},

		delete: (conf, name, opt) => {
			push(S.calls, (opt != null) ? [ 'delete', conf, name, opt ] : [ 'delete', conf, name ]);

			let s = find(conf, name);

			if (!s)
				return null;

			if (opt != null)
				delete s[opt];
			else {
				cache[conf] = filter(cache[conf], x => x !== s);
				reindex(conf);
			}

			return true;
		},

		commit: (conf) => {
			push(S.calls, [ 'commit', conf ]);

			if (pkg(conf) == null)
				return null;

			S.committed[`${dir}/${conf}`] = clone(cache[conf]);
			return true;
		},

		save: (conf) => { push(S.calls, [ 'save', conf ]); return true; },

		revert: (conf) => {
			push(S.calls, [ 'revert', conf ]);
			delete cache[conf];
			return true;
		},

		error: () => last_error
	};
};

export function error() {
	return last_error;
};
