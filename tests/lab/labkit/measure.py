"""Measurements that return plain numbers: Mbit/s, milliseconds."""
import json
import re
import statistics
import time

from . import sh

_PING_LINE = re.compile(r"^\[(\d+\.\d+)\].*time=([\d.]+) ms")


def start_iperf_server(ns="srv", port=5201):
    proc = sh.spawn(["iperf3", "-s", "-p", str(port)], ns=ns)
    deadline = time.time() + 10
    while time.time() < deadline:
        if sh.ok(["sh", "-c", "ss -ltn | grep -q ':%d '" % port], ns=ns):
            return proc
        time.sleep(0.2)
    raise RuntimeError("iperf3 server did not start in %s" % ns)


def iperf_download(ns, server, seconds=8, omit=2, streams=1, port=5201,
                   extra=()):
    """Download throughput server -> client (iperf3 -R) in Mbit/s."""
    argv = ["iperf3", "-c", server, "-p", str(port), "-R", "-J",
            "-t", str(seconds), "-O", str(omit), "-P", str(streams)] + list(extra)
    out = json.loads(sh.run(argv, ns=ns, timeout=seconds + omit + 60))
    if "error" in out:
        raise RuntimeError("iperf3: %s" % out["error"])
    return out["end"]["sum_received"]["bits_per_second"] / 1e6


# A Cubic download into the lab's 1000-packet WAN buffer loses a burst every
# ~6 s; the receiver then waits one loaded RTT (~0.7 s) for the hole to fill
# and gets the held-back data in one go.  A 6 s window that ends inside the
# hole reads 17.2 instead of 19.1 Mbit/s for any client (pc and 3DS alike);
# 20 s windows hold the hole and its catch-up burst: one window reads the
# line's rate to 0.01 % (pc and 3DS through reterm alike in every CI run),
# so no median of three (66 s a figure) is needed.
BULK = {"seconds": 20, "omit": 2}


def iperf_bulk(ns, server):
    """WAN-bound download rate over one 20 s window (see BULK)."""
    return iperf_download(ns, server, **BULK)


def iperf_upload(ns, server, seconds=8, omit=2, streams=1, port=5201):
    argv = ["iperf3", "-c", server, "-p", str(port), "-J",
            "-t", str(seconds), "-O", str(omit), "-P", str(streams)]
    out = json.loads(sh.run(argv, ns=ns, timeout=seconds + omit + 60))
    if "error" in out:
        raise RuntimeError("iperf3: %s" % out["error"])
    return out["end"]["sum_received"]["bits_per_second"] / 1e6


def ping_samples(ns, target, count, interval=0.2):
    """[(epoch, rtt_ms)] for the replies that came back."""
    argv = ["ping", "-n", "-D", "-i", str(interval), "-c", str(count), "-W", "2",
            target]
    out = sh.run(argv, ns=ns, check=False, timeout=count * interval + 30)
    return _parse_ping(out)


def _parse_ping(text):
    samples = []
    for line in text.splitlines():
        m = _PING_LINE.match(line)
        if m:
            samples.append((float(m.group(1)), float(m.group(2))))
    return samples


def ping_median(ns, target, count=20, interval=0.2):
    samples = ping_samples(ns, target, count, interval)
    if not samples:
        raise RuntimeError("no ping replies from %s to %s" % (ns, target))
    return statistics.median(s[1] for s in samples)


def latency_under_load(ns, target, server, streams=4, seconds=12, settle=3.0,
                       interval=0.1, port=5201, omit=0):
    """Median ping from `ns` to `target` while `streams` iperf3 download flows
    from `server` run, skipping the first `settle` seconds of ramp-up.
    The download rate leaves out the first `omit` seconds (slow start); the
    flows then run `omit` seconds longer than the pings.
    Returns (median_ms, download_mbps)."""
    load = sh.spawn(["iperf3", "-c", server, "-p", str(port), "-R", "-J",
                     "-t", str(seconds), "-O", str(omit), "-P", str(streams)], ns=ns)
    t0 = time.time()
    count = int(seconds / interval)
    pinger = sh.spawn(["ping", "-n", "-D", "-i", str(interval), "-c",
                       str(count), "-W", "2", target], ns=ns)
    ping_out, _ = pinger.communicate(timeout=seconds + 30)
    load_out, _ = load.communicate(timeout=seconds + omit + 60)
    window = [rtt for ts, rtt in _parse_ping(ping_out)
              if t0 + settle <= ts <= t0 + seconds - 1]
    if not window:
        raise RuntimeError("no ping replies under load")
    mbps = json.loads(load_out)["end"]["sum_received"]["bits_per_second"] / 1e6
    return statistics.median(window), mbps
