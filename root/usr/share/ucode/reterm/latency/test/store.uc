// SPDX-License-Identifier: Apache-2.0
//
// The last guided test results, in one fixed place (no setting moves it):
//
//   RAM_PATH    /var/run/reterm/results.json   written on every result
//   FLASH_PATH  /etc/reterm/results.json       survives reboots; written at
//               most every PERSIST_MS (30 min) while results come in, and
//               by persist() (reterm-latencyd on SIGTERM, i.e. on a clean stop)
//
//   { "v": 1, "results": [ oldest ... newest ] }   at most KEEP results and
//                                                  MAX_BYTES (older ones give way)
//
// A result with its probe series is ~17 KB, so a test loop writes at most
// MAX_BYTES per 30 minutes to flash (~8 KB a minute), where writing the
// whole file per test was ~160 KB a minute.
//
// Reading: only a plain regular file of at most MAX_BYTES (lstat: never a
// symlink, device or FIFO), with a read limit all the same.  A missing,
// refused or corrupt file reads as no results.  On start the RAM copy is
// read if there is one (the daemon restarted), else the flash copy (boot).
//
// Writing: a temporary file next to the target, created exclusively (a
// symlink planted at its name is not followed), then renamed over the
// target.  Flash copies are fsynced before the rename, and the directory
// after it.  ucode's fs module has no fsync(): its file handles' flush()
// only moves the stdio buffer to the kernel.  So the default fsync runs
// busybox's `fsync` applet (on in OpenWrt's default busybox), and a
// system-wide `sync` if that fails.
//
// fs is the ucode fs module or a stand-in (lstat, readfile, open, rename,
// unlink, mkdir).

'use strict';

export const KEEP = 10, VERSION = 1, MAX_BYTES = 262144, PERSIST_MS = 1800000;
export const RAM_PATH = '/var/run/reterm/results.json';
export const FLASH_PATH = '/etc/reterm/results.json';

function fsync_cmd(path) {
	return system([ 'fsync', path ], 10000) == 0 || system([ 'sync' ], 10000) == 0;
}

function dirname(path) {
	return replace(path, /\/[^\/]*$/, '');
}

// The results in the file at path, or null (missing, refused, corrupt).
export function read(fs, path) {
	let st = fs.lstat(path);

	if (st?.type != 'file' || st.size > MAX_BYTES)
		return null;

	let text = fs.readfile(path, MAX_BYTES + 1), data = null;

	if (text == null || length(text) > MAX_BYTES)
		return null;

	try {
		data = json(text);
	}
	catch (e) {
		return null;
	}

	if (type(data) != 'object' || type(data.results) != 'array')
		return null;

	return slice(filter(data.results, r => type(r) == 'object' && type(r.id) == 'string'), -KEEP);
};

// The last KEEP of list, fewer if need be to stay within MAX_BYTES.
function encode(list) {
	list = slice(list, -KEEP);

	while (true) {
		let text = sprintf('%J\n', { v: VERSION, results: list });

		if (length(text) <= MAX_BYTES || !length(list))
			return { list, text };

		list = slice(list, 1);
	}
}

// Replace path with text (atomically; fsync: durably); true on success.
function write(fs, path, text, fsync) {
	let dir = dirname(path), tmp = `${path}.tmp`;

	if (fs.lstat(dir)?.type != 'directory' && !fs.mkdir(dir, 0o755))
		return false;

	fs.unlink(tmp);

	let f = fs.open(tmp, 'wx', 0o644);

	if (!f)
		return false;

	// flush()'s answer is not used: OpenWrt 24.10's ucode answers null
	// when it worked and true when it failed; the size on disk after
	// close() tells (a full disk cuts the file short)
	let ok = f.write(text) == length(text);

	f.flush();
	f.close();
	ok = ok && fs.stat(tmp)?.size == length(text);

	if (!ok || (fsync && !fsync(tmp)) || !fs.rename(tmp, path)) {
		fs.unlink(tmp);
		return false;
	}

	fsync?.(dir);

	return true;
}

// io: { timer(ms, cb) -> { cancel() }, clock { wall() } ms, fsync(path)
// (optional, default above), log(msg) (optional) }
// Returns { list(), add(result) -> new list, persist() -> true when flash
// is up to date }.
export function open(fs, io) {
	let fsync = io.fsync ?? fsync_cmd;
	let ram = read(fs, RAM_PATH), flash = read(fs, FLASH_PATH);
	let list = ram ?? flash ?? [], timer = null;
	let pending = ram != null && sprintf('%J', ram) != sprintf('%J', flash ?? []);
	// wall ms of the last flash write (or attempt): the file's mtime at first
	let last = (fs.lstat(FLASH_PATH)?.mtime ?? 0) * 1000;

	function persist() {
		timer?.cancel();
		timer = null;

		if (!pending)
			return true;

		last = io.clock.wall();

		if (!write(fs, FLASH_PATH, encode(list).text, fsync)) {
			io.log?.(`cannot write ${FLASH_PATH}; results kept in ${RAM_PATH}`);
			return false;
		}

		pending = false;

		return true;
	}

	// at most one flash write per PERSIST_MS (also when the clock stepped)
	function schedule() {
		let wait = min(last + PERSIST_MS - io.clock.wall(), PERSIST_MS);

		if (wait <= 0)
			persist();
		else
			timer ??= io.timer(wait, persist);
	}

	if (pending)	// the RAM copy is newer (the daemon was killed)
		schedule();

	return {
		list: () => list,
		persist,

		add: function(result) {
			let e = encode([ ...list, result ]);

			list = e.list;

			if (!write(fs, RAM_PATH, e.text))
				io.log?.(`cannot write ${RAM_PATH}`);

			pending = true;
			schedule();

			return list;
		}
	};
};

// A result without its probe series (for the list reply).
export function summary(r) {
	let o = {};

	for (let k, v in r)
		if (k != 'samples')
			o[k] = v;

	return o;
};
