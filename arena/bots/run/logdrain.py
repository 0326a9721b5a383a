"""A bot's output, drained into its capped log: a pipe nobody reads would block the bot."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import BinaryIO

from arena.text import printable

_TAIL = 4096
"""Bytes of the latest output kept in memory, for the last line: longer than any line shown."""


def last_line(log: Path, width: int = 200) -> str:
    """The last thing a bot wrote to its log, cut to `width`: why it failed, more often than not.

    Shown as text (`arena.text.printable`): the line is the bot's, and goes to a person."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return printable(lines[-1], width) if lines else "(no output)"


def last_lines(log: Path, count: int = 8, width: int = 200) -> tuple[str, ...]:
    """The last `count` lines a bot wrote to its log, each cut to `width` and shown as text;
    none if it has none."""
    try:
        lines = log.read_text(errors="replace").rstrip().splitlines()
    except OSError:
        return ()
    return tuple(printable(line, width) for line in lines[-count:])


class LogDrain:
    """Copies a bot's output into its capped log, and never lets the log stop the bot.

    A bot whose pipe is not read blocks on its next write: so when the log
    cannot be written (a full disk under --out), the drain goes on reading
    and discards, and says once what was lost (`lost`), in the log if it can.
    Past the cap it discards too, and ends the log with a line saying so; the
    last bytes read are kept all along (`last_line`), since the line that says
    why a build failed comes last, after whatever flooded the log.

    With a `pace`, what is dropped is read at most that many bytes a second:
    a flood then waits on its own full pipe, instead of the arena's event loop
    spending a core to throw it away (measured: half a core for a build
    writing 466 MiB/s). Not for a running bot, whose writes must not block
    its moves however much it logs.

    The log is opened without following a link and without waiting on a pipe
    (a bot may have left either where its log goes), and appended to: a
    resumed night, or a bot started again, adds to it. `offset` says where in
    the log a given byte of the output lands, which is how a game's part of
    the log is found (`arena.bots.run.gamelogs`).
    """

    def __init__(self, log: Path, cap: int, pace: int | None = None) -> None:
        self.log = log
        self.cap = cap
        self.pace = pace
        self.lost: str | None = None
        self._tail = b""
        self._out: BinaryIO | None = None
        self._base = 0
        """The log's size when this drain opened it: where its first byte goes."""

    def open(self) -> None:
        """Open the log, or give it up saying why; `run` does it if it was not done before."""
        if self._out is not None or self.lost is not None:
            return
        try:
            self._out = _open_log(self.log)
            self._base = os.fstat(self._out.fileno()).st_size
        except OSError as error:
            self._give_up(error, 0)

    def offset(self, sent: int) -> int | None:
        """Where in the log the output's byte number `sent` (from 0) goes, or went: past the
        cap, where the kept output ends. None if the log is not open, or was given up."""
        if self._out is None or self.lost is not None:
            return None
        return self._base + min(sent, self.cap)

    def last_line(self, width: int = 200) -> str:
        """The last line of output read, kept or not, cut to `width`, as text."""
        lines = self._tail.decode(errors="replace").strip().splitlines()
        return printable(lines[-1], width) if lines else "(no output)"

    async def run(self, stream: asyncio.StreamReader) -> None:
        written = dropped = 0
        self.open()
        out = self._out
        if out is None:
            await self._discard(stream)
            return
        with contextlib.suppress(OSError), out:  # closing may flush into a full disk
            while chunk := await stream.read(65536):
                self._keep(chunk)
                room = self.cap - written
                if room > 0:
                    try:
                        out.write(chunk[:room])
                        out.flush()
                    except OSError as error:
                        self._give_up(error, os.fstat(out.fileno()).st_size)
                        await self._discard(stream)
                        return
                    written += min(room, len(chunk))
                dropped += max(0, len(chunk) - max(room, 0))
                if room < len(chunk):
                    await self._slow_down(len(chunk))
            if dropped:
                out.write(
                    f"\n[log capped at {self.cap} bytes: {dropped} more bytes dropped]\n".encode()
                )

    def _give_up(self, error: OSError, kept: int) -> None:
        self.lost = (
            f"its output after {kept} bytes was not kept in {self.log} "
            f"({error.strerror or error}): the rest was discarded"
        )
        with contextlib.suppress(OSError), _open_log(self.log) as out:
            out.write(f"\n[{self.lost}]\n".encode())

    async def _discard(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._keep(chunk)
            await self._slow_down(len(chunk))

    def _keep(self, chunk: bytes) -> None:
        """The last `_TAIL` bytes read, copying no more of a large chunk than that."""
        self._tail = (self._tail + chunk[-_TAIL:])[-_TAIL:]

    async def _slow_down(self, dropped: int) -> None:
        if self.pace is not None:
            await asyncio.sleep(dropped / self.pace)


def _open_log(path: Path) -> BinaryIO:
    """`path` to append to: never through a link, nor blocking on a pipe left in its place."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    return os.fdopen(os.open(path, flags, 0o666), "ab")
