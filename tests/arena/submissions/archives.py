"""Archives made in the tests: honest ones, and hostile ones of every kind the server refuses."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Callable, Iterable
from pathlib import Path

MANIFEST = b'name = "alice"\nrun = "python bot.py"\n'
BOT = (Path(__file__).resolve().parents[3] / "sample_bots" / "random_bot.py").read_bytes()
"""A bot that passes the check: the random sample."""

Member = tuple[tarfile.TarInfo, bytes | None]


def file(name: str, data: bytes = b"x", mode: int = 0o644) -> Member:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def special(name: str, kind: bytes, target: str = "") -> Member:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def folder(name: str) -> Member:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    return info, None


def bot(*more: Member, manifest: bytes = MANIFEST) -> list[Member]:
    return [file("bot.toml", manifest), file("bot.py", BOT), *more]


def tar_gz(members: Iterable[Member], form: int = tarfile.GNU_FORMAT) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=form) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(raw.getvalue(), mtime=0)


def write(tmp: Path, data: bytes, name: str = "bot.tar.gz") -> Path:
    path = tmp / name
    path.write_bytes(data)
    return path


def bomb(size: int) -> bytes:
    """A bot whose one extra file is `size` zero bytes: a few KB once compressed."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in bot():
            tar.addfile(info, io.BytesIO(data or b""))
        info = tarfile.TarInfo("zeros.bin")
        info.size = size
        tar.addfile(info, _Zeros(size))
    return gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Callable[..., object] | bytearray | memoryview) -> int:  # type: ignore[override]
        n = min(len(buffer), self.left)  # type: ignore[arg-type]
        buffer[:n] = bytes(n)  # type: ignore[index]
        self.left -= n
        return n
