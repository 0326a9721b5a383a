"""A process and everything it started, read from /proc: who they are and what they hold.

A process is known by its pid and its start time together, so a pid the kernel has handed
to someone else since is never taken for the one that was seen (a soak runs long enough
for pids to wrap on a busy machine).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True, slots=True, order=True)
class Process:
    pid: int
    started: int
    """Clock ticks after boot when it began (field 22 of /proc/PID/stat)."""


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (which may hold spaces or
    parentheses), from the state on; None for a process gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def _children() -> dict[int, list[Process]]:
    found: dict[int, list[Process]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        with contextlib.suppress(IndexError, ValueError):
            if fields is not None and fields[0] != "Z":
                process = Process(int(entry.name), int(fields[19]))
                found.setdefault(int(fields[1]), []).append(process)
    return found


def tree(root: int) -> list[Process]:
    """`root` and its living descendants, root first; empty when root is gone."""
    fields = _stat(root)
    if fields is None or fields[0] == "Z":
        return []
    children = _children()
    out, frontier = [], [Process(root, int(fields[19]))]
    while frontier:
        process = frontier.pop()
        out.append(process)
        frontier.extend(children.get(process.pid, []))
    return out


def alive(process: Process) -> bool:
    """Still running (a zombie waiting to be reaped is not), and still the same process."""
    fields = _stat(process.pid)
    return fields is not None and fields[0] not in {"Z", "X"} and int(fields[19]) == process.started


def rss(pid: int) -> int:
    """VmRSS in bytes; 0 for a process gone (or a kernel thread, which has none)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def tree_rss(root: int) -> tuple[int, int]:
    """Bytes resident in `root`, and in it and its descendants together (pages shared
    between processes counted in each, as RSS does)."""
    found = tree(root)
    own = rss(root) if found else 0
    return own, own + sum(rss(p.pid) for p in found[1:])
