"""The warden ends what the arena started when the arena is killed outright, and nothing else."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.bots.run import warden
from arena.bots.run.warden import watch

_LIMIT = 60.0
"""A generous bound on how long the warden may take: the test ends as soon as it is done."""

_ARENA = textwrap.dedent(
    """
    import subprocess, sys, time
    from arena.bots.run.warden import Warden

    # A stand-in for a bot: its own session, with a child of its own in its group, and no
    # parent-death signal, so that only the warden can end it.
    bot = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time\\n"
         "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\\n"
         "print(child.pid, flush=True)\\n"
         "time.sleep(600)\\n"],
        stdout=subprocess.PIPE, start_new_session=True,
    )
    Warden.watch(bot.pid)
    grandchild = int(bot.stdout.readline())
    kept = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
    )
    Warden.watch(kept.pid)
    Warden.release(kept.pid)
    print(bot.pid, grandchild, kept.pid, flush=True)
    time.sleep(600)
    """
)


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for the machine's init to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in {"Z", "X"}


def _wait_gone(pids: list[int]) -> list[int]:
    end = time.monotonic() + _LIMIT
    while time.monotonic() < end and any(_running(pid) for pid in pids):
        time.sleep(0.02)
    return [pid for pid in pids if _running(pid)]


def test_a_killed_arena_takes_its_bots_and_their_children_with_it() -> None:
    arena = subprocess.Popen(
        [sys.executable, "-c", _ARENA], stdout=subprocess.PIPE, start_new_session=True
    )
    assert arena.stdout is not None
    bot, grandchild, kept = (int(word) for word in arena.stdout.readline().split())
    try:
        arena.kill()
        arena.wait()
        assert _wait_gone([bot, grandchild]) == []
        # The released one is the arena's no more: the warden leaves it alone.
        assert _running(kept)
    finally:
        for pid in (bot, grandchild, kept):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_the_warden_ends_what_it_holds_when_its_lines_end() -> None:
    held = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    let_go = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        watch([b"+%d\n" % held.pid, b"+%d\n" % let_go.pid, b"-%d\n" % let_go.pid, b"junk\n"])
        assert held.wait(_LIMIT) == -signal.SIGKILL
        assert let_go.poll() is None
    finally:
        held.kill()
        let_go.kill()
        held.wait()
        let_go.wait()


def test_a_reaped_pid_is_never_signalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pidfd holds the process itself: once reaped, its number may be another's."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    pidfd = os.pidfd_open(gone.pid)
    gone.wait()
    signalled: list[int] = []
    monkeypatch.setattr(os, "killpg", lambda pid, sig: signalled.append(pid))
    try:
        warden._end(pidfd, gone.pid)
    finally:
        os.close(pidfd)
    assert signalled == []


pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="pidfds are Linux's")
