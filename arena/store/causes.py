"""Why a file, a folder or a league store failed, and the advice that fits each cause.

The same fault has many faces (an errno, an SQLite result code, a PostgreSQL
SQLSTATE); the organiser needs to know only which of a few causes it is, and
what to do about that one. Telling a read-only disk to rebuild its store, or a
lost file that it "cannot be written", sends them the wrong way, so every
failed open, read or write of a results folder or a store is classed here,
once, and the advice is chosen by class. Two causes pass by themselves (a lock
another process holds, a server restarting): a run waits those out
(`arena.tournament.results.league_writes`); the others need the organiser.
"""

from __future__ import annotations

import enum
import errno
import os
from pathlib import Path


class Cause(enum.Enum):
    PERMISSION = "permission denied"
    READ_ONLY = "read-only filesystem"
    MISSING = "missing"
    FULL = "disk full"
    LOCKED = "locked by another process"
    DAMAGED = "damaged"
    UNREACHABLE = "unreachable"
    OTHER = "failed"

    @property
    def passing(self) -> bool:
        """Whether it may end by itself, so that waiting a while is the right first move."""
        return self in (Cause.LOCKED, Cause.UNREACHABLE)


_ERRNO_CAUSES = {
    errno.EACCES: Cause.PERMISSION,
    errno.EPERM: Cause.PERMISSION,
    errno.EROFS: Cause.READ_ONLY,
    errno.ENOENT: Cause.MISSING,
    errno.ENOTDIR: Cause.MISSING,
    errno.ENOSPC: Cause.FULL,
    errno.EDQUOT: Cause.FULL,
    errno.EFBIG: Cause.FULL,
    errno.EAGAIN: Cause.LOCKED,
    errno.EIO: Cause.DAMAGED,
}


def cause_of(error: OSError) -> Cause:
    """The cause of a failed open, read or write of a file."""
    return _ERRNO_CAUSES.get(error.errno or 0, Cause.OTHER)


def cause_at(path: Path) -> Cause:
    """Why `path` (or, if it does not exist, its folder) cannot be written, as far as the
    filesystem says: for a library (SQLite) whose own error does not tell which."""
    where = path if path.exists() else path.parent
    if not where.exists():
        return Cause.MISSING
    try:
        if os.statvfs(where).f_flag & os.ST_RDONLY:
            return Cause.READ_ONLY
    except OSError as error:
        return cause_of(error)
    if not os.access(where, os.W_OK) or (
        where == path and not os.access(path.parent, os.W_OK | os.X_OK)
    ):
        return Cause.PERMISSION  # (SQLite writes its journal beside the file too)
    return Cause.OTHER


def folder_advice(cause: Cause) -> str:
    """What to do about a results folder's file that failed for `cause`."""
    match cause:
        case Cause.PERMISSION:
            return "give this user the rights back (chown or chmod), or run as its owner"
        case Cause.READ_ONLY:
            return "its filesystem is mounted read-only: remount it read-write"
        case Cause.MISSING:
            return "it was moved or deleted while the arena used it: put it back"
        case Cause.FULL:
            return "the disk is full: free some space"
        case Cause.LOCKED:
            return "another process holds it: let it end"
        case Cause.DAMAGED:
            return "the disk failed to read or write it: check the disk (dmesg)"
        case _:
            return "see the system's log"


def described(error: OSError) -> str:
    """An OSError in words, without the path it repeats."""
    return error.strerror or str(error)


def folder_failure(doing: str, error: OSError, root: Path) -> str:
    """One line for a failed open, read or write of a results folder's file: which file, the
    cause, and the advice that fits it."""
    path = Path(error.filename) if isinstance(error.filename, str) else root
    if path.suffix == ".tmp":  # a copy being written (`write_atomic`): name the file
        path = path.with_suffix("")
    cause = cause_of(error)
    if cause is Cause.MISSING:
        while not path.parent.exists() and path.parent != path:
            path = path.parent  # the folder that went, not the file it held
        return f"{path} is missing ({doing}); {folder_advice(cause)}"
    if cause in (Cause.PERMISSION, Cause.READ_ONLY) and not path.exists():
        path = path.parent  # a file it could not make: its folder refused it
    return f"cannot write {path} while {doing} ({described(error)}); {folder_advice(cause)}"
