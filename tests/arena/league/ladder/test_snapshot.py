"""The ladder's settled board kept across starts: read back and extended, it is the board
rated from scratch; one the store no longer matches, damaged, foreign or a link, is let go."""

from __future__ import annotations

import json
import os
import shutil
import zlib
from pathlib import Path
from typing import Any

import pytest
from ladder_season import Season, Spy, scratch, seen

from arena.league.ladder.board import LadderBoard
from arena.league.ladder.ratings import VersionRatings
from arena.league.ladder.snapshot import MAGIC, SNAPSHOT


def _kept(tmp_path: Path, rounds: int = 12, seed: int = 11) -> tuple[Season, Spy]:
    """A season whose board was read and kept (as at a stop), with a store that counts."""
    season = Season(tmp_path, seed)
    spy = Spy(tmp_path / "spy.db")
    season.store = spy
    for _ in range(rounds):
        season.play()
    board = LadderBoard(VersionRatings(season.results), season.results)
    board.read(season.store, season.busy)
    board.save()
    assert (season.results / SNAPSHOT).is_file()
    return season, spy


def _restarted(season: Season, spy: Spy) -> Any:
    spy.asked.clear()
    board = LadderBoard(VersionRatings(season.results), season.results)
    return seen(board.read(season.store, season.busy))


def _rated(spy: Spy) -> list[str]:
    return [asked for asked in spy.asked if asked.startswith("games ")]


def test_a_snapshot_read_back_and_extended_is_the_board_rated_from_scratch(
    tmp_path: Path,
) -> None:
    season, spy = _kept(tmp_path)
    new = [season.play() for _ in range(3)]
    season.night()
    playing = season.play(finished=False)
    looked = _restarted(season, spy)
    assert _rated(spy) == [f"games {rid}" for rid in [*new, playing]]  # the rest from disk
    assert looked == scratch(season)


def test_a_snapshot_the_store_no_longer_matches_is_let_go(tmp_path: Path) -> None:
    season, spy = _kept(tmp_path)
    season.store.remove_tournament("ladder-000004")  # a settled round taken out
    season.play()
    looked = _restarted(season, spy)
    assert len(_rated(spy)) == 12  # every round on record rated afresh
    assert looked == scratch(season)


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"{not json"),
        zlib.compress(json.dumps({"format": "someone else's/1"}).encode()),
        zlib.compress(json.dumps([1, 2, 3]).encode()),
    ],
    ids=["empty", "not-zlib", "not-json", "other-format", "not-an-object"],
)
def test_a_damaged_snapshot_is_let_go(tmp_path: Path, damage: bytes) -> None:
    season, spy = _kept(tmp_path)
    (season.results / SNAPSHOT).write_bytes(damage)
    looked = _restarted(season, spy)
    assert len(_rated(spy)) == 12
    assert looked == scratch(season)


def test_a_snapshot_cut_short_or_with_a_value_changed_in_kind_is_let_go(tmp_path: Path) -> None:
    season, spy = _kept(tmp_path)
    path = season.results / SNAPSHOT
    data = path.read_bytes()
    at = len(MAGIC) + 4
    size = int.from_bytes(data[len(MAGIC) : at], "big")
    header = json.loads(zlib.decompress(data[at : at + size]))

    def with_header(changed: Any) -> bytes:
        packed = zlib.compress(json.dumps(changed).encode())
        return MAGIC + len(packed).to_bytes(4, "big") + packed + data[at + size :]

    path.write_bytes(with_header(header))  # the layout as the test reads it: still taken
    _restarted(season, spy)
    assert _rated(spy) == []
    strong = json.loads(json.dumps(header))
    strong["standings"][0][1] = "strong"
    more = json.loads(json.dumps(header))
    more["paths"][0][1] += 1  # a path longer than the numbers kept
    fewer = json.loads(json.dumps(header))
    fewer["paths"][0][1] -= 1  # numbers left over
    unlabelled = json.loads(json.dumps(header))
    unlabelled["labels"].pop()  # a seat of the fit's games naming a label not kept
    ungrouped = json.loads(json.dumps(header))
    ungrouped["fit_groups"] -= 1  # a game of a group not kept
    misnamed = json.loads(json.dumps(header))
    misnamed["group_bytes"] -= 1  # the groups' names cut where their ends say they are not
    longer = json.loads(json.dumps(header))
    longer["fit_games"] += 1  # the fit's games counted past their seats
    unbalanced = json.loads(json.dumps(header))
    unbalanced["standings"][0][-1] += 1  # a median's upper half longer than its lower
    unbalanced["paths"][0][1] -= 1  # (the number a path's), as many numbers in all
    numbers = sum(s[-2] + s[-1] for s in header["standings"])  # each median's two halves
    numbers += sum(n for _, n in header["paths"])
    named = at + size + 8 * numbers  # where the groups' names begin
    not_utf8 = data[:named] + b"\xff" + data[named + 1 :]
    for damaged in (
        not_utf8,
        data[:-8],
        data[:-3],
        with_header(strong),
        with_header(more),
        with_header(fewer),
        with_header(unlabelled),
        with_header(ungrouped),
        with_header(misnamed),
        with_header(longer),
        with_header(unbalanced),
    ):
        path.write_bytes(damaged)
        looked = _restarted(season, spy)
        assert len(_rated(spy)) == 12
        assert looked == scratch(season)


def test_another_leagues_snapshot_is_let_go(tmp_path: Path) -> None:
    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    season, spy = _kept(tmp_path / "ours", rounds=8, seed=1)
    theirs, _ = _kept(tmp_path / "theirs", rounds=12, seed=2)
    shutil.copy(theirs.results / SNAPSHOT, season.results / SNAPSHOT)
    looked = _restarted(season, spy)
    assert len(_rated(spy)) == 8
    assert looked == scratch(season)


def test_a_link_in_place_of_the_snapshot_is_neither_followed_nor_written_through(
    tmp_path: Path,
) -> None:
    season, spy = _kept(tmp_path)
    path = season.results / SNAPSHOT
    elsewhere = tmp_path / "elsewhere"
    os.replace(path, elsewhere)
    kept = elsewhere.read_bytes()
    path.symlink_to(elsewhere)  # a valid snapshot, behind a link
    board = LadderBoard(VersionRatings(season.results), season.results)
    spy.asked.clear()
    board.read(season.store, season.busy)
    assert len(_rated(spy)) == 12  # not read through the link
    season.play()
    board.read(season.store, season.busy)
    board.save()
    assert not path.is_symlink() and path.is_file()  # the link replaced by the arena's file
    assert elsewhere.read_bytes() == kept
    looked = _restarted(season, spy)
    assert len(_rated(spy)) == 0
    assert looked == scratch(season)
