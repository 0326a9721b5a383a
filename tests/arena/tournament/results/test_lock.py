"""One runner per folder: a second is refused by name, and a dead holder frees the lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournament.results.lock import FolderBusyError, FolderLock


def test_a_second_taker_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    lock = FolderLock.take(tmp_path)
    with pytest.raises(FolderBusyError, match=rf"another arena \(pid {os.getpid()}\)"):
        FolderLock.take(tmp_path)
    lock.release()
    FolderLock.take(tmp_path).release()  # free again


def test_the_kernel_frees_the_lock_of_a_killed_holder(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from arena.tournament.results.lock import FolderLock;"
            f"FolderLock.take(Path({str(tmp_path)!r})); Path({str(ready)!r}).touch(); "
            "time.sleep(600)",
        ]
    )
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert holder.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        with pytest.raises(FolderBusyError, match=rf"pid {holder.pid}\b"):
            FolderLock.take(tmp_path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    FolderLock.take(tmp_path).release()
