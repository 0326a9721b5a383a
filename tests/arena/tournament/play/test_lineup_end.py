"""The end of a run: a small field is told goodbye and exits in its own time; a large one is
ended at once, its interpreters' exits no burden on the referee."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from tournament_harness import Recorder, copy_bots

from arena.tournament.config import TournamentConfig
from arena.tournament.play import lineup
from arena.tournament.tournament import Tournament


def _night(tmp_path: Path) -> tuple[Tournament, str]:
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"), out=tmp_path / "out", table_size=2, games=3, jobs=2
    )
    tournament = Tournament(config, Recorder())
    summary = asyncio.run(tournament.run())
    return tournament, summary.status


def test_a_small_field_exits_by_itself_once_told_goodbye(tmp_path: Path) -> None:
    tournament, status = _night(tmp_path)
    assert status == "finished"
    codes = {n: p.process.returncode for n, p in tournament._lineup.processes.items()}
    assert codes == dict.fromkeys(codes, 0), codes


def test_a_field_past_the_graceful_size_is_ended_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lineup, "GRACEFUL_BOTS", 2)
    tournament, status = _night(tmp_path)
    assert status == "finished"  # every game played and recorded before the end
    codes = {n: p.process.returncode for n, p in tournament._lineup.processes.items()}
    assert len(codes) == 3
    assert codes == dict.fromkeys(codes, -signal.SIGKILL), codes
