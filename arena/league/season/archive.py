"""`arena league archive FILE`: a season in one file, from which it is checked and restored.

What makes a season is four things in three places: the league store, the
results folder (every tournament's and ladder round's records, as they lie:
this module reads the tree, not its layout), the submitted versions the store
names, and the ladder's secret. They go into one gzipped tar, the store
first, as one snapshot (SQLite's online backup, or `pg_dump`), then the
folders: a game reaches its folder before the store hears of it, so an
archive made while the server plays holds every game the store does, and
perhaps a few more that `arena league rebuild` takes in.

The file is written beside its name, readable by its user alone (it holds the
ladder's secret and the entrants' token hashes), synced and only then given
its name; it never replaces a file. Nothing a bot could have planted in the
folders is followed or opened (`arena.league.season.walk`): links and pipes
are skipped and said, except a line-up's links, which the arena made and
which are kept as records (`manifest.Link`). The manifest, written
last, holds every member's SHA-256; its own hash is printed, for an organiser
to publish or keep apart.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from arena.league.ladder.rounds import secret_path
from arena.league.season.manifest import (
    POSTGRES_STORE,
    RESERVED,
    SECRET,
    SQLITE_STORE,
    SUBMISSIONS,
    TOP,
    ArchiveError,
    Link,
    Manifest,
    Member,
)
from arena.league.season.walk import File, Folder, Linked, Skipped, open_file, walk
from arena.store import is_url, open_store, recorded
from arena.store.backup import backup, sync_folder
from arena.submissions.folder import submissions_folder
from arena.tournament.results.upkeep.check_memory import MEMORY

SERVER_FILES = frozenset({"server.lock", "admin.token"})
"""A running server's own files beside its store: made anew at each start."""


@dataclass(frozen=True, slots=True)
class Archived:
    path: Path
    members: int
    bytes: int
    """The archive's size on disk."""
    read: int
    """Bytes of the members, before compression."""
    skipped: tuple[str, ...]
    manifest_sha256: str
    games: int | None
    """Games in the store archived (None for a PostgreSQL league: its dump is opaque)."""


def archive(league: Path | str, results: Path, dest: Path) -> Archived:
    """Write the season of `league` (its results folder `results`) to `dest`, a new file
    (or a new file named by the time in the folder `dest`)."""
    if not is_url(league) and not Path(league).is_file():
        raise ArchiveError(f"there is no league store {league} to archive: give its --league")
    target = dest / f"season-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz" if dest.is_dir() else dest
    if target.exists() or target.is_symlink():
        raise ArchiveError(f"{target} already exists: give a new file's name, or a folder")
    if not target.parent.is_dir():
        raise ArchiveError(f"the folder {target.parent} does not exist")
    if not results.is_dir():
        raise ArchiveError(f"there is no results folder {results}: give the server's --out")
    files = submissions_folder(league, results)
    for inside in (results, files):
        if target.parent.resolve().is_relative_to(inside.resolve()):
            raise ArchiveError(
                f"{target} is inside {inside}, which the archive holds: write it elsewhere"
            )
    work = Path(tempfile.mkdtemp(prefix=".season-", dir=target.parent))
    part = target.with_name(f".{target.name}.part")
    try:
        store, games = _store_copy(league, work)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with (
            os.fdopen(fd, "wb") as raw,
            tarfile.open(fileobj=raw, mode="w|gz", format=tarfile.PAX_FORMAT) as tar,
        ):
            writer = _Writer(tar)
            writer.add_file(open_file(store, f"{TOP}/{store.name}"))
            _secret(writer, secret_path(league, results))
            _results(writer, league, results, files)
            _submissions(writer, league, files)
            manifest = Manifest(
                time.time(),
                recorded(league),
                {"folder": str(results.resolve()), "submissions": str(files.resolve())},
                store.name,
                tuple(writer.members),
                tuple(writer.links),
                tuple(writer.skipped),
            )
            said = manifest.encoded()
            writer.add_bytes(f"{TOP}/manifest.json", said)
            tar.close()  # the gzip stream ended, before the file is synced
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(part, target)
    except OSError as error:
        raise ArchiveError(f"cannot write {target}: {error.strerror or error}") from None
    finally:
        part.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    sync_folder(target.parent)
    return Archived(
        target,
        len(writer.members) + 1,
        target.stat().st_size,
        writer.read,
        tuple(writer.skipped),
        hashlib.sha256(said).hexdigest(),
        games,
    )


def _store_copy(league: Path | str, work: Path) -> tuple[Path, int | None]:
    """The store at one moment, in `work`; and its games (for SQLite)."""
    if is_url(league):
        return _pg_dump(str(league), work / POSTGRES_STORE), None
    copied = backup(league, work / SQLITE_STORE)
    return copied.path, copied.games


def _pg_dump(url: str, target: Path) -> Path:
    """PostgreSQL's own consistent snapshot; its password through the environment, never
    on a command line another user's `ps` shows."""
    found = shutil.which("pg_dump")
    if found is None:
        raise ArchiveError(
            "a PostgreSQL league is archived with its pg_dump, and there is none on this "
            "machine's PATH: install PostgreSQL's client programs (of the server's major "
            "version or newer)"
        )
    password = urlsplit(url).password
    env = dict(os.environ) | ({"PGPASSWORD": unquote(password)} if password else {})
    done = subprocess.run(
        [found, "--format=custom", "--file", str(target), recorded(url)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise ArchiveError(f"pg_dump of {recorded(url)} failed: {done.stderr.strip()}")
    return target


def _secret(writer: _Writer, path: Path) -> None:
    if path.exists() or path.is_symlink():
        writer.add_file(open_file(path, f"{TOP}/{SECRET}"))


def _results(writer: _Writer, league: Path | str, results: Path, files: Path) -> None:
    """The results folder as it lies, less what the archive holds otherwise (the store, its
    journal, the secret, the submissions) and the running server's own files."""
    own = set(RESERVED | SERVER_FILES) | {MEMORY}  # a check's memory is of this store alone
    if not is_url(league) and Path(league).resolve().parent == results.resolve():
        name = Path(league).name
        own |= {name, f"{name}-wal", f"{name}-shm", f"{name}-journal"}
    if files.resolve().parent == results.resolve():
        own.add(files.name)
    for found in walk(results, TOP, lambda relative: relative in own):
        if isinstance(found, Linked):
            writer.skip(found.relative, f"a link (to {found.target}): not followed")
        else:
            writer.add(found)


def _submissions(writer: _Writer, league: Path | str, files: Path) -> None:
    """Each version the store names (accepted once: a withdrawn one played too), and the
    line-ups the nights played from."""
    store = open_store(league)
    try:
        named = sorted({row.sha256 for row in store.submissions() if row.version is not None})
    finally:
        store.close()
    if not named:
        return
    trees = {str((files / "versions" / sha / "bot").resolve()): sha for sha in named}
    for sha in named:
        prefix = f"{TOP}/{SUBMISSIONS}/versions/{sha}"
        if not (files / "versions" / sha).is_dir():
            writer.skip(prefix, "a version the store names, whose folder is missing")
            continue
        for found in walk(files / "versions" / sha, prefix):
            if isinstance(found, Linked):
                inside = posixpath.normpath(
                    posixpath.join(posixpath.dirname(found.relative), found.target)
                )
                if not found.target.startswith("/") and inside.startswith(prefix + "/"):
                    writer.link(found.relative, found.target)
                else:
                    writer.skip(found.relative, f"a link out of its version (to {found.target})")
            else:
                writer.add(found)
    if (files / "lineups").is_dir():
        for found in walk(files / "lineups", f"{TOP}/{SUBMISSIONS}/lineups"):
            if isinstance(found, Linked) and found.target in trees:
                writer.link(found.relative, f"/{SUBMISSIONS}/versions/{trees[found.target]}/bot")
            elif isinstance(found, Linked):
                writer.skip(found.relative, f"a link to no version kept ({found.target})")
            else:
                writer.add(found)


@dataclass
class _Writer:
    """The tar being written, and what the manifest will say of it."""

    tar: tarfile.TarFile
    members: list[Member] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    read: int = 0

    def link(self, name: str, target: str) -> None:
        self.links.append(Link(name.removeprefix(f"{TOP}/"), target))

    def skip(self, name: str, why: str) -> None:
        self.skipped.append(f"{name}: {why}")

    def add(self, found: File | Folder | Skipped) -> None:
        if isinstance(found, Folder):
            info = tarfile.TarInfo(found.relative)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, found.mode & 0o755, found.mtime
            self.tar.addfile(info)
        else:
            self.add_file(found)

    def add_file(self, found: File | Skipped) -> None:
        if isinstance(found, Skipped):
            self.skip(found.relative, found.why)
            return
        info = tarfile.TarInfo(found.relative)
        info.size, info.mode, info.mtime = found.size, found.mode & 0o755, found.mtime
        source = _Hashed(found.fd, found.size, found.relative)
        try:
            self.tar.addfile(info, source)
        finally:
            os.close(found.fd)
        self._member(found.relative, source.digest.hexdigest(), found.size)

    def add_bytes(self, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size, info.mode, info.mtime = len(data), 0o600, time.time()
        self.tar.addfile(info, io.BytesIO(data))

    def _member(self, name: str, sha256: str, size: int) -> None:
        self.members.append(Member(name.removeprefix(f"{TOP}/"), sha256, size))
        self.read += size


class _Hashed:
    """A file's first `size` bytes (its size when it was opened), hashed as tar reads them;
    a file cut shorter meanwhile is an error, never a member padded out."""

    def __init__(self, fd: int, size: int, name: str) -> None:
        self._fd = fd
        self._left = size
        self._name = name
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        want = self._left if size < 0 else min(size, self._left)
        data = os.read(self._fd, want) if want else b""
        if want and not data:
            raise ArchiveError(
                f"{self._name} was cut shorter while it was archived: archive again (or stop "
                "the server first)"
            )
        self._left -= len(data)
        self.digest.update(data)
        return data
