"""Benchmarks of the re-termination path: throughput per client profile,
CPU per GB relayed, haproxy memory per idle connection, slow-start ramp-up.
Each returns plain numbers measured in this run."""
import json
import os
import re
import statistics
import sys
import time

from . import measure, sh, topo

HTTPC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "httpc.py")
USER_HZ = os.sysconf("SC_CLK_TCK")


def profiles(res):
    """Direct (unselected cli2) vs through reterm (selected cli) per profile.
    WAN-bound rates over 20 s windows (measure.BULK); the window-bound
    direct ones need no more than 6 s."""
    topo.set_profile("cli2", "pc")
    res["pc_direct_mbps"] = measure.iperf_download("cli2", topo.SRV4, **measure.BULK)
    for prof in ("3ds", "ps4-7k", "ps4-128k"):
        key = prof.replace("-", "_")
        topo.set_profile("cli2", prof)
        topo.set_profile("cli", prof)
        direct = measure.iperf_download("cli2", topo.SRV4, seconds=6, omit=2)
        reterm = measure.iperf_download("cli", topo.SRV4, **measure.BULK)
        res["%s_direct_mbps" % key] = direct
        res["%s_reterm_mbps" % key] = reterm
        res["%s_reterm_vs_pc" % key] = reterm / res["pc_direct_mbps"]
        res["%s_reterm_vs_direct" % key] = reterm / direct


def _busy_seconds():
    """CPU time spent by the whole VM (all namespaces), not idle/iowait."""
    with open("/proc/stat") as f:
        vals = [int(v) for v in f.readline().split()[1:9]]
    return (sum(vals) - vals[3] - vals[4]) / USER_HZ


def _haproxy_cpu_seconds():
    total = 0
    for pid in sh.run(["pgrep", "-x", "haproxy"], check=False).split():
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / USER_HZ
        except OSError:
            pass
    return total


def _cpu_per_gb(ns, nbytes):
    busy, hap = _busy_seconds(), _haproxy_cpu_seconds()
    out = json.loads(sh.run(["iperf3", "-c", topo.SRV4, "-R", "-J", "-n", str(nbytes)],
                            ns=ns, timeout=600))
    moved = out["end"]["sum_received"]["bytes"] / 1e9
    return ((_busy_seconds() - busy) / moved, (_haproxy_cpu_seconds() - hap) / moved)


def cpu(res, router, nbytes=400 * 1000 * 1000, rounds=3):
    """CPU seconds per GB: plain forwarding (cli2) vs reterm (cli) with and
    without splice, on an unshaped WAN so the CPU is the limit, with
    GRO/GSO/TSO on as a router runs them.  It is the CPU of the whole VM,
    endpoints included; haproxy's own CPU is reported beside it.  One
    transfer of each is a 10 s sample of an emulated VM: forwarding and
    splicing are measured in `rounds` interleaved pairs and each variant
    is the median of its rounds, so a burst of host noise in one transfer
    cannot decide the ratio."""
    for dev in ("wan-rtr", "wan-srv"):
        sh.run(["tc", "qdisc", "del", "dev", dev, "root"], ns="wan", check=False)
    topo.set_offloads(True)
    topo.set_profile("cli", "pc")
    topo.set_profile("cli2", "pc")
    fwd, spl, hap = [], [], []
    try:
        for _ in range(rounds):
            fwd.append(_cpu_per_gb("cli2", nbytes)[0])
            vm, own = _cpu_per_gb("cli", nbytes)
            spl.append(vm)
            hap.append(own)
        router.set_splice(False)
        res["cpu_s_per_gb_nosplice"], res["haproxy_cpu_s_per_gb_nosplice"] = \
            _cpu_per_gb("cli", nbytes)
        router.set_splice(True)
        res["cpu_s_per_gb_forward"] = statistics.median(fwd)
        res["cpu_s_per_gb_splice"] = statistics.median(spl)
        res["haproxy_cpu_s_per_gb_splice"] = statistics.median(hap)
        res["cpu_s_per_gb_forward_rounds"] = [round(v, 2) for v in fwd]
        res["cpu_s_per_gb_splice_rounds"] = [round(v, 2) for v in spl]
        res["cpu_ratio_splice"] = res["cpu_s_per_gb_splice"] / res["cpu_s_per_gb_forward"]
        res["cpu_ratio_nosplice"] = res["cpu_s_per_gb_nosplice"] / res["cpu_s_per_gb_forward"]
    finally:
        topo.set_offloads(False)
        topo.set_wan(130, 20, limit=1000)


def _haproxy_rss_kb():
    total = 0
    for pid in sh.run(["pgrep", "-x", "haproxy"], check=False).split():
        try:
            with open("/proc/%s/status" % pid) as f:
                total += int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
        except (OSError, AttributeError):
            pass
    return total


def idle_rss(res, n=1000, port=80):
    """haproxy RSS growth while n idle proxied connections are open."""
    before = _haproxy_rss_kb()
    holder = sh.spawn([sys.executable, HTTPC, "idle", n, topo.SRV4, port, 60], ns="cli")
    opened = json.loads(holder.stdout.readline())["open"]
    time.sleep(2)
    during = _haproxy_rss_kb()
    holder.kill()
    holder.wait()
    res["idle_conns_open"] = opened
    res["rss_mb_per_1000_idle"] = (during - before) / 1024.0 * 1000.0 / max(opened, 1)


def _t90_ms(samples, window=0.3, tail=2.0):
    """Time until the rate over `window` s first reaches 90 % of the rate of
    the last `tail` s."""
    t_end, b_end = samples[-1]
    b_tail = next(b for t, b in samples if t >= t_end - tail)
    t_tail = next(t for t, b in samples if t >= t_end - tail)
    final = (b_end - b_tail) / (t_end - t_tail)
    for i, (t, b) in enumerate(samples):
        past = [(t0, b0) for t0, b0 in samples[:i] if t0 <= t - window]
        if past and (b - past[-1][1]) / (t - past[-1][0]) >= 0.9 * final:
            return t * 1000
    return t_end * 1000


def _ramp_ms(ns, size):
    out = json.loads(sh.run([sys.executable, HTTPC, "ramp", topo.SRV4, 80, size],
                            ns=ns, timeout=120))
    return _t90_ms(out["samples"])


def rampup(res, runs=3, size=12 * 1000 * 1000):
    """Time to 90 % of the final rate: 3ds client through reterm vs the pc
    client direct.  Median of `runs` each."""
    topo.set_profile("cli", "3ds")
    topo.set_profile("cli2", "pc")
    direct = [_ramp_ms("cli2", size) for _ in range(runs)]
    reterm = [_ramp_ms("cli", size) for _ in range(runs)]
    res["rampup_direct_ms"] = statistics.median(direct)
    res["rampup_reterm_ms"] = statistics.median(reterm)
    res["rampup_extra_ms"] = res["rampup_reterm_ms"] - res["rampup_direct_ms"]
