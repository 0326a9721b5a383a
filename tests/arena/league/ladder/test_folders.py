"""The ladder's rounds on disk: a round a kill left half made is laid out anew, one a hand
damaged is set aside (never deleted) and said once, new rounds are numbered after every round
on disk or on record, and an unfinished round that can never be resumed is set aside after its
tries."""

from __future__ import annotations

from pathlib import Path

from arena.league.ladder.folders import ASIDE, RESUME_TRIES, RoundFolders, Unfinished
from arena.referee.clock.deadline import TimeControl
from arena.store import StoreError
from arena.store.causes import Cause
from arena.tournament.config import TooFewBotsError, TournamentError
from arena.tournament.info import Entrant, TournamentInfo
from arena.tournament.plan import RunPlan
from arena.tournament.results.folder import TournamentFolder
from engine import Ruleset


def _round(out: Path, number: int, entrants: tuple[str, ...] | None) -> Path:
    """A round's folder with its tournament.json: its play begun (entrants) or not."""
    folder = out / f"ladder-{number:06d}"
    folder.mkdir(parents=True)
    plan = RunPlan("", Ruleset(), 3, 2, TimeControl(1.0))
    info = TournamentInfo(folder.name, 1.0, plan, "0" * 64)
    if entrants is not None:
        info = info.with_entrants(entrants, 3, {n: Entrant(remote=True) for n in entrants}, ())
    TournamentFolder(folder).write_info(info)
    return folder


def test_damaged_rounds_are_set_aside_said_once_and_numbered_past(tmp_path: Path) -> None:
    said: list[str] = []
    out = tmp_path / "results"
    _round(out, 0, ("a", "b", "c"))
    (out / "ladder-000001").mkdir()  # killed before its tournament.json: laid out anew
    damaged = _round(out, 2, None)
    (damaged / "tournament.json").write_text('{"id": "ladder-0')
    (out / "ladder-000002.set-aside").mkdir()  # an earlier one set aside: kept as it is
    stranger = out / "ladder-000003"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("not a round's\n")
    folders = RoundFolders(out, said.append)
    found = folders.next(set(), dict.fromkeys(["ladder-000000", "ladder-000007"], 0))
    assert found == Unfinished(0, out / "ladder-000000", ("a", "b", "c"))
    assert (
        folders.next({0}, dict.fromkeys(["ladder-000007"], 0)) == 1
    )  # the one a kill left, under its number
    assert folders.next({0, 1}, {"ladder-000007": 0}) == 8  # after the store's last round
    assert folders.next({0, 1}, {}) == 4  # after every folder, set aside or not
    assert sorted(p.name for p in out.iterdir()) == [
        "ladder-000000",
        "ladder-000001",
        f"ladder-000002{ASIDE}",
        f"ladder-000002{ASIDE}2",
        f"ladder-000003{ASIDE}",
    ]
    assert len(said) == 2
    assert "ladder-000002.set-aside2: its tournament.json cannot be read" in said[0]
    assert said[1].startswith("ladder-000003 set aside as ladder-000003.set-aside: it has no ")


def test_a_round_that_never_began_is_laid_out_again_under_its_number(tmp_path: Path) -> None:
    out = tmp_path / "results"
    _round(out, 4, None)
    assert RoundFolders(out, print).next(set(), dict.fromkeys([], 0)) == 4


def test_an_unfinished_round_that_cannot_be_resumed_is_set_aside_after_its_tries(
    tmp_path: Path,
) -> None:
    said: list[str] = []
    out = tmp_path / "results"
    _round(out, 0, ("a", "b", "c"))
    folders = RoundFolders(out, said.append)
    passing = [StoreError("down", Cause.UNREACHABLE), TooFewBotsError("too few", ["a"])]
    for error in passing * RESUME_TRIES:  # faults that pass are not counted
        folders.resume_failed(0, error)
    assert folders.next(set(), dict.fromkeys([], 0)) == Unfinished(
        0, out / "ladder-000000", ("a", "b", "c")
    )
    lost = TournamentError("its journal is gone")
    for _ in range(RESUME_TRIES - 1):
        folders.resume_failed(0, lost)
    folders.resumed(0)  # one that resumed after all: its count starts again
    for _ in range(RESUME_TRIES - 1):
        folders.resume_failed(0, lost)
    assert (out / "ladder-000000").is_dir() and not said
    folders.resume_failed(0, lost)
    assert (out / f"ladder-000000{ASIDE}").is_dir()
    [aside] = said
    assert f"could not be resumed, {RESUME_TRIES} tries: its journal is gone" in aside
    assert folders.next(set(), dict.fromkeys([], 0)) == 1


def test_a_new_round_is_numbered_after_the_folded_ones_though_the_store_lost_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "results"
    (out / "days").mkdir(parents=True)
    (out / "days" / "rounds.idx").write_text(
        "ladder-000011 2026-12-07 0\nladder-000012 2026-12-07 90\n"
    )
    assert RoundFolders(out, print, compact=True).next(set(), {}) == 13
