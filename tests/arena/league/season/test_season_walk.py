"""The walk of a league's folders for an archive: folders before what they hold, a link
handed back as one and never followed, a pipe never opened, what is left out not entered."""

from __future__ import annotations

import os
from pathlib import Path

from arena.league.season.walk import File, Folder, Linked, Skipped, open_file, walk


def test_links_are_named_not_followed_and_pipes_not_opened(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "c.txt").write_text("kept")
    (tree / "left").mkdir()
    (tree / "left" / "x").write_text("not walked")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("never read")
    os.symlink(outside, tree / "a" / "into")
    os.mkfifo(tree / "pipe")
    found = list(walk(tree, "top", lambda relative: relative == "left"))
    files = [f for f in found if isinstance(f, File)]
    try:
        assert [type(f).__name__ + " " + f.relative for f in found] == [
            "Folder top/a",
            "Folder top/a/b",
            "File top/a/b/c.txt",
            "Linked top/a/into",
            "Skipped top/pipe",
        ]
        assert os.read(files[0].fd, 100) == b"kept"
    finally:
        for f in files:
            os.close(f.fd)
    linked = next(f for f in found if isinstance(f, Linked))
    assert linked.target == str(outside)
    skipped = next(f for f in found if isinstance(f, Skipped))
    assert "a named pipe" in skipped.why
    assert all(not isinstance(f, Folder) or "outside" not in f.relative for f in found)


def test_one_file_by_its_path_is_not_followed_either(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert isinstance(open_file(tmp_path / "link", "season/ladder.secret"), Skipped)
    opened = open_file(tmp_path / "real", "season/ladder.secret")
    assert isinstance(opened, File) and opened.size == 1
    os.close(opened.fd)
