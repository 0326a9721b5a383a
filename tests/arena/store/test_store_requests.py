"""Requests for test games in the league store, SQLite and PostgreSQL alike: numbered in
turn, moved on to their end with their games, read back newest first, and those a killed
server left behind marked interrupted; a store from before them is migrated."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import LeagueStore, open_store
from arena.store.league_store import SCHEMA, SCHEMA_VERSION
from arena.store.requests import PlayedGame, RequestState


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LeagueStore]:
    where = (
        tmp_path / "league.sqlite"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    opened = open_store(where)
    try:
        yield opened
    finally:
        opened.close()


def test_requests_are_numbered_and_kept_with_their_games(store: LeagueStore) -> None:
    first = store.add_request("alice", [("alice", 2), ("bob", 1)], 2, 1000.0)
    second = store.add_request("bob", [("bob", 1), ("alice", 1)], 4, 1001.0)
    assert (first.uid, second.uid) == ("request-000001", "request-000002")
    game = PlayedGame("u000-t000-r0", ("bob", "alice"), "requests/request-000001/replays/x.json")
    store.set_request(first.uid, RequestState.PLAYING)
    assert store.request(first.uid).state is RequestState.PLAYING  # type: ignore[union-attr]
    store.set_request(first.uid, RequestState.PLAYED, "", [game])
    row = store.request(first.uid)
    assert row is not None
    assert (row.state, row.seats, row.games, row.played) == (
        RequestState.PLAYED,
        (("alice", 2), ("bob", 1)),
        2,
        (game,),
    )
    assert row.finished is not None
    assert [r.uid for r in store.requests()] == [second.uid, first.uid]
    assert [r.uid for r in store.requests("alice")] == [first.uid]


def test_a_killed_servers_requests_are_interrupted_and_cost_nothing(store: LeagueStore) -> None:
    queued = store.add_request("alice", [("alice", 1), ("bob", 1)], 2, 1000.0)
    playing = store.add_request("bob", [("bob", 1), ("alice", 1)], 2, 1000.0)
    store.set_request(playing.uid, RequestState.PLAYING)
    done = store.add_request("carol", [("carol", 1), ("bob", 1)], 2, 1000.0)
    store.set_request(done.uid, RequestState.PLAYED)
    assert {r.uid for r in store.interrupt_requests()} == {queued.uid, playing.uid}
    rows = {r.uid: r for r in store.requests()}
    assert rows[queued.uid].state is RequestState.INTERRUPTED
    assert not rows[queued.uid].counts and rows[done.uid].counts
    assert "ask again" in rows[playing.uid].reason


def test_a_version_4_store_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    db = sqlite3.connect(path)
    for step in SCHEMA[:4]:
        for sql in step:
            db.execute(sql)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO schema_version (version) VALUES (4)")
    db.commit()
    db.close()
    store = open_store(path)
    try:
        assert store.requests() == []
        store.add_request("alice", [("alice", 1), ("bob", 1)], 2, 1000.0)
    finally:
        store.close()
    assert sqlite3.connect(path).execute("SELECT version FROM schema_version").fetchall() == [
        (SCHEMA_VERSION,)
    ]
