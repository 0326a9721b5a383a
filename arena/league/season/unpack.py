"""A season archive unpacked as if a stranger had made it: nothing it says is trusted.

An archive may have been damaged, or made to harm the machine it is restored
on, so it is read with the submissions' bounded tar reader
(`arena.submissions.tarstream`: decompressed a chunk at a time, extended
headers capped) and every entry checked before a byte of it is written:

- its path stays inside the folder: under `season/`, none absolute, no `..`,
  no control characters, at most `MAX_DEPTH` folders deep, no name twice;
- a regular file or a folder, nothing else: a link, a device or a pipe in the
  archive refuses it whole (the line-ups' links are records in the manifest,
  made again here only to a version's tree inside the folder);
- at most `Limits.members` entries and `Limits.bytes` of files, and never
  more than the disk it is written to has free, less `Limits.spare`.

Each file is written with `O_EXCL | O_NOFOLLOW` into a folder made for the
purpose that holds only what was made here. Each member is hashed as it is
written and compared with the manifest (the last member); a member that
differs, is missing or is not listed is a problem the caller is told of.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from arena.league.season.manifest import MANIFEST, SUBMISSIONS, TOP, ArchiveError, Manifest
from arena.submissions.tarstream import BLOCK, Entry, Inflated, IntakeError, entries, skip_padding

MAX_DEPTH = 64
MAX_PATH_BYTES = 4096
MANIFEST_BYTES = 256 * 1024 * 1024
GIB = 1024**3
_FILE = {b"0", b"\0", b"7"}
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Limits:
    bytes: int = 1024 * GIB
    """Bytes of files an archive may unpack to."""
    members: int = 20_000_000
    spare: int = GIB
    """Room left free on the disk unpacked to."""


BOUNDS = Limits()


@dataclass(frozen=True, slots=True)
class Unpacked:
    manifest: Manifest
    problems: tuple[str, ...]
    """Members that differ from the manifest, or that it does not list, or lists and are
    not there: a damaged or tampered archive."""
    members: int
    bytes: int
    manifest_sha256: str
    """The manifest's own hash, as `arena league archive` printed it when it made it."""


def unpack(archive: Path, into: Path, limits: Limits = BOUNDS) -> Unpacked:
    """Unpack `archive` into `into`, an empty folder made for it; an ArchiveError for an
    archive that is unsafe or unreadable, the problems for one that differs from its
    manifest."""
    room = os.statvfs(into)
    free = room.f_bavail * room.f_frsize - limits.spare
    cap = min(limits.bytes, max(free, 0))
    stream_cap = cap + MANIFEST_BYTES + (limits.members + 2) * 3 * BLOCK

    def too_much(total: int) -> str:
        return f"{archive} expands past {total} bytes, more than {cap} bytes: refused"

    try:
        with archive.open("rb") as source:
            return _unpack(Inflated(source, stream_cap, too_much), into, cap, limits)
    except IntakeError as error:
        raise ArchiveError(f"{archive} is refused: {error}") from None
    except OSError as error:
        raise ArchiveError(f"cannot unpack {archive}: {error.strerror or error}") from None


def _unpack(stream: Inflated, into: Path, cap: int, limits: Limits) -> Unpacked:
    hashes: dict[str, tuple[str, int]] = {}
    made: dict[tuple[str, ...], bool] = {(): True}
    manifest: Manifest | None = None
    said = ""
    count = written = 0
    for entry in entries(stream):
        parts = _parts(entry.name)
        count += 1
        if count > limits.members:
            raise ArchiveError(f"the archive holds more than {limits.members} members")
        if entry.kind == b"5":
            _folders(into, parts, made)
            os.chmod(into.joinpath(*parts), entry.mode & 0o755 | 0o700)  # a private one kept so
            continue
        if entry.kind not in _FILE:
            raise ArchiveError(
                f"the archive holds {'/'.join(parts)}, {_KINDS.get(entry.kind, 'not a file')}: "
                "a season archive holds files and folders alone; refused"
            )
        if manifest is not None:
            raise ArchiveError(f"the archive holds {'/'.join(parts)} after its manifest")
        if parts == (MANIFEST,):
            manifest, said = _manifest(stream, entry)
            continue
        written += entry.size
        if written > cap:
            raise ArchiveError(
                f"the archive unpacks to more than {cap} bytes of files (its bound, or the "
                f"room left on {into}'s disk): refused"
            )
        _folders(into, parts[:-1], made)
        if made.get(parts) is not None:
            raise ArchiveError(f"the archive holds {'/'.join(parts)} twice")
        made[parts] = False
        hashes["/".join(parts)] = (_write(stream, into.joinpath(*parts), entry), entry.size)
    if manifest is None:
        raise ArchiveError("the archive has no manifest (season/manifest.json) at its end")
    return Unpacked(manifest, _differences(manifest, hashes), count, written, said)


_KINDS = {
    b"1": "a hard link",
    b"2": "a symbolic link",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a named pipe",
}


def _parts(raw: bytes) -> tuple[str, ...]:
    """An entry's path under `season/`, as folder names; an ArchiveError for one that
    could lead anywhere else."""
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"the archive holds {raw[:100]!r}, a name that is not UTF-8") from None
    shown = repr(name[:200])
    if len(raw) > MAX_PATH_BYTES or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ArchiveError(f"the archive holds {shown}, a name no season archive has")
    if name.startswith("/"):
        raise ArchiveError(f"the archive holds {shown}, an absolute path: refused")
    parts = tuple(p for p in name.split("/") if p not in {"", "."})
    if ".." in parts:
        raise ArchiveError(f"the archive holds {shown}, a path with '..': refused")
    if not parts or parts[0] != TOP:
        raise ArchiveError(f"the archive holds {shown}, outside {TOP}/: not a season archive")
    if len(parts) > MAX_DEPTH or any(len(p.encode()) > 255 for p in parts):
        raise ArchiveError(f"the archive holds {shown}, nested too deep or too long a name")
    return parts[1:]


def _folders(into: Path, parts: tuple[str, ...], made: dict[tuple[str, ...], bool]) -> None:
    for depth in range(1, len(parts) + 1):
        here = parts[:depth]
        held = made.get(here)
        if held is False:
            raise ArchiveError(f"the archive holds {'/'.join(here)} as a file and a folder")
        if held is None:
            os.mkdir(into.joinpath(*here), 0o700)  # its own mode once its entry comes
            made[here] = True


def _write(stream: Inflated, path: Path, entry: Entry) -> str:
    """A member's bytes, as many as its header says; their SHA-256."""
    digest = hashlib.sha256()
    fd = os.open(path, _CREATE, 0o600)
    try:
        for piece in stream.chunks(entry.size):
            digest.update(piece)
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
        os.fchmod(fd, entry.mode & 0o755)
    finally:
        os.close(fd)
    skip_padding(stream, entry.size)
    return digest.hexdigest()


def _manifest(stream: Inflated, entry: Entry) -> tuple[Manifest, str]:
    if entry.size > MANIFEST_BYTES:
        raise ArchiveError(f"the archive's manifest is of {entry.size} bytes: refused")
    data = b"".join(stream.chunks(entry.size))
    skip_padding(stream, entry.size)
    try:
        return Manifest.from_json(json.loads(data)), hashlib.sha256(data).hexdigest()
    except ValueError as error:
        raise ArchiveError(f"the archive's manifest is not JSON ({error})") from None


def _differences(manifest: Manifest, hashes: dict[str, tuple[str, int]]) -> tuple[str, ...]:
    found = []
    listed = {m.name: m for m in manifest.members}
    for name, (sha256, size) in hashes.items():
        member = listed.get(name)
        if member is None:
            found.append(f"{name}: in the archive, not in its manifest")
        elif member.sha256 != sha256 or member.size != size:
            found.append(f"{name}: its contents are not the ones the manifest hashed (changed)")
    found += [f"{name}: in the manifest, missing" for name in listed if name not in hashes]
    return tuple(found)


def make_links(manifest: Manifest, into: Path, final: Path | None = None) -> None:
    """The line-ups' links, and the links inside versions, made again in `into`: each
    checked to lead to a path inside it (a version's tree, or inside its own version), never
    out. A line-up's link is absolute, to where the folder is to lie (`final`)."""
    into = into.resolve()
    for link in manifest.links:
        parts = _parts(f"{TOP}/{link.name}".encode())
        if parts[:1] != (SUBMISSIONS,) or len(parts) < 3:
            raise ArchiveError(f"the manifest names a link {link.name!r} outside {SUBMISSIONS}/")
        if link.target.startswith("/"):
            target = posixpath.normpath(link.target)
            if not _is_tree(target):
                raise ArchiveError(f"the manifest's link {link.name!r} leads out: refused")
            text = str(final or into) + target
        else:
            inside = posixpath.normpath(posixpath.join(posixpath.dirname(link.name), link.target))
            if parts[1] != "versions" or not inside.startswith("/".join(parts[:3]) + "/"):
                raise ArchiveError(f"the manifest's link {link.name!r} leads out: refused")
            text = link.target
        place = into.joinpath(*parts)
        if not place.parent.is_dir() or Path(os.path.realpath(place.parent)) != place.parent:
            raise ArchiveError(f"the manifest's link {link.name!r} is in no folder the archive has")
        os.symlink(text, place)


def _is_tree(target: str) -> bool:
    """Whether an absolute link target is "/submissions/versions/<sha256>/bot"."""
    parts = target.split("/")
    return (
        len(parts) == 5
        and parts[:3] == ["", SUBMISSIONS, "versions"]
        and len(parts[3]) == 64
        and all(c in "0123456789abcdef" for c in parts[3])
        and parts[4] == "bot"
    )
