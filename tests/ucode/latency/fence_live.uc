// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.test.fence on a real kernel (latency/tls-fence, run by
// fence.sh in a network namespace of its own, as root):
//
//   fence_live.uc hold PORT_ALLOWED     fence in to 127.0.0.2:PORT_ALLOWED,
//                                       say "held PID", wait to be killed
//   fence_live.uc check PORT_OPEN PORT_ALLOWED KILLED LIVE
//       fenced in to 127.0.0.2:PORT_ALLOWED: a connect to 127.0.0.1:PORT_OPEN
//       (a listener is there) is reset, one to 127.0.0.2:PORT_ALLOWED gets
//       through; what holder KILLED (SIGKILL) left, its table and cgroup,
//       is swept, what holder LIVE holds is not; holds() says so until the
//       table goes (as with `fw4 flush`); leave() takes this process's
//       table and cgroup away again

'use strict';

import * as fs from 'fs';
import * as socket from 'socket';
import * as F from 'reterm.latency.test.fence';
import { checker } from 'sim';

function tables() {
	let p = fs.popen('nft list tables 2>/dev/null', 'r'), t = p ? p.read('all') : '';

	p?.close();

	return filter(split(t ?? '', '\n'), (l) => match(l, /reterm_https_/));
}

function base() {
	return F.mount(fs.readfile('/proc/self/mounts')) + '/reterm-https';
}

function reaches(host, port) {
	let s = socket.connect(host, port, { socktype: socket.SOCK_STREAM }, 2000);

	s?.close();

	return s != null;
}

let mode = ARGV[0];

if (mode == 'hold') {
	let why = F.enter(fs, socket, [ '127.0.0.2' ], +ARGV[1]);

	print(why ? `not held: ${why}\n` : `held ${fs.readlink('/proc/self')}\n`);
	fs.stdout.flush();

	while (!why)
		sleep(1000);

	exit(1);
}

let c = checker('latency/tls-fence');
let killed = ARGV[3];	// the pid of a holder killed with SIGKILL
let live = ARGV[4];	// the pid of a holder still running

c.ok(`a killed holder left its table (${killed})`, index(tables(), `table inet reterm_https_${killed}`) >= 0);
c.ok('reaches 127.0.0.1 before the fence', reaches('127.0.0.1', +ARGV[1]));

let why = F.enter(fs, socket, [ '127.0.0.2' ], +ARGV[2]);
let me = fs.readlink('/proc/self');

c.eq('fenced in', why, null);
c.ok('in its own cgroup', match(fs.readfile('/proc/self/cgroup'), /0::\/(.*\/)?reterm-https\/[0-9]+\n/) != null);
c.ok(`its table (${join(' ', tables())})`, index(tables(), `table inet reterm_https_${me}`) >= 0);
c.ok('the killed holder\'s table swept', index(tables(), `table inet reterm_https_${killed}`) < 0);
c.ok('the killed holder\'s cgroup swept', !fs.stat(`${base()}/${killed}`));
c.ok(`a live holder's table kept (${live})`, index(tables(), `table inet reterm_https_${live}`) >= 0);
c.ok('a live holder\'s cgroup kept', fs.stat(`${base()}/${live}`) != null);
c.ok('a connect elsewhere (127.0.0.1, a listener there) is reset', !reaches('127.0.0.1', +ARGV[1]));
c.ok('the allowed address and port are reached', reaches('127.0.0.2', +ARGV[2]));
c.ok('the allowed address on another port is reset', !reaches('127.0.0.2', +ARGV[1]));
c.ok('holds() while the table is there', F.holds(socket));
system([ 'nft', 'delete', 'table', 'inet', `reterm_https_${me}` ]);
c.ok('holds() is false once the table is gone (fw4 flush)', F.holds(socket) === false);
c.ok('... and 127.0.0.1 is reached then (what holds() saw)', reaches('127.0.0.1', +ARGV[1]));

F.leave(fs);

c.ok('after leave(): its table gone', index(tables(), `table inet reterm_https_${me}`) < 0);
c.ok('after leave(): its cgroup gone', !fs.stat(`${base()}/${me}`));
c.ok('after leave(): back in its first cgroup', match(fs.readfile('/proc/self/cgroup'), /reterm-https/) == null);
c.ok('after leave(): 127.0.0.1 reached again', reaches('127.0.0.1', +ARGV[1]));

c.done();
