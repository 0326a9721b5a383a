"""The server's intake: every hostile archive refused with the reason, an honest one unpacked
as sent; each archive is made here, in the test."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from archives import MANIFEST, bomb, bot, file, folder, special, tar_gz, write

from arena.submissions.archive import pack
from arena.submissions.intake import unpack
from arena.submissions.limits import SubmissionLimits
from arena.submissions.tarstream import IntakeError
from arena.tournament.versions import tree_sha256

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"
LIMITS = SubmissionLimits()


def _unpack(tmp: Path, data: bytes, limits: SubmissionLimits = LIMITS, name: str = "alice"):  # type: ignore[no-untyped-def]
    return unpack(write(tmp, data), tmp / "tree", limits, name)


def test_an_honest_archive_is_unpacked_as_sent(tmp_path: Path) -> None:
    packed = pack(SAMPLES / "expert")
    got = unpack(write(tmp_path, packed.data), tmp_path / "tree", LIMITS, "expert")
    assert got.spec.name == "expert" and got.files == packed.files
    assert sorted(p.name for p in got.tree.iterdir()) == sorted(
        p.name for p in (SAMPLES / "expert").iterdir() if p.name != "__pycache__"
    )
    assert got.sha256 == tree_sha256(got.tree)
    assert (got.tree / "bot.py").read_bytes() == (SAMPLES / "expert" / "bot.py").read_bytes()


def test_a_script_is_sent_as_a_folder_with_its_manifest(tmp_path: Path) -> None:
    packed = pack(SAMPLES / "random_bot.py")
    got = unpack(write(tmp_path, packed.data), tmp_path / "tree", LIMITS, "random-bot")
    assert got.spec.run[1:] == ("random_bot.py",)
    assert sorted(p.name for p in got.tree.iterdir()) == ["bot.toml", "random_bot.py"]


def test_the_same_files_make_the_same_archive() -> None:
    assert pack(SAMPLES / "expert").data == pack(SAMPLES / "expert").data


def test_folders_and_modes_and_a_pax_archive(tmp_path: Path) -> None:
    members = bot(folder("lib"), file("lib/ü.py", b"x"), file("run.sh", b"#!/bin/sh\n", 0o755))
    got = _unpack(tmp_path, tar_gz(members, tarfile.PAX_FORMAT))
    assert (got.tree / "lib" / "ü.py").read_bytes() == b"x"
    assert (got.tree / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (got.tree / "bot.py").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    ("members", "said"),
    [
        (bot(file("/etc/evil", b"x")), "'/etc/evil', an absolute path"),
        (bot(file("../evil", b"x")), "'../evil', a path with '..'"),
        (bot(file("lib/../../evil", b"x")), "a path with '..'"),
        (bot(special("out", tarfile.SYMTYPE, "/etc/passwd")), "'out', a symbolic link"),
        (bot(special("in", tarfile.SYMTYPE, "bot.py")), "'in', a symbolic link"),
        (bot(special("hard", tarfile.LNKTYPE, "bot.py")), "'hard', a hard link"),
        (bot(special("tty", tarfile.CHRTYPE)), "'tty', a character device"),
        (bot(special("disk", tarfile.BLKTYPE)), "'disk', a block device"),
        (bot(special("fifo", tarfile.FIFOTYPE)), "'fifo', a named pipe"),
        (bot(special("odd", tarfile.CONTTYPE.replace(b"7", b"Z"))), "an entry of type b'Z'"),
        (bot(file("bot.py", b"again")), "bot.py twice"),
        (bot(file("bot.py/inner", b"x")), "bot.py as a file and a folder"),
        (bot(file("a\x1bb", b"x")), "a name with control characters"),
        (bot(file("/".join(["d"] * 40) + "/f", b"x")), "nests folders more than 32 deep"),
        ([file("bot.py", b"x")], "no bot.toml at its top"),
        ([file("alice/bot.toml", MANIFEST), file("alice/bot.py", b"x")], "no bot.toml at its top"),
        (bot(manifest=MANIFEST + b"shell = true\n"), "unknown key 'shell'"),
        (bot(manifest=b'name = "alice"\nrun = "python \'bot.py"\n'), "'run' cannot be split"),
        (bot(manifest=b'name = "alice"\nrun = ""\n'), "'run' is empty"),
        (bot(manifest=MANIFEST + b'build = "make $SECRET"\n'), "'build' names $SECRET"),
        (bot(manifest=b'name = "mallory"\nrun = "python bot.py"\n'), "names the bot 'mallory'"),
    ],
)
def test_a_hostile_archive_is_refused(tmp_path: Path, members: list, said: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(IntakeError) as refused:
        _unpack(tmp_path, tar_gz(members))
    assert said in str(refused.value)


def test_too_many_files(tmp_path: Path) -> None:
    members = bot(*(file(f"f{i}", b"") for i in range(20)))
    with pytest.raises(IntakeError, match="more than 10 files and folders"):
        _unpack(tmp_path, tar_gz(members), SubmissionLimits(max_files=10))


def test_too_many_bytes(tmp_path: Path) -> None:
    members = bot(file("big", bytes(range(256)) * 8192))  # 2 MiB that do not compress
    with pytest.raises(IntakeError, match="more than 1 MiB"):
        _unpack(tmp_path, tar_gz(members), SubmissionLimits(max_unpacked_bytes=1024 * 1024))


def test_a_compression_bomb_is_stopped_at_its_cap(tmp_path: Path) -> None:
    data = bomb(150 * 1024 * 1024)  # 150 MiB of zeros, within the bytes cap: 150 KB compressed
    assert len(data) < 1024 * 1024
    with pytest.raises(IntakeError, match=r"expands to more than 100 times its \d+ bytes"):
        _unpack(tmp_path, data)
    written = sum(p.stat().st_size for p in (tmp_path / "tree").rglob("*") if p.is_file())
    assert written <= 100 * len(data)  # counted while written, stopped at the cap


def test_a_file_said_to_be_huge_is_refused_before_a_byte_of_it_is_written(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, data in bot():
            tar.addfile(info, io.BytesIO(data or b""))
        members = raw.getvalue()  # before the end marker
    huge = tarfile.TarInfo("zeros.bin")
    huge.size = 1024 * 1024 * 1024  # said, never sent: the header alone follows the bot
    archive = gzip.compress(members + huge.tobuf(tarfile.GNU_FORMAT))
    with pytest.raises(IntakeError, match="more than 200 MiB of files"):
        _unpack(tmp_path, archive)
    assert not (tmp_path / "tree" / "zeros.bin").exists()


def test_a_huge_extended_header_is_not_read(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(MANIFEST)
        info.pax_headers = {"comment": "x" * 100_000}
        tar.addfile(info, io.BytesIO(MANIFEST))
    with pytest.raises(IntakeError, match="an extended header of 100"):
        _unpack(tmp_path, gzip.compress(raw.getvalue()))


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"not an archive at all", "not a gzipped tar"),
        (gzip.compress(b"x" * 2048, mtime=0), "not a tar archive"),
        (tar_gz(bot())[:200], "cut short"),
        (gzip.compress(b"\0" * 100, mtime=0), "cut short"),
    ],
    ids=["not-gzip", "not-tar", "cut-in-a-file", "no-end-marker"],
)
def test_a_broken_archive_is_refused(tmp_path: Path, data: bytes, said: str) -> None:
    with pytest.raises(IntakeError, match=said):
        _unpack(tmp_path, data)


def test_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT, encoding="latin-1") as tar:
        for info, data in bot(file("caf\xe9", b"x")):
            tar.addfile(info, io.BytesIO(data or b""))
    with pytest.raises(IntakeError, match="a name that is not UTF-8"):
        _unpack(tmp_path, gzip.compress(raw.getvalue()))
