"""The league store: every game of every tournament, in one SQLite file.

One transaction per game, keyed by a unique game id, so writing a game twice
(a resumed run, say) changes nothing. League ratings are not stored but
rated afresh from the games in order, which keeps them exact and lets the
rating model change without a migration. Entrants registered for remote
play keep their token hashes here too.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from arena.ratings import GameResult
from arena.results import result_of

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


class LeagueStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def add_tournament(self, tournament_id: str, info: dict[str, Any]) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO tournaments (id, started, info) VALUES (?, ?, ?)",
                (tournament_id, time.time(), json.dumps(info)),
            )

    def add_game(self, tournament_id: str, line: dict[str, Any]) -> bool:
        """Record one game; False when it was already there."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO games (uid, tournament, idx, line) VALUES (?, ?, ?, ?)",
                (f"{tournament_id}/{line['game']}", tournament_id, line["index"], json.dumps(line)),
            )
        return cursor.rowcount == 1

    def game_ids(self, tournament_id: str) -> set[str]:
        rows = self._db.execute("SELECT line FROM games WHERE tournament = ?", (tournament_id,))
        return {json.loads(line)["game"] for (line,) in rows}

    def results(self) -> list[GameResult]:
        """Every game of the league: tournaments as they started, games in schedule order."""
        rows = self._db.execute(
            "SELECT g.line FROM games g JOIN tournaments t ON t.id = g.tournament "
            "ORDER BY t.started, t.id, g.idx"
        )
        return [result_of(json.loads(line)) for (line,) in rows]

    def results_of(self, tournament_ids: Collection[str]) -> list[GameResult]:
        """The games of these tournaments only, in the order `results` rates them."""
        rows = self._db.execute(
            "SELECT g.tournament, g.line FROM games g JOIN tournaments t ON t.id = g.tournament "
            "ORDER BY t.started, t.id, g.idx"
        )
        return [result_of(json.loads(line)) for tid, line in rows if tid in tournament_ids]

    def tournament_infos(self) -> list[tuple[str, dict[str, Any]]]:
        """Each tournament's id and the info it was added with, oldest first."""
        rows = self._db.execute("SELECT id, info FROM tournaments ORDER BY started, id")
        return [(tid, json.loads(info)) for tid, info in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        rows = self._db.execute(
            "SELECT t.id, COUNT(g.uid) FROM tournaments t LEFT JOIN games g ON g.tournament = t.id "
            "GROUP BY t.id ORDER BY t.started"
        )
        return [(tid, count) for tid, count in rows]

    # Entrants of a league server (remote bots).

    def set_entrant(self, name: str, token_hash: str) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT INTO entrants (name, token_hash, created, revoked) VALUES (?, ?, ?, 0) "
                "ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, revoked = 0",
                (name, token_hash, time.time()),
            )

    def revoke_entrant(self, name: str) -> bool:
        with self._transaction():
            cursor = self._db.execute("UPDATE entrants SET revoked = 1 WHERE name = ?", (name,))
        return cursor.rowcount == 1

    def entrants(self) -> dict[str, str]:
        """Names with active tokens, and their hashes."""
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
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")
