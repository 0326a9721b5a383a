"""A bot's last good build, remembered: an unchanged bot is not built again.

A build can take minutes (Go modules, npm, cargo), and a night, its
`--resume` and every `arena check-bot` would each pay for it again. After a
build succeeds the arena writes a stamp into the bot's folder, `STAMP`: a
hash of the folder's files as the build left them (its outputs, `bin/`,
`target/`, `node_modules/`, by size and modification time), of the build
command, and of the toolchain it ran (each program the bot requires, the build's
own program, and the arena's Python, which builds reach for `grpc_tools`),
known by path, size and modification time. The next build of that folder
is skipped while they are all the same; `--rebuild` builds regardless. The
stamp is the arena's, not the bot's: it is no part of the files' hash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sys
from pathlib import Path

from arena.bots.manifest import OUTPUT_DIRS, STAMP, BotSpec, hash_folder


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
    must be built again. Known by size and time; their contents are the build's."""
    found = []
    for path in sorted(folder.rglob("*")):
        if OUTPUT_DIRS & set(path.relative_to(folder).parts) and path.is_file():
            stat = path.stat()
            found.append(f"{path.relative_to(folder)} {stat.st_size} {stat.st_mtime_ns}")
    return found


def _key(spec: BotSpec, files_sha256: str) -> str:
    words = spec.build or ()
    tools = sorted({*spec.programs, *words[:1], sys.executable})
    digest = hashlib.sha256()
    parts = (files_sha256, json.dumps(words), *map(_tool, tools), *_outputs(spec.path))
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def _stamp(spec: BotSpec) -> Path:
    return spec.path / STAMP


def current(spec: BotSpec) -> bool:
    """Whether the bot's folder is as its last successful build left it, by the same toolchain."""
    if spec.build is None or not spec.path.is_dir():
        return False
    try:
        stamp = json.loads(_stamp(spec).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(stamp, dict) and stamp.get("key") == _key(spec, spec.files_hash)


def forget(spec: BotSpec) -> None:
    """Before a build: a build that fails or is stopped leaves no stamp claiming it is done."""
    with contextlib.suppress(OSError):
        _stamp(spec).unlink()


def remember(spec: BotSpec) -> None:
    """After a successful build: the folder as the build left it, and the toolchain it used."""
    key = _key(spec, hash_folder(spec.path))
    with contextlib.suppress(OSError):  # a folder the arena may not write is built every time
        _stamp(spec).write_text(json.dumps({"key": key}) + "\n")
