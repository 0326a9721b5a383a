"""The batch fit's ratings for the ladder's matchmaker, refitted away from the event loop.

`arena bench ladder` measured the matchmaker fed TrueSkill and fed the batch fit's
bootstrap: the fit reached a sure order in fewer games, the most in the leagues that took
longest (docs/ladder.md has the figures), so it is what the server feeds. The fit is the
league's own judge of which neighbours are told apart; TrueSkill's sigmas, kept above about
0.7 by its dynamics, make every pair look alike once the field has played a while.

A refit runs in a process of its own (`arena.rankings.background.reckon_apart`), at most
once every `REFIT_S` and only when games were added: there it reads the ladder's games from
the league store, labels each seat with the version that played it (`ratings`), and
runs the bootstrap. So neither the reading, which grows with the ladder's record (25 us a
game: half a second at 20,000), nor the bootstrap holds the event loop or leaves its
high-water mark in the server's memory. Between refits the matchmaker reads the last one; a
version the fit does not hold yet (a new one, before its first refit) is fed its TrueSkill
rating, which began at its last version's (`arena.matchmaking.starting_rating`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.league.ladder.ratings import VersionRatings
from arena.league.ladder.rounds import on_record
from arena.matchmaking import Rating, from_fit
from arena.rankings import Confidence, RankingError, confidence, finishes
from arena.rankings.background import Reckoning, reckon_apart
from arena.store import StoreError, open_store
from arena.tournament.config import TournamentError

REFIT_S = 30.0
"""Seconds at least between two refits: each starts a process (a fraction of a second of
CPU), so a few a minute."""


class LadderFit:
    """The last refit's rating of each version (by its label), and the next refit when due."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.ratings: dict[str, Rating] = {}
        """By version label (`ratings.Version.label`), as of the last refit."""
        self._clock = clock
        self._games = 0
        """Games the last refit was given."""
        self._last = -REFIT_S
        self._task: asyncio.Task[None] | None = None
        self._give_up = asyncio.Event()
        self.refits = 0

    def due(self, games: int) -> bool:
        """Whether a refit should begin now that `games` are on record."""
        idle = self._task is None or self._task.done()
        return idle and games > self._games and self._clock() - self._last >= REFIT_S

    def refit(self, job: Reckoning, games: int, bots: int) -> None:
        """Begin a refit in a task of its own: `job` (`LadderGames`) in a process of its own,
        `games` the ladder's games on record now, `bots` about the versions it will rate (its
        time budget grows with them)."""
        self._games = games
        self._last = self._clock()
        self._task = asyncio.ensure_future(self._refit(job, bots))

    async def settled(self) -> None:
        """Wait for the refit in flight, if any, to end."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def stop(self) -> None:
        """Give up a refit in flight (its process is killed)."""
        self._give_up.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        self._give_up = asyncio.Event()

    async def _refit(self, job: Reckoning, bots: int) -> None:
        try:
            reckoned = await reckon_apart(job, bots, self._give_up)
        except (OSError, RuntimeError):
            return  # no process for it: the last fit stands
        sure = reckoned.sure
        if sure is None:
            return
        self.ratings = {b.name: from_fit(b.strength, b.low, b.high, sure.level) for b in sure.bots}
        self.refits += 1


@dataclass(frozen=True, slots=True)
class LadderGames:
    """A refit of every ladder game on record, each seat labelled with its version: called
    in the refit's own process, where it opens the league store to read them."""

    league: Path | str
    results: Path
    """The server's results folder: each round's pins (`tournament.json`) name the versions."""

    def __call__(self) -> Confidence | None:
        """The fit, or None with fewer than two versions or a record it cannot read (the
        last fit then stands)."""
        try:
            store = open_store(self.league)
            try:
                ids = {tid for tid, _ in on_record(store)}
                lines = store.lines(ids) if ids else []
            finally:
                store.close()
            played = finishes(VersionRatings(self.results).labelled(lines).lines)
            names = sorted({name for finish in played for name in finish.order})
            return confidence(played, names, seed=len(lines)) if len(names) >= 2 else None
        except (StoreError, TournamentError, RankingError, OSError):
            return None
