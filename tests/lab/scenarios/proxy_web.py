"""`ports web` (fixture `lab-web`): only 80 and 443 of the selected client are
re-terminated; other ports go direct.  IPv4 and IPv6."""
from labkit import topo
from labkit.reterm import Router
from scenarios.proxy import fetch, start_servers


def run():
    topo.build()
    topo.set_wan(130, 20, limit=1000)
    procs = start_servers()
    router = Router("lab-web")
    res = {}
    try:
        router.render()
        router.start_haproxy()
        router.apply("start")
        for fam, srv, peer_router, peer_cli in (
                ("v4", topo.SRV4, topo.RTR_WAN4, topo.CLIENTS["cli"][1]),
                ("v6", topo.SRV6, topo.RTR_WAN6, topo.CLIENTS["cli"][2])):
            for port in (80, 443, 8080):
                before = router.proxied_total()
                reply = fetch("cli", srv, port)
                proxied = router.proxied_total() - before
                res["%s_%d_status" % (fam, port)] = reply["status"]
                res["%s_%d_proxied" % (fam, port)] = int(
                    proxied == 1 and reply["peer"] == peer_router)
                res["%s_%d_direct" % (fam, port)] = int(
                    proxied == 0 and reply["peer"] == peer_cli)
        return res
    finally:
        router.stop()
        for p in procs:
            p.kill()
        topo.teardown()
