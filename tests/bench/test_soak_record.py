"""The soak's reading of the ladder's journals: games, when they ended, the faults charged,
a game journaled twice, a line cut short by a kill; and `arena league check`'s count."""

from __future__ import annotations

import json
from pathlib import Path

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records.game import GameLine
from bench.soak_record import journaled, league_checked, tally


def _line(game: str, faults: tuple[tuple[str, FaultKind], ...] = ()) -> GameLine:
    charged = tuple(
        FaultRecord(game, bot, 0, 1, Fault(kind, "late", "", 1)) for bot, kind in faults
    )
    players = ("alpha", "beta", "gamma")
    return GameLine(game, 0, players, players, charged, {}, started=1000.0, duration_s=2.5)


def _journal(results: Path, round_id: str, lines: list[GameLine], tail: str = "") -> None:
    folder = results / round_id
    folder.mkdir(parents=True)
    text = "".join(json.dumps(line.to_json()) + "\n" for line in lines)
    (folder / "games.jsonl").write_text(text + tail)


def test_the_journals_are_read_and_a_line_cut_short_passed_over(tmp_path: Path) -> None:
    _journal(tmp_path, "ladder-000000", [_line("g1"), _line("g2")])
    _journal(tmp_path, "ladder-000001", [_line("g1")], tail='{"game": "g2", "ind')
    _journal(tmp_path, "night-1", [_line("g1")])  # not the ladder's
    found = journaled(tmp_path)
    assert {name: [line.game for line in lines] for name, lines in found.items()} == {
        "ladder-000000": ["g1", "g2"],
        "ladder-000001": ["g1"],
    }


def test_a_folder_a_kill_left_on_its_way_out_is_read_as_its_round(tmp_path: Path) -> None:
    """Killed between a fold's rename and its removal, a round's folder is `NAME.folded`: its
    games are the round's, not another round's that a later read would find lost."""
    _journal(tmp_path, "ladder-000036.folded", [_line("g1"), _line("g2")])
    found = journaled(tmp_path)
    assert {name: [line.game for line in lines] for name, lines in found.items()} == {
        "ladder-000036": ["g1", "g2"],
    }


def test_the_tally_names_each_game_when_it_ended_and_the_faults_by_kind_and_bot() -> None:
    faulted = _line("g2", (("beta", FaultKind.TIMEOUT), ("beta", FaultKind.TIMEOUT)))
    crashed = _line("g1", (("gamma", FaultKind.CRASH), ("alpha", FaultKind.TIMEOUT)))
    counted = tally({"ladder-000001": [crashed], "ladder-000000": [_line("g1"), faulted]})
    assert counted.ids == ("ladder-000000/g1", "ladder-000000/g2", "ladder-000001/g1")
    assert counted.finished == (1002.5, 1002.5, 1002.5)
    assert counted.faults == {"crash": {"gamma": 1}, "timeout": {"beta": 2, "alpha": 1}}
    assert counted.doubled == ()


def test_a_game_journaled_twice_is_doubled() -> None:
    counted = tally({"ladder-000003": [_line("g1"), _line("g2"), _line("g1")]})
    assert counted.doubled == ("ladder-000003/g1",)
    assert len(counted.ids) == 3


def test_the_league_check_s_count_is_read_only_when_it_agrees() -> None:
    agrees = "The league /x/league.sqlite agrees with its folders: 72 tournaments, 213 games.\n"
    assert league_checked(0, agrees) == (213, agrees.strip())
    differs = "  ladder-000002: lacks g3\nThe league /x differs from its folders: 1 difference\n"
    assert league_checked(1, differs) == (
        None,
        "The league /x differs from its folders: 1 difference",
    )
    assert league_checked(1, "") == (None, "(nothing)")
