"""A bot's folder walked and read as a hostile build may leave it: links known by what they
hold and never followed, pipes, sockets and devices passed over, everything bounded."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import pytest

from arena.bots import botfiles
from arena.bots.botfiles import Kind, read_regular, walk
from arena.bots.manifest import ManifestError, hash_folder, load_entry

LIMIT = 60.0
"""Seconds before a step counts as a hang: far above what it needs."""
T = TypeVar("T")


def _within(work: Callable[[], T]) -> T:
    """`work`'s result; a step blocked on a pipe fails the test instead of holding it."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, daemon=True).start()
    return future.result(timeout=LIMIT)


def _bot(root: Path) -> Path:
    folder = root / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "trapped"\nrun = "python bot.py"\n')
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "lib" / "util.py").write_text("X = 1\n")
    return folder


def _old_style_hash(folder: Path) -> str:
    """The files hash as the arena always computed it, for a folder of plain files."""
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not {"bin", "target", "node_modules", "__pycache__", ".git"}
        & set(p.relative_to(folder).parts)
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def test_a_plain_folder_hashes_as_it_always_did(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    (folder / "bin").mkdir()
    (folder / "bin" / "out").write_bytes(b"\0" * 1000)
    assert hash_folder(folder) == _old_style_hash(folder)


def test_links_are_known_by_their_target_and_never_followed(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("the organiser's\n")
    (folder / "zero").symlink_to("/dev/zero")
    (folder / "away").symlink_to(outside)
    (folder / "loop").symlink_to("loop")
    entries = {e.relative: e for e in _within(lambda: walk(folder, read=True))}
    assert sorted(entries) == ["away", "bot.py", "bot.toml", "lib/util.py", "loop", "zero"]
    assert entries["zero"].kind is Kind.LINK and entries["zero"].target == "/dev/zero"
    assert entries["away"].target == str(outside)  # not walked into: no away/secret.txt
    before = hash_folder(folder)
    (folder / "zero").unlink()
    (folder / "zero").symlink_to("/dev/null")
    assert hash_folder(folder) != before


def test_pipes_and_sockets_are_passed_over_unopened(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    before = hash_folder(folder)
    os.mkfifo(folder / "pipe")
    os.mkfifo(folder / "lib" / "bot.toml")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(folder / "sock"))
        assert _within(lambda: hash_folder(folder)) == before
        assert "pipe" not in {e.relative for e in walk(folder)}


def test_a_huge_sparse_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    with (folder / "lib" / "model.bin").open("wb") as out:
        out.truncate(100 << 30)
    with pytest.raises(ManifestError, match=r"bot holds more than 1024 MiB .*lib/model.bin"):
        _within(lambda: hash_folder(folder))
    assert len(walk(folder)) == 4  # listed by size, never read, it is no trouble


def test_too_many_entries_or_too_deep_a_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _bot(tmp_path)
    monkeypatch.setattr(botfiles, "MAX_ENTRIES", 20)
    for n in range(10):
        (folder / "lib" / f"m{n}.py").write_text("")
    hash_folder(folder)  # 15 entries
    for n in range(10, 20):
        (folder / "lib" / f"m{n}.py").write_text("")
    with pytest.raises(ManifestError, match="bot holds more than 20 files and folders"):
        hash_folder(folder)
    monkeypatch.setattr(botfiles, "MAX_ENTRIES", 1000)
    monkeypatch.setattr(botfiles, "MAX_DEPTH", 5)
    (folder / "a" / "b" / "c" / "d" / "e").mkdir(parents=True)
    hash_folder(folder)
    (folder / "a" / "b" / "c" / "d" / "e" / "f").mkdir()
    with pytest.raises(ManifestError, match="nests folders more than 5 deep"):
        hash_folder(folder)


def test_an_unreadable_file_is_a_reason_not_a_traceback(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a file of any mode")
    folder = _bot(tmp_path)
    (folder / "lib" / "util.py").chmod(0)
    with pytest.raises(ManifestError, match=r"bot has lib/util\.py, which cannot be read"):
        hash_folder(folder)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (
            lambda p, out: p.symlink_to(out),
            "it is a symbolic link, which the arena does not follow",
        ),
        (lambda p, out: os.mkfifo(p), "it is not a regular file"),
        (lambda p, out: p.write_text("# " + "x" * 70_000 + "\n"), "it is larger than 65536 bytes"),
    ],
    ids=["link", "pipe", "huge"],
)
def test_a_bot_toml_left_as_a_trap_is_refused_without_reading_through_it(
    tmp_path: Path, make: Callable[[Path, Path], object], reason: str
) -> None:
    folder = _bot(tmp_path)
    outside = tmp_path / "outside.toml"
    outside.write_text('name = "someone-else"\nrun = "python bot.py"\n')
    (folder / "bot.toml").unlink()
    make(folder / "bot.toml", outside)
    with pytest.raises(ManifestError, match=f"bot.toml cannot be read: {reason}"):
        _within(lambda: load_entry(folder))


def test_read_regular_reads_a_small_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "small"
    path.write_bytes(b"x" * 100)
    assert read_regular(path, 100) == b"x" * 100
    with pytest.raises(ManifestError, match="small cannot be read: it is larger than 99 bytes"):
        read_regular(path, 99)
    assert read_regular(tmp_path / "absent", 100) is None
