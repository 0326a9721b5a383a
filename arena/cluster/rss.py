"""Resident memory of a process and everything it started, read from /proc."""

from __future__ import annotations

import contextlib
from pathlib import Path


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parent = int(stat.rpartition(")")[2].split()[1])
                found.setdefault(parent, []).append(int(entry.name))
    return found


def _rss(pid: int) -> int:
    """VmRSS in bytes; 0 for a process gone (or a kernel thread, which has none)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def tree_rss(root: int) -> int:
    """Bytes resident in `root` and its descendants (shared pages counted in each)."""
    children = _children()
    total, frontier = 0, [root]
    while frontier:
        pid = frontier.pop()
        total += _rss(pid)
        frontier.extend(children.get(pid, []))
    return total
