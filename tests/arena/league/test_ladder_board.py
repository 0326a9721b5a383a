"""The ladder's board read as it grows: the same as rated from scratch whatever happens to the
store between two looks, and a warm look reading only what is new since the last."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

from tournament_harness import minimal_info

from arena.league.ladder_board import LadderBoard, LadderGame
from arena.league.ladder_ratings import RatingState, VersionRatings
from arena.records import GameLine
from arena.store import Mark, SqliteStore
from arena.tournament.info import Entrant, RunStatus
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.results.resuming import read_info
from arena.tournament.versions import Pin

NAMES = ("alpha", "beta", "gamma", "delta")


class Season:
    """Ladder rounds in real folders and a real store, played and changed at random."""

    def __init__(self, root: Path, seed: int) -> None:
        self.results = root / "results"
        self.results.mkdir()
        self.store = SqliteStore(root / "league.db")
        self.rng = random.Random(seed)
        self.rounds = 0
        self.busy: set[str] = set()
        self.clock = 1000.0

    def play(self, finished: bool = True, games: int | None = None) -> str:
        rid = f"ladder-{self.rounds:06d}"
        self.rounds += 1
        seats = tuple(self.rng.sample(NAMES, 3))
        versions = {n: self.rng.choice((1, 2, None)) for n in seats}
        self._info(rid, versions, finished)
        self.clock += 1
        self.store.add_tournament(rid, {"id": rid, "bots": {}}, started=self.clock)
        count = self.rng.randint(1, 4) if games is None else games
        for n in range(count):
            ranking = tuple(self.rng.sample(seats, len(seats)))
            self.store.add_game(rid, GameLine(f"u000-t000-r{n}", n, seats, ranking, (), {}))
        if not finished:
            self.busy.add(rid)
        return rid

    def finish(self, rid: str) -> None:
        info = read_info(self.results / rid)
        TournamentFolder(self.results / rid).write_info(
            dataclasses.replace(info, status=RunStatus.FINISHED)
        )
        self.busy.discard(rid)

    def night(self) -> None:
        self.clock += 1
        tid = f"night-{self.clock:.0f}"
        self.store.add_tournament(tid, {"id": tid, "bots": {}}, started=self.clock)

    def _info(self, rid: str, versions: dict[str, int | None], finished: bool) -> None:
        bots = {
            name: Entrant(f"/lineup/{name}", "ab" * 32, version=Pin(n, "cd" * 32, "/kept"))
            if n is not None
            else Entrant(remote=True)
            for name, n in versions.items()
        }
        info = dataclasses.replace(
            minimal_info(rid, tuple(versions)),
            bots=bots,
            status=RunStatus.FINISHED if finished else RunStatus.RUNNING,
        )
        folder = self.results / rid
        folder.mkdir()
        TournamentFolder.lay_out(folder, info, b"\0" * 32)


def seen(read: tuple[RatingState, list[LadderGame]]) -> Any:
    """What a look shows: the table, every path and the latest games."""
    state, latest = read
    table = state.rated().current({})
    return table, {name: list(path) for name, path in state.paths.items()}, latest


def scratch(season: Season) -> Any:
    return seen(LadderBoard(VersionRatings(season.results)).read(season.store, season.busy))


def test_a_board_read_as_it_grows_equals_the_board_rated_from_scratch(tmp_path: Path) -> None:
    for seed in range(3):
        (tmp_path / str(seed)).mkdir()
        season = Season(tmp_path / str(seed), seed)
        board = LadderBoard(VersionRatings(season.results))
        for _ in range(25):
            move = season.rng.random()
            stored = [tid for tid, _ in season.store.tournaments()]
            if move < 0.5:
                season.play()
            elif move < 0.65:
                season.play(finished=False)
            elif move < 0.8 and season.busy:
                season.finish(season.rng.choice(sorted(season.busy)))
            elif move < 0.9 and stored:  # a round (settled or not) taken out of the store
                season.store.remove_tournament(season.rng.choice(stored))
            else:
                season.night()
            assert seen(board.read(season.store, season.busy)) == scratch(season)


def test_a_settled_round_removed_makes_the_board_rate_afresh(tmp_path: Path) -> None:
    season = Season(tmp_path, 7)
    board = LadderBoard(VersionRatings(season.results))
    rids = [season.play() for _ in range(6)]
    before = seen(board.read(season.store, ()))
    for rid in (rids[2], rids[-1]):  # one in the middle, then the last settled
        season.store.remove_tournament(rid)
        after = seen(board.read(season.store, ()))
        assert after == scratch(season) and after != before
        before = after


class Spy(SqliteStore):
    """A store that counts what a look asks of it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.asked: list[str] = []
        self.rows = 0

    def tournaments(self) -> list[tuple[str, int]]:
        self.asked.append("tournaments")
        return super().tournaments()

    def tournaments_through(self, mark: Mark) -> tuple[int, int | None]:
        self.asked.append("through")
        return super().tournaments_through(mark)

    def tournaments_after(self, mark: Mark | None) -> list[tuple[Mark, int]]:
        found = super().tournaments_after(mark)
        self.asked.append("after")
        self.rows += len(found)
        return found

    def games_of(self, tournament_id: str) -> dict[str, GameLine]:
        found = super().games_of(tournament_id)
        self.asked.append(f"games {tournament_id}")
        self.rows += len(found)
        return found


def test_a_warm_look_reads_only_the_rounds_after_the_last_settled(tmp_path: Path) -> None:
    season = Season(tmp_path, 3)
    season.store = Spy(tmp_path / "spy.db")
    board = LadderBoard(VersionRatings(season.results))
    for _ in range(40):
        season.play(games=3)
    board.read(season.store, ())
    spy: Any = season.store
    spy.asked.clear()
    spy.rows = 0
    new = season.play(games=3)
    playing = season.play(finished=False, games=2)
    looked = seen(board.read(season.store, season.busy))
    assert spy.asked == ["through", "after", f"games {new}", f"games {playing}"]
    assert spy.rows == 2 + 3 + 2  # two rounds listed, and their games
    assert looked == scratch(season)


def test_a_look_leaves_the_paths_of_the_last_look_as_they_were(tmp_path: Path) -> None:
    season = Season(tmp_path, 5)
    board = LadderBoard(VersionRatings(season.results))
    for _ in range(5):
        season.play()
    playing = season.play(finished=False)
    first = seen(board.read(season.store, season.busy))
    held = board.read(season.store, season.busy)
    season.finish(playing)
    for _ in range(3):
        season.play()
    board.read(season.store, season.busy)  # the settled paths grow under the copy held
    assert seen(held) == first
