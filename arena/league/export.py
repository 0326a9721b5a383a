"""`arena league export`: every game of the league as one JSON line, its replay's fields.

A season's games live in many folders (a night's, each ladder round's); an
organiser who wants to study them, or publish them, wants one stream. Each
line is a game's replay file as it is on disk (its events, dice, times, the
ranking), with the `tournament` it was played in, so that `TOURNAMENT/GAME`
names it across the league as `arena replay` takes it. The league store says
which tournaments and games the league holds, in the order they were played;
the results folders hold the replays. A game the store holds whose replay
cannot be read is said, never skipped without a word.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.league.ladder_rounds import PREFIX as LADDER_PREFIX
from arena.records import GameLine
from arena.store import LeagueStore, open_store
from arena.tournament.results.days import DayIndex
from arena.tournament.results.replays import ReplayLookup, Replays


@dataclass(frozen=True, slots=True)
class Chosen:
    """Which games to export; each field None (or False) for all."""

    ladder: bool | None = None
    """True: the ladder's rounds only; False: the nights only."""
    since: float | None = None
    """Games that began at or after this time (seconds since the epoch)."""
    author: str | None = None
    """Games this entrant played in."""

    def takes_tournament(self, tournament: str) -> bool:
        return self.ladder is None or tournament.startswith(LADDER_PREFIX) == self.ladder

    def takes_game(self, line: GameLine) -> bool:
        if self.since is not None and (line.started is None or line.started < self.since):
            return False
        return self.author is None or self.author in line.players


@dataclass(frozen=True, slots=True)
class Exported:
    games: int
    problems: tuple[str, ...]
    """Games the league holds whose replay could not be read, each with why."""
    pruned: int = 0
    """Games whose replays `arena league prune` let go: on record, with nothing to export."""


def export(league: Path | str, results: Sequence[Path], chosen: Chosen, out: TextIO) -> Exported:
    """Write each chosen game of `league` to `out`, a JSON line each, in the order played."""
    store = open_store(league)
    try:
        return _write(_games(store, chosen), _folder_finder(results), out)
    finally:
        store.close()


def _games(store: LeagueStore, chosen: Chosen) -> Iterator[tuple[str, GameLine]]:
    """The chosen games, tournament by tournament in the order they began, each by index."""
    for tournament, _ in store.tournaments():
        if chosen.takes_tournament(tournament):
            for line in store.games_of(tournament).values():
                if chosen.takes_game(line):
                    yield tournament, line


def _folder_finder(results: Sequence[Path]) -> Callable[[str], Replays | None]:
    """Where each tournament's replays are (its folder, or its round folded into its day's
    record), looked for once per tournament, not per game."""
    found: dict[str, Replays | None] = {}
    lookups = [ReplayLookup(root, DayIndex(root)) for root in results]

    def find(tournament: str) -> Replays | None:
        if tournament not in found:
            kept = (lookup.replays(tournament) for lookup in lookups)
            found[tournament] = next((r for r in kept if r is not None), None)
        return found[tournament]

    return find


def _write(
    games: Iterator[tuple[str, GameLine]], find: Callable[[str], Replays | None], out: TextIO
) -> Exported:
    count = let_go = 0
    problems: list[str] = []
    for tournament, line in games:
        replays = find(tournament)
        if replays is None:
            problems.append(f"{tournament}/{line.game}: no results folder holds {tournament}")
            continue
        if replays.pruned(line.game):
            let_go += 1
            continue
        read = replays.read(line)
        if isinstance(read, str):
            problems.append(f"{tournament}/{line.game}: its replay cannot be read: {read}")
            continue
        data = read.to_json()
        data["tournament"] = tournament  # a replay from before it was kept says none
        out.write(json.dumps(data, separators=(",", ":")) + "\n")
        count += 1
    return Exported(count, tuple(problems), let_go)
