"""Small process helpers for the lab: run commands, optionally inside a netns."""
import shlex
import subprocess


class CommandError(RuntimeError):
    pass


def _argv(cmd, ns=None):
    argv = shlex.split(cmd) if isinstance(cmd, str) else [str(a) for a in cmd]
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    return argv


def run(cmd, ns=None, check=True, timeout=120, env=None, stdin=None):
    """Run a command and return its stdout; raise CommandError on failure."""
    argv = _argv(cmd, ns)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env=env, input=stdin)
    if check and proc.returncode != 0:
        raise CommandError("%s -> %d\n%s%s" % (" ".join(argv), proc.returncode,
                                               proc.stdout, proc.stderr))
    return proc.stdout


def ok(cmd, ns=None, timeout=120):
    """True when the command exits 0."""
    argv = _argv(cmd, ns)
    return subprocess.run(argv, capture_output=True, timeout=timeout).returncode == 0


def spawn(cmd, ns=None, env=None, stdout=subprocess.PIPE):
    """Start a command in the background; the caller owns the Popen."""
    return subprocess.Popen(_argv(cmd, ns), stdout=stdout,
                            stderr=subprocess.STDOUT, text=True, env=env)
