"""The league store on a PostgreSQL server, which several coordinators share.

Two league nights at once write into one database: each game is one
transaction, inserted once under its unique id (a retried write changes
nothing), and the schema is created or migrated under an advisory lock, so
two coordinators opening a new database at once do not both make it. The
server does its own recovery, so there is no check at open beyond reaching
it, logging in and reading the schema's version.

psycopg is imported here only, and this module only for a postgresql:// URL,
so the SQLite league needs neither.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

from arena.store.address import shown
from arena.store.causes import Cause
from arena.store.league_store import (
    SCHEMA_VERSION,
    UNIDENTIFIED,
    LeagueStore,
    StoreError,
    identity_updates,
    migration,
    store_advice,
)
from arena.store.rows import Row, Statement

try:
    import psycopg
except ImportError:  # pragma: no cover - the [postgres] extra is in [dev]
    raise StoreError(
        "a postgresql:// league needs psycopg, which is not installed: "
        'pip install -e ".[postgres]" (run in the clone)'
    ) from None

CONNECT_TIMEOUT_S = 10
"""Seconds to reach the server before it is said to be unreachable."""

SCHEMA_LOCK = 0x7065_7275_646F
"""The advisory lock the schema is made under ('perudo'): one coordinator at a time."""


class PostgresStore(LeagueStore):
    def __init__(self, url: str) -> None:
        """Connect to the database at `url`, creating or migrating its tables if need be."""
        self.where = shown(url)
        self._url = url
        self._db = self._connect()
        try:
            self._migrate()
        except StoreError:
            self._db.close()
            raise

    def _connect(self) -> psycopg.Connection[Row]:
        with self._guard("connecting to it"):
            return psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)

    def _migrate(self) -> None:
        if self._version() == SCHEMA_VERSION:
            return  # the usual case: nothing to write (a read-only user may read the league)
        with self._guard("creating its tables"), self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            for sql in migration(self._version(), self.where, "postgres"):  # again, under the lock
                self._db.execute(sql.encode())
            for sql, params in identity_updates(self._db.execute(UNIDENTIFIED).fetchall()):
                self._db.execute(_dialect(sql), params)

    def _version(self) -> int:
        """The store's schema version; 0 for a database the arena has not used yet."""
        with self._guard("reading its schema version"):
            kept = self._db.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
            if not (kept and kept[0]):
                return 0
            row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            return int(row[0] or 0) if row else 0

    def close(self) -> None:
        self._db.close()

    def server_version(self) -> str:
        """The server's PostgreSQL version, as it says it ("16.4", say): a `pg_dump` of its
        store must be of that major version or newer."""
        (row,) = self._read("reading the server's version", "SHOW server_version")
        return str(row[0])

    def _live(self) -> psycopg.Connection[Row]:
        """The connection, made again if the server dropped it (a long `arena serve`)."""
        if self._db.closed or self._db.broken:
            self._db = self._connect()
        return self._db

    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._guard(doing):
            return self._live().execute(_dialect(sql), params).fetchall()

    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]:
        with self._guard(doing):
            db = self._live()
            with db.transaction():
                return [db.execute(_dialect(sql), params).rowcount for sql, params in statements]

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """psycopg's errors as a StoreError naming the database, the task and what to do."""
        try:
            yield
        except psycopg.Error as error:
            text = " ".join(str(error).split())
            cause, advice = _advice(error)
            raise StoreError(
                f"the league store {self.where} failed while {doing} ({text}); {advice}", cause
            ) from None


def client_version() -> str:
    """This machine's pg_dump, as a clause of advice."""
    found = shutil.which("pg_dump")
    if found is None:
        return "there is no pg_dump on this machine's PATH: install PostgreSQL's client programs"
    try:
        said = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout.strip()
    except OSError as error:
        return f"{found} does not run: {error.strerror or error}"
    return f"this machine's is {said or found}"


def _dialect(sql: str) -> bytes:
    """The shared queries' `?` parameters as psycopg's `%s` (they hold no other ? or %)."""
    return sql.replace("?", "%s").encode()


_PASSING_STATES = {
    "57P01": Cause.UNREACHABLE,  # the server is shutting down (a restart)
    "57P02": Cause.UNREACHABLE,  # it crashed and is restarting
    "57P03": Cause.UNREACHABLE,  # it is starting up, or recovering
    "53300": Cause.UNREACHABLE,  # too many connections, for now
    "40001": Cause.LOCKED,  # a serialization failure: another transaction won
    "40P01": Cause.LOCKED,  # a deadlock, broken by the server
    "55P03": Cause.LOCKED,  # a lock not available
}
"""SQLSTATEs that pass by themselves: the write is tried again (`Cause.passing`)."""


def _advice(error: psycopg.Error) -> tuple[Cause, str]:
    """What kind of fault it is, and what the organiser can do about it, from what the
    server or libpq said."""
    text = str(error)
    state = error.sqlstate or ""
    if "authentication failed" in text or "no password supplied" in text:
        return Cause.PERMISSION, (
            "the server refused the login: check the user and password (in the URL, "
            "PGPASSWORD or ~/.pgpass)"
        )
    if "pg_hba.conf" in text:
        return Cause.PERMISSION, (
            "the server lets no such login in from here: its pg_hba.conf needs an entry"
        )
    if "database" in text and "does not exist" in text:
        return Cause.MISSING, "create the database first (createdb NAME), or name one that exists"
    if state == "42501":
        return Cause.PERMISSION, (
            "the user lacks the rights it needs: grant them on the database, or log in as another"
        )
    if state in _PASSING_STATES or state.startswith("08"):
        cause = _PASSING_STATES.get(state, Cause.UNREACHABLE)
        return cause, store_advice(cause, "")
    if state == "25006":
        return Cause.READ_ONLY, (
            "the server takes no writes (a standby, or default_transaction_read_only): "
            "give --league the primary"
        )
    if state.startswith("53"):
        return Cause.FULL, "the server is out of space or resources: free some and try again"
    if state.startswith("XX"):
        return Cause.DAMAGED, "the server reports damaged data: see its log"
    if isinstance(error, psycopg.OperationalError) and not state:
        # libpq's own: refused, reset, or closed by the server before it answered.
        return Cause.UNREACHABLE, store_advice(Cause.UNREACHABLE, "")
    return Cause.OTHER, "if it stays so, see the server's log"
