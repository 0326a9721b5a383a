"""A bot's process started as asyncio starts one, with a count of what it wrote to its output.

`start_counted` is `asyncio.create_subprocess_exec` with the stdout piped,
whose protocol also counts the bytes read from that pipe; with what still
waits in the pipe (FIONREAD), that says at any moment how many bytes the bot
has written so far (`OutputCount.sent`). The count is exact at the moment it
is asked, however far behind the drain is: a line the bot wrote before it
sent its move is counted by the time the referee has the move, so the part
of a bot's log that falls within a game can be marked as the game ends
(`arena.bots.run.gamelogs`). Everything else is asyncio's own, so the process
behaves as `create_subprocess_exec`'s does (its `wait` ends once its output
has been read to the end, say).
"""

from __future__ import annotations

import asyncio
import fcntl
import struct
import termios
from typing import Any

READ_LIMIT = 2**16
"""The stdout reader's buffer limit, asyncio's default."""


class _Counting(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's protocol for a process with pipes, counting the bytes read from its stdout."""

    received = 0

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 1:
            self.received += len(data)
        super().pipe_data_received(fd, data)


class OutputCount:
    """How many bytes a process started by `start_counted` has written to its stdout."""

    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _Counting) -> None:
        self._transport = transport
        self._protocol = protocol

    def sent(self) -> int:
        """Bytes written to the pipe so far: read, or waiting to be."""
        waiting = 0
        pipe = self._transport.get_pipe_transport(1)
        if pipe is not None and not pipe.is_closing():  # else its descriptor may be another's
            fd = pipe.get_extra_info("pipe").fileno()
            raw = fcntl.ioctl(fd, termios.FIONREAD, struct.pack("i", 0))
            waiting = struct.unpack("i", raw)[0]
        return self._protocol.received + waiting


async def start_counted(
    *command: str, **options: Any
) -> tuple[asyncio.subprocess.Process, OutputCount]:
    """`asyncio.create_subprocess_exec(*command, stdout=PIPE, **options)`, and its count."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Counting(READ_LIMIT, loop), *command, stdout=asyncio.subprocess.PIPE, **options
    )
    return asyncio.subprocess.Process(transport, protocol, loop), OutputCount(transport, protocol)
