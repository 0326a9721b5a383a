"""A league store that cannot be written for a while does not end the night: play goes on,
each game recorded in the folder, and the league catches up once the store answers, no game
lost or doubled; past the patience the run stops saying what is true and what to do, and a
resume finishes. Real runs on a real SQLite file, locked by another process."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tournament_harness import Recorder, copy_bots, lines_of

from arena.cli.webpage import pages
from arena.records import GameLine
from arena.store import open_store
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.report.ratings import Standing
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.results.upkeep.check import check
from arena.tournament.tournament import Progress, StoppedError, Tournament

LIMIT_S = 120

HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
"""
"""Another process holding the store's write lock until it is told to let go."""


class Locker:
    def __init__(self, store: Path) -> None:
        self.store = store
        self.process: subprocess.Popen[str] | None = None

    def hold(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(self.store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        assert self.process.wait(timeout=LIMIT_S) == 0


@dataclass
class During(Recorder):
    """A Recorder that begins an outage once `at` games are done, and ends it (if `end`)
    once the run has said it waits and `after` more games were played meanwhile."""

    at: int = 2
    after: int = 2
    begin: Callable[[], None] = lambda: None
    end: Callable[[], None] | None = None
    ended_at: list[int] = field(default_factory=list)

    def waits(self) -> bool:
        return any("Waiting up to" in note for note in self.notes)

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        super().game_finished(line, table, progress)
        done = len(self.finished)
        if done == self.at:
            self.begin()
        elif self.end and not self.ended_at and self.waits() and done >= self.at + self.after:
            self.ended_at.append(done)
            self.end()


def _config(tmp_path: Path, patience: float = 60.0) -> TournamentConfig:
    return TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        table_size=2,
        games=12,
        jobs=1,
        name="night",
        league=tmp_path / "league.sqlite",
        store_patience=patience,
    )


def _planned(folder: Path) -> Counter[str]:
    info = TournamentFolder(folder).info()
    return Counter(g.game_id for g in TournamentFolder(folder).schedule(info))


def _agree(league: Path, out: Path, folder: Path) -> None:
    """The league holds every game of the folder, once, and says nothing else."""
    assert Counter(line["game"] for line in lines_of(folder)) == _planned(folder)
    checked = check(league, [out])
    assert checked.differences == ()
    store = open_store(league)
    try:
        assert Counter(line.game for _, line in store.lines(["night"])) == _planned(folder)
    finally:
        store.close()


def test_a_store_locked_by_another_process_for_a_while_is_waited_out(tmp_path: Path) -> None:
    config = _config(tmp_path)
    locker = Locker(tmp_path / "league.sqlite")
    seen = During(begin=locker.hold, end=locker.release)
    try:
        summary = asyncio.run(Tournament(config, seen).run())
    finally:
        locker.release()
    folder = tmp_path / "out" / "night"
    assert (summary.status, summary.games) == ("finished", 12)
    waited = [n for n in seen.notes if "Waiting up to 60 s" in n]
    assert len(waited) == 1 and "another process holds its lock" in waited[0], seen.notes
    assert "recreates it" not in waited[0]  # a rebuild is for a damaged store
    assert seen.ended_at, "play did not go on while the store was locked"
    back = [n for n in seen.notes if "answers again" in n]
    assert len(back) == 1, seen.notes
    _agree(tmp_path / "league.sqlite", tmp_path / "out", folder)


def test_a_store_locked_past_the_patience_stops_the_run_truthfully_and_a_resume_finishes(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, patience=0.5)
    locker = Locker(tmp_path / "league.sqlite")
    seen = During(begin=locker.hold)
    try:
        with pytest.raises(StoppedError) as stopped:
            asyncio.run(Tournament(config, seen).run())
    finally:
        locker.release()
    folder = tmp_path / "out" / "night"
    message = str(stopped.value)
    assert "the league store was locked by another process for 0.5 s" in message
    assert "a resume gives the league the games it lacks" in message
    assert f"Stopped with every finished game in {folder / 'games.jsonl'}" in message
    assert f"once the store is back, continue with: arena run --resume {folder}" in message
    assert "recreates it" not in message
    # Nothing lost meanwhile: what the folder holds is what was played, the league behind it.
    played = lines_of(folder)
    assert len(played) == stopped.value.summary.games >= 2
    assert stopped.value.summary.status == "interrupted"

    again = dataclasses.replace(config, bots_dir=None)
    summary = asyncio.run(Tournament(again, Recorder()).run(resume=folder))
    assert (summary.status, summary.games) == ("finished", 12)
    _agree(tmp_path / "league.sqlite", tmp_path / "out", folder)


def test_no_patience_stops_at_the_first_failure(tmp_path: Path) -> None:
    config = _config(tmp_path, patience=0.0)
    locker = Locker(tmp_path / "league.sqlite")
    seen = During(begin=locker.hold)
    try:
        with pytest.raises(TournamentError, match="locked by another process for 0 s"):
            asyncio.run(Tournament(config, seen).run())
    finally:
        locker.release()


def test_a_stop_after_the_last_game_says_resume_and_the_resume_closes_the_books(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, patience=0.5)
    locker = Locker(tmp_path / "league.sqlite")
    seen = During(at=11, begin=locker.hold)  # the last game (of 12, one at a time) waits
    try:
        with pytest.raises(StoppedError) as stopped:
            asyncio.run(Tournament(config, seen).run())
    finally:
        locker.release()
    folder = tmp_path / "out" / "night"
    summary = stopped.value.summary
    assert (summary.status, summary.games) == ("interrupted", 12)
    assert f"continue with: arena run --resume {folder}" in str(stopped.value)
    # What `arena run` does on such a stop: the replays of the games played, as HTML.
    said: list[str] = []
    pages(summary, said.append)
    assert (folder / "html" / "index.html").is_file(), said

    # The resume the message gives finishes the run; only the books were left, so it needs
    # no bot (their folder may be gone by now).
    shutil.rmtree(tmp_path / "bots")
    resumed = Recorder()
    again = dataclasses.replace(config, bots_dir=None)
    summary = asyncio.run(Tournament(again, resumed).run(resume=folder))
    assert (summary.status, summary.games) == ("finished", 12)
    assert "every game is on record: closing the books" in resumed.notes
    assert summary.seed_hex is not None
    _agree(tmp_path / "league.sqlite", tmp_path / "out", folder)


def test_a_stop_asked_while_the_store_is_waited_for_is_prompt(tmp_path: Path) -> None:
    config = _config(tmp_path, patience=600.0)  # were it waited out, the message would say so
    locker = Locker(tmp_path / "league.sqlite")
    seen = During(begin=locker.hold)
    tournament = Tournament(config, seen)
    seen.end = tournament.request_stop  # a Ctrl-C once the run says it waits
    try:
        with pytest.raises(StoppedError) as stopped:
            asyncio.run(tournament.run())
    finally:
        locker.release()
    folder = tmp_path / "out" / "night"
    message = str(stopped.value)
    assert "stopped while waiting for the league store" in message, message
    assert f"continue with: arena run --resume {folder}" in message
    assert len(lines_of(folder)) == stopped.value.summary.games < 12
