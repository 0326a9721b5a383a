"""The ladder's board, kept as its rounds settle: every version's rating, each entrant's
rating after each of its games, and the latest games, as the league store holds them.

Rating every ladder game afresh costs about 0.4 ms a game (two seconds at 5,000), in the
event loop the referee runs in, at every table chosen and every look at the status. A round
whose folder says it finished, and that is not in play, can gain no game; so the rounds on
record up to the first that still can (in play, unfinished, or with no folder to say) are
rated once, in the store's order, and the rest on top of them at each look: the same board
as rating them all, at the cost of the unsettled rounds' games. A look asks the store only
for the tournaments after the last settled round (by index), and checks the settled ones by
their count and the last one's games: one removed, or the last changed, makes it rate
everything afresh. The copy a look rates the unsettled rounds into shares the settled
ratings and paths rather than copying them, so a look costs what is new since the last, and
the count (at 100,000 games a look listed and compared every round and copied every path:
93 ms; now 3.4 ms, nearly all of it the count). The settled board is kept across starts
(`snapshot`). Nothing it keeps grows with the record but the ratings, each entrant's rating
after each game, and each game's finishing order by version: the batch fit's games
(`finishes`), which it is fed from this read rather than a read of its own (`refit`).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from arena.league.ladder import snapshot
from arena.league.ladder.finishes import Finished, Prefix
from arena.league.ladder.ratings import RatingState, VersionRatings
from arena.league.ladder.rounds import is_ladder
from arena.league.ladder.settled import LATEST, LadderGame, unsettled
from arena.rankings.groups import Finish, finishes
from arena.store import LeagueStore

__all__ = ["LATEST", "LadderBoard", "LadderGame", "Look"]

SAVE_SEATS = 3_000
"""Seats' games settled (about 1,000 games) before the snapshot is written again, or a
twentieth of the board's, whichever is more: writing it costs about what rating a twentieth
of its games does, so it stays a small share of the rating, and a start after a kill rates
at most that many games again."""


@dataclass(frozen=True, slots=True)
class Look:
    """The board as one look read it: every version's rating and the latest games, and every
    ladder game's finishing order by version, for the fit."""

    state: RatingState
    latest: list[LadderGame]
    settled: Prefix
    """The settled rounds' games, as they stood at this look."""
    tail: tuple[Finish, ...]
    """The games of the rounds after them, as this look read them."""

    @property
    def games(self) -> int:
        """The ladder's games on record, as of this look."""
        return len(self.settled) + len(self.tail)

    def finished(self) -> Finished:
        """Every game, copied for a refit: the later looks leave it as it is."""
        return self.settled.with_tail(self.tail)


class LadderBoard:
    """The board as of the last look (`read`)."""

    def __init__(self, versions: VersionRatings, kept: Path | None = None) -> None:
        self._versions = versions
        self._settled = unsettled()
        self._kept = kept
        """The folder its snapshot is kept in (`snapshot`), if any: read at the first
        look, written as the settled board grows and at `save`."""
        self._loaded = kept is None
        self._saved = 0
        """The seats' games in the settled board when it was last saved (or loaded)."""

    def save(self) -> None:
        """Keep the settled board in its snapshot now (the ladder stops)."""
        if self._kept is not None and self._saved != (seats := self._settled.seats()):
            snapshot.save(self._kept, self._settled)
            self._saved = seats

    def read(self, store: LeagueStore, busy: Collection[str]) -> Look:
        """Every version's rating, the latest games and every game's finishing order, as the
        store holds them now; `busy`, the ladder's rounds in play."""
        if not self._loaded:
            self._loaded = True
            assert self._kept is not None
            if (found := snapshot.load(self._kept, store)) is not None:
                self._settled, self._saved = found, found.seats()
        settled = self._settled
        if settled.mark is not None and store.tournaments_through(settled.mark) != (
            settled.count,
            settled.games,
        ):  # a settled round removed or changed
            settled = self._settled = unsettled()
            self._saved = 0
        after = store.tournaments_after(settled.mark)
        ready = 0
        for mark, _ in after:
            if is_ladder(mark.id) and (mark.id in busy or not self._versions.finished(mark.id)):
                break
            ready += 1
        # One round at a time, each read whole first: a read that fails leaves none half rated.
        seen = settled.count
        for mark, games in after[:ready]:
            seen += 1
            if is_ladder(mark.id):
                self._rate(store, mark.id, settled.state, settled.latest, settled.finishes.add)
                settled.mark, settled.count, settled.games = mark, seen, games
                self._versions.forget(mark.id)  # rated for good: its pins are not asked again
        if self._kept is not None and (seats := settled.seats()) - self._saved >= max(
            SAVE_SEATS, seats // 20
        ):
            with contextlib.suppress(OSError):  # a cache: a full disk costs a slow start
                snapshot.save(self._kept, settled)
                self._saved = seats
        state, latest = settled.state.copy(), deque(settled.latest, maxlen=LATEST)
        tail: list[Finish] = []
        for mark, _ in after[ready:]:
            if is_ladder(mark.id):
                self._rate(store, mark.id, state, latest, tail.extend)
        return Look(state, list(latest), settled.finishes.prefix(), tuple(tail))

    def _rate(
        self,
        store: LeagueStore,
        tid: str,
        state: RatingState,
        latest: deque[LadderGame],
        finished: Callable[[list[Finish]], None],
    ) -> None:
        """One round's games, in the order of its schedule: rated, the latest kept, and their
        finishing orders handed to `finished` (the fit's games)."""
        games = self._versions.labelled((tid, line) for line in store.games_of(tid).values())
        state.add(games)
        for _, line in games.lines:
            ranking = tuple(games.versions[label].name for label in line.ranking)
            latest.append(LadderGame(tid, line.game, ranking))
        finished(finishes(games.lines))
