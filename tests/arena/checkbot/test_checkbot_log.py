"""check-bot keeps the bot's log, says where, and shows its last lines with each failure."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from arena.checkbot.check import Check, check_bot
from arena.cli.main import main as arena_main

DYING = """\
import os
import sys

from arena.kit import run

print("loading the model: done", file=sys.stderr, flush=True)


def act(obs):
    print("about to fail: the model has no answer here", file=sys.stderr, flush=True)
    os._exit(3)


run(act)
"""


def _bot(folder: Path) -> Path:
    """One session, so the process that dies is the one the arena started and can tell of."""
    folder.mkdir()
    (folder / "dying.py").write_text(DYING)
    (folder / "bot.toml").write_text('name = "dying"\nrun = "python dying.py"\nsessions = 1\n')
    return folder


def test_a_failure_shows_the_end_of_the_log_which_is_kept(tmp_path: Path) -> None:
    seen: list[Check] = []
    run = asyncio.run(check_bot(_bot(tmp_path / "bot"), seen.append, 1.0, 20.0))
    try:
        failed = [c for c in run.checks if not c.passed]
        assert failed, run.checks
        first = failed[0]
        assert first.name == "opening", first
        assert "exited with code 3" in first.detail, first.detail
        assert any("about to fail: the model has no answer here" in x for x in first.log_tail)
        assert run.log is not None and run.log.exists(), "the log is gone with the check"
        assert "loading the model: done" in run.log.read_text()
    finally:
        if run.log is not None:
            shutil.rmtree(run.log.parent)


def test_the_command_says_where_the_log_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = arena_main(["check-bot", str(_bot(tmp_path / "bot")), "--connect-timeout", "20"])
    out = capsys.readouterr().out
    assert code == 1
    assert "| about to fail: the model has no answer here" in out
    kept = [line for line in out.splitlines() if line.startswith("The bot's log is kept: ")]
    assert len(kept) == 1, out
    log = Path(kept[0].removeprefix("The bot's log is kept: "))
    try:
        assert "about to fail" in log.read_text()
    finally:
        shutil.rmtree(log.parent)
