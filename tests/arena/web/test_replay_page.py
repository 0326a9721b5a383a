"""The HTML replays of a tournament folder: a disk that fills while they are written leaves
no half page (`*.html.tmp`) behind."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from arena.web.replay_page import write_pages


def test_a_full_disk_leaves_no_half_written_page(
    tmp_path: Path, night: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "night"
    shutil.copytree(night, folder)
    real = Path.write_text

    def full(path: Path, text: str, *args: object, **kwargs: object) -> int:
        if path.name.endswith(".html.tmp"):  # half of it written, then no more space
            real(path, text[: len(text) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match="No space left"):
        write_pages(folder, [])
    assert list((folder / "html").glob("*.tmp")) == []
