#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The ubus API on OpenWrt's real rpcd (our plugin file loaded by
rpcd-mod-ucode: object reterm), reterm-latencyd's own object
(reterm.latency) and uhttpd's /ubus JSON-RPC, inside the owrt tier's root.

  rpcd/methods        every method of both objects answers through `ubus call`
  rpcd/shape/<m>      read replies have the keys and types of the API
                      tests' golden replies (tests/ucode/api/fixtures)
  rpcd/acl/<who>      four sessions over HTTP: the luci-app-reterm ACL
                      (what the pages call, read+write), read only, the
                      reterm-scripts ACL (every method), anonymous; each
                      method allowed or denied as the ACL files say, and
                      reterm.latency's reload never reachable over HTTP
  rpcd/malformed/...  wrong types, missing arguments, 100 KB strings,
                      non-ASCII, quotes, braces, ;, newlines, $(...): an
                      error reply each, rpcd stays up, /etc/config/reterm
                      byte-identical

Prints "ok - ...", "not ok - ...", "# detail" lines and finally
"rpcd-checks: done".
"""
import argparse
import crypt
import http.client
import json
import os
import subprocess
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(TOP, "tests/ucode/api/fixtures/home/expected")
LAT = "reterm.latency"
# (object, method): read or write, and whether the pages' ACL grants it
READ = [("reterm", m) for m in ("status", "hosts", "device_stats", "server_rtts", "audit_result", "wan_info")] + \
    [(LAT, m) for m in ("samples", "status", "test_status", "results", "autorate_status")]
WRITE = [("reterm", m) for m in ("device_add", "device_set", "device_remove", "apply", "audit_start")] + \
    [(LAT, m) for m in ("test_start", "test_stop")]
# what no LuCI page calls: only the scripts' ACL grants it
SCRIPTS_ONLY = [("reterm", m) for m in ("status", "device_add", "device_set", "device_remove", "apply")]
ANON = "0" * 32
UHTTPD_MAX_POST = 65536
PASSWORD = "reterm-test-pw"

# method -> typed arguments it declares (one valid example each)
ARGS = {
    "device_add": {"name": "x3ds", "mac": "02:00:00:00:3d:52", "ports": "all", "enabled": True},
    "device_set": {"mac": "02:00:00:00:3d:51", "name": "x3ds", "ports": "web", "enabled": True},
    "device_remove": {"mac": "02:00:00:00:3d:51"},
    "audit_start": {"minutes": 10},
    "audit_result": {"mac": "02:00:00:00:3d:51", "rtt_ms": 130},
    "samples": {"since": 0, "step": 1},
    "test_start": {"download_url": "http://192.0.2.10/bytes/1000", "upload_url": "http://192.0.2.10/upload",
                   "streams": 4},
    "results": {"id": "abc"},
}
HOSTILE = ["x" * 100000, "n\u00e4me-\u00fc\u20ac", "a\"b'c", "{\"a\":1}", "a;reboot", "a\nb",
           "$(reboot)", "`reboot`", "", " ", "../../etc/shadow"]
WRONG = [12345, True, ["a"], {"a": 1}, -1, 2 ** 40, "12"]

passed = failed = 0


def ok(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - " + name)
        for line in str(detail).splitlines()[:20]:
            print("#   " + line[:300])


class Router:
    def __init__(self, root, port):
        self.root, self.port, self.seq = root, port, 0

    def sh(self, cmd, stdin=None):
        return subprocess.run(["chroot", self.root, "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                               "/bin/sh", "-c", cmd], input=stdin, capture_output=True, text=True, timeout=60)

    def ubus(self, obj, method, args):
        """(status, reply) of `ubus call OBJ METHOD ARGS`"""
        r = subprocess.run(["chroot", self.root, "/bin/ubus", "call", obj, method, json.dumps(args)],
                           capture_output=True, text=True, timeout=60)
        try:
            return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None
        except ValueError:
            return r.returncode, r.stdout

    def rpc(self, sid, obj, method, args):
        """uhttpd's /ubus: (ubus status or -32xxx error code, reply)"""
        self.seq += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.seq, "method": "call",
                           "params": [sid, obj, method, args]}).encode()
        req = urllib.request.Request("http://127.0.0.1:%d/ubus" % self.port, data=body,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as f:
                d = json.loads(f.read())
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected) as e:
            # uhttpd refuses a /ubus body over 64 KB (UH_UBUS_MAX_POST_SIZE)
            # and closes without reading the rest, so the client may see a
            # reset instead of the error reply: a refusal too.  Anything
            # smaller must be answered.
            if len(body) <= UHTTPD_MAX_POST:
                raise
            return "refused", {"message": "uhttpd closed the connection: %s" % e}
        if "error" in d:
            return d["error"]["code"], d["error"]
        res = d["result"]
        return res[0], (res[1] if len(res) > 1 else None)

    def login(self, user):
        code, r = self.rpc(ANON, "session", "login", {"username": user, "password": PASSWORD})
        return r["ubus_rpc_session"] if code == 0 else None

    def config(self):
        return open(os.path.join(self.root, "etc/config/reterm"), "rb").read()

    def alive(self):
        return self.sh("ubus list reterm").returncode == 0


def kind(v):
    return {bool: "bool", int: "number", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}[type(v)]


def setup_users(rt):
    """three rpcd logins besides root: the app's ACL read+write, read only,
    and the scripts' ACL"""
    h = crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_SHA512))
    batch = ""
    for user, acl, write in (("retermadmin", "luci-app-reterm", True), ("retermread", "luci-app-reterm", False),
                             ("retermscript", "reterm-scripts", True)):
        batch += ("add rpcd login\nset rpcd.@login[-1].username='%s'\nset rpcd.@login[-1].password='%s'\n"
                  "add_list rpcd.@login[-1].read='%s'\n" % (user, h, acl))
        if write:
            batch += "add_list rpcd.@login[-1].write='%s'\n" % acl
    rt.sh("uci -q batch", stdin=batch + "commit rpcd\n")


def is_error(status, reply):
    return status != 0 or (isinstance(reply, dict) and isinstance(reply.get("error"), str))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    rt = Router(a.root, a.port)
    setup_users(rt)

    # every method through ubus call
    replies, bad = {}, []
    for obj, m in READ + [("reterm", "apply"), (LAT, "test_stop")]:
        st, r = rt.ubus(obj, m, ARGS.get(m, {}) if m in ("samples", "audit_result") else {})
        replies[(obj, m)] = (st, r)
        if (st != 0 or not isinstance(r, dict)) and (obj, m) != (LAT, "test_stop"):
            bad.append("%s %s: status %s reply %r" % (obj, m, st, r))
    ok("methods: every read method of reterm and reterm.latency, apply and test_stop answer through ubus call",
       not bad, "\n".join(bad))
    st, r = replies[(LAT, "test_stop")]
    ok("methods: test_stop without a test answers no_test", isinstance(r, dict) and r.get("error") == "no_test", r)

    for m in ("status", "hosts", "audit_result"):
        golden = json.load(open(os.path.join(GOLDEN, m + ".json")))
        got = replies[("reterm", m)][1] if isinstance(replies[("reterm", m)][1], dict) else {}
        diff = ["%s: %s vs %s" % (k, kind(got.get(k)), kind(v)) for k, v in golden.items()
                if k not in got or (kind(got[k]) != kind(v) and None not in (got[k], v))]
        ok("shape/%s: keys and types of the API tests' reply" % m, not diff, "\n".join(diff) + "\n" + json.dumps(got))

    # four sessions over HTTP
    sids = {"acl": rt.login("retermadmin"), "read": rt.login("retermread"), "scripts": rt.login("retermscript"),
            "anonymous": ANON}
    ok("acl: logins for the app's ACL, read-only and the scripts' ACL", sids["acl"] and sids["read"] and sids["scripts"],
       sids)
    before = rt.config()
    for who, sid in sids.items():
        if not sid:
            continue
        wrong = []
        for obj, m in READ + WRITE:
            args = ARGS.get(m, {})
            if m in ("device_add", "device_set", "device_remove", "apply"):
                args = {"mac": "zz"} if m != "apply" else {}
            if m == "test_start":
                args = {"streams": 0}   # refused by the daemon when allowed: no test runs
            code, r = rt.rpc(sid, obj, m, args)
            denied = code == -32002
            want_denied = who == "anonymous" or (who == "read" and (obj, m) in WRITE) or \
                (who in ("acl", "read") and (obj, m) in SCRIPTS_ONLY)
            if m == "apply" and not want_denied:
                continue    # a real reload; checked through ubus above
            if denied != want_denied:
                wrong.append("%s %s: code %s (%s)" % (obj, m, code, "denied" if denied else "allowed"))
        code, r = rt.rpc(sid, LAT, "reload", {})
        if code == 0 and not is_error(code, r):
            wrong.append("%s reload: reached over HTTP (%s %s)" % (LAT, code, r))
        ok("acl/%s: %s" % (who, {"acl": "what the pages call allowed, the rest denied",
                                 "read": "the pages' reads allowed, everything else denied",
                                 "scripts": "every method allowed",
                                 "anonymous": "everything denied"}[who]), not wrong, "\n".join(wrong))
    ok("acl: denied and invalid writes left /etc/config/reterm unchanged", rt.config() == before)

    # malformed input, through ubus call and HTTP with the full ACL
    before, errors, calls = rt.config(), [], 0
    cases = []
    for m, good in ARGS.items():
        for k in good:
            for v in [w for w in WRONG if type(w) is not type(good[k])] + \
                    (HOSTILE if isinstance(good[k], str) else []):
                cases.append((m, dict(good, **{k: v})))
            missing = dict(good)
            del missing[k]
            if m in ("device_add", "device_set", "device_remove") and k == "mac":
                cases.append((m, missing))
        cases.append((m, dict(good, unknown="x")))
    for m, args in cases:
        if m == "results" and args.get("id") == "":
            continue    # "" asks for every result
        if m == "test_start" and all(isinstance(v, str) and v.startswith("http") for v in
                                     (args.get("download_url"), args.get("upload_url"))) \
                and isinstance(args.get("streams"), int) and 1 <= args["streams"] <= 16:
            continue
        obj = LAT if m in ("samples", "test_start", "results") else "reterm"
        for via in ("ubus", "http"):
            calls += 1
            st, r = rt.ubus(obj, m, args) if via == "ubus" else rt.rpc(sids["scripts"] or ANON, obj, m, args)
            if not is_error(st, r):
                errors.append("%s %s %s -> %s %s" % (via, m, json.dumps(args)[:120], st, json.dumps(r)[:160]))
    rt.ubus(LAT, "test_stop", {})
    ok("malformed: %d calls (wrong types, missing, 100 KB, non-ASCII, quotes, braces, ;, newlines, $()) "
       "each got an error" % calls, not errors, "\n".join(errors))
    ok("malformed: rpcd still up", rt.alive())
    ok("malformed: /etc/config/reterm byte-identical", rt.config() == before)
    print("rpcd-checks: done (%d passed, %d failed)" % (passed, failed))


if __name__ == "__main__":
    main()
