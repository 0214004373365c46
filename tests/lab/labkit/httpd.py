"""Lab HTTP server: GET /bytes/N serves N bytes, POST /upload counts the
body.  Every reply carries X-Peer: the address the server saw, which tells a
proxied connection (peer = router) from a direct one (peer = client).
usage: httpd.py PORT"""
import http.server
import socket
import sys

CHUNK = b"x" * 65536


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _head(self, code, length):
        self.send_response(code)
        self.send_header("Content-Length", str(length))
        peer = self.client_address[0]
        if peer.startswith("::ffff:"):  # IPv4 on the dual-stack socket
            peer = peer[7:]
        self.send_header("X-Peer", peer)
        self.end_headers()

    def do_GET(self):
        parts = self.path.split("/")
        if len(parts) == 3 and parts[1] == "bytes" and parts[2].isdigit():
            n = int(parts[2])
            self._head(200, n)
            while n > 0:
                chunk = CHUNK[:min(n, len(CHUNK))]
                self.wfile.write(chunk)
                n -= len(chunk)
        else:
            self._head(404, 0)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        got = 0
        while got < n:
            data = self.rfile.read(min(65536, n - got))
            if not data:
                break
            got += len(data)
        body = str(got).encode()
        self._head(200, len(body))
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True
    request_queue_size = 1024

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


if __name__ == "__main__":
    Server(("::", int(sys.argv[1])), Handler).serve_forever()
