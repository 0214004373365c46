"""TCP probes for the hardening scenario, run inside a namespace; prints
one JSON object.
  tcpcheck.py refused HOST PORT   connect, send a request, wait for the end:
                                  {"kind": "reset"|"eof"|"refused"|"timeout", "ms"}
  tcpcheck.py hold HOST PORT      connect, send a request, wait up to 5 s for
                                  the end (a listener that loops on itself
                                  never ends it): {"kind", "ms"}"""
import json
import socket
import sys
import time


def probe(host, port, wait):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(wait)
    t0 = time.time()
    try:
        s.connect((host.strip("[]"), int(port)))
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        kind = "eof" if s.recv(4096) == b"" else "data"
    except ConnectionRefusedError:
        kind = "refused"
    except ConnectionResetError:
        kind = "reset"
    except socket.timeout:
        kind = "timeout"
    finally:
        s.close()
    return {"kind": kind, "ms": round((time.time() - t0) * 1000, 1)}


if __name__ == "__main__":
    cmd, host, port = sys.argv[1:4]
    print(json.dumps(probe(host, port, {"refused": 15, "hold": 5}[cmd])))
