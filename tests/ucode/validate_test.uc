// SPDX-License-Identifier: Apache-2.0
//
// Unit tests of reterm.validate and the pure parts of reterm.config.
// Run: ucode -L <abs>/root/usr/share/ucode tests/ucode/validate_test.uc
// Prints one "not ok" line per failing case and a summary; exits 1 on any
// failure.

'use strict';

import * as v from 'reterm.validate';
import { auto_maxconn, auto_tcp_mem_max, memtotal_kb } from 'reterm.config';
import { mark_set, mark_match } from 'reterm.render.nft';

let passed = 0, failed = 0;

function check(what, got, want) {
	if (sprintf('%J', got) === sprintf('%J', want)) {
		passed++;
	}
	else {
		failed++;
		print(sprintf('not ok - %s: got %J, want %J\n', what, got, want));
	}
}

function cases(fn, list) {
	for (let c in list)
		check(sprintf('%s(%J)', fn, c[0]), v[fn](c[0]), c[1]);
}

cases('bool', [
	[ '0', false ], [ '1', true ], [ 'yes', null ], [ 'true', null ],
	[ ' 1', null ], [ '1\n', null ], [ '', null ], [ null, null ], [ 1, null ]
]);

cases('mac', [
	[ '02:00:00:00:3d:51', '02:00:00:00:3d:51' ],
	[ '02:00:00:00:3D:51', '02:00:00:00:3d:51' ],
	[ 'AA:BB:CC:DD:EE:FF', 'aa:bb:cc:dd:ee:ff' ],	// 0xaa: unicast
	[ 'ab:bb:cc:dd:ee:ff', null ],			// multicast bit set
	[ 'aa:bb:cc:dd:ee:f0', 'aa:bb:cc:dd:ee:f0' ],
	[ '01:00:5e:00:00:01', null ],
	[ 'ff:ff:ff:ff:ff:ff', null ],
	[ '00:00:00:00:00:00', null ],
	[ '02-00-00-00-3d-51', null ],
	[ '0200.0000.3d51', null ],
	[ '02:00:00:00:3d', null ],
	[ '02:00:00:00:3d:51:00', null ],
	[ '2:0:0:0:3d:51', null ],
	[ '02:00:00:00:3d:5g', null ],
	[ '02:00:00:00:3d:51\n', null ],
	[ '\n02:00:00:00:3d:51', null ],
	[ '02:00:00:00:3d:51 ', null ],
	[ '02:00:00:00:3d:51 }', null ],
	[ '02:00:00:00:3d:51\n02:00:00:00:3d:52', null ],
	[ [ '02:00:00:00:3d:51' ], null ]
]);

cases('port', [
	[ '1', 1 ], [ '80', 80 ], [ '65535', 65535 ], [ '0', null ], [ '65536', null ],
	[ '080', null ], [ '-1', null ], [ '+80', null ], [ '8e1', null ], [ '0x50', null ],
	[ ' 80', null ], [ '80\n', null ], [ '99999999999999999999', null ], [ 80, null ]
]);

cases('port_range', [
	[ '1-65535', [ 1, 65535 ] ], [ '80-80', [ 80, 80 ] ], [ '80-22', null ],
	[ '0-10', null ], [ '10-65536', null ], [ '80 - 90', null ], [ '80-', null ],
	[ '-80', null ], [ '80-90-100', null ], [ '80-90\n', null ]
]);

cases('ports', [
	[ 'all', 'all' ],
	[ 'web', [ [ 80, 80 ], [ 443, 443 ] ] ],
	[ '443 80', [ [ 80, 80 ], [ 443, 443 ] ] ],
	[ '80 443 8080-8090', [ [ 80, 80 ], [ 443, 443 ], [ 8080, 8090 ] ] ],
	[ '8080-8090 8085 8091 80 79', [ [ 79, 80 ], [ 8080, 8091 ] ] ],
	[ '\t80  443\t', [ [ 80, 80 ], [ 443, 443 ] ] ],
	[ [ '80', '1000-2000' ], [ [ 80, 80 ], [ 1000, 2000 ] ] ],
	[ [ '80 443' ], null ],
	[ [], null ],
	[ '', null ],
	[ ' ', null ],
	[ 'ALL', null ],
	[ 'all 80', null ],
	[ '80,443', null ],
	[ '80;443', null ],
	[ '80\n443', null ],
	[ '80\r443', null ],
	[ '80; flush ruleset', null ],
	[ '80 } ; flush ruleset', null ],
	[ '80 "', null ],
	[ '0', null ],
	[ '65536', null ],
	[ '80-22', null ],
	[ join(' ', map(split(sprintf('%65s', ''), ''), (x, i) => '' + (i + 1))), null ],
	[ join(' ', map(split(sprintf('%64s', ''), ''), (x, i) => '' + (i + 1))), [ [ 1, 64 ] ] ]
]);

cases('name', [
	[ 'nintendo-3ds', 'nintendo-3ds' ], [ 'ps4.living_room', 'ps4.living_room' ],
	[ '3ds', '3ds' ], [ 'a', 'a' ],
	[ 'abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz012345' ],
	[ 'abcdefghijklmnopqrstuvwxyz0123456', null ],
	[ '-x', null ], [ '.x', null ], [ '_x', null ], [ '', null ], [ 'a b', null ],
	[ 'a"b', null ], [ "a'b", null ], [ 'a\\b', null ], [ 'a;b', null ], [ 'a{b', null ],
	[ 'a}b', null ], [ 'a\nb', null ], [ 'ok\n', null ], [ 'évian', null ], [ 'a$b', null ],
	[ 'a`b', null ], [ 'x" accept comment "y', null ]
]);

cases('netdev', [
	[ 'br-lan', 'br-lan' ], [ 'eth0.10', 'eth0.10' ], [ 'br-lan.10', 'br-lan.10' ],
	[ 'abcdefghijklmno', 'abcdefghijklmno' ], [ 'abcdefghijklmnop', null ],
	[ '', null ], [ '.', null ], [ '..', null ], [ 'br lan', null ], [ 'br/lan', null ],
	[ 'br-lan"', null ], [ 'br-lan\n', null ], [ '*', null ], [ 'br+', null ]
]);

cases('hex32', [
	[ '0x10000000', 0x10000000 ], [ '0x1', 1 ], [ '0xFFFFFFFF', 0xffffffff ],
	[ '0X10', 16 ], [ '0x0', null ], [ '0x00000000', null ], [ '0x100000000', null ],
	[ '16', null ], [ '0x', null ], [ '0x10/0x10', null ], [ '0x1g', null ],
	[ ' 0x10', null ], [ '0x10\n', null ]
]);

check('mark_mask equal', v.mark_mask('0x10000000', '0x10000000'), { mark: 0x10000000, mask: 0x10000000 });
check('mark_mask inside', v.mark_mask('0x00100000', '0x00f00000'), { mark: 0x00100000, mask: 0x00f00000 });
check('mark_mask outside', v.mark_mask('0x20000000', '0x10000000'), null);
check('mark_mask partly outside', v.mark_mask('0x30000000', '0x10000000'), null);
check('mark_mask zero mark', v.mark_mask('0x0', '0x10000000'), null);
check('mark_mask zero mask', v.mark_mask('0x10000000', '0x0'), null);

cases('table', [
	[ '100', 100 ], [ '1', 1 ], [ '252', 252 ], [ '253', null ], [ '254', null ],
	[ '255', null ], [ '256', 256 ], [ '0', null ], [ '2147483647', 2147483647 ],
	[ '2147483648', null ], [ '4294967295', null ], [ 'main', null ], [ '0100', null ]
]);

cases('maxconn', [
	[ '16', 16 ], [ '65535', 65535 ], [ '15', null ], [ '65536', null ], [ '', null ],
	[ '1024 ', null ]
]);

cases('cidr', [
	[ '192.0.2.0/24', { family: 4, cidr: '192.0.2.0/24' } ],
	[ '192.0.2.77/24', { family: 4, cidr: '192.0.2.0/24' } ],
	[ '203.0.113.7', { family: 4, cidr: '203.0.113.7/32' } ],
	[ '0.0.0.0/0', { family: 4, cidr: '0.0.0.0/0' } ],
	[ '10.1.2.3/9', { family: 4, cidr: '10.0.0.0/9' } ],
	[ '2001:DB8::1/32', { family: 6, cidr: '2001:db8::/32' } ],
	[ '2001:db8:0:0::1', { family: 6, cidr: '2001:db8::1/128' } ],
	[ 'fe80::/10', { family: 6, cidr: 'fe80::/10' } ],
	[ '::ffff:0:0/96', { family: 6, cidr: '::ffff:0.0.0.0/96' } ],
	[ '2001:db8::/33', { family: 6, cidr: '2001:db8::/33' } ],
	[ '2001:db8:ffff::/33', { family: 6, cidr: '2001:db8:8000::/33' } ],
	[ '192.0.2.0/33', null ], [ '2001:db8::/129', null ], [ '192.0.2.0/024', null ],
	[ '192.0.2.0/', null ], [ '/24', null ], [ '192.0.2/24', null ], [ '192.0.2.256', null ],
	[ '192.0.02.1', null ], [ 'fe80::1%br-lan', null ], [ '192.0.2.0/24/1', null ],
	[ '192.0.2.0/24\n', null ], [ '192.0.2.0/24 }', null ], [ 'example.com', null ],
	[ '192.0.2.0/255.255.255.0', null ], [ '', null ]
]);

// firewall4's syntax of rule values, narrowed to what renders exactly
cases('fw_mac', [
	[ '02:00:00:00:3d:51', '02:00:00:00:3d:51' ], [ 'AA-b-0:0:0:1', 'aa:0b:00:00:00:01' ],
	[ '1:2:3:4:5', null ], [ '1:2:3:4:5:6:7', null ], [ '123:0:0:0:0:1', null ], [ '1:2:3:4:5:g', null ],
	[ '1.2.3.4.5.6', null ], [ '!1:2:3:4:5:6', null ], [ '1:2:3:4:5:6 ', null ], [ '', null ], [ null, null ]
]);

cases('fw_port', [
	[ '0', [ 0, 0 ] ], [ '25', [ 25, 25 ] ], [ '0080', [ 80, 80 ] ], [ '5000-5010', [ 5000, 5010 ] ],
	[ '5000:5010', [ 5000, 5010 ] ], [ '65535', [ 65535, 65535 ] ], [ '65536', null ], [ '90-80', null ],
	[ '80-', null ], [ '-80', null ], [ '80,443', null ], [ '100000', null ], [ 'http', null ], [ '', null ]
]);

cases('fw_addr', [
	[ '192.168.1.50', { family: 4, cidr: '192.168.1.50/32' } ],
	[ '192.168.1.77/24', { family: 4, cidr: '192.168.1.0/24' } ],
	[ '192.168.1.77/255.255.255.0', { family: 4, cidr: '192.168.1.0/24' } ],
	[ '192.168.1.77/255.255.255.255', { family: 4, cidr: '192.168.1.77/32' } ],
	[ '192.168.1.77/0.0.0.0', { family: 4, cidr: '0.0.0.0/0' } ],
	[ '2001:db8::1/ffff:ffff::', { family: 6, cidr: '2001:db8::/32' } ],
	[ '2001:db8::/48', { family: 6, cidr: '2001:db8::/48' } ],
	[ '192.168.1.0/255.0.255.0', null ], [ '192.168.1.0/0.0.0.255', null ], [ '::1/::ffff', null ],
	[ '192.168.1.0/ffff::', null ], [ '2001:db8::/255.255.0.0', null ], [ '192.168.1.5-192.168.1.9', null ],
	[ 'lan', null ], [ '192.168.1.0/33', null ], [ '192.168.1.0/24/1', null ], [ 'fe80::1%eth0', null ], [ '', null ]
]);

// Every validator must reject strings that try to break out of nft,
// haproxy or shell syntax.
let hostile = [
	'"', "'", '{', '}', ';', '\n', '\r', '\t', ' ', '\\', '`', '$(reboot)', '#',
	'80; flush ruleset', '02:00:00:00:3d:51; flush ruleset',
	'02:00:00:00:3d:51 }', 'br-lan" accept', 'x\nbackend evil', '0x10\n',
	'100 table main', '1\n', 'a\u0000b', '80\n443'
];

for (let h in hostile)
	for (let fn in [ 'bool', 'mac', 'port', 'port_range', 'ports', 'name', 'netdev', 'hex32', 'table', 'maxconn', 'cidr',
			'fw_mac', 'fw_port', 'fw_addr' ])
		check(sprintf('hostile %s(%J)', fn, h), v[fn](h), null);

// Automatic values.
for (let c in [
	[ 0, 256, 1048576 ],			// unknown RAM: the smallest values
	[ 57532, 256, 1048576 ],		// 64 MiB router
	[ 124364, 484 & ~15, 1966080 ],		// 128 MiB router: 121 MiB
	[ 250000, 976, 3997696 ],		// 256 MiB router
	[ 1048576, 4096, 4194304 ],		// 1 GiB
	[ 16777216, 8192, 4194304 ]		// 16 GiB
]) {
	check(sprintf('auto_maxconn(%d)', c[0]), auto_maxconn(c[0]), c[1]);
	check(sprintf('auto_tcp_mem_max(%d)', c[0]), auto_tcp_mem_max(c[0]), c[2]);
	check(sprintf('auto_maxconn(%d) %% 16', c[0]), auto_maxconn(c[0]) % 16, 0);
	check(sprintf('auto_tcp_mem_max(%d) %% 64K', c[0]), auto_tcp_mem_max(c[0]) % 65536, 0);
}

check('memtotal_kb', memtotal_kb('MemTotal:        1015480 kB\nMemFree: 1 kB\n'), 1015480);
check('memtotal_kb missing', memtotal_kb('MemFree: 1 kB\n'), null);
check('memtotal_kb null', memtotal_kb(null), null);

// Mark expressions.
check('mark_set equal', mark_set({ mark: 0x10000000, mask: 0x10000000 }),
	'meta mark set meta mark or 0x10000000');
check('mark_set masked', mark_set({ mark: 0x00100000, mask: 0x00f00000 }),
	'meta mark set meta mark and 0xff0fffff or 0x00100000');
check('mark_match', mark_match({ mark: 0x00100000, mask: 0x00f00000 }),
	'meta mark and 0x00f00000 == 0x00100000');

print(sprintf('validate: %d passed, %d failed\n', passed, failed));
exit(failed ? 1 : 0);
