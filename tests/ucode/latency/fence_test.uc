// SPDX-License-Identifier: Apache-2.0
//
// reterm.latency.test.fence, its pure parts: the cgroup v2 mount found in
// /proc/self/mounts text, and the table text, which reaches nft: only
// canonical addresses, a port, a number and a path of safe characters,
// else nothing.  That the kernel holds the fence is latency/tls-fence
// (tls.sh), on a real kernel.

'use strict';

import * as F from 'reterm.latency.test.fence';
import { checker } from 'sim';

let c = checker('monitor/fence');

// the mount point
c.eq('OpenWrt: cgroup2 on /sys/fs/cgroup', F.mount('proc /proc proc rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n'), '/sys/fs/cgroup');
c.eq('hybrid: the unified hierarchy', F.mount('cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n'), '/sys/fs/cgroup/unified');
c.eq('v1 only: none', F.mount('cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n'), null);
c.eq('cgroup2 elsewhere than /sys/fs/cgroup (nft could not name it): none', F.mount('cgroup2 /mnt/cg cgroup2 rw 0 0\n'), null);
c.eq('a mount point with a newline in the text after it: the line alone', F.mount('cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\nx'), '/sys/fs/cgroup');
c.eq('a look-alike path: none', F.mount('cgroup2 /sys/fs/cgroupx cgroup2 rw 0 0\n'), null);
c.eq('nothing: none', F.mount(null), null);

// the table
let t = F.rules(4242, 'reterm-https/4242', 2, [ '192.0.2.7', '2001:db8::1', '192.0.2.8' ], 443);

c.ok('a table text', type(t) == 'string');
c.ok('replaces a table of the same name in the same transaction',
	index(t, 'add table inet reterm_https_4242; delete table inet reterm_https_4242; table inet reterm_https_4242 {') == 0);
c.ok('its output chain sends the TCP of that cgroup (level 2) to the fence',
	index(t, 'chain out { type filter hook output priority filter; policy accept; meta l4proto tcp socket cgroupv2 level 2 "reterm-https/4242" jump fence; }') > 0);
c.ok('IPv4 addresses with the port', index(t, 'ip daddr . tcp dport { 192.0.2.7 . 443, 192.0.2.8 . 443 } accept') > 0);
c.ok('IPv6 addresses with the port', index(t, 'ip6 daddr . tcp dport { 2001:db8::1 . 443 } accept') > 0);
c.ok('DNS over TCP to loopback only (not the router\'s other addresses), then a counted reset for the rest (last)',
	substr(t, length(t) - 112) == 'ip daddr 127.0.0.0/8 tcp dport 53 accept; ip6 daddr ::1 tcp dport 53 accept; counter reject with tcp reset; }; }');
c.ok('one family only: no empty set for the other',
	index(F.rules(7, 'reterm-https/7', 2, [ '2001:db8::2' ], 8080), 'ip daddr . tcp dport') < 0);
c.ok('an IPv4-mapped address is allowed as the IPv4 address it leaves as',
	index(F.rules(7, 'reterm-https/7', 2, [ '::ffff:192.0.2.9' ], 443), 'ip daddr . tcp dport { 192.0.2.9 . 443 }') > 0);
c.ok('an address written another way is written canonically',
	index(F.rules(7, 'reterm-https/7', 2, [ '2001:DB8:0::2' ], 443), '2001:db8::2 . 443') > 0);

// what never reaches nft
for (let bad in [
	[ 'no address', 7, 'reterm-https/7', 2, [], 443 ],
	[ 'a name, not an address', 7, 'reterm-https/7', 2, [ 'example.com' ], 443 ],
	[ 'an address with a rule after it', 7, 'reterm-https/7', 2, [ '192.0.2.1 } accept; chain x {' ], 443 ],
	[ 'an address with a newline', 7, 'reterm-https/7', 2, [ '192.0.2.1\n' ], 443 ],
	[ 'port 0', 7, 'reterm-https/7', 2, [ '192.0.2.1' ], 0 ],
	[ 'port 65536', 7, 'reterm-https/7', 2, [ '192.0.2.1' ], 65536 ],
	[ 'port as text', 7, 'reterm-https/7', 2, [ '192.0.2.1' ], '443' ],
	[ 'pid 0', 0, 'reterm-https/0', 2, [ '192.0.2.1' ], 443 ],
	[ 'pid as text', '7; flush ruleset', 'reterm-https/7', 2, [ '192.0.2.1' ], 443 ],
	[ 'a path with a quote', 7, 'reterm-https/7" accept; #', 2, [ '192.0.2.1' ], 443 ],
	[ 'a path with a newline and a rule after it', 7, 'reterm-https/7\n"; }; }; flush ruleset; #', 2, [ '192.0.2.1' ], 443 ],
	[ 'a path with a NUL', 7, 'reterm-https/7\u0000x', 2, [ '192.0.2.1' ], 443 ],
	[ 'a path with ..', 7, 'reterm-https/../7', 2, [ '192.0.2.1' ], 443 ],
	[ 'an absolute path', 7, '/sys/fs/cgroup/reterm-https/7', 2, [ '192.0.2.1' ], 443 ],
	[ 'level 0', 7, 'reterm-https/7', 0, [ '192.0.2.1' ], 443 ],
	[ 'level as text', 7, 'reterm-https/7', '2', [ '192.0.2.1' ], 443 ]
])
	c.eq(`refused: ${bad[0]}`, F.rules(bad[1], bad[2], bad[3], bad[4], bad[5]), null);

c.done();
