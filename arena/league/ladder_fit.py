"""The batch fit's ratings for the ladder's matchmaker, refitted away from the event loop.

`arena bench --ladder` measured the matchmaker fed TrueSkill and fed the batch fit's
bootstrap: the fit reached a sure order in fewer games, the most in the leagues that took
longest (docs/ladder.md has the figures), so it is what the server feeds. The fit is the
league's own judge of which neighbours are told apart; TrueSkill's sigmas, kept above about
0.7 by its dynamics, make every pair look alike once the field has played a while.

A refit takes the ladder's games per version (`ladder_ratings` labels each seat with the
version that played it) and runs the bootstrap in a process of its own
(`arena.rankings.background`), at most once every `REFIT_S` and only when games were added:
off the event loop, and out of the server's memory, which would otherwise keep the high-water
mark of a bootstrap that grows with the ladder's record. Between refits the matchmaker reads
the last one; a version the fit does not hold yet (a new one, before its first refit) is fed
its TrueSkill rating, which began at its last version's (`arena.ladder.starting_rating`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from arena.ladder import Rating, from_fit
from arena.rankings import RankingError, finishes
from arena.rankings.background import reckon
from arena.records import GameLine

REFIT_S = 30.0
"""Seconds at least between two refits: each starts a process (a fraction of a second of
CPU), so a few a minute."""


class LadderFit:
    """The last refit's rating of each version (by its label), and the next refit when due."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.ratings: dict[str, Rating] = {}
        """By version label (`ladder_ratings.Version.label`), as of the last refit."""
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

    def refit(self, lines: Sequence[tuple[str, GameLine]]) -> None:
        """Begin a refit of these games (round, line with each seat as its version's label),
        in a task of its own."""
        self._games = len(lines)
        self._last = self._clock()
        self._task = asyncio.ensure_future(self._refit(list(lines)))

    async def settled(self) -> None:
        """Wait for the refit in flight, if any, to end."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def stop(self) -> None:
        """Give up a refit in flight (its bootstrap, if in a process, is killed)."""
        self._give_up.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        self._give_up = asyncio.Event()

    async def _refit(self, lines: list[tuple[str, GameLine]]) -> None:
        played = finishes(lines)
        names = sorted({name for finish in played for name in finish.order})
        if len(names) < 2:
            return
        try:
            reckoned = await reckon(played, names, len(lines), self._give_up, process_from=0)
        except (RankingError, OSError, RuntimeError):
            return  # games the fit cannot take, or no process for it: the last fit stands
        sure = reckoned.sure
        if sure is None:
            return
        self.ratings = {b.name: from_fit(b.strength, b.low, b.high, sure.level) for b in sure.bots}
        self.refits += 1
