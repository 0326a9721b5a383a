"""A submitted version at a ladder table is looked at before the table is laid out: one whose
files are gone, whose manifest does not read, or whose manifest names another entrant cannot
play, and why is said for a person; a table that still cannot start sits out the versions its
line-up skipped, else every submitted version at it."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from arena.league.ladder.preflight import culprits, unplayable
from arena.league.ladder.recorder import RoundRecorder
from arena.store import LeagueStore, open_store
from arena.submissions.folder import SubmissionsFolder
from arena.tournament.config import TournamentError


def _accept(store: LeagueStore, files: SubmissionsFolder, name: str, toml: str | None) -> None:
    sha = hashlib.sha256(name.encode()).hexdigest()
    store.begin_submission(f"uid-{name}", name, sha, 100, 1, time.time())
    assert store.finish_submission(f"uid-{name}", True, "", "", "") is not None
    if toml is not None:
        files.source(sha).mkdir(parents=True)
        files.bot(sha).mkdir()
        (files.bot(sha) / "bot.toml").write_text(toml)


@pytest.fixture
def league(tmp_path: Path) -> tuple[LeagueStore, SubmissionsFolder]:
    store = open_store(tmp_path / "league.sqlite")
    for name in ("good", "gone", "zoe", "garbled"):
        store.set_entrant(name, "0" * 64)
    return store, SubmissionsFolder(tmp_path / "submissions")


def test_each_version_that_cannot_start_is_named_with_why(
    league: tuple[LeagueStore, SubmissionsFolder],
) -> None:
    store, files = league
    _accept(store, files, "good", 'name = "good"\nrun = "python bot.py"\n')
    _accept(store, files, "gone", None)
    _accept(store, files, "zoe", 'name = "alpha"\nrun = "python bot.py"\n')
    _accept(store, files, "garbled", "name = \n")
    why = unplayable(store, files, ["good", "gone", "zoe", "garbled", "dialled-in"])
    assert set(why) == {"gone", "zoe", "garbled"}
    assert why["gone"].startswith("version 1 of gone cannot play, its files are missing from ")
    assert "arena admin withdraw gone@1" in why["gone"]
    assert "its bot.toml names 'alpha', not 'zoe'" in why["zoe"]
    assert why["garbled"].startswith("version 1 of garbled cannot play, its manifest does not")


def test_a_table_that_could_not_start_sits_out_whom_its_line_up_skipped() -> None:
    recorder = RoundRecorder(None, lambda: None, "ladder-000009")
    recorder.note("a: unchanged since its last build: not rebuilt")
    recorder.note("b: did not connect within 20 s (its manifest); stopped: (log: x)")
    error = TournamentError("--table-size 3 does not fit 2 entrants")
    said = recorder.about(["a", "b"])
    assert said == {"b": "did not connect within 20 s (its manifest); stopped: (log: x)"}
    assert culprits("ladder-000009", {"a": 1, "b": 2}, said, error) == {
        "b": "ladder-000009 could not start: did not connect within 20 s (its manifest); "
        "stopped: (log: x)"
    }
    # Naming none, every submitted version at the table sits out: never the same table again.
    assert culprits("ladder-000009", {"a": 1, "b": 2}, {}, error) == {
        "a": "ladder-000009 could not start: --table-size 3 does not fit 2 entrants",
        "b": "ladder-000009 could not start: --table-size 3 does not fit 2 entrants",
    }
