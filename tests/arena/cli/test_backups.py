"""`arena league restore`'s advice: the commands it names work as given, with the results
folder where the league's tournaments are."""

from __future__ import annotations

import re
from pathlib import Path

from cli_harness import Cli
from truth_harness import copy_night, enter

from arena.store import open_store
from arena.store.backup import backup


def test_the_rebuild_a_restore_advises_finds_the_games_played_since_the_backup(
    tmp_path: Path, cli: Cli, night: Path
) -> None:
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    league.parent.mkdir()
    open_store(league).close()
    backup(league, tmp_path / "before.sqlite")  # an empty league: nothing played yet
    enter(league, copy_night(night, league, results))  # played since, in the server's --out

    code, said, err = cli(
        "league", "restore", str(tmp_path / "before.sqlite"), "--league", str(league),
        "--results", str(results),
    )  # fmt: skip
    assert code == 0, err
    advised = re.search(r"`(arena league rebuild [^`]+)`", " ".join(said.split()))
    assert advised is not None, said
    assert f"--results {results}" in advised[1]
    code, rebuilt, err = cli(*advised[1].split()[1:])
    assert code == 0, err
    assert "night: " in rebuilt and "Rebuilt" in rebuilt


def test_without_results_the_advice_says_which_folder_it_read(tmp_path: Path, cli: Cli) -> None:
    league = tmp_path / "league.sqlite"
    open_store(league).close()
    backup(league, tmp_path / "before.sqlite")
    open_store(league).close()  # the last to close it checkpoints its WAL away
    code, said, err = cli(
        "league", "restore", str(tmp_path / "before.sqlite"), "--league", str(league)
    )
    assert code == 0, err
    text = " ".join(said.split())
    assert f"--results {tmp_path}" in text and "give that one with --results" in text
