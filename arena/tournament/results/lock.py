"""One runner per tournament folder.

Two arenas playing one folder would both play its remaining games, and the
folder could never finish. So a run holds an exclusive `flock` on a file in
the folder for as long as it lasts. The kernel releases it when the process
dies however it dies, so a crash never leaves a stale lock to clear by hand;
the holder's pid is written in the file only to say who holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from arena.errors import ArenaError

LOCK_NAME = "arena.lock"


class FolderBusyError(ArenaError):
    """Another process is running the tournament in this folder."""


class FolderLock:
    """Held from `take` to `release` (or the process's end)."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    @classmethod
    def take(cls, folder: Path) -> FolderLock:
        path = folder / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise FolderBusyError(
                f"{folder} is being played by another arena (pid {holder}); wait for it to end, "
                f"or stop it, then resume"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        with contextlib.suppress(OSError):  # who holds it is a courtesy; the lock is the flock
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd, path)

    def release(self) -> None:
        # The file stays: removing it would let a third runner lock a new file
        # while a second one still waits on the old one.
        os.close(self._fd)
