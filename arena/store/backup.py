"""A league store's backup while its server runs, and coming back from one.

An SQLite league is copied with SQLite's online backup API, in one step, from
a read-only connection: in WAL mode that step reads one snapshot, so the copy
is the league as it was at one moment (every game whole, none half-written)
while the server goes on writing. The copy is written beside its destination
under a temporary name, checked (`PRAGMA integrity_check`, and that it is a
league this arena reads), synced, and only then given its name, so a backup
interrupted leaves no file that looks like one.

A restore puts such a copy in place of a league that no process has open: it
is refused while one has (a running `arena serve` or `arena run`, whose
writes would go on into the file set aside), the league it replaces is
checkpointed and kept beside it under another name, never deleted, and the
copy goes in by a rename.

A PostgreSQL league is the database server's to copy: `pg_dump`, of the
server's major version or newer, with its own consistent snapshot; the arena
says so, with the server's version, rather than copy it badly.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.store.address import is_url, shown
from arena.store.league_store import SCHEMA_VERSION, StoreError


class BackupError(StoreError):
    """A backup or a restore that cannot be made as asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Copied:
    """A league store as copied: where, and what it holds."""

    path: Path
    tournaments: int
    games: int
    entrants: int
    set_aside: Path | None = None
    """For a restore: where the league it replaced was kept."""


def backup(league: Path | str, dest: Path) -> Copied:
    """Copy the league at one moment to `dest` (a new file, or a folder to put one in)."""
    if is_url(league):
        raise BackupError(postgres_backup_advice(str(league), dest))
    source = Path(league)
    if not source.is_file():
        raise BackupError(f"there is no league store {source} to back up")
    target = (
        dest / f"{source.stem}-{time.strftime('%Y%m%d-%H%M%S')}.sqlite" if dest.is_dir() else dest
    )
    if target.exists() or target.is_symlink():
        raise BackupError(f"{target} already exists: give a new file's name, or a folder")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist")
    with _read_only(source) as db:
        return _copy(db, target, f"{source}")


def restore(source: Path, league: Path | str) -> Copied:
    """Put the backup `source` in place of the league (kept beside it under another name)."""
    if is_url(league):
        raise BackupError(postgres_restore_advice(str(league), source))
    target = Path(league)
    if not source.is_file():
        raise BackupError(f"there is no backup {source} to restore")
    if source.resolve() == target.resolve():
        raise BackupError(f"{source} is the league store itself")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist")
    set_aside = None
    if target.exists():
        _check_unused(target)
        set_aside = target.with_name(f"{target.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}")
        if set_aside.exists():
            raise BackupError(f"{set_aside} already exists: try again in a second")
    with _read_only(source) as db:
        copied = _copy(db, target.with_name(f".{target.name}.restoring"), str(source))
    if set_aside is not None:
        os.replace(target, set_aside)
    os.replace(copied.path, target)
    sync_folder(target.parent)
    return Copied(target, copied.tournaments, copied.games, copied.entrants, set_aside)


def counts(path: Path) -> tuple[int, int, int]:
    """(tournaments, games, entrants) of a league store, read from a connection of its own."""
    with _read_only(path) as db:
        return _counts(db, str(path))


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        yield db
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} cannot be read as a league store: {error}") from None
    finally:
        db.close()


def _copy(db: sqlite3.Connection, target: Path, named: str) -> Copied:
    """`db` at one moment into `target`, through a temporary file beside it; checked, synced."""
    _counts(db, named)  # not a league: refused before anything is written
    part = target.with_name(f".{target.name}.part")
    part.unlink(missing_ok=True)
    try:
        # Readable by this user alone, as the league is: SQLite would make it the umask's.
        os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        copy = sqlite3.connect(part, isolation_level=None)
        try:
            db.backup(copy)  # one step: one snapshot of the source
            _new_epoch(copy)
            verdict = [row[0] for row in copy.execute("PRAGMA integrity_check")]
            if verdict != ["ok"]:
                raise BackupError(f"the copy of {named} is not sound: {'; '.join(verdict[:3])}")
            found = _counts(copy, named)
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, whole, with nothing beside it
        finally:
            copy.close()
        with part.open("rb") as written:
            os.fsync(written.fileno())
        os.replace(part, target)
    except OSError as error:
        raise BackupError(f"cannot write {target}: {error.strerror or error}") from None
    except sqlite3.Error as error:
        raise BackupError(f"cannot copy {named} to {target}: {error}") from None
    finally:
        part.unlink(missing_ok=True)
    sync_folder(target.parent)
    return Copied(target, *found)


def _counts(db: sqlite3.Connection, named: str) -> tuple[int, int, int]:
    try:
        (version,) = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        (tournaments,) = db.execute("SELECT COUNT(*) FROM tournaments").fetchone()
        (games,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        (entrants,) = db.execute("SELECT COUNT(*) FROM entrants").fetchone()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{named} is not a league store ({error})") from None
    if version is None or version > SCHEMA_VERSION:
        raise BackupError(
            f"{named} is a league store of schema version {version}, which this arena "
            f"(version {SCHEMA_VERSION}) does not read"
        )
    return int(tournaments), int(games), int(entrants)


def _new_epoch(copy: sqlite3.Connection) -> None:
    """A copy is a store of its own, its generation's epoch too: `arena league check`
    remembers where it last agreed by epoch and generation, and a store restored from a
    backup holds an older generation under the original's epoch, which a check would take
    for the original's (and then miss what the restore took back)."""
    kept = copy.execute("SELECT 1 FROM sqlite_master WHERE name = 'generation'").fetchone()
    if kept:
        copy.execute("UPDATE generation SET epoch = ?", (secrets.token_hex(8),))


def _check_unused(path: Path) -> None:
    """Refuse a league another process has open; checkpoint it, so its file is whole."""
    try:
        db = sqlite3.connect(path, timeout=0, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("BEGIN EXCLUSIVE")  # fails while any other connection has it open (WAL)
        db.execute("ROLLBACK")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError:
        raise BackupError(
            f"the league store {path} is open in another process (a running arena serve or "
            f"arena run?): stop it, then restore"
        ) from None
    finally:
        db.close()
    leftover = [p for p in (Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]
    if leftover:
        raise BackupError(f"{leftover[0]} is still beside {path}: is a process holding it?")


def sync_folder(folder: Path) -> None:
    """A rename or a new file in `folder` made durable: the folder's entry is synced too."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def postgres_backup_advice(url: str, dest: Path) -> str:
    return (
        f"a PostgreSQL league is backed up by PostgreSQL's own pg_dump, which reads one "
        f"consistent snapshot while the server runs: pg_dump --format=custom --file {dest} "
        f"'{shown(url)}' (password from ~/.pgpass or PGPASSWORD), with a pg_dump of the "
        f"server's major version or newer ({_versions(url)})"
    )


def postgres_restore_advice(url: str, source: Path) -> str:
    return (
        f"a PostgreSQL league is restored by PostgreSQL's own pg_restore: stop the league "
        f"server, then pg_restore --clean --if-exists --dbname '{shown(url)}' {source} "
        f"({_versions(url)})"
    )


def _versions(url: str) -> str:
    """The server's version, and this machine's pg_dump's, as far as they can be learnt."""
    from arena.store.postgres import PostgresStore, client_version

    try:
        store = PostgresStore(url)
    except StoreError as error:
        server = f"the server's version is unknown: {error}"
    else:
        try:
            server = f"the server is PostgreSQL {store.server_version()}"
        finally:
            store.close()
    return f"{server}; {client_version()}"
