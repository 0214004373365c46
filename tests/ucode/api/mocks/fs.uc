// SPDX-License-Identifier: Apache-2.0
//
// Mock of ucode's "fs" module for the API tests, found first on the module
// path (ucode -L tests/ucode/api/mocks).  Absolute paths are looked up
// under a fixture root directory, never on the real system, except below
// the "passthrough" prefixes (the source tree, for usr/share/reterm).
// popen() answers from fixture files named per command; nothing is ever
// executed or written.
//
//   mock_setup({ root, passthrough: [ dir, ... ], popen: { "<cmd>": "<abs. file>" } })
//   mock_log()   { read: [paths], popen: [cmds], write: [[fn, path]], missing: [cmds] }
//   mock_real()  the real fs module (for the harness)
//   mock_file(path, text|null)  a file in memory, found before the root
//                (what a stand-in command "wrote"); null removes it
//
// Everything else is the real module (dirname, basename, ...).
//
// A module imported by separately compiled programs (the test, the plugin
// loaded with loadfile()) is instantiated once per program, so the state
// lives in global.mock_fs, shared by all instances.

'use strict';

// The real module: load it with this directory taken off the search path.
const HERE = sourcepath(0, true);
const saved = REQUIRE_SEARCH_PATH;

REQUIRE_SEARCH_PATH = filter(saved, p => index(p, HERE + '/') != 0);

const real = require('fs');

REQUIRE_SEARCH_PATH = saved;

const S = global.mock_fs ??= {
	root: '/nonexistent', passthrough: [], commands: {}, files: {}, last_error: null,
	log: { read: [], popen: [], write: [], missing: [] }
};

export function mock_setup(opts) {
	S.root = opts?.root ?? '/nonexistent';
	S.passthrough = opts?.passthrough ?? [];
	S.commands = opts?.popen ?? {};
	S.files = {};
	S.log = { read: [], popen: [], write: [], missing: [] };
};

export function mock_file(path, text) {
	if (text == null)
		delete S.files[path];
	else
		S.files[path] = text;
};

export function mock_log() {
	return S.log;
};

// the real module, for the test harness itself
export function mock_real() {
	return real;
};

function resolve(path) {
	if (type(path) != 'string' || substr(path, 0, 1) != '/')
		return null;

	for (let p in S.passthrough)
		if (substr(path, 0, length(p) + 1) == p + '/')
			return path;

	return S.root + path;
}

function nofile() {
	S.last_error = 'No such file or directory';
	return null;
}

export function readfile(path, limit) {
	push(S.log.read, path);

	if (exists(S.files, path))
		return (limit != null) ? substr(S.files[path], 0, limit) : S.files[path];

	let p = resolve(path);
	let r = p ? real.readfile(p, limit) : null;

	return (r == null) ? nofile() : r;
};

export function stat(path) {
	let p = resolve(path);

	return (p && real.stat(p)) || nofile();
};

export function lstat(path) {
	return stat(path);
};

export function access(path, mode) {
	let p = resolve(path);

	return (p && real.access(p, mode)) || false;
};

function reader(text) {
	return {
		read: (amount) => {
			let rv;

			if (amount == 'all') {
				rv = text;
				text = '';
			}
			else if (amount == 'line') {
				let i = index(text, '\n');
				i = (i > -1) ? i + 1 : length(text);
				rv = substr(text, 0, i);
				text = substr(text, i);
			}
			else {
				rv = substr(text, 0, +amount);
				text = substr(text, +amount);
			}

			return rv;
		},
		write: () => null,
		close: () => 0,
		fileno: () => -1,
		error: () => null
	};
}

// Like a shell running a command that is not there: a handle that reads
// nothing.  Unexpected commands are listed in mock_log().missing.
export function popen(cmd, mode) {
	push(S.log.popen, cmd);

	if (!exists(S.commands, cmd)) {
		push(S.log.missing, cmd);
		return reader('');
	}

	let text = real.readfile(S.commands[cmd]);

	return reader(text ?? '');
};

export function open(path, mode) {
	if (mode && match(mode, /[wa+]/)) {
		push(S.log.write, [ 'open', path ]);
		S.last_error = 'Permission denied';
		return null;
	}

	let text = readfile(path);

	return (text != null) ? reader(text) : null;
};

export function writefile(path, data) {
	push(S.log.write, [ 'writefile', path ]);
	return length(data ?? '');
};

export function unlink(path) { push(S.log.write, [ 'unlink', path ]); return true; };
export function rename(a, b) { push(S.log.write, [ 'rename', a, b ]); return true; };
export function mkdir(path) { push(S.log.write, [ 'mkdir', path ]); return true; };

export function lsdir(path) {
	let p = resolve(path);

	return p ? real.lsdir(p) : nofile();
};

export function glob(...patterns) {
	return map(real.glob(...map(patterns, x => S.root + x)) ?? [], x => substr(x, length(S.root)));
};

export const dirname = real.dirname;
export const basename = real.basename;

export function error() {
	return S.last_error;
};
