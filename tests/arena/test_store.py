"""The league store: each game once, tournaments in the order they began."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.store import LeagueStore


def _line(game: str, index: int, ranking: list[str], faults: int = 0) -> dict[str, Any]:
    return {
        "game": game,
        "index": index,
        "players": sorted(ranking),
        "deal_key": "u0-t0",
        "ranking": ranking,
        "faults": [{"bot": ranking[-1], "kind": "timeout"}] * faults,
        "think_ms": {ranking[0]: 1.0},
    }


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LeagueStore]:
    league = LeagueStore(tmp_path / "sub" / "league.sqlite")
    yield league
    league.close()


def test_a_game_written_twice_counts_once(store: LeagueStore) -> None:
    store.add_tournament("t1", {"id": "t1"})
    line = _line("g1", 0, ["a", "b"])
    assert store.add_game("t1", line) is True
    assert store.add_game("t1", line) is False
    assert store.add_game("t1", dict(line, ranking=["b", "a"])) is False  # the id decides
    assert store.game_ids("t1") == {"g1"}
    assert store.tournaments() == [("t1", 1)]
    assert [r.ranking for r in store.results()] == [("a", "b")]


def test_the_same_game_id_in_two_tournaments_is_two_games(store: LeagueStore) -> None:
    store.add_tournament("t1", {})
    store.add_tournament("t2", {})
    assert store.add_game("t1", _line("g1", 0, ["a", "b"]))
    assert store.add_game("t2", _line("g1", 0, ["b", "a"]))
    assert store.game_ids("t1") == store.game_ids("t2") == {"g1"}
    assert len(store.results()) == 2


def test_tournaments_and_games_keep_their_order(tmp_path: Path, store: LeagueStore) -> None:
    store.add_tournament("zeta", {"id": "zeta"})  # began first, though it sorts last by name
    store.add_tournament("alpha", {"id": "alpha"})
    # Games arrive in the order they finished, not in schedule order.
    store.add_game("alpha", _line("a1", 1, ["y", "x"]))
    store.add_game("zeta", _line("z2", 2, ["c", "a", "b"], faults=1))
    store.add_game("zeta", _line("z0", 0, ["a", "b", "c"]))
    store.add_game("alpha", _line("a0", 0, ["x", "y"]))
    store.add_game("zeta", _line("z1", 1, ["b", "c", "a"]))
    store.add_tournament("zeta", {"id": "zeta", "again": True})  # a resumed run: no change
    expected = [
        ("a", "b", "c"),
        ("b", "c", "a"),
        ("c", "a", "b"),
        ("x", "y"),
        ("y", "x"),
    ]
    assert [r.ranking for r in store.results()] == expected
    assert store.tournaments() == [("zeta", 3), ("alpha", 2)]
    assert store.results()[2].faults == {"b": 1}
    store.close()
    reopened = LeagueStore(tmp_path / "sub" / "league.sqlite")
    try:
        assert [r.ranking for r in reopened.results()] == expected
        assert reopened.tournaments() == [("zeta", 3), ("alpha", 2)]
        assert reopened.add_game("zeta", _line("z0", 0, ["a", "b", "c"])) is False
    finally:
        reopened.close()


def test_a_tournament_without_games_is_listed(store: LeagueStore) -> None:
    store.add_tournament("empty", {})
    assert store.tournaments() == [("empty", 0)]
    assert store.results() == []


def test_entrants(store: LeagueStore) -> None:
    store.set_entrant("a", "hash-1")
    store.set_entrant("b", "hash-2")
    store.set_entrant("a", "hash-3")
    assert store.entrants() == {"a": "hash-3", "b": "hash-2"}
    assert store.revoke_entrant("b") is True
    assert store.revoke_entrant("nobody") is False
    assert store.entrants() == {"a": "hash-3"}
    store.set_entrant("b", "hash-4")  # a new token brings it back
    assert store.entrants() == {"a": "hash-3", "b": "hash-4"}
