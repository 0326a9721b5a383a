"""A bot's output pipe counts what the bot wrote, read or not, so a log's offsets are exact."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from arena.bots.isolation.limits import ResourceLimits
from arena.bots.manifest import BotSpec
from arena.bots.run.processes import BotProcess

WRITES = 5000
EARLIER = b"an earlier night's line\n"


def _writer(folder: Path, marker: Path) -> BotSpec:
    """A bot that writes WRITES bytes, then says so in `marker`, then waits to be stopped."""
    script = folder / "writer.py"
    script.write_text(
        "import pathlib, sys, time\n"
        f"sys.stdout.buffer.write(b'x' * {WRITES})\n"
        "sys.stdout.flush()\n"
        f"pathlib.Path({str(marker)!r}).touch()\n"
        "time.sleep(120)\n"
    )
    return BotSpec(name="writer", path=script, workdir=folder, run=("python", script.name))


def _offset_while_the_loop_sleeps(tmp_path: Path, cap: int) -> tuple[int | None, bytes]:
    """The log's offset, asked the moment the bot has written while the event loop (and so
    the drain) has had no chance to read a byte; and the log as it ends."""
    log, marker = tmp_path / "writer.log", tmp_path / "written"
    log.write_bytes(EARLIER)

    async def scenario() -> int | None:
        bot = await BotProcess.start(
            _writer(tmp_path, marker), {}, log, ResourceLimits(log_bytes=cap)
        )
        try:
            deadline = time.monotonic() + 60
            while not marker.exists():  # blocking on purpose: the loop must not run
                assert time.monotonic() < deadline, "the bot never wrote"
                time.sleep(0.01)
            return bot.log_offset()
        finally:
            await bot.stop(grace=0)

    offset = asyncio.run(scenario())
    return offset, log.read_bytes()


def test_what_waits_in_the_pipe_is_counted_and_lands_where_said(tmp_path: Path) -> None:
    offset, data = _offset_while_the_loop_sleeps(tmp_path, cap=100_000)
    assert offset == len(EARLIER) + WRITES
    assert data[: len(EARLIER)] == EARLIER  # appended to, never overwritten
    assert data[len(EARLIER) : offset] == b"x" * WRITES


def test_past_the_cap_the_offset_stays_where_the_kept_output_ends(tmp_path: Path) -> None:
    offset, data = _offset_while_the_loop_sleeps(tmp_path, cap=3000)
    assert offset == len(EARLIER) + 3000
    assert data[len(EARLIER) : offset] == b"x" * 3000
    assert b"[log capped at 3000 bytes" in data[offset:]


def test_a_link_where_the_log_goes_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"not the bot's\n")
    log = tmp_path / "writer.log"
    log.symlink_to(target)

    async def scenario() -> tuple[int | None, str | None]:
        marker = tmp_path / "written"
        bot = await BotProcess.start(_writer(tmp_path, marker), {}, log, ResourceLimits())
        try:
            while not marker.exists():
                await asyncio.sleep(0.01)
            return bot.log_offset(), bot.output_lost
        finally:
            await bot.stop(grace=0)

    offset, lost = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert offset is None and lost is not None and "not kept" in lost
    assert target.read_bytes() == b"not the bot's\n"


if os.uname().sysname != "Linux":
    pytestmark = pytest.mark.skip("Linux only (FIONREAD on a pipe)")
