"""One writer at a time on a stream, for the price of a flag.

A gRPC stream takes one write at a time. An `asyncio.Lock` would keep them
apart, but its acquire and release (two coroutines and two calls) cost a
decision more than all the rest of writing its request did; and a second
writer on a session (a Goodbye while a request is being written) is rare.
So a writer tests a flag and waits only when it is set.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol


class _Stream(Protocol):
    async def write(self, message: Any) -> None: ...


class WriteTurn:
    """Whose turn it is to write on one stream."""

    __slots__ = ("_loop", "_waiters", "busy")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiters: list[asyncio.Future[None]] = []
        self.busy = False
        """Whether a message is being written."""

    async def write(self, stream: _Stream, message: Any) -> None:
        """Write `message` on `stream` once every write before it is out; cancelled, the turn
        passes on (whether it was waiting or writing)."""
        while self.busy:
            await self._wait()
        self.busy = True
        try:
            await stream.write(message)
        finally:
            self._release()

    async def _wait(self) -> None:
        """Wait for the message being written to be out; then look at `busy` again."""
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:  # cancelled while waiting
                self._waiters.remove(waiter)

    def _release(self) -> None:
        """The stream is free: every writer waiting looks again (the first to run takes it)."""
        self.busy = False
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
