"""A few descriptors held in reserve, so that a finished game can be written at the limit.

However the referee came to run out of open files (a flood of connections
beyond what the caps foresaw, a bot's pipes, the machine), a game already
played must not be lost for want of one descriptor to write it with: the
reserve is given up, the write retried, and the reserve taken back.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

RESERVE = 8
"""Descriptors held back: a game's writes need a few at a time (replay, log, store)."""


class DescriptorReserve:
    def __init__(self, count: int = RESERVE) -> None:
        self.count = count
        self._held: list[int] = []
        self.refill()

    def refill(self) -> None:
        """Take back what was given up (as much as can be had now)."""
        with contextlib.suppress(OSError):
            while len(self._held) < self.count:
                self._held.append(os.open(os.devnull, os.O_RDONLY))

    def release(self) -> None:
        for fd in self._held:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._held.clear()

    def run(self, write: Callable[[], T]) -> T:
        """`write()`, and once more with the reserve given up if it ran out of descriptors."""
        try:
            return write()
        except OSError as error:
            if error.errno not in (errno.EMFILE, errno.ENFILE):
                raise
        self.release()
        try:
            return write()
        finally:
            self.refill()
