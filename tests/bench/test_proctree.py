"""A process and what it started, read from /proc: a real child found, its memory counted,
and known gone once it has exited, though its pid may come round again."""

from __future__ import annotations

import os
import subprocess
import sys

from bench import proctree


def test_a_child_is_in_the_tree_its_memory_counted_and_gone_once_it_exits() -> None:
    # The child holds 64 MiB, written so that it is resident, and says so before it waits.
    holds = "import sys; b = bytearray(64 << 20); b[::4096] = b'x' * (16 << 10); print(1)"
    child = subprocess.Popen(
        [sys.executable, "-c", f"{holds}; sys.stdout.flush(); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"1\n"
        found = proctree.tree(os.getpid())
        assert found[0].pid == os.getpid()
        (mine,) = [p for p in found if p.pid == child.pid]
        assert proctree.alive(mine)
        own, total = proctree.tree_rss(os.getpid())
        assert own > 0 and proctree.rss(child.pid) > 64 << 20
        assert total > own + (64 << 20)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=60)
    assert not proctree.alive(mine)
    assert all(p.pid != child.pid for p in proctree.tree(os.getpid()))
    assert not proctree.alive(proctree.Process(mine.pid, mine.started + 1))


def test_a_process_gone_has_no_tree_and_no_memory() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=60)
    assert proctree.tree(gone.pid) == []
    assert proctree.rss(gone.pid) == 0
    assert proctree.tree_rss(gone.pid) == (0, 0)
