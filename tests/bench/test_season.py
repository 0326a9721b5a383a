"""`arena bench season` at a tiny size: rounds recorded through the folder's recorder and
the league store, folded into their days, and every look timed on what is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.tournament.results.days import all_rounds
from arena.tournament.results.upkeep.check import check
from arena.tournament.results.verify import verify
from bench.season import run_season


def test_a_tiny_season_is_recorded_folded_and_looked_at(tmp_path: Path) -> None:
    said: list[str] = []
    figures = run_season(tmp_path, 60, said.append)
    (look,) = figures.looks
    assert look.games >= 63  # its 60, and the round played between two looks at the board
    assert not list((tmp_path / "results").glob("ladder-*"))  # every round folded
    rounds = list(all_rounds(tmp_path / "results"))
    assert sum(len(r.lines) for r in rounds) == look.games
    assert not check(tmp_path / "league.sqlite", [tmp_path / "results"]).differences
    assert verify(tmp_path / "results" / rounds[0].id).commitment_ok
    assert look.files_per_game < 1 and look.bytes_per_game > 0
    assert min(look.replay_ms, look.author_ms, look.check_ms, look.board_warm_ms) > 0
    assert look.refit_ms > 0
    assert look.check_full_ms > 0
    assert any("60" in line or "63" in line for line in said)


def test_arena_bench_season_prints_its_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "season"
    code = main(["bench", "season", "--games", "30", "--folder", str(folder), "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert code == (1 if figures["findings"] else 0)
    assert figures["looks"][0]["games"] >= 30 and "bytes_per_game" in figures["looks"][0]
    assert (folder / "results" / "days").is_dir()
