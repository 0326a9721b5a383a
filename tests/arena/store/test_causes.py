"""Every failed open, read or write of a results folder or a league store is one line, no
traceback, with the advice that fits its cause: a read-only disk is told to be remounted,
a folder this user may not write to have its rights back, a lost games.jsonl that it is
missing, a lock that another process holds it; only a damaged store is told to rebuild.
Real files on real (tmpfs, read-only) mounts, and a run without root's override of rights."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_harness import arena_command, clean_env
from tournament_harness import Recorder, copy_bots
from truth_harness import arena, copy_night

from arena.records import GameLine
from arena.store import open_store
from arena.tournament.config import TournamentConfig
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress, StoppedError, Tournament

LIMIT_S = 120
REBUILD = "recreates it"
"""What the rebuild advice says: for a damaged store only."""


def _run_args(bots: Path, out: Path, league: Path) -> list[str]:
    return ["run", "--bots", str(bots), "--out", str(out), "--league", str(league)]


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _read_only(tmpfs: Callable[[str], Path]) -> Path:
    disk = tmpfs("4m")
    return disk


def _remount_ro(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)


def test_a_results_folder_on_a_read_only_disk_is_told_to_remount(
    tmp_path: Path, tmpfs: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    disk = _read_only(tmpfs)
    _remount_ro(disk)
    bots = copy_bots(tmp_path / "bots")
    code, _, err = arena(capsys, *_run_args(bots, disk / "out", tmp_path / "league.sqlite"))
    line = _one_line(err)
    assert code == 1
    assert f"cannot write {disk} " in line and "Read-only file system" in line, line
    assert "mounted read-only: remount it read-write" in line
    assert REBUILD not in line and "cannot go on: cannot" not in line


def test_a_league_store_on_a_read_only_disk_is_told_to_remount_not_to_rebuild(
    tmp_path: Path, tmpfs: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    disk = _read_only(tmpfs)
    open_store(disk / "league.sqlite").close()  # a league that was written, then went read-only
    _remount_ro(disk)
    bots = copy_bots(tmp_path / "bots")
    code, _, err = arena(capsys, *_run_args(bots, tmp_path / "out", disk / "league.sqlite"))
    line = _one_line(err)
    assert code == 1
    assert f"the league store {disk / 'league.sqlite'}" in line
    assert "mounted read-only: remount it read-write" in line
    assert REBUILD not in line
    assert not (tmp_path / "out").exists()  # refused before any folder


def test_a_damaged_league_store_is_still_told_to_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "league.sqlite"
    open_store(store).close()
    with store.open("r+b") as damaged:  # its header kept, its schema's page overwritten
        damaged.seek(100)
        damaged.write(b"\xff" * 900)
    code, _, err = arena(capsys, *_run_args(copy_bots(tmp_path / "bots"), tmp_path / "out", store))
    line = _one_line(err)
    assert code == 1 and "damaged" in line and REBUILD in line, line


def test_a_league_store_locked_by_another_process_says_so_not_to_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "league.sqlite"
    open_store(store).close()
    hold = (
        "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
        "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); sys.stdin.readline()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        argv = _run_args(copy_bots(tmp_path / "bots"), tmp_path / "out", store)
        code, out, err = arena(capsys, *argv, "--store-patience", "0.3")
    finally:
        holder.communicate("\n", timeout=LIMIT_S)
    line = _one_line(err)
    assert code == 1
    assert "locked by another process for 0.3 s" in line and "another process holds" in line
    assert REBUILD not in line
    assert "Waiting up to 0.3 s" in out  # the screen said it waited


def _unprivileged() -> list[str]:
    """A prefix that runs a command without root's right to ignore files' permissions."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root, a permission-denied folder needs setpriv (util-linux)")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]


def test_a_results_folder_this_user_may_not_write_is_told_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    bots = copy_bots(tmp_path / "bots")
    argv = [*_unprivileged(), *arena_command(), *_run_args(bots, out, tmp_path / "league.sqlite")]
    done = subprocess.run(
        [*argv, "--name", "t"],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env=clean_env(COLUMNS="200"),
        check=False,
    )
    line = _one_line(done.stderr)
    assert done.returncode == 1
    assert f"cannot write {out} " in line and "Permission denied" in line, line
    assert "give this user the rights back" in line and REBUILD not in line


def test_a_resume_whose_games_jsonl_is_missing_says_missing(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "out" / "league.sqlite"
    folder = copy_night(night, league, tmp_path / "out", keep=3)
    (folder / "games.jsonl").unlink()
    code, _, err = arena(capsys, "run", "--resume", str(folder))
    line = _one_line(err)
    assert code == 1
    assert f"{folder / 'games.jsonl'} is missing" in line and "Put it back" in line, line
    assert "cannot write" not in line


class Deleting(Recorder):
    """Deletes games.jsonl once two games are on record: as someone would, by mistake."""

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        super().game_finished(line, table, progress)
        if len(self.finished) == 2:
            (self.starts[-1][0] / "games.jsonl").unlink()


def test_games_jsonl_lost_mid_run_is_said_missing_and_the_books_are_not_overwritten(
    tmp_path: Path,
) -> None:
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        table_size=2,
        games=6,
        jobs=1,
        name="night",
    )
    with pytest.raises(StoppedError) as stopped:
        asyncio.run(Tournament(config, Deleting()).run())
    folder = tmp_path / "out" / "night"
    message = str(stopped.value)
    assert f"{folder / 'games.jsonl'} is missing (recording game" in message, message
    assert "put it back" in message and "cannot write" not in message
    assert "every finished game in" not in message  # not true any more
    assert not (folder / "leaderboard.json").exists()  # no books of no games
