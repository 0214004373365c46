"""Lab HTTPS server with the paths of the default test endpoint (Cloudflare's
speed test): GET /__down?bytes=N serves N bytes (403 from 100 000 000 up,
as the real one does), POST /__up reads the body (Content-Length or
chunked) and answers 200.  Without a Referer header both answer 403 (the
real endpoint wants one).  --status CODE answers every request with CODE
(the lab's "throttled" case).  --answer-delay MS waits that long after
an upload's body before answering (a busy server: the client must not
take the wait for a stalled upload).
usage: httpsd.py PORT CERT KEY [--status CODE] [--answer-delay MS]"""
import http.server
import socket
import ssl
import sys
import time
import urllib.parse

CHUNK = b"x" * 65536
LIMIT = 100000000
FORCED = None
ANSWER_DELAY_S = 0
HANDSHAKE_S = 10


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _head(self, code, length):
        self.send_response(code)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _refuse(self):
        if FORCED:
            return FORCED
        if not self.headers.get("Referer"):
            return 403
        return None

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        qs = urllib.parse.parse_qs(url.query)
        code = self._refuse()
        n = qs.get("bytes", [""])[0]
        if code is None and (url.path != "/__down" or not n.isdigit()):
            code = 404
        if code is None and int(n) >= LIMIT:
            code = 403
        if code is not None:
            self._head(code, 0)
            return
        n = int(n)
        self._head(200, n)
        while n > 0:
            chunk = CHUNK[:min(n, len(CHUNK))]
            self.wfile.write(chunk)
            n -= len(chunk)

    def _body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            got = 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return got
                left = size
                while left > 0:
                    data = self.rfile.read(min(65536, left))
                    if not data:
                        return got
                    left -= len(data)
                got += size
                self.rfile.readline()
        n = int(self.headers.get("Content-Length", "0"))
        got = 0
        while got < n:
            data = self.rfile.read(min(65536, n - got))
            if not data:
                break
            got += len(data)
        return got

    def do_POST(self):
        code = self._refuse()
        if code is None and urllib.parse.urlsplit(self.path).path != "/__up":
            code = 404
        if code is not None:
            self.close_connection = True
            self._head(code, 0)
            return
        got = self._body()
        time.sleep(ANSWER_DELAY_S)
        body = str(got).encode()
        self._head(200, len(body))
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    """Each connection's TLS handshake runs in its own thread (as a real
    endpoint serves connections side by side): done in accept(), one
    client that is slow to answer its handshake held up every other
    connection's accept, so the lab's streams stalled behind it."""
    address_family = socket.AF_INET6
    daemon_threads = True
    request_queue_size = 256
    context = None

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()

    def finish_request(self, request, client_address):
        request.settimeout(HANDSHAKE_S)
        try:
            conn = self.context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            request.close()
            return
        conn.settimeout(None)
        try:
            super().finish_request(conn, client_address)
        finally:
            conn.close()  # the plain socket was handed to it (detached)


def main(argv):
    global FORCED, ANSWER_DELAY_S
    port, cert, key = int(argv[1]), argv[2], argv[3]
    opts = dict(zip(argv[4::2], argv[5::2]))
    if "--status" in opts:
        FORCED = int(opts["--status"])
    ANSWER_DELAY_S = int(opts.get("--answer-delay", "0")) / 1000.0
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = Server(("::", port), Handler)
    srv.context = ctx
    srv.serve_forever()


if __name__ == "__main__":
    main(sys.argv)
