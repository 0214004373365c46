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
// once; DNS over TCP to loopback passes).  Before any connection it
// proves the fence holds: a connect to a listener of its own on loopback
// must fail and the fence's counter of resets must have risen.  While it
// runs it asks again (holds(): the table goes with `fw4 flush` or
// `nft flush ruleset`).  On its way out it goes back to its first cgroup
// and removes both; what a killed child left behind is swept by the next
// one (cgroups whose process is gone, then tables whose cgroup is gone).
//
//   rules(pid, path, level, addrs, port)
//                                  the table as one nft command, or null
//                                  (pure; path relative to /sys/fs/cgroup,
//                                  level: the cgroup's depth below the
//                                  hierarchy's root)
//   mount(text)                    the cgroup v2 mount point in
//                                  /proc/self/mounts text, or null (pure)
//   enter(fs, socket, addrs, port) null when fenced, else why not
//   holds(socket)                  still fenced (a loopback connect is
//                                  refused; no process started)
//   leave(fs)                      table and cgroup removed

'use strict';

import { ip, matches } from 'reterm.validate';

// nft names cgroups by their path under this directory
const SYSFS = '/sys/fs/cgroup';
const DIR = 'reterm-https', TABLE = 'reterm_https_';

export function mount(text) {
	for (let l in split(text ?? '', '\n')) {
		let f = split(l, ' ');

		if (length(f) > 2 && f[2] == 'cgroup2' &&
		    (f[1] == SYSFS || substr(f[1], 0, length(SYSFS) + 1) == SYSFS + '/') &&
		    matches(f[1], /^\/[A-Za-z0-9_\/-]{1,100}$/))
			return f[1];
	}

	return null;
};

export function rules(pid, path, level, addrs, port) {
	if (type(pid) != 'int' || pid < 1 || type(port) != 'int' || port < 1 || port > 65535 ||
	    type(level) != 'int' || level < 1 || level > 8 ||
	    !matches(path, /^[A-Za-z0-9_-]{1,40}(\/[A-Za-z0-9_-]{1,40}){0,3}$/))
		return null;

	let v4 = [], v6 = [];

	for (let a in addrs ?? []) {
		let c = ip(a);

		if (c == null)
			return null;

		// an IPv4-mapped address leaves as IPv4
		let m = match(c, /^::ffff:([0-9.]+)$/);

		if (m && ip(m[1]) != null)
			c = ip(m[1]);

		push(index(c, ':') < 0 ? v4 : v6, `${c} . ${port}`);
	}

	if (!length(v4) && !length(v6))
		return null;

	let fence = [];

	if (length(v4))
		push(fence, `ip daddr . tcp dport { ${join(', ', v4)} } accept`);

	if (length(v6))
		push(fence, `ip6 daddr . tcp dport { ${join(', ', v6)} } accept`);

	// DNS over TCP to a resolver on loopback (dnsmasq), not to the
	// router's other addresses (they leave through lo too)
	push(fence, 'ip daddr 127.0.0.0/8 tcp dport 53 accept', 'ip6 daddr ::1 tcp dport 53 accept',
		'counter reject with tcp reset');

	// added, deleted and made again in one transaction: a table a
	// process with the same number left behind is replaced, not extended
	return `add table inet ${TABLE}${pid}; delete table inet ${TABLE}${pid}; ` +
		`table inet ${TABLE}${pid} { ` +
		`chain out { type filter hook output priority filter; policy accept; ` +
		`meta l4proto tcp socket cgroupv2 level ${level} "${path}" jump fence; }; ` +
		`chain fence { ${join('; ', fence)}; }; }`;
};

let state = null;	// { first, cg, table } while fenced

// by its path: reterm-latencyd starts the child without an environment
// (no PATH), and nft is in /usr/sbin
const NFT = [ '/usr/sbin/nft', '/sbin/nft', '/usr/bin/nft' ];
let nft_path = null;

// nft with its output nowhere: our stdout is the pair to the daemon, and
// a sibling's sweep racing ours is not worth a line in its log
function nft(args) {
	return nft_path != null &&
		system([ '/bin/sh', '-c', 'exec "$0" "$@" >/dev/null 2>&1', nft_path, ...args ]) == 0;
}

// nft's listing of a table or chain (names of ours only)
function listing(fs, what) {
	let p = fs.popen(`${nft_path} list ${what} 2>/dev/null`, 'r');
	let t = p ? p.read('all') : '';

	p?.close();

	return t ?? '';
}

// cgroups of ours whose process is gone, then tables whose cgroup is gone
function sweep(fs, base) {
	for (let n in fs.lsdir(base) ?? [])
		if (match(n, /^[0-9]{1,10}$/) && !fs.access(`/proc/${n}`) &&
		    trim(fs.readfile(`${base}/${n}/cgroup.procs`) ?? 'x') == '')
			fs.rmdir(`${base}/${n}`);

	for (let l in split(listing(fs, 'tables'), '\n')) {
		let m = match(l, /^table inet reterm_https_([0-9]{1,10})$/);

		if (m && !fs.stat(`${base}/${m[1]}`))
			nft([ 'delete', 'table', 'inet', TABLE + m[1] ]);
	}
}

// packets the fence has reset so far, or -1
function resets(fs) {
	let m = match(listing(fs, `chain inet ${state.table} fence`), /counter packets ([0-9]+) /);

	return m ? +m[1] : -1;
}

// a connect to a listener of our own on loopback, on a port no fence
// allows: true when it got through
function escapes(socket) {
	let l = socket.listen('127.0.0.1', 0, { socktype: socket.SOCK_STREAM }, 4);
	let port = l?.sockname()?.port;

	if (!port) {
		l?.close();
		return null;
	}

	let c = socket.connect('127.0.0.1', port, { socktype: socket.SOCK_STREAM }, 2000);

	c?.close();
	l.close();

	return c != null;
}

export function leave(fs) {
	if (!state)
		return;

	nft([ 'delete', 'table', 'inet', state.table ]);
	fs.writefile(`${state.first}/cgroup.procs`, '' + +fs.readlink('/proc/self'));
	fs.rmdir(state.cg);
	state = null;
};

// still fenced (after enter()): the table can go while the child runs
// (`fw4 flush` on a firewall stop, `nft flush ruleset`); no process
export function holds(socket) {
	return state != null && escapes(socket) === false;
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
		return `no fence can be written for ${cg} (addresses, port or path out of their grammar)`;

	fs.mkdir(base);
	sweep(fs, base);
	fs.mkdir(cg);

	if (fs.writefile(`${cg}/cgroup.procs`, '' + pid) == null ||
	    index(split(fs.readfile(`${cg}/cgroup.procs`) ?? '', '\n'), '' + pid) < 0) {
		fs.rmdir(cg);
		return `this process could not be moved into ${cg}`;
	}

	state = { first: first ? root + (first[2] == '/' ? '' : first[2]) : root, cg, table: TABLE + pid };

	if (!nft([ text ])) {
		leave(fs);
		return 'nft refused the table (needs nftables with the socket match, kmod-nft-socket)';
	}

	// the proof: the connect failed, and because the fence reset it
	let before = resets(fs), got = escapes(socket), after = resets(fs);

	if (got !== false || before < 0 || after <= before) {
		leave(fs);
		return 'the kernel did not hold the fence (a connect to an address not allowed was not reset by it)';
	}

	return null;
};
