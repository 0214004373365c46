"""Lab HTTP client, run inside a client namespace; prints one JSON object.
  httpc.py get HOST PORT PATH           one request: status, bytes, peer, ms
  httpc.py many N HOST PORT PATH SIZE   N concurrent downloads of SIZE bytes
  httpc.py ramp HOST PORT SIZE          one download, bytes received per 50 ms
  httpc.py idle N HOST PORT SECONDS     hold N idle connections open"""
import asyncio
import json
import resource
import socket
import sys
import time


def _addr(host):
    return host.strip("[]")


def get(host, port, path, timeout=10):
    t0 = time.time()
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((_addr(host), int(port)))
    s.sendall(("GET %s HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n" % path).encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return {"status": int(lines[0].split()[1]), "bytes": len(body),
            "peer": headers.get("X-Peer"), "ms": (time.time() - t0) * 1000}


async def _one(host, port, path, size, res):
    try:
        reader, writer = await asyncio.open_connection(_addr(host), int(port))
        writer.write(("GET %s HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n"
                      % path).encode())
        await writer.drain()
        data = await reader.read()
        writer.close()
        body = data.partition(b"\r\n\r\n")[2]
        res["ok" if len(body) == size else "short"] += 1
    except ConnectionResetError:
        res["reset"] += 1
    except OSError:
        res["error"] += 1


async def _many(n, host, port, path, size):
    res = {"ok": 0, "short": 0, "reset": 0, "error": 0}
    t0 = time.time()
    await asyncio.wait_for(asyncio.gather(
        *(_one(host, port, path, size, res) for _ in range(n))), timeout=300)
    res["seconds"] = time.time() - t0
    return res


def ramp(host, port, size, step=0.05):
    """Samples [(seconds since connect(), bytes so far)] of one download."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(30)
    t0 = time.time()
    s.connect((_addr(host), int(port)))
    s.sendall(("GET /bytes/%s HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n"
               % size).encode())
    got, samples, next_t = 0, [], step
    while True:
        chunk = s.recv(262144)
        if not chunk:
            break
        got += len(chunk)
        now = time.time() - t0
        if now >= next_t:
            samples.append((round(now, 4), got))
            next_t = now + step
    samples.append((round(time.time() - t0, 4), got))
    s.close()
    return {"samples": samples, "bytes": got}


def idle(n, host, port, seconds):
    """Open n connections, send nothing, hold them, report how many opened."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    socks = []
    for _ in range(int(n)):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect((_addr(host), int(port)))
            socks.append(s)
        except OSError:
            s.close()
    print(json.dumps({"open": len(socks)}), flush=True)
    time.sleep(float(seconds))
    for s in socks:
        s.close()
    return None


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "get":
        out = get(*sys.argv[2:5])
    elif cmd == "many":
        n, host, port, path, size = sys.argv[2:7]
        out = asyncio.run(_many(int(n), host, port, path, int(size)))
    elif cmd == "ramp":
        out = ramp(*sys.argv[2:5])
    elif cmd == "idle":
        out = idle(*sys.argv[2:6])
    else:
        sys.exit("usage: see module docstring")
    if out is not None:
        print(json.dumps(out))
