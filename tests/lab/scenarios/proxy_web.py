"""`ports web` (fixture `lab-web`): only 80 and 443 of the selected client are
re-terminated; other ports go direct.  IPv4 and IPv6."""
from labkit import topo
from scenarios.proxy import fetch, lab


def run():
    res = {}
    with lab("lab-web") as router:
        router.up()
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
