"""One writer at a time on a stream, for the price of a flag.

A gRPC stream takes one write at a time. An `asyncio.Lock` would keep them
apart, but its acquire and release (two coroutines and two calls) cost a
decision more than all the rest of writing its request did; and a second
writer on a session (a Goodbye while a request is being written) is rare.
So a writer tests a flag inline and waits only when it is set.
"""

from __future__ import annotations

import asyncio


class WriteTurn:
    """Whose turn it is to write. Use it inline, with nothing awaited in between::

    while turn.busy:
        await turn.wait()
    turn.busy = True
    try:
        await stream.write(message)
    finally:
        turn.release()
    """

    __slots__ = ("_loop", "_waiters", "busy")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiters: list[asyncio.Future[None]] = []
        self.busy = False
        """Whether a message is being written."""

    async def wait(self) -> None:
        """Wait for the message being written to be out; then look at `busy` again."""
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:  # cancelled while waiting
                self._waiters.remove(waiter)

    def release(self) -> None:
        """The stream is free: every writer waiting looks again (the first to run takes it)."""
        self.busy = False
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
