"""What `arena league archive` reads of a league's folders: never a link followed, never a
pipe or a socket opened (a bot or a build may leave either), each skipped and said; the
archive written whole or not at all, and never inside what it holds."""

from __future__ import annotations

import os
import socket
import tarfile
from pathlib import Path

import pytest
from season_harness import season

from arena.league.season.archive import archive
from arena.league.season.manifest import ArchiveError
from arena.league.season.restore import check_archive


def test_links_pipes_and_sockets_in_the_folders_are_not_followed(
    night: Path, tmp_path: Path
) -> None:
    league = season(night, tmp_path)
    folder = league.parent
    private = tmp_path / "private.txt"
    private.write_text("the server's own secret\n")
    (folder / "night" / "logs").mkdir(exist_ok=True)
    os.symlink(private, folder / "night" / "logs" / "planted.log")
    os.symlink(tmp_path, folder / "night" / "outside")
    os.mkfifo(folder / "night" / "pipe")  # opened, it would hang the archive
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / "night2" / "bot.sock"))
    try:
        made = archive(league, folder, tmp_path / "season.tar.gz")
    finally:
        listener.close()
    skipped = "\n".join(made.skipped)
    assert "season/night/logs/planted.log: a link (to" in skipped
    assert "season/night/outside: a link" in skipped
    assert "season/night/pipe: a named pipe, not a file: not opened" in skipped
    assert "season/night2/bot.sock: a socket, not a file: not opened" in skipped
    with tarfile.open(made.path, "r:gz") as tar:
        names = tar.getnames()
        assert all(tar.getmember(n).isfile() or tar.getmember(n).isdir() for n in names)
        held = b"".join(
            tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        )
    assert b"the server's own secret" not in held
    assert not any("private" in n for n in names)
    assert check_archive(made.path).ok


def test_the_archive_is_not_written_inside_the_league_nor_over_a_file(
    night: Path, tmp_path: Path
) -> None:
    league = season(night, tmp_path)
    with pytest.raises(ArchiveError, match="inside"):
        archive(league, league.parent, league.parent / "night" / "season.tar.gz")
    (tmp_path / "taken.tar.gz").write_text("mine")
    with pytest.raises(ArchiveError, match="already exists"):
        archive(league, league.parent, tmp_path / "taken.tar.gz")
    assert (tmp_path / "taken.tar.gz").read_text() == "mine"
    with pytest.raises(ArchiveError, match="no league store"):
        archive(tmp_path / "gone.sqlite", league.parent, tmp_path / "other.tar.gz")
    named = archive(league, league.parent, tmp_path)  # a folder: a new file named by the time
    assert named.path.parent == tmp_path and named.path.name.startswith("season-")
