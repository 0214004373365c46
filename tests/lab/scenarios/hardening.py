"""Re-termination never fails closed and never resets (issue 13), on the
lab router at 130 ms / 20 Mbit/s:

  midstream    a download running while its device gets selected completes
  deselect     a proxied download running while its device gets deselected
               and then a route changes on the router (as a WAN lease
               renewal makes) completes: the proxy serves what it holds
               until it ends
  respawn      a download opened directly while haproxy was down completes
               after haproxy is back
  selfconnect  a process on the router connecting to the proxy's listener
               is refused at once (no connection to itself, again and again)
  full         with the proxy full (maxconn 16) a new connection of a
               selected device still works, directly
  refused      a closed port on the far server fails through reterm about as
               fast as direct (no 5 s of haproxy retries)
  firewall     one REJECT rule of the firewall of each kind - the selected
               device's MAC, its IPv4 address (src_ip), a port without a
               source (dest_port), every MAC but cli2's (negated src_mac) -
               blocks its TCP with reterm on as without: what the rule
               matches stays direct, where fw4's forward rule applies; what
               it does not match (IPv6 for src_ip, port 80 for dest_port) is
               still re-terminated

Needs ucode (the configs are rendered); without it the scenario skips."""
import json
import os
import sys
import tempfile
import time

from labkit import sh, topo
from labkit.reterm import Router, RESPAWN_DELAY, ucode_binary
from scenarios.proxy import lab, fetch, httpc, KIT

TCPCHECK = os.path.join(KIT, "tcpcheck.py")
BIG = 20000000  # ~8 s at 20 Mbit/s

CONFIG = """config reterm 'main'
	option enabled '1'
	option port '15001'
	option mark '0x10000000'
	option mask '0x10000000'
	option table '100'
	option maxconn '%(maxconn)s'
	option lan_device 'br-lan'
	option ipv6 '1'

config device
	option name 'nintendo-3ds'
	option mac '02:00:00:00:3d:51'
	option enabled '%(enabled)d'
	option ports 'all'
"""


# /etc/config/firewall: zones, forwarding, and one rule (RULES)
FIREWALL = """config zone
	option name 'lan'
	list network 'lan'
	option forward 'ACCEPT'

config zone
	option name 'wan'
	list network 'wan'
	option masq '1'

config forwarding
	option src 'lan'
	option dest 'wan'

config rule
	option name '%s'
	option src 'lan'
	option dest 'wan'
	option target 'REJECT'
"""
CLI_MAC, CLI4 = topo.CLIENTS["cli"][:2]
CLI2_MAC = topo.CLIENTS["cli2"][0]
# kind: (the rule's match options, the match of the forward rule fw4 makes
# of it (fw4-emu has no rules), the port it blocks, what it leaves out and
# must still be re-terminated: (server, port, the router's address the
# server sees) or None)
RULES = {
    "mac": ("\toption src_mac '%s'\n" % CLI_MAC, ["ether", "saddr", CLI_MAC], 80, None),
    "srcip": ("\toption src_ip '%s'\n" % CLI4, ["ip", "saddr", CLI4], 80, (topo.SRV6, 80, topo.RTR_WAN6)),
    "port": ("\toption proto 'tcp'\n\toption dest_port '8080'\n", ["tcp", "dport", "8080"], 8080,
             (topo.SRV4, 80, topo.RTR_WAN4)),
    "negmac": ("\tlist src_mac '!%s'\n" % CLI2_MAC, ["ether", "saddr", "!=", CLI2_MAC], 80, None),
}


def fw_reject(match):
    """fw4's forward rule for a REJECT rule (handle_reject: a TCP reset)"""
    return ["insert", "rule", "inet", "fw4", "forward"] + match + [
        "meta", "l4proto", "tcp", "reject", "with", "tcp", "reset"]


def firewall_rule(router, confdir, res, kind):
    """one rule of the kind: cli blocked with reterm on and off; what the
    rule leaves out still re-terminated"""
    opts, match, port, other = RULES[kind]
    configure(router, confdir, enabled=1, firewall=FIREWALL % ("Block " + kind) + opts)
    router.apply("start")
    sh.run(["nft"] + fw_reject(match), ns="rtr")
    sets = sh.run(["nft", "list", "set", "inet", "fw4", "reterm_devices"], ns="rtr")
    res["firewall_%s_device_left_direct" % kind] = int(CLI_MAC not in sets)
    res["firewall_%s_on_kind" % kind] = tcpcheck("cli", "refused", topo.SRV4, port)["kind"]
    if other:
        r = fetch("cli", other[0], other[1])
        res["firewall_%s_unmatched_proxied" % kind] = int(r["status"] == 200 and r["peer"] == other[2])
    router.apply("stop")
    sh.run(["nft"] + fw_reject(match), ns="rtr")
    res["firewall_%s_off_kind" % kind] = tcpcheck("cli", "refused", topo.SRV4, port)["kind"]
    if res["firewall_%s_off_kind" % kind] != "refused":  # what the forward chain held then
        res["firewall_%s_off_forward" % kind] = sh.run(
            ["nft", "list", "chain", "inet", "fw4", "forward"], ns="rtr", check=False)
    configure(router, confdir, enabled=1)


def configure(router, confdir, enabled=1, maxconn="", firewall=None):
    with open(os.path.join(confdir, "reterm"), "w") as f:
        f.write(CONFIG % {"enabled": enabled, "maxconn": maxconn})
    path = os.path.join(confdir, "firewall")
    if firewall:
        with open(path, "w") as f:
            f.write(firewall)
    elif os.path.exists(path):
        os.unlink(path)
    router.render()


def tcpcheck(ns, *args):
    return json.loads(sh.run([sys.executable, TCPCHECK] + [str(a) for a in args], ns=ns, timeout=60))


def download(ns, size=BIG):
    """A download in the background: its process (prints httpc's JSON)."""
    return sh.spawn([sys.executable, os.path.join(KIT, "httpc.py"), "get",
                     topo.SRV4, 80, "/bytes/%d" % size], ns=ns)


def outcome(proc, timeout=60):
    """httpc's JSON of a background download, None when it raised (reset)"""
    out, _ = proc.communicate(timeout=timeout)
    try:
        return json.loads(out)
    except ValueError:
        return None


def finished(proc, size=BIG, timeout=60):
    r = outcome(proc, timeout)
    return int(r is not None and r["status"] == 200 and r["bytes"] == size)


def run():
    if not ucode_binary():
        return {"skipped": "ucode not found"}
    res = {}
    confdir = tempfile.mkdtemp()
    with lab("lab") as router:
        router.confdir = confdir
        topo.set_profile("cli", "pc")
        cli4 = topo.CLIENTS["cli"][1]

        # midstream: device not selected, a download starts, then selected
        configure(router, confdir, enabled=0)
        router.start_haproxy()
        router.apply("start")
        dl = download("cli")
        time.sleep(2)
        configure(router, confdir, enabled=1)
        router.apply("start")
        res["midstream_complete"] = finished(dl)
        res["midstream_then_proxied"] = int(fetch("cli", topo.SRV4, 80)["peer"] == topo.RTR_WAN4)

        # deselect: a download through the proxy, then its device deselected
        dl = download("cli")
        # (the client takes its time to start under software emulation)
        deadline = time.time() + 30
        while router.current_sessions() == 0 and time.time() < deadline and dl.poll() is None:
            time.sleep(0.2)
        time.sleep(1)
        res["deselect_held"] = router.current_sessions()
        configure(router, confdir, enabled=0)
        router.apply("start")
        # Any route change flushes the routing cache.  Until one does, the
        # proxy's socket keeps its cached input route and early demux
        # delivers the connection's packets whatever the rules say; after
        # it only our mark routes them to the proxy.
        for verb in ("add", "del"):
            sh.run(["ip", "route", verb, "blackhole", "198.18.0.0/15"], ns="rtr")
        # the deselection and the route change came while the download ran
        res["deselect_while_running"] = int(dl.poll() is None)
        r = outcome(dl)
        res["deselect_complete"] = int(r is not None and r["status"] == 200 and r["bytes"] == BIG)
        res["deselect_was_proxied"] = int(r is not None and r["peer"] == topo.RTR_WAN4)
        res["deselect_then_direct"] = int(fetch("cli", topo.SRV4, 80)["peer"] == cli4)
        configure(router, confdir, enabled=1)
        router.apply("start")

        # respawn: haproxy dies, a download starts direct, haproxy comes back
        router.kill_haproxy()
        time.sleep(0.5)
        dl = download("cli")
        router.wait_listening(timeout=RESPAWN_DELAY + 45)
        res["respawn_complete"] = finished(dl)

        # selfconnect: from the router itself to the listener
        r = tcpcheck("rtr", "hold", "127.0.0.1", 15001)
        res["selfconnect_kind"], res["selfconnect_ms"] = r["kind"], r["ms"]
        time.sleep(1)
        info = router.stats("show info")
        res["selfconnect_conns_after"] = int(next(
            l.split(": ")[1] for l in info.splitlines() if l.startswith("CurrConns:")))

        # refused: a closed far port, direct (cli2) and through reterm (cli)
        res["refused_direct_ms"] = tcpcheck("cli2", "refused", topo.SRV4, 9)["ms"]
        r = tcpcheck("cli", "refused", topo.SRV4, 9)
        res["refused_reterm_ms"], res["refused_reterm_kind"] = r["ms"], r["kind"]

        # firewall: a REJECT rule of each kind; reterm on, then off
        for kind in RULES:
            firewall_rule(router, confdir, res, kind)

        # full: maxconn 16, 20 idle connections held, then one more fetch
        router.stop()
        configure(router, confdir, enabled=1, maxconn="16")
        router.start_haproxy()
        router.apply("start")
        hold = sh.spawn([sys.executable, os.path.join(KIT, "httpc.py"), "idle", 20,
                         topo.SRV4, 80, 40], ns="cli")
        res["full_idle_open"] = json.loads(hold.stdout.readline())["open"]
        res["full_proxied_sessions"] = router.current_sessions()
        # (connect to last byte, timed by the client: a connection waiting
        # in a listen queue haproxy does not serve times out after 10 s)
        try:
            r = httpc("cli", "get", topo.SRV4, 80, "/bytes/1000", timeout=30)
            res["full_fetch_ok"] = int(r["status"] == 200 and r["bytes"] == 1000)
            res["full_fetch_direct"] = int(r["peer"] == cli4)
            res["full_fetch_ms"] = round(r["ms"])
        except Exception:  # noqa: BLE001 - a timeout is the failure we look for
            res["full_fetch_ok"], res["full_fetch_direct"], res["full_fetch_ms"] = 0, 0, 10000
        hold.kill()
    return res
