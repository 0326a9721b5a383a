"""A bot's log as the author's page reads it: never through a link, never a pipe, its end only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.web.league_view import LOG_TAIL, LogUnavailableError, read_log


def folder(out: Path) -> Path:
    logs = out / "night1" / "logs"
    logs.mkdir(parents=True)
    return logs


def test_the_entrants_own_log_is_read_and_a_long_one_from_its_end(tmp_path: Path) -> None:
    logs = folder(tmp_path)
    (logs / "alice.log").write_text("alice's line\n")
    assert read_log(tmp_path, "night1", "alice") == "alice's line\n"
    (logs / "alice.log").write_bytes(b"a" * LOG_TAIL + b"the end\n")
    text = read_log(tmp_path, "night1", "alice")
    assert text.startswith("[the first 8 bytes left out]\n") and text.endswith("the end\n")


def test_links_pipes_and_odd_names_are_refused(tmp_path: Path) -> None:
    logs = folder(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text("not a log\n")
    (logs / "alice.log").symlink_to(secret)
    os.mkfifo(logs / "bob.log")
    (tmp_path / "elsewhere" / "logs").mkdir(parents=True)
    (tmp_path / "elsewhere" / "logs" / "carol.log").write_text("carol\n")
    (tmp_path / "night2").symlink_to(tmp_path / "elsewhere")
    cases = {
        ("night1", "alice"): "link",
        ("night1", "bob"): "not a regular file",
        ("night2", "carol"): "link",
        ("night1", "dave"): "no log",
        ("..", "alice"): "no log",
        ("night1/logs", "alice"): "no log",
        ("night1", "../alice"): "no log",
    }
    for (tournament, name), why in cases.items():
        with pytest.raises(LogUnavailableError, match=why):
            read_log(tmp_path, tournament, name)
