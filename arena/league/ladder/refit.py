"""The ladder's one refit: its games read from the league store once, by the board, and rated
two ways from that read: TrueSkill per version (the board: the status, the pages, a new
version's first games) and the batch fit the matchmaker is fed.

`arena bench ladder` measured the matchmaker fed TrueSkill and fed the batch fit's
bootstrap: the fit reached a sure order in fewer games, the most in the leagues that took
longest (docs/ladder.md has the figures), so it is what the server feeds. The fit is the
league's own judge of which neighbours are told apart; TrueSkill's sigmas, kept above about
0.7 by its dynamics, make every pair look alike once the field has played a while.

The board reads each round's games as it rates them, each seat labelled with the version
that played it (`ratings`), and keeps their finishing orders (`finishes`, in its snapshot
with the rest). A refit is handed those, copied (a few milliseconds at 100,000 games), and
runs the bootstrap in a process of its own (`arena.rankings.background.reckon_apart`), at
most once every `REFIT_S` and only when games were added: so the bootstrap neither holds the
event loop nor leaves its high-water mark in the server's memory. Before, that process read
every ladder game from the store again, and every round's pins, at each refit (25 us a
game: half a second at 20,000), a second reading of what the board had read. Between
refits the matchmaker reads the last one; a version the fit does not hold yet (a new one,
before its first refit) is fed its TrueSkill rating, which began at its last version's
(`arena.matchmaking.starting_rating`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from arena.league.ladder.board import LadderBoard, Look
from arena.league.ladder.finishes import Finished
from arena.league.ladder.ratings import Rated, Version, VersionRatings
from arena.matchmaking import Rating, from_fit
from arena.rankings import Confidence, RankingError, confidence
from arena.rankings.background import Reckoning, reckon_apart
from arena.store import LeagueStore

REFIT_S = 30.0
"""Seconds at least between two refits: each starts a process (a fraction of a second of
CPU), so a few a minute."""


class Refit:
    """The board as of the last look, the last fit's rating of each version (by its label),
    and the next fit when due."""

    def __init__(self, results: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self._board = LadderBoard(VersionRatings(results), results)
        self.ratings: dict[str, Rating] = {}
        """By version label (`ratings.Version.label`), as of the last fit."""
        self._clock = clock
        self._games = 0
        """Games the last fit was given."""
        self._last = -REFIT_S
        self._task: asyncio.Task[None] | None = None
        self._give_up = asyncio.Event()
        self.refits = 0

    def look(self, store: LeagueStore, busy: Collection[str], budget: float | None = None) -> Look:
        """The board as the store holds it now (`busy`: the ladder's rounds in play), or as
        far as a `budget` (seconds) let it rate (`behind`)."""
        return self._board.read(store, busy, budget)

    @property
    def behind(self) -> bool:
        """Whether the last look's budget was spent with rounds left to rate (a start
        without its kept board): no table is chosen on a board rated part way."""
        return self._board.behind

    def save(self) -> None:
        """Keep the settled board, the fit's games with it, for the next start."""
        self._board.save()

    def rating(self, rated: Rated, version: Version) -> tuple[Rating, int]:
        """What the matchmaker is fed for `version`: the last fit's rating, else (a version
        it does not hold yet) the board's; and its games on the board."""
        rating, games = rated.of(version)
        return self.ratings.get(version.label, rating), games

    def fit_when_due(self, look: Look, bots: int) -> None:
        """Begin a fit of `look`'s games if one is due; `bots` about the versions it will rate
        (its time budget grows with them)."""
        if self.due(look.games):
            self.begin(FitJob(look.finished()), look.games, bots)

    def due(self, games: int) -> bool:
        """Whether a fit should begin now that `games` are on record."""
        idle = self._task is None or self._task.done()
        return idle and games > self._games and self._clock() - self._last >= REFIT_S

    def begin(self, job: Reckoning, games: int, bots: int) -> None:
        """Begin a fit in a task of its own: `job` in a process of its own, `games` the
        ladder's games it is given."""
        self._games = games
        self._last = self._clock()
        self._task = asyncio.ensure_future(self._fit(job, bots))

    async def settled(self) -> None:
        """Wait for the fit in flight, if any, to end."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def stop(self) -> None:
        """Give up a fit in flight (its process is killed)."""
        self._give_up.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        self._give_up = asyncio.Event()

    async def _fit(self, job: Reckoning, bots: int) -> None:
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
class FitJob:
    """The batch fit of the ladder's games as the board read them, each seat as its version:
    sent to the fit's own process as they are, and run there."""

    games: Finished

    def __call__(self) -> Confidence | None:
        """The fit, or None with fewer than two versions (the last fit then stands)."""
        names = self.games.names()
        if len(names) < 2:
            return None
        try:
            played = list(self.games)
            return confidence(played, names, seed=len(played))
        except (RankingError, UnicodeDecodeError):  # a forged snapshot's names
            return None
