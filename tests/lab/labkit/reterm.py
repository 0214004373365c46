"""Our code on the lab router: render (or the committed golden files when
there is no ucode), apply.sh unchanged, and haproxy under a respawn loop
that behaves like procd (restart 5 s after an exit)."""
import os
import re
import shutil
import socket
import subprocess
import time

from . import sh

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ROOT = os.path.join(TOP, "root")
FIXTURES = os.path.join(TOP, "tests", "fixtures")
APPLY = os.path.join(ROOT, "usr", "libexec", "reterm", "apply.sh")
RENDER = os.path.join(ROOT, "usr", "libexec", "reterm", "render")
FW4_EMU = os.path.join(TOP, "tests", "lab", "fw4-emu.sh")
RESPAWN_DELAY = 5  # procd's default respawn timeout


def ucode_binary():
    """The ucode tools/owrt/build.sh built for this machine ($RETERM_UCODE
    overrides), else one on PATH."""
    built = os.environ.get("RETERM_UCODE") or os.path.join(
        os.environ.get("RETERM_OWRT", "/opt/owrt"), "host", "bin", "ucode")
    return built if os.access(built, os.X_OK) else shutil.which("ucode")


class Router:
    """reterm on the `rtr` namespace, driven by a fixture config."""

    def __init__(self, fixture, base="/tmp/reterm-lab", confdir=None):
        self.fixture = fixture
        self.confdir = confdir  # a UCI directory instead of the fixture's
        self.run_dir = os.path.join(base, "run")
        self.nft_dir = os.path.join(base, "nftables.d")
        self.env = dict(os.environ, RETERM_RUN=self.run_dir,
                        RETERM_NFT_DIR=self.nft_dir, RETERM_FW=FW4_EMU,
                        RETERM_HAPROXY="haproxy")
        self.respawner = None
        self.source = None
        self.rendered_cfg = None
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(self.run_dir)
        os.makedirs(self.nft_dir)

    def render(self):
        """Fresh render with ucode when there is one, else the golden files."""
        fx = os.path.join(FIXTURES, self.fixture)
        ucode = ucode_binary()
        if ucode:
            env = dict(self.env, RETERM_UCI_CONFDIR=self.confdir or os.path.join(fx, "config"),
                       RETERM_MEMINFO=os.path.join(fx, "meminfo"))
            sh.run([ucode, "-L", os.path.join(ROOT, "usr", "share", "ucode"),
                    RENDER, self.run_dir], env=env)
            self.source = "rendered"
        else:
            shutil.rmtree(self.run_dir)
            shutil.copytree(os.path.join(fx, "expected"), self.run_dir,
                            ignore=shutil.ignore_patterns("stderr"))
            self.source = "golden"
        return self.source

    def up(self):
        """render, haproxy, apply.sh start: what the init script does."""
        source = self.render()
        self.start_haproxy()
        self.apply("start")
        return source

    def apply(self, action="start"):
        return sh.run(["sh", APPLY, action], ns="rtr", env=self.env)

    @property
    def stats_socket(self):
        with open(os.path.join(self.run_dir, "haproxy.cfg")) as f:
            return re.search(r"stats socket (\S+)", f.read()).group(1)

    def start_haproxy(self):
        os.makedirs(os.path.dirname(self.stats_socket), exist_ok=True)
        cfg = os.path.join(self.run_dir, "haproxy.cfg")
        err = os.path.join(self.run_dir, "haproxy.err")
        loop = "while :; do haproxy -W -db -f %s >/dev/null 2>%s; sleep %d; done" % (
            cfg, err, RESPAWN_DELAY)
        self.respawner = subprocess.Popen(["ip", "netns", "exec", "rtr", "sh", "-c", loop],
                                          start_new_session=True)
        self.wait_listening()

    def wait_listening(self, timeout=60):
        """until haproxy answers on its stats socket; the limit only catches
        a haproxy that never comes up (a slow machine takes its time)"""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                self.stats("show info")
                return
            except OSError:
                time.sleep(0.2)
        try:
            with open(os.path.join(self.run_dir, "haproxy.err")) as f:
                why = f.read()[-600:]
        except OSError:
            why = "(no messages)"
        raise RuntimeError("haproxy did not come up within %d s: %s" % (timeout, why))

    def kill_haproxy(self):
        """Kill haproxy as a crash would (the respawn loop stays)."""
        sh.run(["pkill", "-9", "-x", "haproxy"], check=False)

    def set_splice(self, on):
        """Benchmark variant: haproxy as rendered (splicing) or with every
        `option splice-*` line taken out."""
        cfg = os.path.join(self.run_dir, "haproxy.cfg")
        if self.rendered_cfg is None:
            with open(cfg) as f:
                self.rendered_cfg = f.read()
        text = self.rendered_cfg
        if not on:
            text = re.sub(r"^\toption splice-\S+\n", "", text, flags=re.M)
        with open(cfg, "w") as f:
            f.write(text)
        self.kill_haproxy()
        time.sleep(1)
        self.wait_listening(timeout=RESPAWN_DELAY + 45)

    def stop(self):
        if self.respawner:
            os.killpg(self.respawner.pid, 9)
            self.respawner.wait()
            self.respawner = None
        self.kill_haproxy()
        self.apply("stop")

    def stats(self, command):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(self.stats_socket)
            s.sendall(command.encode() + b"\n")
            chunks = []
            while True:
                data = s.recv(65536)
                if not data:
                    break
                chunks.append(data)
            return b"".join(chunks).decode()
        finally:
            s.close()

    def proxied_total(self):
        """Client connections our frontends accepted since haproxy started
        (frontend `stot`; the stats socket's own connections do not count)."""
        lines = self.stats("show stat -1 1 -1").splitlines()
        header = lines[0].lstrip("# ").split(",")
        col = header.index("stot")
        return sum(int(line.split(",")[col]) for line in lines[1:] if line.strip())

    def current_sessions(self):
        """Client connections our frontends hold now (frontend `scur`; the
        stats socket is "level user", which "show stat" needs, not more)."""
        lines = self.stats("show stat -1 1 -1").splitlines()
        header = lines[0].lstrip("# ").split(",")
        col = header.index("scur")
        return sum(int(line.split(",")[col]) for line in lines[1:] if line.strip())
