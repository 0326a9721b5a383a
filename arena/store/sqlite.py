"""The embedded league store: one SQLite file, in WAL mode, synced at every commit."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.store.league_store import (
    UNIDENTIFIED,
    LeagueStore,
    Row,
    Statement,
    StoreError,
    identity_updates,
    migration,
    rebuild_hint,
)


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
            for sql, params in identity_updates(self._db.execute(UNIDENTIFIED).fetchall()):
                self._db.execute(sql, params)

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
