#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loopback stand-in for the lab's far HTTP server, for the live tests of
the guided test's load generator: GET /bytes/N answers N bytes, GET
/redirect answers 302 to /bytes/20000000 on the same server (the load
must not follow it), POST /upload reads and discards the body
(Content-Length or until the client goes away) and answers 200.  Listens on 127.0.0.1 (never elsewhere) on a
free port and prints that port on its first line.

  python3 tests/ucode/latency/httpd.py
"""
import re
import socketserver
import sys
from http.server import BaseHTTPRequestHandler

BLOCK = b"x" * 65536


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:%d/bytes/20000000" % self.server.server_address[1])
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        m = re.fullmatch(r"/bytes/([0-9]{1,12})", self.path)
        if not m:
            self.send_error(404)
            return
        n = int(m.group(1))
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            while n > 0:
                k = min(n, len(BLOCK))
                self.wfile.write(BLOCK[:k])
                n -= k
        except OSError:
            pass

    def do_POST(self):
        if self.path != "/upload":
            self.send_error(404)
            return
        left = int(self.headers.get("Content-Length") or 0)
        try:
            while left > 0:
                got = self.rfile.read1(min(left, 1 << 20))
                if not got:
                    return
                left -= len(got)
        except OSError:
            return
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # clients reset connections on purpose (SO_LINGER 0)


if __name__ == "__main__":
    srv = Server(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
