"""The lab network: LAN clients, the router, an emulated WAN path, a far server.

    cli  --\\                                      netem (RTT, rate, buffer)
            br-lan [rtr] rtr-wan ---- wan-rtr [wan] wan-srv ---- srv-wan [srv]
    cli2 --/

The WAN path lives in its own namespace `wan` so the router's own WAN device
stays free for the shaper (CAKE egress + IFB ingress) like on a real router
whose modem holds the bloated buffer.  Addresses are documentation ranges.
"""
from . import sh

CLIENTS = {
    # name: (mac, ipv4, ipv6)
    "cli": ("02:00:00:00:3d:51", "192.168.1.10", "fd00:1::10"),
    "cli2": ("02:00:00:00:c2:51", "192.168.1.20", "fd00:1::20"),
}
LAN4, LAN6 = "192.168.1.1", "fd00:1::1"
RTR_WAN4, RTR_WAN6 = "198.51.100.2", "2001:db8:100::2"
WAN_RTR4, WAN_RTR6 = "198.51.100.1", "2001:db8:100::1"
WAN_SRV4, WAN_SRV6 = "203.0.113.1", "2001:db8:203::1"
SRV4, SRV6 = "203.0.113.10", "2001:db8:203::10"
NAMESPACES = ["cli", "cli2", "rtr", "wan", "srv"]

# Client TCP stacks, set by sysctl inside the client namespace.
PROFILES = {
    # Nintendo 3DS: no window scaling, ~16 KB receive buffer.
    "3ds": {"net.ipv4.tcp_window_scaling": "0",
            "net.ipv4.tcp_rmem": "4096 16384 16384"},
    # PS4 with a game running: 7 KB window.
    "ps4-7k": {"net.ipv4.tcp_rmem": "4096 7168 7168"},
    # PS4 with any app running: 128 KB window.
    "ps4-128k": {"net.ipv4.tcp_rmem": "4096 131072 131072"},
    # A modern PC: kernel defaults (autotuning up to several MB).
    "pc": {"net.ipv4.tcp_window_scaling": "1",
           "net.ipv4.tcp_rmem": "4096 131072 6291456"},
}


def _veth(left, left_ns, right, right_ns, mac=None):
    sh.run(["ip", "link", "add", left, "netns", left_ns, "type", "veth",
            "peer", "name", right, "netns", right_ns])
    if mac:
        sh.run(["ip", "link", "set", "dev", left, "address", mac], ns=left_ns)
    for dev, ns in ((left, left_ns), (right, right_ns)):
        # Offloads off: netem's rate and buffer count real packets, not 64 KB
        # GSO bursts, and the shaper sees what a router's NIC would send.
        sh.run(["ethtool", "-K", dev, "gro", "off", "gso", "off", "tso", "off"],
               ns=ns, check=False)
        sh.run(["ip", "link", "set", "dev", dev, "up"], ns=ns)


LINKS = [("cli", "cli-lan"), ("cli2", "cli2-lan"), ("rtr", "rtr-cli"), ("rtr", "rtr-cli2"),
         ("rtr", "br-lan"), ("rtr", "rtr-wan"), ("wan", "wan-rtr"), ("wan", "wan-srv"),
         ("srv", "srv-wan")]


def set_offloads(on):
    """GRO/GSO/TSO on every lab link: off for netem's packet-exact rate and
    buffer (the default here), on to measure CPU the way a router runs
    (Linux enables GSO/GRO by default; offloads help forwarding and
    termination alike)."""
    state = "on" if on else "off"
    for ns, dev in LINKS:
        sh.run(["ethtool", "-K", dev, "gro", state, "gso", state, "tso", state],
               ns=ns, check=False)


def _addr(ns, dev, addr4, addr6, plen4=24, plen6=64):
    sh.run(["ip", "addr", "add", "%s/%d" % (addr4, plen4), "dev", dev], ns=ns)
    sh.run(["ip", "-6", "addr", "add", "%s/%d" % (addr6, plen6), "dev", dev,
            "nodad"], ns=ns)


def _sysctl(ns, key, value):
    sh.run(["sysctl", "-q", "-w", "%s=%s" % (key, value)], ns=ns)


def teardown():
    existing = sh.run(["ip", "netns", "list"], check=False)
    for ns in NAMESPACES:
        if any(line.split()[0] == ns for line in existing.splitlines() if line):
            sh.run(["ip", "netns", "del", ns], check=False)


def build():
    """Create all namespaces and links; no WAN emulation yet (see set_wan)."""
    teardown()
    for ns in NAMESPACES:
        sh.run(["ip", "netns", "add", ns])
        sh.run(["ip", "link", "set", "lo", "up"], ns=ns)
    sh.run(["ip", "link", "add", "br-lan", "type", "bridge"], ns="rtr")
    sh.run(["ethtool", "-K", "br-lan", "gro", "off", "gso", "off", "tso", "off"],
           ns="rtr", check=False)
    sh.run(["ip", "link", "set", "br-lan", "up"], ns="rtr")
    for name, (mac, ip4, ip6) in CLIENTS.items():
        port = "rtr-" + name
        _veth(name + "-lan", name, port, "rtr", mac=mac)
        sh.run(["ip", "link", "set", port, "master", "br-lan"], ns="rtr")
        _addr(name, name + "-lan", ip4, ip6)
        sh.run(["ip", "route", "add", "default", "via", LAN4], ns=name)
        sh.run(["ip", "-6", "route", "add", "default", "via", LAN6], ns=name)
    _addr("rtr", "br-lan", LAN4, LAN6)
    _veth("rtr-wan", "rtr", "wan-rtr", "wan")
    _veth("wan-srv", "wan", "srv-wan", "srv")
    _addr("rtr", "rtr-wan", RTR_WAN4, RTR_WAN6)
    _addr("wan", "wan-rtr", WAN_RTR4, WAN_RTR6)
    _addr("wan", "wan-srv", WAN_SRV4, WAN_SRV6)
    _addr("srv", "srv-wan", SRV4, SRV6)
    sh.run(["ip", "route", "add", "default", "via", WAN_RTR4], ns="rtr")
    sh.run(["ip", "-6", "route", "add", "default", "via", WAN_RTR6], ns="rtr")
    sh.run(["ip", "route", "add", "192.168.1.0/24", "via", RTR_WAN4], ns="wan")
    sh.run(["ip", "-6", "route", "add", "fd00:1::/64", "via", RTR_WAN6], ns="wan")
    sh.run(["ip", "route", "add", "default", "via", WAN_SRV4], ns="srv")
    sh.run(["ip", "-6", "route", "add", "default", "via", WAN_SRV6], ns="srv")
    for ns in ("rtr", "wan"):
        _sysctl(ns, "net.ipv4.ip_forward", "1")
        _sysctl(ns, "net.ipv6.conf.all.forwarding", "1")


def set_wan(rtt_ms, down_mbit, up_mbit=None, limit=1000):
    """Emulate the WAN path: half the RTT each way, a rate bottleneck and a
    drop-tail buffer of `limit` packets in each direction (like a modem)."""
    up_mbit = up_mbit or down_mbit
    half = "%gms" % (rtt_ms / 2.0)
    for dev, rate in (("wan-rtr", down_mbit), ("wan-srv", up_mbit)):
        sh.run(["tc", "qdisc", "replace", "dev", dev, "root", "netem",
                "delay", half, "rate", "%gmbit" % rate, "limit", str(limit)],
               ns="wan")


def set_profile(ns, profile):
    for key, value in PROFILES[profile].items():
        _sysctl(ns, key, value)
