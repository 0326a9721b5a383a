"""What `arena league check` remembers of its last agreement, so the next costs what changed.

A check that found no difference writes down, in the results folder it read,
the store's epoch and generation it began at (`LeagueStore.generation`), and
for each day's record and each tournament folder the stamp of its files as it
read them. The next check compares in full only what moved since: a day or a
folder whose stamp is not the one kept, and each tournament the store says it
wrote after that generation (`LeagueStore.changed_since`). A stamp is the
file's size, mtime and ctime in nanoseconds, inode and device: a write that
keeps the size and sets the mtime back still moves the ctime, which no user
can set. Its files are the arena's own, under `.league-check/` in the results
folder: read and written without following a link, and a memory that cannot
be read is no memory (the check then reads everything, as `--full` does).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MEMORY = ".league-check"
STATE = "state.json"

Stamp = tuple[int, ...]


def stamp_of(*paths: Path) -> Stamp:
    """The stamps of `paths` one after another; a missing file's is (0,), so that a file
    gone or come changes it."""
    out: list[int] = []
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            out.append(0)
            continue
        out += [1, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class DayMark:
    """A day's rounds.jsonl as a check read it: its stamp, and the length and SHA-256 of its
    whole lines. A day's record only grows, so a check that finds those bytes still at its
    head reads only the lines after them."""

    stamp: Stamp
    length: int
    sha256: str

    def to_json(self) -> list[Any]:
        return [list(self.stamp), self.length, self.sha256]

    @classmethod
    def from_json(cls, data: Any) -> DayMark:
        return cls(tuple(int(x) for x in data[0]), int(data[1]), str(data[2]))


@dataclass(slots=True)
class Memory:
    """One results folder's memory of the check that last agreed."""

    league: str
    epoch: str
    generation: int
    days: dict[str, DayMark] = field(default_factory=dict)
    """Each day folder's name and its rounds.jsonl as read."""
    folders: dict[str, tuple[str, Stamp]] = field(default_factory=dict)
    """Each tournament folder's name, its tournament's id and its files' stamp."""
    rounds: dict[str, list[str]] = field(default_factory=dict)
    """Each day's round ids, as read this time (written to the day's own file)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "league": self.league,
            "epoch": self.epoch,
            "generation": self.generation,
            "days": {name: mark.to_json() for name, mark in self.days.items()},
            "folders": {name: [tid, list(s)] for name, (tid, s) in self.folders.items()},
        }


def _open_dir(results: Path, make: bool) -> int | None:
    """The memory's folder, opened without following a link; None if there is none."""
    path = results / MEMORY
    if make:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _read(folder: int, name: str) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read()


def _write(folder: int, name: str, data: bytes) -> None:
    """Written aside and renamed into place: a kill leaves the old file or the new."""
    aside = f".{name}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(aside, dir_fd=folder)
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    os.replace(aside, name, src_dir_fd=folder, dst_dir_fd=folder)


def recall(results: Path, league: str, epoch: str) -> Memory | None:
    """The memory of the last check of `league` that agreed; None when there is none, it
    cannot be read, or it was of another league or of another store under its name."""
    folder = _open_dir(results, make=False)
    if folder is None:
        return None
    try:
        data = json.loads(_read(folder, STATE) or b"null")
        memory = Memory(
            str(data["league"]),
            str(data["epoch"]),
            int(data["generation"]),
            {str(n): DayMark.from_json(m) for n, m in data["days"].items()},
            {str(n): (str(f[0]), tuple(int(x) for x in f[1])) for n, f in data["folders"].items()},
        )
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    finally:
        os.close(folder)
    if (memory.league, memory.epoch) != (league, epoch):
        return None
    return memory


def rounds_of(results: Path, day: str) -> list[str]:
    """The round ids a day held when the memory was written (none if they cannot be read)."""
    folder = _open_dir(results, make=False)
    if folder is None:
        return []
    try:
        data = _read(folder, f"{day}.ids")
    finally:
        os.close(folder)
    return [] if data is None else data.decode("utf-8", "replace").split()


def remember(results: Path, memory: Memory) -> None:
    """Write the memory down; a folder where it cannot be written is left without one (the
    next check then reads everything)."""
    folder = _open_dir(results, make=True)
    if folder is None:
        return
    try:
        for day, ids in memory.rounds.items():
            _write(folder, f"{day}.ids", "".join(f"{tid}\n" for tid in ids).encode())
        _write(folder, STATE, json.dumps(memory.to_json(), separators=(",", ":")).encode())
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(STATE, dir_fd=folder)
    finally:
        os.close(folder)
