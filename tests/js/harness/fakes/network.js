/**
 * Fake `'require network'`: a small, seeded subset of LuCI's network
 * model — enough for host pickers and WAN device lookups.
 *   network.seed({
 *     hosts:    { 'aa:bb:cc:dd:ee:ff': { name: '3ds', ipaddrs: ['192.168.1.20'], ip6addrs: [] } },
 *     networks: [{ name: 'wan', proto: 'dhcp', device: 'eth1', wan: true, ipaddrs: ['203.0.113.2'] }],
 *     devices:  [{ name: 'eth1', mac: '00:11:22:33:44:55', up: true, type: 'ethernet' }]
 *   })
 */

export function createNetwork({ Class }) {
	const state = { hosts: {}, networks: [], devices: [] };

	const Device = Class.extend({
		__name__: 'LuCI.network.Device',
		__init__(d) { this.d = d; },
		getName() { return this.d.name; },
		getMAC() { return this.d.mac ?? null; },
		getType() { return this.d.type ?? 'ethernet'; },
		isUp() { return !!this.d.up; }
	});

	const deviceByName = name => {
		const d = state.devices.find(x => x.name === name);
		return d ? new Device(d) : (name ? new Device({ name }) : null);
	};

	const Network = Class.extend({
		__name__: 'LuCI.network.Protocol',
		__init__(n) { this.n = n; },
		getName() { return this.n.name; },
		getProtocol() { return this.n.proto ?? 'none'; },
		getIfname() { return this.n.device ?? null; },
		getDevice() { return deviceByName(this.n.device); },
		getL3Device() { return deviceByName(this.n.l3device ?? this.n.device); },
		getIPAddr() { return (this.n.ipaddrs || [])[0] ?? null; },
		getIPAddrs() { return (this.n.ipaddrs || []).slice(); },
		isUp() { return this.n.up !== false; }
	});

	const Hosts = Class.extend({
		__name__: 'LuCI.network.Hosts',
		__init__(hosts) { this.hosts = hosts; },
		getHostnameByMACAddr(mac) { return this.hosts[String(mac).toLowerCase()]?.name ?? null; },
		getIPAddrByMACAddr(mac) { return this.hosts[String(mac).toLowerCase()]?.ipaddrs?.[0] ?? null; },
		getIP6AddrByMACAddr(mac) { return this.hosts[String(mac).toLowerCase()]?.ip6addrs?.[0] ?? null; },
		getMACAddrByIPAddr(ip) {
			return Object.keys(this.hosts).find(m => (this.hosts[m].ipaddrs || []).includes(ip)) ?? null;
		},
		getMACHints(preferIp6) {
			return Object.keys(this.hosts).sort().map(mac => {
				const h = this.hosts[mac];
				const addr = preferIp6 ? (h.ip6addrs || [])[0] ?? (h.ipaddrs || [])[0] : (h.ipaddrs || [])[0] ?? (h.ip6addrs || [])[0];
				return [mac, h.name ?? addr];
			});
		}
	});

	return Class.singleton({
		__name__: 'LuCI.network',

		getHostHints() { return Promise.resolve(new Hosts(JSON.parse(JSON.stringify(state.hosts)))); },
		getNetworks() { return Promise.resolve(state.networks.map(n => new Network(n))); },
		getNetwork(name) {
			const n = state.networks.find(x => x.name === name);
			return Promise.resolve(n ? new Network(n) : null);
		},
		getWANNetworks() { return Promise.resolve(state.networks.filter(n => n.wan).map(n => new Network(n))); },
		getWAN6Networks() { return Promise.resolve(state.networks.filter(n => n.wan6).map(n => new Network(n))); },
		getDevices() { return Promise.resolve(state.devices.map(d => new Device(d))); },
		getDevice(name) { return Promise.resolve(state.devices.some(d => d.name === name) ? deviceByName(name) : null); },
		flushCache() { return Promise.resolve(); },

		/* ---- test-side API ---- */

		seed(data) {
			if (data.hosts)
				state.hosts = Object.fromEntries(Object.entries(data.hosts).map(([m, h]) => [m.toLowerCase(), h]));
			if (data.networks) state.networks = data.networks;
			if (data.devices) state.devices = data.devices;
			return this;
		}
	});
}
