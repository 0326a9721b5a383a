"""The kit loads a bot once and serves every session from it: a slow load is paid once."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from referee_harness import BOTS, Arena, run

from arena.checkbot.check import Check, check_bot

BOT = "slowload"


def test_every_session_comes_from_the_one_load(live: Arena) -> None:
    loads = live.tmp / "loads"

    async def main() -> None:
        async with live.serving():
            proc = live.spawn("slow_loading_bot", BOT, sessions=3, BOT_LOADS=loads)
            await live.wait_connected([BOT], sessions=3)
            assert live.lobby.connected() == {BOT: 3}
            live.spawn("kit_bot", "other")
            await live.wait_connected(["other"])
            record = await live.play([BOT, "other"])
            assert not record.faults
            await live.referee.stop()
            assert await live.wait_exit(proc, 30) == 0
            assert "Traceback" not in live.log(BOT)

    run(main())
    assert len(loads.read_text().split()) == 1  # three sessions, one load


@pytest.mark.slow
def test_a_bot_that_loads_for_10_s_passes_check_bot(tmp_path: Path) -> None:
    folder = tmp_path / "slowload"
    folder.mkdir()
    for part in ("slow_loading_bot.py", "strategy.py", "bot_settings.py"):
        shutil.copy(BOTS / part, folder / part)
    (folder / "bot.env").write_text("BOT_LOAD_S=10\n")
    (folder / "bot.toml").write_text('name = "slowload"\nrun = "python slow_loading_bot.py"\n')
    checks: list[Check] = []
    result = asyncio.run(check_bot(folder, checks.append, connect_timeout=15.0))
    failed = [c for c in checks if not c.passed]
    assert result.passed, failed
    assert any(c.name.startswith("opens 2 session") and c.passed for c in checks), checks
