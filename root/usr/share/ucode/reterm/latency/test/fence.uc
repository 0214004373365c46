// SPDX-License-Identifier: Apache-2.0
//
// The HTTPS child's fence: the kernel lets https-load open TCP
// connections to the checked addresses on the URL's port, and to a
// resolver on loopback, nowhere else.  uclient resolves the URL's name
// again on each connect and its ucode binding cannot be handed an
// address, so a check in the child alone leaves a name whose DNS answers
// alternate free to make it connect elsewhere.
//
// The child moves itself into a cgroup of its own (cgroup v2,
// <mount>/reterm-https/<pid>) and loads a table of its own,
// `inet reterm_https_<pid>`, whose output chain answers every other TCP
// packet of a socket in that cgroup with a reset (the connect fails at
// once).  Before any connection it proves the fence holds: a connect to
// a listener of its own on loopback must be refused.  On its way out it
// goes back to its first cgroup and removes both; what a killed child
// left behind is swept by the next one (cgroups without a process, then
// tables whose cgroup is gone).
//
//   rules(pid, path, level, addrs, port)
//                                  the table as one nft command, or null
//                                  (pure; path relative to /sys/fs/cgroup,
//                                  level: the cgroup's depth below the
//                                  hierarchy's root)
//   mount(text)                    the cgroup v2 mount point in
//                                  /proc/self/mounts text, or null (pure)
//   enter(fs, socket, addrs, port) null when fenced, else why not
//   leave(fs)                      table and cgroup removed

'use strict';

import { ip } from 'reterm.validate';

// nft names cgroups by their path under this directory
const SYSFS = '/sys/fs/cgroup';
const DIR = 'reterm-https', TABLE = 'reterm_https_';

export function mount(text) {
	for (let l in split(text ?? '', '\n')) {
		let f = split(l, ' ');

		if (length(f) > 2 && f[2] == 'cgroup2' &&
		    (f[1] == SYSFS || substr(f[1], 0, length(SYSFS) + 1) == SYSFS + '/') &&
		    match(f[1], /^\/[A-Za-z0-9_\/-]{1,100}$/))
			return f[1];
	}

	return null;
};

export function rules(pid, path, level, addrs, port) {
	if (type(pid) != 'int' || pid < 1 || type(port) != 'int' || port < 1 || port > 65535 ||
	    type(level) != 'int' || level < 1 || level > 8 ||
	    !match(path ?? '', /^[A-Za-z0-9_-]{1,40}(\/[A-Za-z0-9_-]{1,40}){0,3}$/))
		return null;

	let v4 = [], v6 = [];

	for (let a in addrs ?? []) {
		let c = ip(a);

		if (c == null)
			return null;

		push(index(c, ':') < 0 ? v4 : v6, `${c} . ${port}`);
	}

	if (!length(v4) && !length(v6))
		return null;

	let fence = [];

	if (length(v4))
		push(fence, `ip daddr . tcp dport { ${join(', ', v4)} } accept`);

	if (length(v6))
		push(fence, `ip6 daddr . tcp dport { ${join(', ', v6)} } accept`);

	push(fence, 'oifname "lo" tcp dport 53 accept', 'reject with tcp reset');

	// added, deleted and made again in one transaction: a table a
	// process with the same number left behind is replaced, not extended
	return `add table inet ${TABLE}${pid}; delete table inet ${TABLE}${pid}; ` +
		`table inet ${TABLE}${pid} { ` +
		`chain out { type filter hook output priority filter; policy accept; ` +
		`socket cgroupv2 level ${level} "${path}" meta l4proto tcp jump fence; }; ` +
		`chain fence { ${join('; ', fence)}; }; }`;
};

let state = null;	// { first, cg, table } while fenced

// by its path: reterm-latencyd starts the child without an environment
// (no PATH), and nft is in /usr/sbin
const NFT = [ '/usr/sbin/nft', '/sbin/nft', '/usr/bin/nft' ];
let nft_path = null;

function nft(args) {
	return nft_path != null && system([ nft_path, ...args ]) == 0;
}

// cgroups of ours without a process, then tables whose cgroup is gone
function sweep(fs, base) {
	for (let n in fs.lsdir(base) ?? [])
		if (match(n, /^[0-9]{1,10}$/) && trim(fs.readfile(`${base}/${n}/cgroup.procs`) ?? 'x') == '')
			fs.rmdir(`${base}/${n}`);

	let p = fs.popen(`${nft_path} list tables 2>/dev/null`, 'r');
	let list = p ? p.read('all') : '';

	p?.close();

	for (let l in split(list ?? '', '\n')) {
		let m = match(l, /^table inet reterm_https_([0-9]{1,10})$/);

		if (m && !fs.stat(`${base}/${m[1]}`))
			nft([ 'delete', 'table', 'inet', TABLE + m[1] ]);
	}
}

// the connection a fenced process must not get: to a listener of its
// own on loopback, on a port no fence allows
function proven(socket) {
	let l = socket.listen('127.0.0.1', 0, { socktype: socket.SOCK_STREAM }, 4);
	let port = l?.sockname()?.port;

	if (!port) {
		l?.close();
		return false;
	}

	let c = socket.connect('127.0.0.1', port, { socktype: socket.SOCK_STREAM }, 2000);

	c?.close();
	l.close();

	return c == null;
}

export function leave(fs) {
	if (!state)
		return;

	nft([ 'delete', 'table', 'inet', state.table ]);
	fs.writefile(`${state.first}/cgroup.procs`, '' + +fs.readlink('/proc/self'));
	fs.rmdir(state.cg);
	state = null;
};

export function enter(fs, socket, addrs, port) {
	let root = mount(fs.readfile('/proc/self/mounts'));

	if (!root)
		return 'no cgroup v2 hierarchy under /sys/fs/cgroup';

	nft_path = filter(NFT, (p) => fs.access(p, 'x'))[0];

	if (!nft_path)
		return `no nft (${join(', ', NFT)})`;

	let pid = +fs.readlink('/proc/self');
	let first = match(fs.readfile('/proc/self/cgroup') ?? '', /(^|\n)0::(\/[^\n]*)/);
	let base = `${root}/${DIR}`, cg = `${base}/${pid}`;
	let path = substr(cg, length(SYSFS) + 1);
	// the hierarchy's root is where it is mounted (no cgroup namespace
	// on OpenWrt; where there is one, the proof below fails)
	let text = rules(pid, path, 2, addrs, port);

	if (!text)
		return 'nothing to allow';

	fs.mkdir(base);
	sweep(fs, base);

	// a sweep by a sibling starting at the same moment may take the
	// cgroup between mkdir and the move: once more then
	let moved = false;

	for (let i = 0; i < 2 && !moved; i++) {
		fs.mkdir(cg);
		moved = fs.writefile(`${cg}/cgroup.procs`, '' + pid) != null &&
			index(split(fs.readfile(`${cg}/cgroup.procs`) ?? '', '\n'), '' + pid) >= 0;
	}

	if (!moved)
		return `this process could not be moved into ${cg}`;

	state = { first: first ? root + (first[2] == '/' ? '' : first[2]) : root, cg, table: TABLE + pid };

	if (!nft([ text ])) {
		leave(fs);
		return 'nft refused the table (needs nftables with the socket match, kmod-nft-socket)';
	}

	if (!proven(socket)) {
		leave(fs);
		return 'the kernel did not hold the fence (a connect to an address not allowed got through)';
	}

	return null;
};
