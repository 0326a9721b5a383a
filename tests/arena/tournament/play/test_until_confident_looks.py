"""--until-confident's looks reckon away from the event loop: the run is never held by one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tournament_harness import GOOD, Recorder, copy_bots

from arena.rankings import background
from arena.tournament.config import TournamentConfig
from arena.tournament.report import standings
from arena.tournament.tournament import Tournament

_LIMIT = 60.0


def _needing_the_loop(real: Callable[..., Any], looks: list[int]) -> Callable[..., Any]:
    """`confidence` that answers only once the event loop has run a callback of its asking.

    Run on the loop itself (a look held there), the callback cannot run and the wait ends
    in failure; run away from it, the loop answers at once."""
    loop = asyncio.get_running_loop()

    def reckon(*args: Any, **kwargs: Any) -> Any:
        looks.append(threading.get_ident())
        answered = threading.Event()
        loop.call_soon_threadsafe(answered.set)
        if not answered.wait(_LIMIT):
            raise AssertionError("a look held the event loop")
        return real(*args, **kwargs)

    return reckon


def test_a_look_runs_while_the_games_go_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots", GOOD[:2]),
        out=tmp_path / "out",
        games=40,  # 20 rotation groups of 2: a look is due from the 8th whole one
        jobs=2,
        move_time=10.0,
        connect_timeout=60,
        name="looks",
        until_confident=0.95,
    )
    looks: list[int] = []

    async def run() -> None:
        for module in (background, standings):
            monkeypatch.setattr(module, "confidence", _needing_the_loop(module.confidence, looks))
        summary = await Tournament(config, Recorder()).run()
        assert summary.status == "finished"

    asyncio.run(run())
    # The closing board's, and at least one look's during the games.
    assert len(looks) >= 2
    assert threading.get_ident() not in looks
