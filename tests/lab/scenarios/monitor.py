"""Live latency: retermd's guided bufferbloat test run on the lab router
(`monitor-test`, the daemon's own modules without ubus) against the far
server, without and with the Shaping settings; and the sampler's CPU at
5 probes/s.  Needs ucode (skipped without it, said so in the results)."""
import json
import os
import sys
import time

from labkit import measure, sh, topo
from labkit.reterm import ROOT, ucode_binary
from scenarios import shaping
from scenarios.proxy import HTTPD

MONITOR_TEST = os.path.join(ROOT, "usr", "libexec", "reterm", "monitor-test")
GRADE_RANK = ["A+", "A", "B", "C", "D", "F"]


def guided(ucode, extra=()):
    url = "http://%s" % topo.SRV4
    argv = [ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"), MONITOR_TEST,
            "--download", url + "/bytes/1000000000", "--upload", url + "/upload",
            "--streams", 4, "--reflector", topo.SRV4, "--wan", "rtr-wan"] + list(extra)
    return json.loads(sh.run(argv, ns="rtr", timeout=180))


def run():
    ucode = ucode_binary()
    if not ucode:
        print("monitor: skipped: ucode not found", flush=True)
        return {"skipped": 1}
    topo.build()
    topo.set_wan(shaping.RTT_MS, shaping.LINK_KBIT / 1000.0, limit=1000)
    httpd = sh.spawn([sys.executable, HTTPD, 80], ns="srv")
    res = {}
    try:
        r = guided(ucode)
        res["grade_unshaped"] = r["grade"]
        res["added_ms_download_unshaped"] = r["download"]["added_ms"]
        res["added_ms_upload_unshaped"] = r["upload"]["added_ms"]
        res["idle_rtt_ms"] = r["idle_rtt"]
        shaping.apply_sqm(shaping.sqm_steps())
        kbit = str(shaping.SHAPE_KBIT)
        r = guided(ucode, ["--shaper-down-kbit", kbit, "--shaper-up-kbit", kbit])
        res["grade_shaped"] = r["grade"]
        res["added_ms_download_shaped"] = r["download"]["added_ms"]
        res["added_ms_upload_shaped"] = r["upload"]["added_ms"]
        res["inconclusive_shaped"] = int(bool(r["inconclusive"]))
        res["rpm_shaped"] = r["rpm"]
        for key in ("grade_unshaped", "grade_shaped"):
            res[key + "_rank"] = GRADE_RANK.index(res[key]) if res[key] in GRADE_RANK else -1
        # retermd's sampler service with a viewer polling once a second,
        # while a download keeps the WAN loaded (5 probes/s), with CAKE
        # stats (one `qdisc show` a second) and without
        iperf = measure.start_iperf_server()
        load = sh.spawn(["iperf3", "-c", topo.SRV4, "-R", "-t", 80], ns="cli")
        try:
            time.sleep(3)
            for key, extra in (("", []), ("_no_tc", ["--no-cake"])):
                s = json.loads(sh.run([ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"),
                                       MONITOR_TEST, "--sample-seconds", 30, "--wan", "rtr-wan",
                                       "--shaper-down-kbit", kbit, "--shaper-up-kbit", kbit,
                                       "--reflector", topo.SRV4] + extra, ns="rtr", timeout=120))
                res["sampler_cpu_pct" + key] = s["cpu_pct"]
                res["sampler_cpu_pct_self" + key] = s["cpu_pct_self"]
                res["sampler_probes" + key] = s["probes"]
                # measured, not configured: probes sent (answered or lost) per second
                res["sampler_probes_per_s" + key] = s["probes"] / s["seconds"]
                res["sampler_interval_ms" + key] = s["interval_ms"]
                res["sampler_cake_rows" + key] = s["cake_rows"]
                res["sampler_rows" + key] = s["rows"]
                res["sampler_tc_batch" + key] = int(bool(s["tc_batch"]))
        finally:
            load.kill()
            iperf.kill()
        res["sampler_prober"] = s["prober"]
        return res
    finally:
        httpd.kill()
        topo.teardown()
