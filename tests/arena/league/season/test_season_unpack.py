"""A season archive unpacked as a stranger's: a path out, a link, a device, a link record out
of the folder, or more bytes than its bound refuse it whole, and nothing lands outside."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from arena.league.season.manifest import ArchiveError, Link, Manifest
from arena.league.season.unpack import Limits, make_links, unpack


def _manifest(links: tuple[Link, ...] = ()) -> bytes:
    return Manifest(0.0, "/x/league.sqlite", {}, "league.sqlite", (), links, ()).encoded()


def _archive(path: Path, *members: tarfile.TarInfo, manifest: bytes | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info in members:
            data = b"x" * info.size if info.isfile() else None
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
        said = _manifest() if manifest is None else manifest
        info = tarfile.TarInfo("season/manifest.json")
        info.size = len(said)
        tar.addfile(info, io.BytesIO(said))
    return path


def _file(name: str, size: int = 3) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    return info


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(
    ("member", "said"),
    [
        (_file("season/../escaped"), "a path with '..'"),
        (_file("/tmp/escaped"), "an absolute path"),
        (_file("elsewhere/escaped"), "outside season/"),
        (_link("season/night", "/etc"), "a symbolic link"),
        (_link("season/night", "/etc/passwd", tarfile.LNKTYPE), "a hard link"),
        (_link("season/pipe", "", tarfile.FIFOTYPE), "a named pipe"),
    ],
)
def test_a_hostile_member_refuses_the_archive(
    tmp_path: Path, member: tarfile.TarInfo, said: str
) -> None:
    into = tmp_path / "into"
    into.mkdir()
    archive = _archive(tmp_path / "hostile.tar.gz", _file("season/a"), member)
    with pytest.raises(ArchiveError, match=said):
        unpack(archive, into)
    assert not (tmp_path / "escaped").exists() and not Path("/tmp/escaped").exists()
    assert not [p for p in into.rglob("*") if p.is_symlink()]


def test_sizes_and_counts_are_bounded(tmp_path: Path) -> None:
    into = tmp_path / "into"
    into.mkdir()
    big = _archive(tmp_path / "big.tar.gz", _file("season/a", 600_000))  # compresses to little
    with pytest.raises(ArchiveError, match="more than 500000 bytes"):
        unpack(big, into, Limits(bytes=500_000, spare=0))
    many = _archive(tmp_path / "many.tar.gz", *(_file(f"season/f{i}") for i in range(5)))
    with pytest.raises(ArchiveError, match="more than 3 members"):
        unpack(many, tmp_path / "into", Limits(members=3, spare=0))


def test_a_name_twice_and_a_file_under_a_file_are_refused(tmp_path: Path) -> None:
    for n, (one, two) in enumerate([("season/a", "season/a"), ("season/a", "season/a/b")]):
        into = tmp_path / f"into{n}"
        into.mkdir()
        with pytest.raises(ArchiveError, match=r"twice|a file and a folder"):
            unpack(_archive(tmp_path / f"{n}.tar.gz", _file(one), _file(two)), into)


@pytest.mark.parametrize(
    "link",
    [
        Link("submissions/lineups/l1/alice", "/etc"),
        Link("submissions/lineups/l1/alice", "/submissions/versions/../../../etc/bot"),
        Link("submissions/versions/" + "a" * 64 + "/bot/x", "../../../../../etc"),
        Link("night/x", "/submissions/versions/" + "a" * 64 + "/bot"),
    ],
)
def test_a_link_record_leading_out_is_refused(tmp_path: Path, link: Link) -> None:
    into = tmp_path / "into"
    archive = _archive(
        tmp_path / "a.tar.gz",
        _file("season/submissions/lineups/l1/versions.json"),
        _file("season/submissions/versions/" + "a" * 64 + "/bot/run"),
        _file("season/night/games.jsonl"),
        manifest=_manifest((link,)),
    )
    into.mkdir()
    unpacked = unpack(archive, into)
    with pytest.raises(ArchiveError, match=r"leads out|outside submissions"):
        make_links(unpacked.manifest, into)
    assert not [p for p in into.rglob("*") if p.is_symlink()]


def test_a_line_up_link_is_made_to_its_version_inside_the_folder(tmp_path: Path) -> None:
    sha = "b" * 64
    link = Link("submissions/lineups/l1/alice", f"/submissions/versions/{sha}/bot")
    archive = _archive(
        tmp_path / "a.tar.gz",
        _file("season/submissions/lineups/l1/versions.json"),
        _file(f"season/submissions/versions/{sha}/bot/run"),
        manifest=_manifest((link,)),
    )
    into = tmp_path / "into"
    into.mkdir()
    make_links(unpack(archive, into).manifest, into)
    made = into / "submissions" / "lineups" / "l1" / "alice"
    assert made.resolve() == (into / "submissions" / "versions" / sha / "bot").resolve()
    assert json.loads(_manifest())["format"] == "perudo-arena-season"
