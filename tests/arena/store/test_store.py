"""The league store: each game once, tournaments in the order they began, in SQLite and in
PostgreSQL alike (the tests about SQLite's file are SQLite's alone)."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from league_harness import opened_databases

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import GameLine
from arena.store import (
    LeagueConflictError,
    LeagueStore,
    Mark,
    SqliteStore,
    StoreError,
    open_store,
)


def _line(game: str, index: int, ranking: list[str], faults: int = 0, pad: int = 0) -> GameLine:
    players = tuple(sorted(ranking))
    late = Fault(FaultKind.TIMEOUT, "too slow")
    return GameLine(
        game=game,
        index=index,
        players=players,
        deal_key="u0-t0" + "x" * pad,
        ranking=tuple(ranking),
        faults=(FaultRecord(game, ranking[-1], players.index(ranking[-1]), 1, late),) * faults,
        think_ms={ranking[0]: 1.0},
    )


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A new league's `--league`: a file in a folder yet to be made, or a fresh database."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "sub" / "league.sqlite"


@pytest.fixture
def store(where: Path | str) -> Iterator[LeagueStore]:
    league = open_store(where)
    yield league
    league.close()


def test_a_game_written_twice_counts_once(store: LeagueStore) -> None:
    store.add_tournament("t1", {"id": "t1"})
    line = _line("g1", 0, ["a", "b"])
    assert store.add_game("t1", line) is True
    assert store.add_game("t1", line) is False
    other = dataclasses.replace(line, ranking=("b", "a"))
    # Another record of the game is never kept nor dropped in silence: both are named.
    with pytest.raises(
        LeagueConflictError, match=r'game g1 of t1 .*ranking \["a","b"\] vs \["b","a"\]'
    ):
        store.add_game("t1", other)
    assert {line.game for _, line in store.lines(["t1"])} == {"g1"}
    assert store.tournaments() == [("t1", 1)]
    assert [line.ranking for _, line in store.lines()] == [("a", "b")]


def test_the_same_game_id_in_two_tournaments_is_two_games(store: LeagueStore) -> None:
    store.add_tournament("t1", {})
    store.add_tournament("t2", {})
    assert store.add_game("t1", _line("g1", 0, ["a", "b"]))
    assert store.add_game("t2", _line("g1", 0, ["b", "a"]))
    assert (
        {line.game for _, line in store.lines(["t1"])}
        == {line.game for _, line in store.lines(["t2"])}
        == {"g1"}
    )
    assert len(store.lines()) == 2


def test_tournaments_and_games_keep_their_order(where: Path | str, store: LeagueStore) -> None:
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
    assert [line.ranking for _, line in store.lines()] == expected
    assert store.tournaments() == [("zeta", 3), ("alpha", 2)]
    assert store.lines()[2][1].fault_counts() == {"b": 1}
    store.close()
    reopened = open_store(where)
    try:
        assert [line.ranking for _, line in reopened.lines()] == expected
        assert reopened.tournaments() == [("zeta", 3), ("alpha", 2)]
        assert reopened.add_game("zeta", _line("z0", 0, ["a", "b", "c"])) is False
    finally:
        reopened.close()


def test_the_tournaments_after_a_mark_and_the_count_through_it(store: LeagueStore) -> None:
    """What a ladder's look asks at each look: the tournaments after the last it settled, and
    whether those up to it are still there as they were."""
    for n, tid in enumerate(("b", "a", "c", "d")):
        store.add_tournament(tid, {"id": tid}, started=10.0 + n // 2)  # a and b start together
    store.add_game("c", _line("c0", 0, ["x", "y"]))
    every = store.tournaments_after(None)
    assert [(mark.id, games) for mark, games in every] == store.tournaments()
    assert every[0][0] == Mark(10.0, "a") and every[2][0] == Mark(11.0, "c")
    assert store.tournaments_after(Mark(10.0, "a")) == every[1:]
    assert store.tournaments_after(every[-1][0]) == []
    assert store.tournaments_after(Mark(10.0, "a"), limit=2) == every[1:3]
    assert store.marks_of(["c", "gone", "a", "c"]) == {"c": every[2][0], "a": every[0][0]}
    assert store.marks_of([]) == {}
    assert store.tournaments_through(Mark(11.0, "c")) == (3, 1)
    store.remove_tournament("a")
    assert store.tournaments_through(Mark(11.0, "c")) == (2, 1)
    assert store.tournaments_through(Mark(12.0, "c")) == (3, None)  # not there at that start


def test_a_tournament_without_games_is_listed(store: LeagueStore) -> None:
    store.add_tournament("empty", {})
    assert store.tournaments() == [("empty", 0)]
    assert store.lines() == []


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


def test_removing_a_tournament_takes_its_games_out(store: LeagueStore) -> None:
    store.add_tournament("t1", {})
    store.add_tournament("t2", {})
    store.add_game("t1", _line("g1", 0, ["a", "b"]))
    store.add_game("t1", _line("g2", 1, ["a", "b"]))
    store.add_game("t2", _line("g1", 0, ["b", "a"]))
    assert store.remove_tournament("t1") == 2
    assert store.remove_tournament("t1") is None
    assert store.tournaments() == [("t2", 1)]
    assert [line.ranking for _, line in store.lines()] == [("b", "a")]


def _filled(path: Path) -> bytes:
    store = SqliteStore(path)
    store.add_tournament("t1", {})
    for i in range(100):
        store.add_game("t1", _line(f"g{i}", i, ["a", "b"], pad=300))
    store.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda data: data[: len(data) // 2], "malformed"),  # truncated
        (lambda data: data[:5000] + b"\xa5" * 8192 + data[13192:], "malformed"),  # scribbled
        (lambda data: b"scribble" * 20 + data[160:], "not a database"),  # its header
        (lambda data: b"", "empty (0 bytes)"),
    ],
)
def test_a_damaged_store_is_refused_at_open_with_a_way_out(
    tmp_path: Path, damage: Callable[[bytes], bytes], said: str
) -> None:
    path = tmp_path / "league.sqlite"
    path.write_bytes(damage(_filled(path)))
    with pytest.raises(StoreError) as error:
        SqliteStore(path)
    assert said in str(error.value)
    assert f"arena league rebuild --league {path}" in str(error.value)


def test_a_full_store_says_so_and_stays_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = opened_databases(monkeypatch)
    store = SqliteStore(tmp_path / "league.sqlite")
    db = opened[str(store.path)]
    store.add_tournament("t1", {})
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")  # what a full disk looks like to it
    with pytest.raises(StoreError, match=r"database or disk is full.*free some space"):
        for i in range(100):
            store.add_game("t1", _line(f"g{i}", i, ["a", "b"], pad=300))
    kept = {line.game for _, line in store.lines(["t1"])}
    db.execute("PRAGMA max_page_count = 1000000")
    assert store.add_game("t1", _line("late", 100, ["a", "b"]))  # no transaction was left open
    assert {line.game for _, line in store.lines(["t1"])} == kept | {"late"}
    store.close()


def test_a_tournaments_games_and_the_tournaments_in_order_are_read_by_index(
    tmp_path: Path,
) -> None:
    """A ladder reads them at every table it chooses: by index, not a read of every row."""
    import sqlite3

    path = tmp_path / "league.sqlite"
    open_store(path).close()
    db = sqlite3.connect(path)
    try:

        def plan(sql: str) -> str:
            return " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}"))

        assert "INDEX games_by_tournament" in plan(
            "SELECT line FROM games WHERE tournament = 'x' ORDER BY idx"
        )
        assert "INDEX tournaments_by_start" in plan(
            "SELECT id FROM tournaments ORDER BY started, id"
        )
        after = plan(
            "SELECT id FROM tournaments WHERE (started, id) > (1, 'x') ORDER BY started, id"
        )
        assert "SEARCH tournaments USING COVERING INDEX tournaments_by_start" in after
    finally:
        db.close()


def test_a_new_store_is_made_readable_by_its_user_alone(tmp_path: Path) -> None:
    """Issue 35: SQLite made `league.sqlite` (and its -wal and -shm) with the umask's mode,
    readable by all; it is made 0600 now, aside and linked in, no empty file left."""
    league = tmp_path / "league.sqlite"
    before = os.umask(0o022)
    try:
        store = SqliteStore(league)
        store.set_entrant("alice", "0" * 64)  # a write: the -wal and -shm are there
        beside = sorted(p.name for p in tmp_path.iterdir())
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
        store.close()
    finally:
        os.umask(before)
    assert beside == ["league.sqlite", "league.sqlite-shm", "league.sqlite-wal"]
    assert modes == dict.fromkeys(beside, 0o600)
    assert SqliteStore(league).entrants() == {"alice": "0" * 64}


def test_a_tournaments_info_is_kept_compressed_and_one_kept_as_json_still_reads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "league.sqlite"
    store = open_store(path)
    info = {"id": "ladder-000001", "isolation": ["bots are sandboxed " * 20], "bots": {}}
    try:
        store.add_tournament("ladder-000001", info, started=1.0)
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        (kept,) = db.execute("SELECT info FROM tournaments").fetchone()
        assert kept.startswith("z:") and len(kept) < len(json.dumps(info)) / 2
        db.execute("UPDATE tournaments SET info = ?", (json.dumps(info),))  # as before schema 6
    store = open_store(path)
    try:
        held = store.tournament("ladder-000001")
        assert held is not None and held.info == info
        assert store.tournament_infos() == [("ladder-000001", info)]
    finally:
        store.close()


def test_a_store_at_this_schema_opens_without_reading_its_tournaments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every command opens the store (`arena league check` after each round): a scan of
    every tournament there grows with the season (40 ms at 100,000 games). Only a store an
    older arena wrote has runs to name."""
    path = tmp_path / "league.sqlite"
    store = SqliteStore(path)
    for n in range(3):
        store.add_tournament(f"t{n}", {"id": f"t{n}", "seed_sha256": f"{n}"})
    store.close()
    said: list[str] = []
    real_connect = sqlite3.connect

    def traced(where: str | Path, *args: object, **kwargs: object) -> sqlite3.Connection:
        db = real_connect(where, *args, **kwargs)  # type: ignore[arg-type]
        db.set_trace_callback(said.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced)
    SqliteStore(path).close()
    assert said and not [sql for sql in said if "tournaments" in sql]
    monkeypatch.undo()
    db = real_connect(path)  # as an arena before run ids left it
    db.execute("UPDATE tournaments SET run_id = NULL")
    db.execute("UPDATE schema_version SET version = 6")
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert store.tournament("t1") is not None
    assert store.tournament("t1").run_id == "seed 1 laid out 0.0"  # type: ignore[union-attr]
    store.close()
