"""Taking a submitted archive in: unpacked only as far as it is safe, and refused otherwise.

An archive comes from a stranger, so everything it says is checked before the
server writes a byte of it, and counted while it is written:

- a path must stay inside the bot's folder: none absolute, none with `..`, no
  control characters, no name twice, no file where a folder is wanted;
- a regular file or a folder, nothing else: no symbolic or hard link (a link
  could lead out of the folder, or make the arena read what it should not),
  no device, no named pipe, no sparse file;
- at most `max_files` entries and `max_unpacked_bytes` of files, counted as
  they are written, and a stream that expands at most `max_ratio` times the
  archive (past `RATIO_FLOOR`): a compression bomb stops at the cap, said as
  one;
- a `bot.toml` at the top that `arena.bots.manifest` accepts (no unknown key,
  a `run` and any `build` it can split into words) and that names the bot as
  its entrant was registered.

Everything is unpacked into a staging folder the caller made and removes on
refusal; nothing else is touched, so a refused archive leaves nothing behind.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.bots.manifest import MANIFEST, BotSpec, ManifestError, load_entry
from arena.submissions.limits import MIB, RATIO_FLOOR, SubmissionLimits
from arena.submissions.tarstream import BLOCK, Entry, Inflated, IntakeError, entries, skip_padding
from arena.tournament.versions import tree_sha256

MAX_DEPTH = 32
MAX_PATH_BYTES = 1024
_FILE = {b"0", b"\0", b"7"}
_REFUSED_KINDS = {
    b"1": "a hard link (links are not accepted: put the file itself in its place)",
    b"2": "a symbolic link (links are not accepted: put the file itself in its place)",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a named pipe",
    b"S": "a sparse file",
}
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Unpacked:
    """A bot taken in: its folder, what it holds, the hash of its files, its manifest."""

    tree: Path
    files: int
    bytes: int
    sha256: str
    spec: BotSpec


def unpack(archive: Path, tree: Path, limits: SubmissionLimits, name: str) -> Unpacked:
    """Unpack `archive` (a gzipped tar) into the new folder `tree`, as entrant `name`'s bot;
    an IntakeError naming the first thing wrong."""
    size = archive.stat().st_size
    stream_cap = min(
        max(limits.max_ratio * size, RATIO_FLOOR),
        limits.max_unpacked_bytes + (limits.max_files + 2) * 2 * BLOCK + 16 * BLOCK,
    )

    def too_much(total: int) -> str:
        if stream_cap < limits.max_unpacked_bytes:
            return (
                f"the archive expands to more than {limits.max_ratio} times its {size} bytes "
                "(a compression bomb?): refused"
            )
        return f"the archive unpacks to more than {limits.max_unpacked_bytes / MIB:g} MiB"

    tree.mkdir(mode=0o755)
    with archive.open("rb") as source:
        stream = Inflated(source, stream_cap, too_much)
        files, total = _extract(stream, tree, limits)
    return Unpacked(tree, files, total, tree_sha256(tree), _manifest(tree, name))


def _extract(stream: Inflated, tree: Path, limits: SubmissionLimits) -> tuple[int, int]:
    """Write each entry under `tree`; (entries, bytes of files) written."""
    made: dict[tuple[str, ...], bool] = {(): True}
    """Each path written, True for a folder."""
    count = written = 0
    for entry in entries(stream):
        parts = _parts(entry.name)
        refused = _REFUSED_KINDS.get(entry.kind)
        if refused is not None:
            raise IntakeError(f"the archive holds {_shown(entry.name)}, {refused}")
        if entry.kind != b"5" and entry.kind not in _FILE:
            raise IntakeError(
                f"the archive holds {_shown(entry.name)}, an entry of type {entry.kind!r}: "
                "only files and folders are accepted"
            )
        if not parts:
            continue  # "./", the folder itself
        count += 1
        if count > limits.max_files:
            raise IntakeError(f"the archive holds more than {limits.max_files} files and folders")
        _folders(tree, parts[:-1], made)
        held = made.get(parts)
        if entry.kind == b"5":
            if held is False:
                raise IntakeError(f"the archive holds {'/'.join(parts)} as a file and a folder")
            if held is None:
                os.mkdir(tree.joinpath(*parts), 0o755)
                made[parts] = True
            continue
        if held is not None:
            raise IntakeError(f"the archive holds {'/'.join(parts)} twice")
        written += entry.size
        if written > limits.max_unpacked_bytes:
            raise IntakeError(
                f"the archive holds more than {limits.max_unpacked_bytes / MIB:g} MiB of files"
            )
        _write(stream, tree.joinpath(*parts), entry)
        made[parts] = False
    return count, written


def _folders(tree: Path, parts: tuple[str, ...], made: dict[tuple[str, ...], bool]) -> None:
    """The folders leading to an entry, made as needed (an archive need not list them)."""
    for depth in range(1, len(parts) + 1):
        here = parts[:depth]
        held = made.get(here)
        if held is False:
            raise IntakeError(f"the archive holds {'/'.join(here)} as a file and a folder")
        if held is None:
            os.mkdir(tree.joinpath(*here), 0o755)
            made[here] = True


def _write(stream: Inflated, path: Path, entry: Entry) -> None:
    """A file's contents, as many bytes as its header says and no more. The staging folder
    holds only what was made here, never a link, so its paths lead nowhere else."""
    mode = 0o755 if entry.mode & 0o111 else 0o644
    fd = os.open(path, _CREATE, mode)
    try:
        for piece in stream.chunks(entry.size):
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    skip_padding(stream, entry.size)


def _parts(raw: bytes) -> tuple[str, ...]:
    """The path of an entry as folder names, or an IntakeError for one that could lead
    anywhere but inside the bot's folder."""
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise IntakeError(f"the archive holds {_shown(raw)}, a name that is not UTF-8") from None
    if len(raw) > MAX_PATH_BYTES:
        raise IntakeError(f"the archive holds a path longer than {MAX_PATH_BYTES} bytes")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise IntakeError(f"the archive holds {_shown(raw)}, a name with control characters")
    if name.startswith("/"):
        raise IntakeError(f"the archive holds {_shown(raw)}, an absolute path")
    parts = tuple(p for p in name.split("/") if p not in {"", "."})
    if ".." in parts:
        raise IntakeError(f"the archive holds {_shown(raw)}, a path with '..'")
    if len(parts) > MAX_DEPTH:
        raise IntakeError(f"the archive nests folders more than {MAX_DEPTH} deep")
    if any(len(p.encode()) > 255 for p in parts):
        raise IntakeError("the archive holds a name longer than 255 bytes")
    return parts


def _shown(raw: bytes) -> str:
    """A name from the archive as it may be shown: quoted, escaped, cut short."""
    text = repr(raw.decode("utf-8", errors="backslashreplace"))
    return text if len(text) <= 120 else text[:117] + "..."


def _manifest(tree: Path, name: str) -> BotSpec:
    """The bot's manifest, read as any bot folder's is, and the name its entrant has."""
    if not (tree / MANIFEST).is_file():  # the staging folder holds no link to follow
        raise IntakeError(
            f"the archive holds no {MANIFEST} at its top: send the bot's folder itself "
            f"(its {MANIFEST} beside its code), not a folder around it"
        )
    try:
        spec = load_entry(tree)
    except ManifestError as error:
        raise IntakeError(str(error)) from None
    assert spec is not None  # a folder is always a bot entry
    if spec.name != name:
        raise IntakeError(
            f"{MANIFEST} names the bot {spec.name!r}, but this token is {name!r}'s: "
            f'a submitted bot plays under its entrant\'s name (name = "{name}")'
        )
    return spec
