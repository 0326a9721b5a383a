"""The league store: every game of every tournament, in one SQLite file.

One transaction per game, keyed by a unique game id, so writing a game twice
(a resumed run, say) changes nothing. League ratings are not stored but
rated afresh from the games in order, which keeps them exact and lets the
rating model change without a migration. Entrants registered for remote
play keep their token hashes here too.

Every game is also in its tournament's games.jsonl (the commit point), so a
damaged store is not a loss: it is refused at open with a way out (`arena
league rebuild`), never read as an empty league. Its errors (a full disk, a
damaged page) arrive as `StoreError`, which says which file and what to do.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.records import GameLine
from arena.tournament.ratings import GameResult, result_of

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    started REAL NOT NULL,
    info TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    uid TEXT PRIMARY KEY,
    tournament TEXT NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    line TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
"""


class StoreError(ArenaError):
    """The league store cannot be used as it is; the message says why and what to do."""


def rebuild_hint(path: Path) -> str:
    return (
        f"`arena league rebuild --league {path}` recreates it from the results folders "
        f"(every game is in its tournament's games.jsonl)"
    )


class LeagueStore:
    def __init__(self, path: Path) -> None:
        """Open the store at `path`, creating it if there is none; refuse a damaged one."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
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
                self._db.executescript(_SCHEMA)
        except StoreError:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

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

    def add_tournament(
        self, tournament_id: str, info: dict[str, Any], started: float | None = None
    ) -> None:
        with self._guard("adding a tournament"), self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO tournaments (id, started, info) VALUES (?, ?, ?)",
                (tournament_id, time.time() if started is None else started, json.dumps(info)),
            )

    def add_game(self, tournament_id: str, line: GameLine) -> bool:
        """Record one game; False when it was already there."""
        with self._guard("recording a game"), self._transaction():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO games (uid, tournament, idx, line) VALUES (?, ?, ?, ?)",
                (
                    f"{tournament_id}/{line.game}",
                    tournament_id,
                    line.index,
                    json.dumps(line.to_json()),
                ),
            )
        return cursor.rowcount == 1

    def remove_tournament(self, tournament_id: str) -> int | None:
        """Take a tournament and its games out; the number of games, or None if it was not in."""
        with self._guard("removing a tournament"), self._transaction():
            games = self._db.execute(
                "DELETE FROM games WHERE tournament = ?", (tournament_id,)
            ).rowcount
            found = self._db.execute(
                "DELETE FROM tournaments WHERE id = ?", (tournament_id,)
            ).rowcount
        return games if found else None

    def game_ids(self, tournament_id: str) -> set[str]:
        with self._guard("reading games"):
            rows = self._db.execute(
                "SELECT line FROM games WHERE tournament = ?", (tournament_id,)
            ).fetchall()
        return {json.loads(line)["game"] for (line,) in rows}

    def results(self) -> list[GameResult]:
        """Every game of the league: tournaments as they started, games in schedule order."""
        with self._guard("reading games"):
            rows = self._db.execute(
                "SELECT g.line FROM games g JOIN tournaments t ON t.id = g.tournament "
                "ORDER BY t.started, t.id, g.idx"
            ).fetchall()
        return [result_of(GameLine.from_json(json.loads(line))) for (line,) in rows]

    def results_of(self, tournament_ids: Collection[str]) -> list[GameResult]:
        """The games of these tournaments only, in the order `results` rates them."""
        with self._guard("reading games"):
            rows = self._db.execute(
                "SELECT g.tournament, g.line FROM games g "
                "JOIN tournaments t ON t.id = g.tournament ORDER BY t.started, t.id, g.idx"
            ).fetchall()
        return [
            result_of(GameLine.from_json(json.loads(line)))
            for tid, line in rows
            if tid in tournament_ids
        ]

    def lines(self, tournament_ids: Collection[str] | None = None) -> list[tuple[str, GameLine]]:
        """(tournament, game line) of every game, or of these tournaments', in `results` order:
        the batch fit needs each game's id and deal to know its rotation group."""
        with self._guard("reading games"):
            rows = self._db.execute(
                "SELECT g.tournament, g.line FROM games g "
                "JOIN tournaments t ON t.id = g.tournament ORDER BY t.started, t.id, g.idx"
            ).fetchall()
        return [
            (tid, GameLine.from_json(json.loads(line)))
            for tid, line in rows
            if tournament_ids is None or tid in tournament_ids
        ]

    def tournament_infos(self) -> list[tuple[str, dict[str, Any]]]:
        """Each tournament's id and the info it was added with, oldest first."""
        with self._guard("reading tournaments"):
            rows = self._db.execute(
                "SELECT id, info FROM tournaments ORDER BY started, id"
            ).fetchall()
        return [(tid, json.loads(info)) for tid, info in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        with self._guard("reading tournaments"):
            rows = self._db.execute(
                "SELECT t.id, COUNT(g.uid) FROM tournaments t "
                "LEFT JOIN games g ON g.tournament = t.id GROUP BY t.id ORDER BY t.started"
            ).fetchall()
        return [(tid, count) for tid, count in rows]

    # Entrants of a league server (remote bots).

    def set_entrant(self, name: str, token_hash: str) -> None:
        with self._guard("registering an entrant"), self._transaction():
            self._db.execute(
                "INSERT INTO entrants (name, token_hash, created, revoked) VALUES (?, ?, ?, 0) "
                "ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, revoked = 0",
                (name, token_hash, time.time()),
            )

    def revoke_entrant(self, name: str) -> bool:
        with self._guard("revoking an entrant"), self._transaction():
            cursor = self._db.execute("UPDATE entrants SET revoked = 1 WHERE name = ?", (name,))
        return cursor.rowcount == 1

    def entrants(self) -> dict[str, str]:
        """Names with active tokens, and their hashes."""
        with self._guard("reading entrants"):
            rows = self._db.execute("SELECT name, token_hash FROM entrants WHERE revoked = 0")
            return dict(rows.fetchall())

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        try:
            if kind is None:
                self._db.execute("COMMIT")
                return
        finally:
            # After an error, or a COMMIT that failed (a full disk), the transaction
            # may still be open: end it, or the next BEGIN fails.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
