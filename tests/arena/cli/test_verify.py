"""`arena verify` prints the failures and its verdict; `-v` an ok line for every game too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli.main import main


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["verify", *args])
    return code, capsys.readouterr().out.splitlines()


def test_an_honest_night_is_its_verdict_alone(
    night: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _verify(capsys, str(night))
    assert code == 0
    assert len(lines) == 1 and "every deal of its 6 games is the seed's" in lines[0], lines
    code, lines = _verify(capsys, "-v", str(night))
    assert code == 0
    assert sum(line.startswith("ok ") for line in lines) == 7  # the commitment, and 6 games
    assert "every deal of its 6 games is the seed's" in lines[-1]


def test_a_tampered_game_is_the_one_line_before_the_verdict(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "night"
    shutil.copytree(night, folder)
    replay = sorted((folder / "replays").glob("*.json"))[2]
    data = json.loads(replay.read_text())
    hand = data["events"][0]["hands"][0]
    hand[0] = hand[0] % 6 + 1  # one die changed after the fact
    replay.write_text(json.dumps(data))
    code, lines = _verify(capsys, str(folder))
    assert code == 1
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"FAIL {replay.stem}: round 1")
    assert "1 of 6 games do not match" in lines[1]
