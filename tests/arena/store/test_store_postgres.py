"""The league store on a real PostgreSQL server: what SQLite's tests do not cover.

A retried write, many writers at once, the schema's version, the server's errors
as StoreError, and a dropped connection made again.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from postgres_harness import PostgresServer

from arena.records import GameLine
from arena.store import (
    LeagueConflictError,
    LeagueStore,
    StoreError,
    identity_of,
    open_store,
    recorded,
    shown,
)
from arena.store.league_store import SCHEMA, SCHEMA_VERSION

psycopg = pytest.importorskip("psycopg", reason='pip install -e ".[dev]" (it has [postgres])')


def _line(game: str, index: int, ranking: tuple[str, ...] = ("a", "b")) -> GameLine:
    return GameLine(game, index, tuple(sorted(ranking)), ranking, faults=(), think_ms={})


def _sql(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as db:
        cursor = db.execute(sql.encode())
        return cursor.fetchall() if cursor.description else []


def _at_once(count: int, body: Callable[[int], None]) -> list[BaseException]:
    """Run body(0..count-1) in threads released together; the errors they raised."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait(timeout=30)
            body(i)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_a_retried_write_from_another_connection_counts_once(postgres_url: str) -> None:
    first, retry = open_store(postgres_url), open_store(postgres_url)
    try:
        first.add_tournament("night", {})
        assert first.add_game("night", _line("g1", 0)) is True
        # The coordinator did not hear the commit (the connection broke) and writes it again.
        assert retry.add_game("night", _line("g1", 0)) is False
        assert retry.tournaments() == [("night", 1)]
        # Another record under its id is no retry: refused, naming both, the first kept.
        with pytest.raises(
            LeagueConflictError, match=r'g1 of night.*ranking \["a","b"\] vs \["b","a"\]'
        ):
            retry.add_game("night", _line("g1", 0, ("b", "a")))
        assert [line.ranking for _, line in first.lines()] == [("a", "b")]
    finally:
        first.close()
        retry.close()


def test_the_same_game_written_by_many_at_once_counts_once(postgres_url: str) -> None:
    setup = open_store(postgres_url)
    setup.add_tournament("night", {})
    setup.close()
    added: list[bool] = []

    def write(_: int) -> None:
        store = open_store(postgres_url)
        try:
            added.append(store.add_game("night", _line("g1", 0)))
        finally:
            store.close()

    assert _at_once(6, write) == []
    assert sorted(added) == [False] * 5 + [True]
    assert _sql(postgres_url, "SELECT COUNT(*) FROM games") == [(1,)]


def test_two_coordinators_write_at_once_and_keep_the_order(postgres_url: str) -> None:
    games = 40

    def coordinator(i: int) -> None:
        store = open_store(postgres_url)  # both open a new database at once: one makes it
        try:
            store.add_tournament(f"night{i}", {"id": f"night{i}"}, started=1000.0 + i)
            for n in reversed(range(games)):  # in the order they finished, not the schedule's
                winner = f"t{i}-g{n}"
                store.add_game(f"night{i}", _line(f"g{n}", n, (winner, "z")))
                store.add_game(f"night{i}", _line(f"g{n}", n, (winner, "z")))  # a retry, at once
        finally:
            store.close()

    assert _at_once(2, coordinator) == []
    store = open_store(postgres_url)
    try:
        assert store.tournaments() == [("night0", games), ("night1", games)]
        for i in range(2):
            assert {line.game for _, line in store.lines([f"night{i}"])} == {
                f"g{n}" for n in range(games)
            }
        winners = [line.ranking[0] for _, line in store.lines()]
        assert winners == [f"t{i}-g{n}" for i in range(2) for n in range(games)]
    finally:
        store.close()
    assert _sql(postgres_url, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def test_a_store_of_a_newer_schema_is_refused(postgres_url: str) -> None:
    open_store(postgres_url).close()
    _sql(postgres_url, f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=r"schema version \d+, made by a newer arena.*upgrade"):
        open_store(postgres_url)


OLD_INFO = {"id": "old", "seed_sha256": "ab" * 32, "created": 1700000000.25}
"""A tournament as a store from before run ids kept it (its folder's tournament.json has
no run_id either)."""


def _as_before(sql: Callable[[str], object], versioned: bool) -> None:
    """The tables a store had before it recorded runs' identities, with one tournament."""
    for statement in SCHEMA[0]:
        sql(statement)
    if versioned:  # version 1; a store from before that kept no version at all
        sql("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        sql("INSERT INTO schema_version (version) VALUES (1)")
    sql(
        f"INSERT INTO tournaments (id, started, info) VALUES ('old', 1.0, '{json.dumps(OLD_INFO)}')"
    )
    line = json.dumps(_line("g1", 0).to_json())
    sql(f"INSERT INTO games (uid, tournament, idx, line) VALUES ('old/g1', 'old', 0, '{line}')")


def _identities_taken_in(store: LeagueStore) -> None:
    """The old tournament has its folder's identity: a resume of it goes on, another run of
    its name is refused."""
    held = store.tournament("old")
    assert held is not None and (held.run_id, held.games) == (identity_of(OLD_INFO), 1)
    store.add_tournament("old", dict(OLD_INFO, status="running"))  # its folder, resumed
    with pytest.raises(LeagueConflictError, match="holds another run under the name 'old'"):
        store.add_tournament("old", dict(OLD_INFO, run_id="f" * 32))
    assert store.tournaments() == [("old", 1)]


@pytest.mark.parametrize("versioned", [False, True])
def test_a_sqlite_store_from_before_is_taken_in_with_its_identities(
    tmp_path: Path, versioned: bool
) -> None:
    league = tmp_path / "league.sqlite"
    with sqlite3.connect(league) as db:
        _as_before(db.execute, versioned)
    db.close()
    reopened = open_store(league)
    try:
        _identities_taken_in(reopened)
    finally:
        reopened.close()
    with sqlite3.connect(league) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    db.close()


def test_a_postgres_store_from_before_is_taken_in_with_its_identities(postgres_url: str) -> None:
    _as_before(lambda sql: _sql(postgres_url, sql), versioned=True)
    store = open_store(postgres_url)
    try:
        _identities_taken_in(store)
    finally:
        store.close()
    assert _sql(postgres_url, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


@pytest.mark.parametrize(
    ("make_url", "said", "advice"),
    [
        (
            lambda s, url: url.replace(f":{s.port}/", f":{_closed_port()}/"),
            "connecting to it",
            "is the server running and reachable",
        ),
        (
            lambda s, url: url.replace(":s3cret-pw@", ":wrong@"),
            "password authentication failed",
            "refused the login: check the user and password",
        ),
        (
            lambda s, url: url.rsplit("/", 1)[0] + "/no_such_league",
            'database "no_such_league" does not exist',
            "create the database first",
        ),
    ],
)
def test_the_servers_refusals_are_store_errors_that_say_what_to_do(
    postgres_server: PostgresServer,
    postgres_url: str,
    make_url: Callable[[PostgresServer, str], str],
    said: str,
    advice: str,
) -> None:
    url = make_url(postgres_server, postgres_url)
    with pytest.raises(StoreError) as error:
        open_store(url)
    message = str(error.value)
    assert message.startswith(f"the league store {shown(url)} failed while connecting"), message
    assert said in message
    assert advice in message
    assert "s3cret-pw" not in message and "wrong" not in message.split("(", maxsplit=1)[0]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound, never listening: a refused connection
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_password_is_kept_out_of_what_is_shown(postgres_url: str) -> None:
    store = open_store(postgres_url)
    try:
        assert "s3cret-pw" not in store.where
        assert store.where == postgres_url.replace("s3cret-pw", "***")
        assert recorded(postgres_url) == postgres_url.replace(":s3cret-pw@", "@")
    finally:
        store.close()


def test_a_dropped_connection_fails_one_call_and_is_made_again(postgres_url: str) -> None:
    store: LeagueStore = open_store(postgres_url)
    try:
        store.add_tournament("night", {})
        _sql(
            postgres_url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        with pytest.raises(StoreError, match=r"recording a game.*is the server running"):
            store.add_game("night", _line("g1", 0))
        assert store.add_game("night", _line("g1", 0)) is True  # a new connection
        assert store.tournaments() == [("night", 1)]
    finally:
        store.close()


def test_the_sqlite_league_loads_no_psycopg() -> None:
    probe = (
        "import sys, arena.store as s, pathlib, tempfile; "
        "s.open_store(pathlib.Path(tempfile.mkdtemp()) / 'l.sqlite').close(); "
        "print('psycopg' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"


def test_without_psycopg_a_postgres_league_says_what_to_install() -> None:
    probe = (
        "import sys; sys.modules['psycopg'] = None\n"  # what an import of a missing package does
        "from arena.store import StoreError, open_store\n"
        "try:\n"
        "    open_store('postgresql://127.0.0.1/league')\n"
        "except StoreError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert "needs psycopg" in done.stdout
    assert 'pip install -e ".[postgres]" (run in the clone)' in done.stdout


@pytest.mark.parametrize(
    ("url", "in_messages", "in_the_folder"),
    [
        ("postgresql://a:pw@h:5/db", "postgresql://a:***@h:5/db", "postgresql://a@h:5/db"),
        (
            "postgresql://h/db?password=pw&sslmode=require",
            "postgresql://h/db?password=***&sslmode=require",
            "postgresql://h/db?sslmode=require",
        ),
        ("postgresql:///db?host=/tmp", "postgresql:///db?host=/tmp", "postgresql:///db?host=/tmp"),
    ],
)
def test_a_password_is_never_shown_nor_recorded(
    url: str, in_messages: str, in_the_folder: str
) -> None:
    assert (shown(url), recorded(url)) == (in_messages, in_the_folder)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_every_write_by_any_client_marks_its_tournament_changed(
    kind: str, postgres_url: str, tmp_path: Path
) -> None:
    """What `arena league check` trusts to skip what did not change: the triggers count a
    write made past the arena (another client's SQL) as the arena's own."""
    league: Path | str = tmp_path / "league.sqlite" if kind == "sqlite" else postgres_url

    def sql(text: str) -> None:
        if kind == "postgres":
            _sql(postgres_url, text)
            return
        db = sqlite3.connect(league)
        try:
            db.execute(text)
            db.commit()
        finally:
            db.close()

    store = open_store(league)
    try:
        epoch, start = store.generation()
        assert epoch and start == 0
        for tid in ("a", "b"):
            store.add_tournament(tid, {"id": tid}, started=1000.0)
            store.add_game(tid, _line("g0", 0))
        store.add_game("a", _line("g0", 0))  # the same record again: nothing written
        _, agreed = store.generation()
        assert agreed == 4 and store.changed_since(start) == ["a", "b"]
        assert store.changed_since(agreed) == [] and store.counts() == (2, 2)
        sql("UPDATE games SET line = line || ' ' WHERE tournament = 'b'")
        assert store.changed_since(agreed) == ["b"]
        _, agreed = store.generation()
        sql("DELETE FROM games WHERE tournament = 'a'")
        sql("DELETE FROM tournaments WHERE id = 'a'")
        assert store.changed_since(agreed) == ["a"] and store.counts() == (1, 1)
        assert store.generation() == (epoch, agreed + 2)
    finally:
        store.close()
