"""`arena leaderboard`: the rank range and P(rank 1) beside TrueSkill, the pairs not yet
separated, and `--cross`; read from a league store of games with known results."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from arena.cli.main import main
from arena.cli.standings import leaderboard_table
from arena.records import GameLine
from arena.store import SqliteStore
from arena.tournament.report.median import Median
from arena.tournament.report.standings import board


def _league(
    path: Path, groups: int = 30, names: tuple[str, str, str] = ("ace", "pat", "sam")
) -> list[tuple[str, GameLine]]:
    """`ace` wins every game; `pat` and `sam` are a coin toss; in rotation groups of three."""
    rng = random.Random(4)
    lines = []
    for g in range(groups):
        for r in range(3):
            rest = list(names[1:])
            rng.shuffle(rest)
            ranking = (names[0], *rest)
            game = f"u{g:03d}-t000-r{r}"
            lines.append(GameLine(game, len(lines), ranking, ranking, (), {}, deal_key=game))
    store = SqliteStore(path)
    try:
        store.add_tournament("night", {"id": "night"})
        for line in lines:
            store.add_game("night", line)
    finally:
        store.close()
    return [("night", line) for line in lines]


def test_the_leaderboard_shows_rank_ranges_and_the_pairs_not_separated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _league(tmp_path / "league.sqlite")
    assert main(["leaderboard", "--league", str(tmp_path / "league.sqlite")]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if " bot " in line)
    assert "ranks" in header and "P1" in header
    ace = next(line for line in out.splitlines() if " ace " in line).split()
    assert ace[ace.index("ace") + 4 : ace.index("ace") + 6] == ["1", "100%"]
    expected = board(lines)
    low, high = (s.name for s in expected.table[1:])
    assert "Not yet separated at 95%" in out and f"{low} / {high}" in out
    assert f"ace / {low}" not in out


def test_the_json_rows_carry_the_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _league(tmp_path / "league.sqlite")
    assert main(["leaderboard", "--league", str(tmp_path / "league.sqlite"), "--json"]) == 0
    rows = {r["bot"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["ace"]["rank_range"] == "1" and rows["ace"]["p_first"] == 1.0
    assert {rows["pat"]["rank_range"], rows["sam"]["rank_range"]} == {"2-3"}
    assert rows["pat"]["p_first"] == 0.0
    for row in rows.values():
        assert row["strength_low"] <= row["strength"] <= row["strength_high"]


def test_cross_prints_every_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _league(tmp_path / "league.sqlite", groups=10)
    assert main(["leaderboard", "--league", str(tmp_path / "league.sqlite"), "--cross"]) == 0
    out = capsys.readouterr().out
    rows = [
        line.split() for line in out.splitlines() if line.split()[:1] in (["ace"], ["pat"], ["sam"])
    ]
    assert len(rows) == 3
    ace_pat = next(r for r in rows if set(r[:2]) == {"ace", "pat"})
    assert ace_pat[2] == str(len(lines))
    assert ace_pat[3] == (str(len(lines)) if ace_pat[0] == "ace" else "0")
    assert (
        main(["leaderboard", "--league", str(tmp_path / "league.sqlite"), "--cross", "--json"]) == 0
    )
    pairs = json.loads(capsys.readouterr().out)
    pat_sam = next(p for p in pairs if {p["first"], p["second"]} == {"pat", "sam"})
    first_ahead = sum(
        line.ranking.index(pat_sam["first"]) < line.ranking.index(pat_sam["second"])
        for _, line in lines
    )
    assert pat_sam["ahead"] == first_ahead and pat_sam["games"] == len(lines)


def test_the_table_with_the_fit_stays_within_80_columns(tmp_path: Path) -> None:
    long = ("a-bot-with-a-long-name-" * 2, "pat", "sam")
    standing = board(_league(tmp_path / "league.sqlite", groups=12, names=long))
    for s in standing.table:  # figures as wide as a long night makes them
        s.games, s.wins, s.faults, s.think = 12345, 6789, 1234, Median([999.99])
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(leaderboard_table(standing.table, sure=standing.sure))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text and "ranks" in text and "12345" in text


@pytest.mark.parametrize("groups", [2, 9])
def test_a_tiny_tournament_shows_no_rank_range_nor_p1_and_says_why(
    tmp_path: Path, groups: int, capsys: pytest.CaptureFixture[str]
) -> None:
    _league(tmp_path / "league.sqlite", groups=groups)  # ace wins all: 100% on any copy
    assert main(["leaderboard", "--league", str(tmp_path / "league.sqlite")]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if " bot " in line)
    assert "P1" not in header and "ranks" not in header and "100%" not in out
    assert "separated" not in out.replace("nor separation", "")  # no share of copies at all
    assert f"{groups} rotation groups played, fewer than the 10 a bootstrap needs" in out
