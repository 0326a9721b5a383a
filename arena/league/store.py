"""The league store: every game of every tournament, in SQLite or in PostgreSQL.

One transaction per game, keyed by a unique game id, so writing a game twice
(a resumed run, say, or a retried write) changes nothing. League ratings are
not stored but rated afresh from the games in order, which keeps them exact
and lets the rating model change without a migration. Entrants registered
for remote play keep their token hashes here too.

SQLite (a file) is the embedded default; a `postgresql://` URL puts the league
on a database server that several coordinators share (two league nights at
once). Both keep one schema under a version number (`schema_version`) and run
the same queries, so the store's face is the same whichever holds it.

Every game is also in its tournament's games.jsonl (the commit point), so a
damaged store is not a loss: it is refused at open with a way out (`arena
league rebuild`), never read as an empty league. Its errors (a full disk, a
damaged page, a server that cannot be reached) arrive as `StoreError`, which
says which store and what to do.
"""

from __future__ import annotations

import abc
import contextlib
import json
import sqlite3
import time
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from arena.errors import ArenaError
from arena.records import GameLine
from arena.tournament.ratings import GameResult, result_of

Row = tuple[Any, ...]
Statement = tuple[str, Sequence[Any]]


class StoreError(ArenaError):
    """The league store cannot be used as it is; the message says why and what to do."""


def is_url(where: str | Path) -> bool:
    """Whether `--league` names a PostgreSQL database rather than an SQLite file."""
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))


def _with_password(url: str, password: str | None) -> str:
    """`url` with a password it holds (before the host, or as ?password=) replaced, or
    dropped for None; a URL without one is left exactly as it is."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and all(key != "password" for key, _ in pairs):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        login, host = parts.username or "", netloc.rpartition("@")[2]
        netloc = f"{login}:{password}@{host}" if password else f"{login}@{host}"
    query = urlencode(
        [(k, password if k == "password" else v) for k, v in pairs if k != "password" or password],
        safe="*/",
    )
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def shown(url: str) -> str:
    """The URL for messages: a password given shows as ***."""
    return _with_password(url, "***")


def recorded(where: str | Path) -> str:
    """The store as tournament.json keeps it: a file's full path, or a URL without its
    password (which a resume takes from PGPASSWORD or ~/.pgpass, or `--league` again)."""
    if is_url(where):
        return _with_password(str(where), None)
    return str(Path(where).resolve())


def rebuild_hint(where: str | Path) -> str:
    return (
        f"`arena league rebuild --league {where}` recreates it from the results folders "
        f"(every game is in its tournament's games.jsonl)"
    )


def open_store(where: str | Path) -> LeagueStore:
    """The store `--league` names: a postgresql:// URL, else an SQLite file's path."""
    if is_url(where):
        from arena.league.postgres import PostgresStore  # psycopg only for those who use it

        return PostgresStore(str(where))
    return SqliteStore(Path(where))


class LeagueStore(abc.ABC):
    """What the runner, the league server and the leaderboard see of a store.

    The queries are written once, in the SQL both databases speak (`?` for a
    parameter); each kind of store says only how to run them, in one
    transaction for a write, and what its errors mean.
    """

    where: str
    """The store as the organiser named it, for messages (no password)."""

    @abc.abstractmethod
    def close(self) -> None: ...

    @abc.abstractmethod
    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of one query, its errors a StoreError saying what it was `doing`."""

    @abc.abstractmethod
    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]:
        """Run the statements in one transaction; the rows each changed."""

    def add_tournament(
        self, tournament_id: str, info: dict[str, Any], started: float | None = None
    ) -> None:
        when = time.time() if started is None else started
        self._write(
            "adding a tournament",
            [
                (
                    "INSERT INTO tournaments (id, started, info) VALUES (?, ?, ?) "
                    "ON CONFLICT (id) DO NOTHING",
                    (tournament_id, when, json.dumps(info)),
                )
            ],
        )

    def add_game(self, tournament_id: str, line: GameLine) -> bool:
        """Record one game; False when it was already there."""
        (added,) = self._write(
            "recording a game",
            [
                (
                    "INSERT INTO games (uid, tournament, idx, line) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (uid) DO NOTHING",
                    (
                        f"{tournament_id}/{line.game}",
                        tournament_id,
                        line.index,
                        json.dumps(line.to_json()),
                    ),
                )
            ],
        )
        return added == 1

    def remove_tournament(self, tournament_id: str) -> int | None:
        """Take a tournament and its games out; the number of games, or None if it was not in."""
        games, found = self._write(
            "removing a tournament",
            [
                ("DELETE FROM games WHERE tournament = ?", (tournament_id,)),
                ("DELETE FROM tournaments WHERE id = ?", (tournament_id,)),
            ],
        )
        return games if found else None

    def game_ids(self, tournament_id: str) -> set[str]:
        rows = self._read(
            "reading games", "SELECT line FROM games WHERE tournament = ?", (tournament_id,)
        )
        return {json.loads(line)["game"] for (line,) in rows}

    def results(self) -> list[GameResult]:
        """Every game of the league: tournaments as they started, games in schedule order."""
        rows = self._read(
            "reading games",
            "SELECT g.line FROM games g JOIN tournaments t ON t.id = g.tournament "
            "ORDER BY t.started, t.id, g.idx",
        )
        return [result_of(GameLine.from_json(json.loads(line))) for (line,) in rows]

    def results_of(self, tournament_ids: Collection[str]) -> list[GameResult]:
        """The games of these tournaments only, in the order `results` rates them."""
        rows = self._read(
            "reading games",
            "SELECT g.tournament, g.line FROM games g "
            "JOIN tournaments t ON t.id = g.tournament ORDER BY t.started, t.id, g.idx",
        )
        return [
            result_of(GameLine.from_json(json.loads(line)))
            for tid, line in rows
            if tid in tournament_ids
        ]

    def lines(self, tournament_ids: Collection[str] | None = None) -> list[tuple[str, GameLine]]:
        """(tournament, game line) of every game, or of these tournaments', in `results` order:
        the batch fit needs each game's id and deal to know its rotation group."""
        rows = self._read(
            "reading games",
            "SELECT g.tournament, g.line FROM games g "
            "JOIN tournaments t ON t.id = g.tournament ORDER BY t.started, t.id, g.idx",
        )
        return [
            (tid, GameLine.from_json(json.loads(line)))
            for tid, line in rows
            if tournament_ids is None or tid in tournament_ids
        ]

    def tournament_infos(self) -> list[tuple[str, dict[str, Any]]]:
        """Each tournament's id and the info it was added with, oldest first."""
        rows = self._read(
            "reading tournaments", "SELECT id, info FROM tournaments ORDER BY started, id"
        )
        return [(tid, json.loads(info)) for tid, info in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        rows = self._read(
            "reading tournaments",
            "SELECT t.id, COUNT(g.uid) FROM tournaments t "
            "LEFT JOIN games g ON g.tournament = t.id GROUP BY t.id ORDER BY t.started, t.id",
        )
        return [(tid, count) for tid, count in rows]

    # Entrants of a league server (remote bots).

    def set_entrant(self, name: str, token_hash: str) -> None:
        self._write(
            "registering an entrant",
            [
                (
                    "INSERT INTO entrants (name, token_hash, created, revoked) "
                    "VALUES (?, ?, ?, 0) ON CONFLICT (name) "
                    "DO UPDATE SET token_hash = excluded.token_hash, revoked = 0",
                    (name, token_hash, time.time()),
                )
            ],
        )

    def revoke_entrant(self, name: str) -> bool:
        (revoked,) = self._write(
            "revoking an entrant",
            [("UPDATE entrants SET revoked = 1 WHERE name = ?", (name,))],
        )
        return revoked == 1

    def entrants(self) -> dict[str, str]:
        """Names with active tokens, and their hashes."""
        rows = self._read(
            "reading entrants", "SELECT name, token_hash FROM entrants WHERE revoked = 0"
        )
        return {str(name): str(token) for name, token in rows}


SCHEMA: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE IF NOT EXISTS tournaments ("
        " id TEXT PRIMARY KEY, started DOUBLE PRECISION NOT NULL, info TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS games ("
        " uid TEXT PRIMARY KEY, tournament TEXT NOT NULL REFERENCES tournaments(id),"
        " idx INTEGER NOT NULL, line TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS entrants ("
        " name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,"
        " revoked INTEGER NOT NULL DEFAULT 0)",
    ),
)
"""The statements that bring a store from each version to the next: SCHEMA[0] makes
version 1 (the tables a store had before it kept a version, so such a store is
taken in as it is). A change to the schema is a new entry, never an edit."""

SCHEMA_VERSION = len(SCHEMA)
"""The schema this arena reads and writes; a store at an older one is migrated at open."""


def migration(version: int, where: str) -> list[str]:
    """The statements from `version` (0: a new store) to SCHEMA_VERSION; refuse a newer one."""
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the league store {where} is at schema version {version}, made by a newer arena "
            f"than this one (version {SCHEMA_VERSION}); upgrade the arena to use it"
        )
    steps = [sql for step in SCHEMA[version:] for sql in step]
    if not steps:
        return []
    mark = (
        f"INSERT INTO schema_version (version) VALUES ({SCHEMA_VERSION})"
        if version == 0
        else f"UPDATE schema_version SET version = {SCHEMA_VERSION}"
    )
    return [*steps, mark]


class SqliteStore(LeagueStore):
    """The embedded store: one SQLite file, written by one coordinator at a time."""

    def __init__(self, path: Path) -> None:
        """Open the store at `path`, creating it if there is none; refuse a damaged one."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.where = str(path)
        if path.is_file() and path.stat().st_size == 0:
            # SQLite writes its header at once, so an empty file is a store that lost
            # everything: reading it as a new league would hide that.
            raise StoreError(
                f"the league store {path} is empty (0 bytes): its games are lost from it; "
                f"{rebuild_hint(path)}"
            )
        try:
            self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open the league store {path}: {error}") from None
        try:
            with self._guard("opening it"):
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                verdict = [row[0] for row in self._db.execute("PRAGMA quick_check")]
                if verdict != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(map(str, verdict[:3])))
            self._migrate()
        except StoreError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        with self._guard("creating its tables"), self._transaction():
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            for sql in migration(row[0] or 0, self.where):
                self._db.execute(sql)

    def close(self) -> None:
        self._db.close()

    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._guard(doing):
            return self._db.execute(sql, params).fetchall()

    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]:
        with self._guard(doing), self._transaction():
            return [self._db.execute(sql, params).rowcount for sql, params in statements]

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """SQLite's errors as a StoreError naming the file, the task and the way out."""
        try:
            yield
        except sqlite3.Error as error:
            text = str(error)
            if "full" in text:
                advice = "free some space (or raise the limit) and try again"
            elif isinstance(error, sqlite3.DatabaseError) and not isinstance(
                error, sqlite3.OperationalError
            ):
                advice = f"the file is damaged; {rebuild_hint(self.path)}"
            else:
                advice = f"if it stays so, {rebuild_hint(self.path)}"
            raise StoreError(
                f"the league store {self.path} failed while {doing} ({text}); {advice}"
            ) from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        finally:
            # After an error, or a COMMIT that failed (a full disk), the transaction
            # may still be open: end it, or the next BEGIN fails.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
