"""`arena league export`: every game of the league as one JSON line, its replay's fields.

A season's games live in many folders (a night's, each ladder round's); an
organiser who wants to study them, or publish them, wants one stream. Each
line is a game's replay file as it is on disk (its events, dice, times, the
ranking), with the `tournament` it was played in, so that `TOURNAMENT/GAME`
names it across the league as `arena replay` takes it. The league store says
which tournaments and games the league holds, in the order they were played;
the results folders hold the replays (`arena.tournament.results.replay_lines`
finds and writes them, as the author page's download does too). A game the
store holds whose replay cannot be read is said, never skipped without a word.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.league.ladder.rounds import PREFIX as LADDER_PREFIX
from arena.records import GameLine
from arena.store import LeagueStore, open_store
from arena.tournament.results.replay_lines import Exported, write_games


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


def export(league: Path | str, results: Sequence[Path], chosen: Chosen, out: TextIO) -> Exported:
    """Write each chosen game of `league` to `out`, a JSON line each, in the order played."""
    store = open_store(league)
    try:
        return write_games(_games(store, chosen), results, out)
    finally:
        store.close()


def _games(store: LeagueStore, chosen: Chosen) -> Iterator[tuple[str, GameLine]]:
    """The chosen games, tournament by tournament in the order they began, each by index."""
    for tournament, _ in store.tournaments():
        if chosen.takes_tournament(tournament):
            for line in store.games_of(tournament).values():
                if chosen.takes_game(line):
                    yield tournament, line
