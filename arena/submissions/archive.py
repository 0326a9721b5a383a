"""`arena submit`'s side: a bot's folder packed into the archive the server takes in.

The folder is walked as the arena walks any bot's folder (`arena.bots.botfiles`:
never following a link, passing over pipes and devices), and what a build
makes or a checkout keeps (`bin/`, `target/`, `node_modules/`, `__pycache__/`,
`.git/`) is left out and said to be: the server builds the bot itself. A
symbolic link is refused here, as the server would refuse it, with the
way out. A single script is sent as a folder of itself and the `bot.toml`
the arena would read it by (its name from the file's, run by its interpreter).

The archive is a gzipped tar (GNU's format, for long names), made the same way
every time: the same files make the same bytes (no times, owners or modes but
the executable bit).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shlex
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena.bots.botfiles import Kind, ManifestError, walk
from arena.bots.manifest import MANIFEST, OUTPUT_DIRS, load_entry
from arena.errors import ArenaError

LEFT_OUT = frozenset({*OUTPUT_DIRS, "__pycache__", ".git"})
"""What a build makes or a checkout keeps: never sent."""
MAX_PACKED_BYTES = 1024 * 1024 * 1024
"""The most this side packs at all; the server's own cap is far lower, and says so."""


class PackError(ArenaError):
    """A bot that cannot be sent as it is; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Packed:
    name: str
    """The bot's name, as its bot.toml (or its script's name) gives it."""
    data: bytes
    files: int
    left_out: tuple[str, ...]
    """Top-level names of what was left out (a build's outputs, a checkout's)."""


def pack(path: Path) -> Packed:
    """The archive of the bot at `path`: a folder with a bot.toml, or a single script."""
    try:
        spec = load_entry(path)
    except ManifestError as error:
        raise PackError(str(error)) from None
    if spec is None:
        raise PackError(f"{path} is not a bot: a folder with a {MANIFEST}, or a .py/.js/.sh script")
    if path.is_dir():
        return _pack_folder(path, spec.name)
    lines = [f"name = {json.dumps(spec.name)}", f"run = {json.dumps(shlex.join(spec.run))}"]
    if spec.requires:  # a JSON string and list of strings are TOML's too
        lines.append(f"requires = {json.dumps(list(spec.requires))}")
    manifest = "\n".join([*lines, ""]).encode()
    files = [(path.name, path.read_bytes(), _executable(path)), (MANIFEST, manifest, False)]
    return Packed(spec.name, _archive(files), len(files), ())


def _pack_folder(folder: Path, name: str) -> Packed:
    try:
        found = walk(folder, prune=LEFT_OUT)
    except ManifestError as error:
        raise PackError(str(error)) from None
    files: list[tuple[str, bytes, bool]] = []
    total = 0
    for entry in found:
        if entry.kind is Kind.LINK:
            raise PackError(
                f"{entry.relative} is a symbolic link (to {entry.target}): the server accepts "
                "no links; put the file itself in its place"
            )
        total += entry.size
        if total > MAX_PACKED_BYTES:
            raise PackError(f"{folder} holds more than {MAX_PACKED_BYTES >> 20} MiB of files")
        path = folder / entry.relative
        files.append((entry.relative, _read(path), _executable(path)))
    left = sorted({p.name for p in folder.iterdir() if p.name in LEFT_OUT})
    return Packed(name, _archive(files), len(files), tuple(left))


def _read(path: Path) -> bytes:
    """A file of the author's own folder, read without following a link it may have become."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as opened:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PackError(f"{path} is not a regular file")
        return opened.read()


def _executable(path: Path) -> bool:
    return bool(os.stat(path, follow_symlinks=False).st_mode & 0o111)


def _archive(files: list[tuple[str, bytes, bool]]) -> bytes:
    """A gzipped tar of `files` (path, contents, executable), the same bytes every time."""
    out = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w|", format=tarfile.GNU_FORMAT) as tar,
    ):
        for relative, data, executable in sorted(files):
            info = tarfile.TarInfo(relative)
            info.size = len(data)
            info.mode = 0o755 if executable else 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()
