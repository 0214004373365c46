// SPDX-License-Identifier: Apache-2.0
//
// The last guided test results, kept in a JSON file that survives daemon
// restarts (default /etc/reterm/results.json: /etc is on flash, written
// once per test, ~10-15 KB per result with its probe series).
//
//   { "v": 1, "results": [ oldest ... newest ] }     at most KEEP results
//
// Written atomically (temporary file + rename).  A missing, unreadable or
// corrupt file reads as no results (and is replaced on the next save).
// fs is the ucode fs module (or a stand-in with readfile, writefile,
// rename, unlink, mkdir, stat).

'use strict';

export const KEEP = 10, VERSION = 1;
export const DEFAULT_PATH = '/etc/reterm/results.json';

export function load(fs, path) {
	let text = fs.readfile(path ?? DEFAULT_PATH), data = null;

	if (text == null)
		return [];

	try {
		data = json(text);
	}
	catch (e) {
		return [];
	}

	if (type(data) != 'object' || type(data.results) != 'array')
		return [];

	return slice(filter(data.results, r => type(r) == 'object' && type(r.id) == 'string'), -KEEP);
}

function mkdir_p(fs, dir) {
	if (fs.stat(dir)?.type == 'directory')
		return true;

	let parent = replace(dir, /\/[^\/]*$/, '');

	if (parent != '' && parent != dir && !mkdir_p(fs, parent))
		return false;

	return fs.mkdir(dir, 0755) || fs.stat(dir)?.type == 'directory';
}

// Write the list (the last KEEP of it); true on success.
export function save(fs, path, list) {
	path ??= DEFAULT_PATH;

	let dir = replace(path, /\/[^\/]*$/, ''), tmp = `${path}.tmp`;

	if (dir != '' && !mkdir_p(fs, dir))
		return false;

	let text = sprintf('%J\n', { v: VERSION, results: slice(list, -KEEP) });

	if (fs.writefile(tmp, text) == null || !fs.rename(tmp, path)) {
		fs.unlink(tmp);
		return false;
	}

	return true;
}

// Append one result and save; returns the new list (also when saving
// failed: the daemon keeps it in RAM).
export function add(fs, path, list, result) {
	let out = slice([ ...(list ?? []), result ], -KEEP);

	save(fs, path, out);

	return out;
}

// A result without its probe series (for the list reply).
export function summary(r) {
	let o = {};

	for (let k, v in r)
		if (k != 'samples')
			o[k] = v;

	return o;
}
