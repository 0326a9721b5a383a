"""A disk too full for a bot's log loses the log, never the bot: its output is still drained."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.bots.isolation.limits import ResourceLimits
from arena.bots.manifest import BotSpec
from arena.bots.run.processes import BotProcess

OUT_BYTES = 700_000  # far more than a pipe holds: an undrained pipe would block the bot
CHATTY = (
    "import sys\n"
    f"for _ in range({OUT_BYTES // 1000}):\n"
    "    sys.stdout.buffer.write(b'o' * 999 + b'\\n')\n"
    "sys.stdout.flush()\n"
    "print('the end')\n"
)


def _chatty(folder: Path) -> BotSpec:
    script = folder / "chatty.py"
    script.write_text(CHATTY)
    return BotSpec(name="chatty", path=script, workdir=folder, run=("python", script.name))


def _run(spec: BotSpec, log: Path) -> tuple[int | None, str | None]:
    async def scenario() -> tuple[int | None, str | None]:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits(log_bytes=10_000_000))
        try:
            code = await asyncio.wait_for(bot.process.wait(), 60)
        finally:
            await bot.stop(grace=1)
        return code, bot.output_lost

    return asyncio.run(scenario())


@pytest.fixture
def tiny_disk(tmpfs: Callable[[str], Path]) -> Path:
    return tmpfs("64k")


def test_a_full_disk_under_the_logs_does_not_block_the_bot(tmp_path: Path, tiny_disk: Path) -> None:
    log = tiny_disk / "logs" / "chatty.log"
    code, lost = _run(_chatty(tmp_path), log)
    assert code == 0  # it wrote everything, so its pipe was read to the end
    assert lost is not None and "No space left on device" in lost, lost
    said = re.search(r"after (\d+) bytes", lost)
    assert said is not None, lost
    kept = int(said[1])
    # What it says was kept is there, as written (the note itself may have found no room).
    assert 0 < kept <= log.stat().st_size < OUT_BYTES
    assert log.read_bytes()[:kept] == ((b"o" * 999 + b"\n") * (kept // 1000 + 1))[:kept]


def test_a_log_that_refuses_every_write_is_given_up_quietly(tmp_path: Path) -> None:
    """/dev/full fails every write with ENOSPC, like a disk with no room left at all."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    code, lost = _run(_chatty(tmp_path), Path("/dev/full"))
    assert code == 0
    assert lost is not None and "after 0 bytes" in lost and "discarded" in lost, lost


def test_a_log_written_in_full_says_nothing_was_lost(tmp_path: Path) -> None:
    code, lost = _run(_chatty(tmp_path), tmp_path / "chatty.log")
    assert (code, lost) == (0, None)
    assert (tmp_path / "chatty.log").read_bytes().endswith(b"the end\n")


if sys.platform != "linux":  # /dev/full and tmpfs are Linux's
    pytestmark = pytest.mark.skip("Linux only")
