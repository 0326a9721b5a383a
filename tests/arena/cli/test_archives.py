"""`arena league archive FILE`, `archive --check FILE` and `arena league restore FILE --to
DIR` from the command line, on a season played for real: each says what it did, and the
restored folder passes `arena league check` and `arena verify`."""

from __future__ import annotations

from pathlib import Path

import pytest
from season_harness import season
from truth_harness import arena


def test_the_commands_archive_check_and_restore(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = season(night, tmp_path)
    file = tmp_path / "season.tar.gz"
    code, out, err = arena(capsys, "league", "archive", str(file), "--league", str(league))
    assert code == 0, err
    assert "Archived the season" in out and "18 games" in out and "keep it private" in out
    printed = out.split("SHA-256 is ")[1].split(":")[0]
    assert len(printed) == 64
    code, out, err = arena(capsys, "league", "archive", "--check", str(file))
    assert code == 0, out + err
    assert "is whole" in out and "3 tournaments verified (18 games)" in out
    assert printed in out  # the manifest's hash, as the archive printed it when made
    target = tmp_path / "new"
    code, out, err = arena(capsys, "league", "restore", str(file), "--to", str(target))
    assert code == 0, err
    assert "Restored" in out
    code, out, err = arena(capsys, "league", "check", "--league", str(target / "league.sqlite"))
    assert code == 0 and "agrees with its folders" in out, out + err
    code, out, err = arena(capsys, "verify", str(target / "night"))
    assert code == 0, out
