"""A bot's folder, walked and read as a hostile build may have left it.

A build runs with the bot's folder writable, and the arena then reads that
folder with the organiser's rights: to hash its files (what the results say
played), to list the build's outputs (`arena.bots.builds.buildstamp`), to read its
`bot.toml`. So nothing here follows a symbolic link the bot may have made: the
walk goes from one open folder to the next (`openat`, `O_NOFOLLOW`), a link is
known by the path it holds, never by what it points to, and a named pipe, a
socket or a device is passed over. A file is opened without following a link
and without blocking, read only once `fstat` says it is a regular file, and
only up to the size it had then.

What a walk reads is bounded, or a 100 GB sparse file (or a million empty
ones) would hold the arena for hours: a folder with more than `MAX_ENTRIES`
entries, nested deeper than `MAX_DEPTH`, or with more than `MAX_HASHED_BYTES`
of files to hash is refused, with the reason, before the rest is read.
Refused, rather than known by size and time beyond a cap: the files hash is
the record of which code played, and one that silently stopped covering a
bot's contents would claim more than it knows. A build's outputs (`bin/`,
`target/`, `node_modules/`) are listed by size and time, never read, so a
large model or dependency tree belongs there.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import NoReturn

from arena.errors import ArenaError

MAX_ENTRIES = 250_000
"""Files, links and folders in one walk: a large `node_modules` holds tens of thousands."""
MAX_DEPTH = 64
"""Folders within folders: each level of the walk holds one open folder."""
MAX_HASHED_BYTES = 1024 * 1024 * 1024
"""Bytes of a bot's own files hashed, about a second of SHA-256 on one core."""
_CHUNK = 1024 * 1024
_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class ManifestError(ArenaError):
    """A bot entry that cannot be used, with the reason in words."""


class Kind(Enum):
    FILE = "file"
    LINK = "link"


@dataclass(frozen=True, slots=True)
class Entry:
    """A regular file or a symbolic link in a bot's folder; folders are walked, not listed."""

    parts: tuple[str, ...]
    kind: Kind
    size: int
    mtime_ns: int
    target: str = ""
    """A link's target, as the link holds it."""
    sha256: bytes = b""
    """A file's contents' digest, when the walk read them."""

    @property
    def relative(self) -> str:
        return "/".join(self.parts)


def walk(folder: Path, prune: frozenset[str] = frozenset(), read: bool = False) -> list[Entry]:
    """The files and links under `folder`, sorted, never following a link; an entry named in
    `prune` is neither listed nor walked into; with `read`, each file's contents are hashed."""
    walker = _Walker(folder, prune, read)
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise ManifestError(f"{folder} cannot be read: {error.strerror}") from None
    try:
        walker.folder(top, ())
    finally:
        os.close(top)
    return sorted(walker.found, key=lambda entry: entry.parts)


class _Walker:
    def __init__(self, root: Path, prune: frozenset[str], read: bool) -> None:
        self.root = root
        self.prune = prune
        self.read = read
        self.found: list[Entry] = []
        self.entries = 0
        self.hashed = 0

    def folder(self, fd: int, parts: tuple[str, ...]) -> None:
        if len(parts) > MAX_DEPTH:
            self._refuse(f"nests folders more than {MAX_DEPTH} deep ({'/'.join(parts[:3])}/...)")
        subfolders: list[str] = []
        try:
            self._list(fd, parts, subfolders)
        except OSError as error:
            where = "/".join(parts) or "its folder"
            self._refuse(f"has {where}, which cannot be listed: {error.strerror}")
        for name in subfolders:
            try:
                child = os.open(name, os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError:
                continue  # replaced by something else since it was listed
            try:
                self.folder(child, (*parts, name))
            finally:
                os.close(child)

    def _list(self, fd: int, parts: tuple[str, ...], subfolders: list[str]) -> None:
        """Each entry of one open folder: files and links kept, folders noted for later."""
        with os.scandir(fd) as listing:
            for item in listing:
                self.entries += 1
                if self.entries > MAX_ENTRIES:
                    self._refuse(f"holds more than {MAX_ENTRIES} files and folders")
                if item.name in self.prune:
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue  # gone since it was listed
                mode, here = info.st_mode, (*parts, item.name)
                if stat.S_ISDIR(mode):
                    subfolders.append(item.name)
                elif stat.S_ISLNK(mode):
                    try:
                        target = os.readlink(item.name, dir_fd=fd)
                    except OSError:
                        continue  # gone since it was listed
                    self.found.append(Entry(here, Kind.LINK, 0, info.st_mtime_ns, target=target))
                elif stat.S_ISREG(mode):
                    digest = self._digest(fd, here, info.st_size) if self.read else b""
                    self.found.append(
                        Entry(here, Kind.FILE, info.st_size, info.st_mtime_ns, sha256=digest)
                    )
                # A named pipe, a socket or a device holds no code: passed over, never opened.

    def _digest(self, fd: int, parts: tuple[str, ...], size: int) -> bytes:
        self._take(parts, size, size)
        try:
            opened = os.open(parts[-1], _NOFOLLOW, dir_fd=fd)
        except OSError as error:
            self._refuse(f"has {'/'.join(parts)}, which cannot be read: {error.strerror}")
        try:
            info = os.fstat(opened)
            if not stat.S_ISREG(info.st_mode):
                self._refuse(f"replaced {'/'.join(parts)} while it was read")
            self._take(parts, info.st_size - size, info.st_size)  # it grew since it was listed
            return _sha256(opened, info.st_size)
        finally:
            os.close(opened)

    def _take(self, parts: tuple[str, ...], more: int, size: int) -> None:
        self.hashed += more
        if self.hashed > MAX_HASHED_BYTES:
            self._refuse(
                f"holds more than {MAX_HASHED_BYTES >> 20} MiB of files to hash "
                f"({'/'.join(parts)} is {size >> 20} MiB); the arena reads every file "
                "outside bin/, target/ and node_modules/ to record which code played"
            )

    def _refuse(self, why: str) -> NoReturn:
        raise ManifestError(f"{self.root.name} {why}")


def _sha256(fd: int, size: int) -> bytes:
    """The digest of the first `size` bytes of an open file: a file that grows is not
    followed past the size it had."""
    digest = hashlib.sha256()
    while size > 0:
        chunk = os.read(fd, min(_CHUNK, size))
        if not chunk:
            break
        digest.update(chunk)
        size -= len(chunk)
    return digest.digest()


def file_sha256(path: Path) -> bytes:
    """The digest of one regular file the organiser named (a script bot): a link the organiser
    made is followed, but a pipe or device is refused and a large file is not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ManifestError(f"{path.name} cannot be read: {error.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ManifestError(f"{path.name} is not a regular file")
        if info.st_size > MAX_HASHED_BYTES:
            raise ManifestError(f"{path.name} is more than {MAX_HASHED_BYTES >> 20} MiB")
        return _sha256(fd, info.st_size)
    finally:
        os.close(fd)


def read_regular(path: Path, cap: int) -> bytes | None:
    """A small file the arena reads where a bot may have written (its `bot.toml`): not through
    a link, not blocking on a pipe, not past `cap` bytes; None if there is no such file."""
    try:
        fd = os.open(path, _NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            why = "it is a symbolic link, which the arena does not follow"
        else:
            why = error.strerror or str(error)
        raise ManifestError(f"{path.name} cannot be read: {why}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ManifestError(f"{path.name} cannot be read: it is not a regular file")
        data = b""
        while len(data) <= cap and (chunk := os.read(fd, cap + 1 - len(data))):
            data += chunk
        if len(data) > cap:
            raise ManifestError(f"{path.name} cannot be read: it is larger than {cap} bytes")
        return data
    finally:
        os.close(fd)
