"""`arena run` takes a time control: a bank, an increment, or no deadline at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.main import main


def _bots(folder: Path) -> Path:
    folder.mkdir()
    for name in ("one", "two"):
        (folder / f"{name}.py").write_text("raise SystemExit(0)\n")
    return folder


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([], "1 s per decision;"),
        (
            ["--time-bank", "2", "--increment", "0.5"],
            "1 s per decision, a bank of 2 s a game, +0.5 s to the bank per decision;",
        ),
        (["--move-time", "0.2", "--no-timeout"], "0.2 s per decision (TIMEOUTS OFF"),
    ],
)
def test_a_dry_run_says_the_time_control(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], said: str
) -> None:
    bots = _bots(tmp_path / "bots")
    out = tmp_path / "out"
    assert main(["run", "--bots", str(bots), "--out", str(out), "--dry-run", *flags]) == 0
    assert said in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("flag", ["--time-bank", "--increment"])
def test_a_negative_bank_or_increment_is_refused_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    bots = _bots(tmp_path / "bots")
    with pytest.raises(SystemExit):
        main(["run", "--bots", str(bots), "--dry-run", flag, "-1"])
    assert flag in capsys.readouterr().err


def test_a_resume_refuses_no_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "stopped"
    folder.mkdir()
    assert main(["run", "--resume", str(folder), "--no-timeout"]) == 1
    assert "--no-timeout starts a debug run" in capsys.readouterr().err
