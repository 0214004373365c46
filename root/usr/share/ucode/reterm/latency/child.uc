// SPDX-License-Identifier: Apache-2.0
//
// Long-running helper processes (fping, tc -batch) talking to us over a
// socketpair, without a shell.  uloop.process() cannot redirect, so for
// the moment of the fork our own stdout (and stdin, when asked) point at
// the child's end of the pair; the originals are saved in free
// descriptors and put back right after.
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
// Both ends are close-on-exec, so no other child inherits them (fping
// holding tc's pair would hide tc's exit); dup2() onto 0/1 clears the flag
// for the one child that should have it.
//
// Needs fs.dup2 (ucode 2024+); spawn() returns null without it, or when
// the pair or the process cannot be made.

'use strict';

// the executable among paths, or null; null too when this ucode's fs
// module has no dup2() (there is then no way to hand a child our pair)
export function find(fs, paths) {
	if (type(fs.dup2) != 'function')
		return null;

	for (let p in paths)
		if (fs.access(p, 'x'))
			return p;

	return null;
}

function free_fd(fs, from) {
	for (let n = from; n < 1024; n++)
		if (!fs.access(`/proc/self/fd/${n}`))
			return n;

	return null;
}

// pid is there and not a zombie (it exited, nobody reaped it yet)
function running(fs, pid) {
	let st = fs.readfile(`/proc/${pid}/stat`);

	return st != null && !match(st, /\) Z /);
}

// env: { uloop, socket, fs }; opts: { stdin: bool, stderr: bool (the
// child's stderr into the pair too) }
export function spawn(env, path, argv, opts) {
	let fs = env.fs ?? require('fs'), socket = env.socket ?? require('socket');

	if (type(fs.dup2) != 'function')
		return null;

	let pair = socket.pair(socket.SOCK_STREAM | (socket.SOCK_CLOEXEC ?? 0));

	if (!pair)
		return null;

	let fds = [ 1, ...(opts?.stdin ? [ 0 ] : []), ...(opts?.stderr ? [ 2 ] : []) ], saved = [];

	for (let fd in fds) {
		let s = free_fd(fs, 10 + length(saved));

		if (s == null || !fs.dup2(fd, s))
			break;

		push(saved, [ fd, s ]);
	}

	let proc = null, exited = false;

	if (length(saved) == length(fds)) {
		for (let fd in fds)
			fs.dup2(pair[1], fd);

		proc = env.uloop.process(path, argv, {}, () => { exited = true; });
	}

	for (let s in saved) {
		fs.dup2(s[1], s[0]);
		socket.open(s[1])?.close();
	}

	pair[1].close();

	if (!proc) {
		pair[0].close();
		return null;
	}

	let handle = opts?.readable ? env.uloop.handle(pair[0], opts.readable, env.uloop.ULOOP_READ) : null;

	return {
		sock: pair[0],
		alive: () => !exited,
		kill: function(grace_ms) {
			handle?.delete();
			handle = null;

			if (proc) {
				let pid = proc.pid();

				proc.delete();

				if (pid > 0 && !exited && grace_ms > 0) {
					pair[0].shutdown(socket.SHUT_WR);

					for (let ms = 0; ms < grace_ms && running(fs, pid); ms += 10)
						sleep(10);
				}

				if (pid > 0 && !exited && running(fs, pid))
					system([ 'kill', '' + pid ]);
			}

			pair[0].close();
			proc = null;
			exited = true;
		}
	};
}
