// SPDX-License-Identifier: Apache-2.0
//
// Long-running helper processes (fping, tc -batch, the HTTPS load, name
// resolution) talking to us over a connected pair of Unix stream
// sockets: our end is registered with uloop, the child's end becomes the
// child's stdout (and stdin, stderr when asked).  Works with every ucode
// OpenWrt ships from 24.10 on: only socket.create/bind/listen/connect/
// accept and uloop.process are needed (no fs.dup2, no socket.pair).
//
//   let c = child.spawn(env, '/usr/bin/fping', [ '-l', ... ], { stdin: false, readable: cb });
//   c.sock     our end (recv/send); cb() runs when it is readable
//   c.kill()   unregisters cb, ends the process and closes our end, in
//              that order: an fd closed while still registered stays in
//              epoll as long as any process holds a copy, and its events
//              would then reach freed memory
//   c.kill(ms) the same, but first the child reads to its end: our
//              sending side is shut (EOF on its stdin) and it has up to
//              ms to exit on its own (blocking: for stops, where what was
//              sent must still be done, e.g. tc restoring sqm's rates)
//   c.alive()  false once the process has exited
//
// How the pair is made: a listening socket on a fresh path in env.run_dir
// (default /var/run/reterm, else /tmp), one connect, one accept, the path
// unlinked at once.  Our end and the listener are close-on-exec.  The
// child's end is made on descriptor 0 (our stdin, /dev/null under procd, is
// closed for that moment and reopened on /dev/null right after): the
// shells that start the child (dash, busybox ash) take single-digit
// descriptors only.  It is closed here right after the fork, so no other
// child ever holds it (fping holding tc's pair would hide tc's exit).  The
// child is started as `/bin/sh -c 'exec PATH ARGS 1>&0 [2>&0] [0</dev/null]'`:
// one process, the shell replaced by the program.
//
// spawn() returns null when the socket module is missing or the pair or
// the process cannot be made.

'use strict';

// the executable among paths, or null
export function find(fs, paths) {
	for (let p in paths)
		if (fs.access(p, 'x'))
			return p;

	return null;
};

// pid is there and not a zombie (it exited, nobody reaped it yet)
function running(fs, pid) {
	let st = fs.readfile(`/proc/${pid}/stat`);

	return st != null && !match(st, /\) Z /);
}

// a word for sh -c, whatever it holds
function quote(s) {
	return "'" + replace('' + s, "'", "'\\''") + "'";
}

let made = 0, stdin = null;	// our /dev/null on descriptor 0 (kept: no GC closes it)

// [ ours, theirs ] connected stream sockets, ours close-on-exec, theirs on
// descriptor 0; or null
function pair(fs, socket, dir) {
	let rnd = fs.readfile('/dev/urandom', 6) ?? '', tag = '';

	for (let i = 0; i < length(rnd); i++)
		tag += sprintf('%02x', ord(rnd, i));

	let path = sprintf('%s/.child-%s-%d', dir, tag, ++made);
	let l = socket.create(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC);

	if (!l)
		return null;

	let ours = null, theirs = null;

	if (l.bind({ family: socket.AF_UNIX, path }) && l.listen(1)) {
		// descriptor 0 free for the child's end
		if (stdin)
			stdin.close();
		else
			fs.fdopen(0, 'r')?.close();

		stdin = null;
		theirs = socket.create(socket.AF_UNIX, socket.SOCK_STREAM);

		if (theirs && theirs.fileno() == 0 && theirs.connect({ family: socket.AF_UNIX, path }))
			ours = l.accept(null, socket.SOCK_CLOEXEC);
	}

	l.close();
	fs.unlink(path);

	if (!ours) {
		theirs?.close();
		stdin ??= fs.open('/dev/null', 'r');
		return null;
	}

	return [ ours, theirs ];
}

// env: { uloop, socket, fs, run_dir }; opts: { stdin: bool, stderr: bool
// (the child's stderr into the pair too), readable: fn }
export function spawn(env, path, argv, opts) {
	let fs = env.fs ?? require('fs'), socket = env.socket;

	if (!socket) {
		try { socket = require('socket'); } catch (e) { return null; }
	}

	let dir = env.run_dir ?? (fs.access('/var/run/reterm', 'w') ? '/var/run/reterm' : '/tmp');
	let p = pair(fs, socket, dir);

	if (!p)
		return null;

	let cmd = join(' ', [ 'exec', quote(path), ...map(argv, quote) ]) +
		' 1>&0' + (opts?.stderr ? ' 2>&0' : '') + (opts?.stdin ? '' : ' 0</dev/null');
	let exited = false;
	let proc = env.uloop.process('/bin/sh', [ '-c', cmd ], {}, () => { exited = true; });

	// the child's end gone from here: descriptor 0 is /dev/null again
	p[1].close();
	stdin = fs.open('/dev/null', 'r');

	if (!proc) {
		p[0].close();
		return null;
	}

	let handle = opts?.readable ? env.uloop.handle(p[0], opts.readable, env.uloop.ULOOP_READ) : null;

	return {
		sock: p[0],
		alive: () => !exited,
		kill: function(grace_ms) {
			handle?.delete();
			handle = null;

			if (proc) {
				let pid = proc.pid();

				proc.delete();

				if (pid > 0 && !exited && grace_ms > 0) {
					p[0].shutdown(socket.SHUT_WR);

					for (let ms = 0; ms < grace_ms && running(fs, pid); ms += 10)
						sleep(10);
				}

				if (pid > 0 && !exited && running(fs, pid))
					system([ 'kill', '' + pid ]);
			}

			p[0].close();
			proc = null;
			exited = true;
		}
	};
};
