"""The embedded league store: one SQLite file, in WAL mode, synced at every commit.

SQLite waits `busy_timeout` seconds for a lock another process holds, with the
caller blocked; a run asks for a short wait and waits out the rest without
blocking (`arena.tournament.results.league_writes`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.store.causes import Cause, cause_at
from arena.store.league_store import (
    UNIDENTIFIED,
    LeagueStore,
    StoreError,
    identity_updates,
    migration,
    rebuild_hint,
    store_advice,
)
from arena.store.rows import Row, Statement

BUSY_TIMEOUT_S = 30.0
"""Seconds a command waits for a lock another process holds before it says so."""


def make_private(path: Path) -> None:
    """A new, empty store at `path`, readable and writable by this user alone.

    SQLite makes a file it opens with the umask's mode (readable by all, commonly), and
    its -wal and -shm beside it with the file's: so the file is made first, 0600, and
    SQLite keeps that mode for all three. It is made aside, its header written (WAL mode),
    and linked into place, so that a kill meanwhile leaves no empty store (which reads as
    one that lost its games); if another process made one meanwhile, that one is kept.
    """
    try:
        fd, aside = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)  # 0600
        os.close(fd)
        try:
            db = sqlite3.connect(aside, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")  # writes the header
            finally:
                db.close()
            with contextlib.suppress(FileExistsError):
                os.link(aside, path)
        finally:
            os.unlink(aside)
    except (OSError, sqlite3.Error) as error:
        cause = cause_at(path.parent)
        raise StoreError(
            f"cannot make the league store {path} ({error}); {store_advice(cause, path)}", cause
        ) from None


class SqliteStore(LeagueStore):
    """The embedded store: one SQLite file, written by one coordinator at a time."""

    def __init__(
        self, path: Path, busy_timeout: float = BUSY_TIMEOUT_S, check_pages: bool = True
    ) -> None:
        """Open the store at `path`, creating it if there is none; refuse a damaged one,
        every page read (`check_pages`: about 1.2 ms per 1,000 games) unless told not to
        by a caller that reads only what changed and checks the pages in full otherwise
        (`arena league check`)."""
        self.path = path
        self.where = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            cause = cause_at(path.parent)
            raise StoreError(
                f"cannot make the folder of the league store {path} ({error.strerror}); "
                f"{store_advice(cause, path)}",
                cause,
            ) from None
        if not path.exists():
            make_private(path)
        if path.is_file() and path.stat().st_size == 0:
            # SQLite writes its header at once, so an empty file is a store that lost
            # everything: reading it as a new league would hide that.
            raise StoreError(
                f"the league store {path} is empty (0 bytes): its games are lost from it; "
                f"{rebuild_hint(path)}",
                Cause.DAMAGED,
            )
        try:
            self._db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as error:
            cause = self._cause(error)
            raise StoreError(
                f"cannot open the league store {path} ({error}); {store_advice(cause, path)}",
                cause,
            ) from None
        try:
            with self._guard("opening it"):
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            if check_pages:
                self.check_pages()
            self._migrate()
        except StoreError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        with self._guard("creating its tables"), self._transaction():
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            steps = migration(row[0] or 0, self.where)
            for sql in steps:
                self._db.execute(sql)
            if not steps:  # at this arena's schema every run kept is named: none to name, and
                return  # no scan of every tournament at each open (40 ms at 100,000 games)
            for sql, params in identity_updates(self._db.execute(UNIDENTIFIED).fetchall()):
                self._db.execute(sql, params)

    def close(self) -> None:
        self._db.close()

    def check_pages(self) -> None:
        with self._guard("opening it"):
            verdict = [row[0] for row in self._db.execute("PRAGMA quick_check")]
            if verdict != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(map(str, verdict[:3])))

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
            cause = self._cause(error)
            raise StoreError(
                f"the league store {self.path} failed while {doing} ({error}); "
                f"{store_advice(cause, self.path)}",
                cause,
            ) from None

    def _cause(self, error: sqlite3.Error) -> Cause:
        """SQLite's result code as a cause; where it does not say (a file it cannot open or
        write), the filesystem is asked."""
        name = getattr(error, "sqlite_errorname", "") or ""
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return Cause.LOCKED
        if name.startswith("SQLITE_FULL"):
            return Cause.FULL
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
            return Cause.DAMAGED
        if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR")):
            return cause_at(self.path)
        if isinstance(error, sqlite3.DatabaseError) and not isinstance(
            error, sqlite3.OperationalError
        ):
            return Cause.DAMAGED
        return Cause.OTHER

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
