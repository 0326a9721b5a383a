"""A bot's last good build, remembered: an unchanged bot is not built again.

A build can take minutes (Go modules, npm, cargo), and a night, its
`--resume` and every `arena check-bot` would each pay for it again. After a
build succeeds the arena writes a stamp: a hash of the folder's files as the
build left them (its outputs, `bin/`, `target/`, `node_modules/`, by size and
modification time), of the build command, and of the toolchain it ran (each
program the bot requires, the build's own program, and the arena's Python,
which builds reach for `grpc_tools`), known by path, size and modification
time. The next build of that folder is skipped while they are all the same;
`--rebuild` builds regardless.

The stamp is the arena's, so it lives in the arena's own cache
(`~/.cache/perudo-arena/stamps`, one file per bot folder, named by the hash of
the folder's real path), never in the bot's folder: there the build could
leave a link in its place, through which the arena would write any file the
organiser may, or a named pipe, on which it would wait forever. It is written
to a new file and renamed into place, so a stamp is whole or absent. Deleting
that folder makes every bot build again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from arena.bots.botfiles import Kind, ManifestError, read_regular, walk
from arena.bots.builds.toolcache import arena_cache
from arena.bots.manifest import OUTPUT_DIRS, BotSpec, hash_folder

_STAMP_BYTES = 4096


def stamps() -> Path:
    """Where the arena keeps its build stamps: its own cache, which no build can see."""
    return arena_cache() / "stamps"


def _tool(program: str) -> str:
    """What identifies an installed program: its real path, size and modification time."""
    where = shutil.which(program)
    if where is None:
        return f"{program}: missing"
    path = Path(where).resolve()
    stat = path.stat()
    return f"{program}: {path} {stat.st_size} {stat.st_mtime_ns}"


def _outputs(folder: Path) -> list[str]:
    """The build's outputs, which the files' hash leaves out: a deleted `node_modules`
    must be built again. Known by size and time (a link by its target), never read:
    their contents are the build's."""
    found = []
    for entry in walk(folder):
        if OUTPUT_DIRS & set(entry.parts):
            if entry.kind is Kind.LINK:
                found.append(f"{entry.relative} -> {entry.target}")
            else:
                found.append(f"{entry.relative} {entry.size} {entry.mtime_ns}")
    return found


def _key(spec: BotSpec, files_sha256: str) -> str:
    words = spec.build or ()
    tools = sorted({*spec.programs, *words[:1], sys.executable})
    digest = hashlib.sha256()
    parts = (files_sha256, json.dumps(words), *map(_tool, tools), *_outputs(spec.path))
    for part in parts:
        digest.update(os.fsencode(part) + b"\0")
    return digest.hexdigest()


def stamp_path(spec: BotSpec) -> Path:
    """The stamp of the bot's folder, known by its real path: the same folder reached
    through another path (a link to the bots folder) has the same stamp."""
    where = os.fsencode(spec.path.resolve())
    return stamps() / f"{hashlib.sha256(where).hexdigest()}.json"


def current(spec: BotSpec) -> bool:
    """Whether the bot's folder is as its last successful build left it, by the same toolchain."""
    if spec.build is None or not spec.path.is_dir():
        return False
    try:
        stamp = json.loads(read_regular(stamp_path(spec), _STAMP_BYTES) or b"null")
        return isinstance(stamp, dict) and stamp.get("key") == _key(spec, spec.files_hash)
    except (OSError, ValueError, ManifestError):
        return False  # no stamp, or a folder that cannot be listed: build it, and say why then


FIRST_BUILD = (
    "its first build here: fetching and compiling its dependencies can take minutes; "
    "later runs reuse the build"
)
"""Said as a bot that was never built on this machine is built: a Go, Rust or JavaScript
build's first minutes, with nothing on the screen, look like a hang."""


def built_before(spec: BotSpec) -> bool:
    """Whether the bot's folder has a stamp of a build, current or not: a folder without one
    is built here for the first time (or since the cache was cleared, or a build failed)."""
    try:
        return stamp_path(spec).exists()
    except OSError:
        return False


def forget(spec: BotSpec) -> None:
    """Before a build: a build that fails or is stopped leaves no stamp claiming it is done."""
    with contextlib.suppress(OSError):
        stamp_path(spec).unlink()


def remember(spec: BotSpec) -> None:
    """After a successful build: the folder as the build left it, and the toolchain it used.

    Raises ManifestError when the build left a folder the arena will not read (see
    `arena.bots.botfiles`): the next run would refuse it, so the build has failed.
    """
    key = _key(spec, hash_folder(spec.path))
    target = stamp_path(spec)
    text = json.dumps({"key": key, "folder": str(spec.path.resolve())}) + "\n"
    with contextlib.suppress(OSError):  # a cache the arena may not write: built every time
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, staging = tempfile.mkstemp(prefix=".stamp-", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(staging, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
