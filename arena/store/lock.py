"""One league server per league: a lock the server holds for its whole life.

Two servers on one league would both play the ladder, both build the same
entrants' uploads, and the second would mark the first's build in flight as
interrupted and replace its `admin.token`. So a server takes the league's
lock before it changes anything, and a second one is refused with the first's
address:

* every folder the server writes into (beside an SQLite league: the store, its
  submissions, admin.token and ladder.secret; the results folder) holds a
  `server.lock` file, locked with flock(2) and naming the server that holds it;
* a PostgreSQL league is also locked in the database itself, with a
  session-level advisory lock on a connection of its own: two servers on two
  machines reach the same store but not the same folder. The holder's
  `application_name` names it, so the refusal can say where it is.

Both locks end with the process that holds them, however it ends (a SIGKILL
too), so there is never a stale lock to remove by hand; the file stays, and
only a locked one is believed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from arena.store.address import is_url, shown
from arena.store.league_store import StoreError

if TYPE_CHECKING:
    import psycopg

LOCK_FILE = "server.lock"
SERVER_LOCK = 0x6C65_6167
"""The advisory lock of a league server on its PostgreSQL store ('leag'); the schema's
(`arena.store.postgres.SCHEMA_LOCK`) is another."""
NAME_LIMIT = 63
"""PostgreSQL keeps an application_name to 63 bytes."""


class LeagueBusyError(StoreError):
    """Another league server holds this league (its folder or its store); the message says
    where that server is."""


class ServerLock:
    """The lock of one league server: its folders', and its PostgreSQL store's if it has one."""

    def __init__(self, folders: list[Path], league: Path | str) -> None:
        """`folders`: those the server writes into (the same one given twice is locked once);
        `league`: the store, locked in the database itself when it is a postgresql:// URL."""
        self._folders = list(dict.fromkeys(f.resolve() for f in folders))
        self._league = league
        self._files: list[int] = []
        self._db: psycopg.Connection[tuple[object, ...]] | None = None

    def take(self) -> None:
        """Hold the league, or raise LeagueBusyError naming the server that does (and hold
        nothing)."""
        try:
            for folder in self._folders:
                self._files.append(_lock_folder(folder))
            if is_url(self._league):
                self._db = _lock_database(str(self._league))
        except BaseException:
            self.release()
            raise
        self.announce("starting")

    def announce(self, where: str) -> None:
        """Say who holds the lock (`where` the server's addresses), for a second server's
        refusal."""
        holder = f"pid {os.getpid()} on {socket.gethostname()}, {where}"
        for fd in self._files:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (holder + "\n").encode(), 0)
        if self._db is not None:
            with contextlib.suppress(Exception):  # only words for a refusal: never a fault
                name = f"arena serve {where}"[:NAME_LIMIT]
                self._db.execute("SELECT set_config('application_name', %s, false)", (name,))

    def release(self) -> None:
        for fd in self._files:
            os.close(fd)  # closing the file ends its flock
        self._files = []
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.close()  # ending the session ends its advisory lock
            self._db = None


def _lock_folder(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited: O_CLOEXEC by default
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "starting"
        os.close(fd)
        raise LeagueBusyError(
            f"another league server is running on {folder} ({holder}); one server per "
            f"league: stop that one first, or give this one another --league and --out"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock_database(url: str) -> psycopg.Connection[tuple[object, ...]]:
    import psycopg

    from arena.store.postgres import CONNECT_TIMEOUT_S

    where = shown(url)
    try:
        db = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        raise StoreError(f"cannot lock the league store {where}: {error}") from None
    try:
        row = db.execute("SELECT pg_try_advisory_lock(%s)", (SERVER_LOCK,)).fetchone()
        if row is not None and row[0]:
            return db
        holder = db.execute(
            "SELECT a.application_name, host(a.client_addr) FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = %s "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            (SERVER_LOCK,),
        ).fetchone()
    except psycopg.Error as error:
        db.close()
        raise StoreError(f"cannot lock the league store {where}: {error}") from None
    db.close()
    said = ""
    if holder is not None:
        name, address = holder
        said = f" ({name}" + (f", connected from {address}" if address else "") + ")"
    raise LeagueBusyError(
        f"another league server is running on the league store {where}{said}; one server "
        f"per league: stop that one first, or give this one a database of its own"
    )
