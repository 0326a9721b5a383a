"""Ctrl-C during a run: the first finishes the games in flight, the second stops at once."""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from arena.cli import live


class Stoppable(Protocol):
    def request_stop(self) -> None: ...

    def abort(self) -> None: ...


def stop_on_ctrl_c(view: live.LiveView, run: Stoppable) -> None:
    """Hand SIGINT and SIGTERM to `run` in the running loop, saying on screen what each does."""
    loop = asyncio.get_running_loop()
    presses = 0

    def interrupt() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            view.note("stopping: finishing the games in flight (Ctrl-C again to stop at once)")
            run.request_stop()
        else:
            view.note("stopping now; games in flight are abandoned")
            run.abort()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupt)
