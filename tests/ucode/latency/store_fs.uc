// SPDX-License-Identifier: Apache-2.0
//
// An in-memory stand-in for the ucode fs module, for the results store
// (reterm.latency.test.store) and the service: regular files, directories,
// symlinks and devices, the calls the store makes (lstat, readfile with a
// limit, open/write/flush/close, rename, unlink, mkdir; plus stat and
// writefile for older callers), and what happened:
//
//   let fs = store_fs(() => now_ms);
//   fs.files['/etc/reterm/results.json'] = '{...}';   regular files (text)
//   fs.links[path] = target;   fs.devices[path] = 'char' | 'fifo'
//   fs.ops       [ 'open /x.tmp wx', 'fsync /x.tmp', 'rename /x.tmp /x', ... ]
//   fs.reads     [ [ path, limit ], ... ] (readfile calls)
//   fs.written(dir)   bytes written to files in dir
//   fs.fsync(path)    what the service passes to the store as env.fsync
//
// Symlinks are followed by readfile, writefile and open without 'x', never
// by lstat, rename and unlink (as the kernel does).

'use strict';

function dirname(p) {
	let d = replace(p, /\/[^\/]*$/, '');

	return (d == '') ? '/' : d;
}

export function store_fs(now_ms) {
	let files = {}, links = {}, devices = {}, mtimes = {}, ops = [], reads = [], bytes = {};
	let dirs = { '/': true, '/etc': true, '/tmp': true, '/var': true, '/var/run': true, '/dev': true };

	function follow(p) {
		for (let i = 0; i < 8 && links[p] != null; i++)
			p = links[p];

		return p;
	}

	function put(p, text) {
		files[p] = text;
		mtimes[p] = int((now_ms?.() ?? 0) / 1000);
		bytes[dirname(p)] = (bytes[dirname(p)] ?? 0) + length(text);
	}

	function exists(p) {
		return files[p] != null || links[p] != null || devices[p] != null || dirs[p];
	}

	let self;

	self = {
		files, links, devices, ops, reads,

		written: (dir) => bytes[dir] ?? 0,

		lstat: function(p) {
			if (links[p] != null)
				return { type: 'link', size: length(links[p]) };

			if (devices[p] != null)
				return { type: devices[p], size: 0 };

			if (dirs[p])
				return { type: 'directory', size: 4096 };

			return (files[p] != null) ? { type: 'file', size: length(files[p]), mtime: mtimes[p] ?? 0 } : null;
		},

		stat: (p) => self.lstat(follow(p)),

		readfile: function(p, limit) {
			push(reads, [ p, limit ]);
			p = follow(p);

			if (devices[p] == 'char') {	// like /dev/zero: never ends
				let z = '\0';

				while (limit != null && length(z) < limit)
					z += z;

				return (limit != null) ? substr(z, 0, limit) : null;
			}

			return (limit != null) ? substr(files[p], 0, limit) : files[p];
		},

		writefile: function(p, text) {
			push(ops, `writefile ${p}`);
			p = follow(p);

			if (!dirs[dirname(p)])
				return null;

			put(p, '' + text);

			return length(text);
		},

		open: function(p, mode, perm) {
			push(ops, `open ${p} ${mode}`);

			let excl = index(mode, 'x') >= 0;

			if (excl && exists(p))
				return null;	// EEXIST, also for a symlink

			p = follow(p);

			if (!dirs[dirname(p)] || substr(mode, 0, 1) != 'w')
				return null;

			let buf = '';

			// self.release '24.10': flush() as OpenWrt 24.10's ucode has it
			// (null when it worked, true when it failed); self.full: the
			// disk fills after 100 bytes (the rest is lost at close)
			return {
				write: (d) => { buf += d; return length(d); },
				flush: () => (self.release == '24.10') ? (self.full ? true : null) : !self.full,
				close: () => { put(p, self.full ? substr(buf, 0, 100) : buf); return true; }
			};
		},

		fsync: function(p) {
			push(ops, `fsync ${p}`);
			return true;
		},

		rename: function(a, b) {
			push(ops, `rename ${a} ${b}`);

			if (files[a] == null && links[a] == null)
				return false;

			delete files[b];
			delete links[b];
			delete devices[b];

			if (links[a] != null) {
				links[b] = links[a];
				delete links[a];
			}
			else {
				files[b] = files[a];
				mtimes[b] = mtimes[a];
				delete files[a];
			}

			return true;
		},

		unlink: function(p) {
			let had = (files[p] != null || links[p] != null);

			delete files[p];
			delete links[p];

			return had;
		},

		mkdir: function(p) {
			push(ops, `mkdir ${p}`);

			if (exists(p) || !dirs[dirname(p)])
				return false;

			dirs[p] = true;

			return true;
		}
	};

	return self;
};
