"""A bot's log as the author's page reads it: never through a link, never a pipe, its end only;
a game's part of it as its index says, or the whole log saying why not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots.run.gamelogs import GameSlice, append_slice
from arena.web import league_view
from arena.web.league_view import LOG_TAIL, LogUnavailableError, read_game_log, read_log


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


def test_a_games_part_is_read_as_its_index_says(tmp_path: Path) -> None:
    logs = folder(tmp_path)
    log = logs / "alice.log"
    log.write_bytes(b"starting\n" + b"in g1\n" + b"between\n" + b"in g2\n")
    append_slice(log, GameSlice("g1", 9, 15))
    append_slice(log, GameSlice("g2", 23, 29))
    assert read_game_log(tmp_path, "night1", "alice", "g1") == league_view.GameLog("in g1\n")
    assert read_game_log(tmp_path, "night1", "alice", "g2").text == "in g2\n"
    gone = read_game_log(tmp_path, "night1", "alice", "g3")  # no part: the whole log
    assert gone.text == log.read_text() and gone.instead is not None
    assert "no part for this game" in gone.instead


def test_a_long_part_is_cut_from_its_start_and_a_short_log_said(tmp_path: Path) -> None:
    logs = folder(tmp_path)
    log = logs / "alice.log"
    log.write_bytes(b"before\n" + b"a" * LOG_TAIL + b"the end\n")
    append_slice(log, GameSlice("g1", 7, log.stat().st_size))
    text = read_game_log(tmp_path, "night1", "alice", "g1").text
    assert text.startswith("[the first 8 bytes of this game's part left out]\n")
    assert text.endswith("the end\n") and "before" not in text
    append_slice(log, GameSlice("g2", 7, log.stat().st_size + 100))  # the log was cut since
    text = read_game_log(tmp_path, "night1", "alice", "g2").text
    assert text.endswith("the end\n\n[the log ends here, before this game's part did]\n")
    append_slice(log, GameSlice("g3", log.stat().st_size + 1, log.stat().st_size + 9))
    shown = read_game_log(tmp_path, "night1", "alice", "g3")
    assert shown.instead == "the log ends before this game's part begins"


def test_an_index_that_is_a_pipe_or_too_long_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = folder(tmp_path)
    (logs / "bob.log").write_text("bob's line\n")
    os.mkfifo(logs / "bob.log.index")
    shown = read_game_log(tmp_path, "night1", "bob", "g1")
    assert shown.text == "bob's line\n" and shown.instead is not None
    assert "not a regular file" in shown.instead
    log = logs / "alice.log"
    log.write_text("0123456789\n")
    append_slice(log, GameSlice("g1", 0, 2))
    append_slice(log, GameSlice("g2", 2, 4))
    monkeypatch.setattr(league_view, "INDEX_TAIL", 60)  # the end of the second line alone
    assert read_game_log(tmp_path, "night1", "alice", "g2").text == "23"
    assert read_game_log(tmp_path, "night1", "alice", "g1").instead is not None
