"""Ladder rounds in real folders and a real store, played and changed at random: what the
board's tests (`test_board`, `test_snapshot`) read; and one round laid out by hand, as the
ratings' tests (`test_ladder_ratings`) lay theirs."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

from tournament_harness import minimal_info

from arena.league.ladder.board import LadderBoard, Look
from arena.league.ladder.ratings import VersionRatings
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
        lay_out_round(self.results, rid, versions, finished)
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


def lay_out_round(
    results: Path, round_id: str, versions: dict[str, int | None], finished: bool
) -> None:
    """A ladder round's folder whose `tournament.json` pins each entrant's version (None: a
    remote bot, no version), running or finished; an existing round's info rewritten."""
    bots = {
        name: Entrant(f"/lineup/{name}", "ab" * 32, version=Pin(n, "cd" * 32, "/kept"))
        if n is not None
        else Entrant(remote=True)
        for name, n in versions.items()
    }
    info = dataclasses.replace(
        minimal_info(round_id, tuple(versions)),
        bots=bots,
        status=RunStatus.FINISHED if finished else RunStatus.RUNNING,
    )
    folder = results / round_id
    if folder.is_dir():
        TournamentFolder(folder).write_info(info)
    else:
        folder.mkdir()
        TournamentFolder.lay_out(folder, info, b"\0" * 32)


def seen(look: Look) -> Any:
    """What a look shows: the table, every path and the latest games; and the fit's games
    it hands a refit, each a group and a finishing order by version."""
    state = look.state
    table = state.rated().current({})
    paths = {name: list(path) for name, path in state.paths.items()}
    fit = [(f.group, f.order) for f in look.finished()]
    return table, paths, look.latest, fit


def scratch(season: Season) -> Any:
    return seen(LadderBoard(VersionRatings(season.results)).read(season.store, season.busy))


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

    def tournaments_after(
        self, mark: Mark | None, limit: int | None = None
    ) -> list[tuple[Mark, int]]:
        found = super().tournaments_after(mark, limit)
        self.asked.append("after")
        self.rows += len(found)
        return found

    def changed_since(self, generation: int) -> list[str]:
        found = super().changed_since(generation)
        self.asked.append("changed")
        self.rows += len(found)
        return found

    def games_of(self, tournament_id: str) -> dict[str, GameLine]:
        found = super().games_of(tournament_id)
        self.asked.append(f"games {tournament_id}")
        self.rows += len(found)
        return found
