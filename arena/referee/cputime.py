"""What a bot's process did with a decision's time: ran on a CPU, or waited for one.

Linux tells, per process, the time it has spent on a CPU and the time it
spent runnable but waiting for one (`/proc/PID/schedstat`). Sampled around a
decision, the two say whether a slow reply was a bot thinking (CPU time
near the wall time), a bot waiting for something (neither), or a machine too
loaded to run it (the wait): the last is load, not the bot.

A session is one stream of one process, which may be a copy of the process
the arena started (the Python kit runs each session in a process of its own).
The process holding the session's connection is found once, when the
session opens, from the connection's port, among the started process and its
descendants. Elsewhere than Linux there is nothing to sample, and nothing is.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class CpuSample:
    on_cpu: float
    """Seconds the process has run on a CPU."""
    waiting: float
    """Seconds it has been runnable but waiting for a CPU."""


def sample(pid: int) -> CpuSample | None:
    """The process's totals so far, or None if the platform does not tell (or it is gone)."""
    try:
        on_cpu, waiting, _ = (PROC / str(pid) / "schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    return CpuSample(int(on_cpu) / 1e9, int(waiting) / 1e9)


def _descendants(root: int) -> list[int]:
    found: list[int] = []
    todo = [root]
    while todo and len(found) < 4096:
        pid = todo.pop()
        found.append(pid)
        with contextlib.suppress(OSError):
            for task in (PROC / str(pid) / "task").iterdir():
                with contextlib.suppress(OSError, ValueError):
                    todo.extend(int(c) for c in (task / "children").read_text().split())
    return found


def _socket_inode(local_port: int) -> str | None:
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in (PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) > 9 and int(fields[1].rpartition(":")[2], 16) == local_port:
                    return fields[9]
    return None


def process_holding(root: int, peer: str) -> int | None:
    """Which of `root` and its descendants holds the connection grpc names `peer`.

    `peer` is grpc's ("ipv4:127.0.0.1:50312"): the bot's end of a loopback
    connection, whose port is the bot's local port. None if it cannot be told.
    """
    if not peer.startswith(("ipv4:", "ipv6:")):
        return None
    try:
        port = int(peer.rpartition(":")[2])
    except ValueError:
        return None
    inode = _socket_inode(port)
    if inode is None:
        return None
    wanted = f"socket:[{inode}]"
    for pid in _descendants(root):
        with contextlib.suppress(OSError):
            fds = PROC / str(pid) / "fd"
            for fd in os.listdir(fds):
                with contextlib.suppress(OSError):
                    if os.readlink(fds / fd) == wanted:
                        return pid
    return None
