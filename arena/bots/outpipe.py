"""The pipe a running bot writes its stdout and stderr into, which knows how much it was sent.

The arena makes this pipe itself, rather than asking asyncio for one, so that
it can say at any moment how many bytes the bot has written so far
(`sent`): what the arena has read, plus what still waits in the pipe. That
count is exact at the moment it is asked, however far behind the drain is: a
line the bot wrote before it sent its move is counted by the time the referee
has the move, so the part of a bot's log that falls within a game can be
marked when the game ends (`arena.bots.gamelogs`).

It also ends with the bot: `Process.wait` returns when the bot exits, not
when the last process holding the pipe closes it.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import struct
import termios

READ_LIMIT = 65536
"""The reader's buffer limit: what it holds before it stops reading the pipe a while."""


class _Counting(asyncio.StreamReaderProtocol):
    """A stream reader's protocol that counts every byte the pipe gave it."""

    received = 0

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        super().data_received(data)


class OutputPipe:
    """A pipe for a bot's output: `write_fd` for the bot, read through `reader`."""

    def __init__(self) -> None:
        self._read_fd, self.write_fd = os.pipe()  # neither inherited but where passed
        self._reader = asyncio.StreamReader(limit=READ_LIMIT)
        self._protocol = _Counting(self._reader)
        self._transport: asyncio.ReadTransport | None = None

    async def open(self) -> asyncio.StreamReader:
        """Start reading; the parent's copy of the bot's end is closed first, so that the
        reader sees the end of the output once the bot and its children have gone."""
        os.close(self.write_fd)
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(self._read_fd, "rb", buffering=0)
        self._transport, _ = await loop.connect_read_pipe(lambda: self._protocol, pipe)
        return self._reader

    def sent(self) -> int:
        """Bytes the bot has written to the pipe so far: read, or waiting to be."""
        waiting = 0
        transport = self._transport
        if transport is not None and not transport.is_closing():  # else its fd may be reused
            raw = fcntl.ioctl(self._read_fd, termios.FIONREAD, struct.pack("i", 0))
            waiting = struct.unpack("i", raw)[0]
        return self._protocol.received + waiting

    def abandon(self) -> None:
        """Close both ends, when the bot could not be started."""
        for fd in (self._read_fd, self.write_fd):
            os.close(fd)

    def close(self) -> None:
        """Stop reading (the drain is done with it, or given up on)."""
        if self._transport is not None:
            self._transport.close()
