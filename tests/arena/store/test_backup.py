"""`arena league backup` during a real night: each copy is the league as it was at one moment
(equal, row for row, to the night's store at that point), restores to that, and the night's
store is unharmed; a restore refuses a league in use and keeps the one it replaces."""

from __future__ import annotations

import itertools
import os
import sqlite3
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from cli_harness import Cli, arena_command, clean_env
from tournament_harness import copy_bots

from arena.records import GameLine
from arena.store import SqliteStore, open_store
from arena.store.backup import BackupError, backup, restore

TABLES = ("schema_version", "tournaments", "games", "entrants")
SEED = "ab" * 32


def rows(path: Path, table: str) -> list[tuple[object, ...]]:
    """A table's rows with their rowids, in the order they were written."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid").fetchall()
    finally:
        db.close()


def games(path: Path) -> int:
    try:
        return len(rows(path, "games"))
    except sqlite3.Error:  # not made yet
        return 0


def assert_the_league_at_that_point(copy: Path, league: Path) -> None:
    """`copy` holds exactly what `league` held when it was taken: games and tournaments are
    only ever added, each row after the last, so that is every row up to the copy's last."""
    for table in TABLES:
        kept = rows(copy, table)
        last = kept[-1][0] if kept else 0
        assert kept == [row for row in rows(league, table) if int(row[0]) <= int(last)], table


@pytest.mark.slow
def test_a_backup_taken_during_a_night_restores_to_the_league_at_that_moment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(capsys)
    league, out = tmp_path / "league.sqlite", tmp_path / "out"
    assert cli("token", "add", "remote", "--league", str(league))[0] == 0  # an entrant's token too
    bots = copy_bots(tmp_path / "bots", delay=0.01)
    night = subprocess.Popen(
        [
            *arena_command(),
            *("run", "--bots", str(bots), "--games", "40", "--table-size", "2", "--jobs", "2"),
            *("--league", str(league), "--out", str(out), "--name", "night", "--seed", SEED),
            *("--sandbox", "off"),
        ],
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    copies: list[Path] = []
    deadline = time.monotonic() + 120
    try:
        while night.poll() is None and time.monotonic() < deadline and len(copies) < 12:
            if games(league) == 0:
                time.sleep(0.05)
                continue
            dest = tmp_path / f"copy-{len(copies)}.sqlite"
            code, said, err = cli("league", "backup", str(dest), "--league", str(league))
            assert code == 0, err
            assert f"Backed up {league} to {dest}" in " ".join(said.split())
            copies.append(dest)
            time.sleep(0.2)
        assert night.wait(timeout=120) == 0, night.stderr.read() if night.stderr else ""
    finally:
        if night.poll() is None:
            night.kill()
            night.wait(10)
    journal = (out / "night" / "games.jsonl").read_text().splitlines()
    final = len(journal)  # the schedule's whole rotations: 40 games asked, or a few more
    assert final >= 40 and games(league) == final
    during = [c for c in copies if 0 < games(c) < final]
    assert during, [games(c) for c in copies]  # taken while games were being written
    for copy in copies:
        assert_the_league_at_that_point(copy, league)
        assert not Path(f"{copy}-wal").exists()  # one whole file

    # Restored where there is none, the copy is that league again, and the arena reads it.
    restored = tmp_path / "restored" / "league.sqlite"
    restored.parent.mkdir()
    code, said, err = cli("league", "restore", str(during[0]), "--league", str(restored))
    assert code == 0, err
    for table in TABLES:
        assert rows(restored, table) == rows(during[0], table)
    assert_the_league_at_that_point(restored, league)
    store = open_store(restored)
    try:
        assert len(store.games_of("night")) == games(during[0])
        assert set(store.entrants()) == {"remote"}
    finally:
        store.close()
    # The night's own store, afterwards: whole, and agreeing with its folder.
    assert cli("league", "check", "--league", str(league), "--results", str(out))[0] == 0
    assert rows(league, "games")[-1][0] == final


def test_backups_taken_while_games_are_written_are_each_the_league_at_one_moment(
    tmp_path: Path,
) -> None:
    league = tmp_path / "league.sqlite"
    writer = SqliteStore(league)
    writer.add_tournament("night", {"id": "night", "run_id": "r1"})
    stop = threading.Event()
    written: list[int] = []

    def write() -> None:  # another connection, another thread: as the server writes
        store = SqliteStore(league)
        try:
            for index in itertools.count():
                if stop.is_set():
                    return
                line = GameLine(f"g{index:04d}", index, ("a", "b"), ("b", "a"), (), {"a": 1.0})
                store.add_game("night", line)
                written.append(index)
        finally:
            store.close()

    thread = threading.Thread(target=write)
    thread.start()
    copies = []
    try:
        for n in range(8):
            while len(written) < 10 * (n + 1):  # games keep coming between two copies
                assert thread.is_alive()
                time.sleep(0.001)
            copies.append(backup(league, tmp_path / f"copy-{n}.sqlite"))
    finally:
        stop.set()
        thread.join(30)
        writer.close()
    held = [copy.games for copy in copies]
    assert held == sorted(held) and 0 < held[0] < len(written), held
    for copy in copies:
        assert_the_league_at_that_point(copy.path, league)
    restored = restore(copies[3].path, tmp_path / "restored.sqlite")
    assert restored.set_aside is None
    for table in TABLES:
        assert rows(restored.path, table) == rows(copies[3].path, table)


def test_a_restore_keeps_the_league_it_replaces_and_refuses_one_in_use(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    store = SqliteStore(league)
    store.set_entrant("old", "hash-old")
    copy = backup(league, tmp_path)  # a folder: the copy is named in it
    assert copy.path.parent == tmp_path and copy.entrants == 1
    store.set_entrant("new", "hash-new")  # after the copy
    with pytest.raises(BackupError, match="open in another process"):
        restore(copy.path, league)
    store.close()
    done = restore(copy.path, league)
    assert done.set_aside is not None and done.set_aside.name.startswith("league.sqlite.replaced-")
    assert set(SqliteStore(done.set_aside).entrants()) == {"old", "new"}  # kept whole
    reopened = SqliteStore(league)
    try:
        assert set(reopened.entrants()) == {"old"}
    finally:
        reopened.close()


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_text("not a database at all, but long enough " * 40), "not a league"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE x (y)").connection.commit(), "not a"),
    ],
)
def test_what_is_not_a_league_is_neither_backed_up_nor_restored(
    tmp_path: Path, make: object, said: str
) -> None:
    other = tmp_path / "other.sqlite"
    make(other)  # type: ignore[operator]
    with pytest.raises(BackupError, match=said):
        backup(other, tmp_path / "copy.sqlite")
    with pytest.raises(BackupError, match=said):
        restore(other, tmp_path / "league.sqlite")
    assert not (tmp_path / "copy.sqlite").exists() and not (tmp_path / "league.sqlite").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["other.sqlite"]  # no part left behind


def test_a_backup_never_overwrites(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    SqliteStore(league).close()
    taken = tmp_path / "taken.sqlite"
    taken.write_text("someone's file")
    with pytest.raises(BackupError, match="already exists"):
        backup(league, taken)
    assert taken.read_text() == "someone's file"


def test_a_backup_is_readable_by_its_user_alone(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    SqliteStore(league).close()
    taken = tmp_path / "taken.sqlite"
    before = os.umask(0o022)
    try:
        backup(league, taken)
    finally:
        os.umask(before)
    assert stat.S_IMODE(taken.stat().st_mode) == 0o600


@pytest.mark.slow
def test_a_postgresql_league_is_pg_dumps_to_copy_with_the_servers_version(
    postgres_url: str, tmp_path: Path
) -> None:
    open_store(postgres_url).close()
    with pytest.raises(BackupError) as told:
        backup(postgres_url, tmp_path / "league.dump")
    text = str(told.value)
    assert "pg_dump --format=custom" in text and "the server is PostgreSQL " in text
    assert not (tmp_path / "league.dump").exists()
