"""A league's folders walked for an archive without following anything a bot could plant.

The results and submissions folders hold what bots and their builds wrote (a
log, a built tree), and a bot may leave a symbolic link to a file of the
server's, or a named pipe whose open would hang the archive. So the walk
opens every folder and file by its name in the folder it was found in
(`dir_fd`), with `O_NOFOLLOW`, and a file with `O_NONBLOCK` before checking,
on the open descriptor itself, that it is a regular file: an entry swapped
for a link or a pipe between the look and the open is refused too. A link is
handed back as one, its target read and never followed; anything else (a pipe,
a socket, a device) is skipped and said.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Folder:
    relative: str
    mode: int
    mtime: float


@dataclass(frozen=True, slots=True)
class File:
    """A regular file, open: the caller reads `fd` and closes it."""

    relative: str
    fd: int
    size: int
    mode: int
    mtime: float


@dataclass(frozen=True, slots=True)
class Linked:
    relative: str
    target: str


@dataclass(frozen=True, slots=True)
class Skipped:
    relative: str
    why: str


Found = Folder | File | Linked | Skipped


def walk(
    root: Path, prefix: str, leave_out: Callable[[str], bool] = lambda _: False
) -> Iterator[Found]:
    """Everything under `root`, folders before what they hold, names sorted; each named
    `prefix/relative`. `leave_out(relative)` names what is not walked at all."""
    try:
        fd = os.open(root, _FOLDER)
    except OSError as error:
        yield Skipped(prefix, f"cannot be opened as a folder ({error.strerror or error})")
        return
    try:
        yield from _inside(fd, prefix, "", leave_out)
    finally:
        os.close(fd)


def _inside(fd: int, prefix: str, here: str, leave_out: Callable[[str], bool]) -> Iterator[Found]:
    try:
        with os.scandir(fd) as listing:
            names = sorted(entry.name for entry in listing)
    except OSError as error:
        yield Skipped(f"{prefix}/{here}", f"cannot be listed ({error.strerror or error})")
        return
    for name in names:
        relative = f"{here}{name}"
        if leave_out(relative):
            continue
        shown = f"{prefix}/{relative}"
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            target = os.readlink(name, dir_fd=fd) if stat.S_ISLNK(info.st_mode) else ""
        except FileNotFoundError:
            continue  # gone since the listing: nothing to keep
        except OSError as error:
            yield Skipped(shown, f"cannot be read ({error.strerror or error})")
            continue
        if stat.S_ISLNK(info.st_mode):
            yield Linked(shown, target)
        elif stat.S_ISDIR(info.st_mode):
            yield from _folder(fd, name, prefix, relative, leave_out)
        elif stat.S_ISREG(info.st_mode):
            yield _file(fd, name, shown)
        else:
            yield Skipped(shown, f"{_kind(info.st_mode)}, not a file: not opened")


def _folder(
    fd: int, name: str, prefix: str, relative: str, leave_out: Callable[[str], bool]
) -> Iterator[Found]:
    shown = f"{prefix}/{relative}"
    try:
        inner = os.open(name, _FOLDER, dir_fd=fd)
    except OSError as error:
        yield Skipped(shown, f"cannot be opened ({error.strerror or error}): changed meanwhile?")
        return
    try:
        info = os.fstat(inner)
        yield Folder(shown, stat.S_IMODE(info.st_mode), info.st_mtime)
        yield from _inside(inner, prefix, f"{relative}/", leave_out)
    finally:
        os.close(inner)


def _file(fd: int, name: str, shown: str) -> File | Skipped:
    try:
        opened = os.open(name, _FILE, dir_fd=fd)
    except OSError as error:
        return Skipped(shown, f"cannot be opened ({error.strerror or error}): changed meanwhile?")
    return _checked(opened, shown)


def _checked(opened: int, shown: str) -> File | Skipped:
    """An opened entry kept if it is a regular file (not a pipe swapped in), else closed."""
    info = os.fstat(opened)
    if not stat.S_ISREG(info.st_mode):
        os.close(opened)
        return Skipped(shown, f"{_kind(info.st_mode)} since it was listed: not read")
    os.set_blocking(opened, True)
    return File(shown, opened, info.st_size, stat.S_IMODE(info.st_mode), info.st_mtime)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def open_file(path: Path, shown: str) -> File | Skipped:
    """One file named by its path (its last step not followed), opened as `walk` opens one."""
    try:
        opened = os.open(path, _FILE)
    except OSError as error:
        return Skipped(shown, f"cannot be opened ({error.strerror or error})")
    return _checked(opened, shown)
