"""How many processes a daemon starts, counted by the kernel: the daemon runs
as PID 1 of a PID namespace of its own (unshare --pid --fork --kill-child),
where every process it starts (a child, a shell, a tc) takes the next PID.
mark() asks the namespace for its next PID (a `sh` entered into it, which
takes one itself); processes started between two marks = the difference - 1.
Nothing is asked of the daemon and nothing slows it down."""
import os
import subprocess

WRAP = ["unshare", "--pid", "--fork", "--kill-child"]


def wrap(argv):
    """argv (optionally after `ip netns exec NS`) run as PID 1 of a new PID
    namespace"""
    at = 4 if argv[:3] == ["ip", "netns", "exec"] else 0
    return argv[:at] + WRAP + argv[at:]


def inner_pid(outer):
    """the PID (in our namespace) of the process unshare forked, or None"""
    try:
        with open("/proc/%d/task/%d/children" % (outer, outer)) as f:
            kids = f.read().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def mark(outer):
    """the PID the namespace of unshare's child gave a new process, or None
    when the namespace is gone"""
    pid = inner_pid(outer)
    if pid is None:
        return None
    try:
        out = subprocess.run(["nsenter", "-t", str(pid), "-p", "--", "sh", "-c", "echo $$"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return int(out.stdout) if out.returncode == 0 and out.stdout.strip().isdigit() else None


def started(first, last):
    """processes started between two marks, or None"""
    return None if first is None or last is None else last - first - 1
