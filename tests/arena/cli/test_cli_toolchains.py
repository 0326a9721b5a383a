"""`--toolchains FILE`: a wrong file stops the command before any bot is built, in one line;
a good one is what the arena and the processes it starts read (`ARENA_TOOLCHAINS`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots.toolchains import VARIABLE, strict_path
from arena.cli.main import main


def test_a_wrong_toolchain_file_stops_check_bot_before_any_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(VARIABLE, "")
    bad = tmp_path / "bad.toml"
    bad.write_text('[mine]\nprograms = ["a"]\ninstall = 9\n')
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "b"\nrun = "python bot.py"\nbuild = "touch built"\n')
    assert main(["check-bot", "--toolchains", str(bad), str(bot)]) == 1
    said = capsys.readouterr().err
    assert f"{bad}: [mine]: 'install' must be 1" in said
    assert not (bot / "built").exists()


def test_a_toolchain_file_is_kept_for_the_processes_the_arena_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, "")
    mine = tmp_path / "mine.toml"
    mine.write_text('[mine]\nprograms = ["mytool"]\nbin = ["/opt/mine/bin"]\n')
    assert main(["check-bot", "--toolchains", str(mine), str(tmp_path / "nothing-here")]) == 1
    assert os.environ[VARIABLE] == str(mine)
    assert "/opt/mine/bin" in strict_path()
