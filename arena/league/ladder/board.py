"""The ladder's board, kept as its rounds settle: every version's rating, each entrant's
rating after each of its games, and the latest games, as the league store holds them.

Rating every ladder game afresh costs about 0.4 ms a game (two seconds at 5,000), in the
event loop the referee runs in, at every table chosen and every look at the status. A round
whose folder says it finished, and that is not in play, can gain no game; so the rounds on
record up to the first that still can (in play, unfinished, or with no folder to say) are
rated once, in the store's order, and the rest on top of them at each look: the same board
as rating them all, at the cost of the unsettled rounds' games. A look asks the store only
for the tournaments after the last settled round (by index), and checks the settled ones by
what the store wrote since the generation the last look saw (`_intact`): one removed or
written since makes it rate everything afresh. The copy a look rates the unsettled rounds
into shares the settled ratings and paths rather than copying them, so a look costs what is
new since the last, whatever the season's length (at 100,000 games a look once listed and
compared every round and copied every path: 93 ms; then counted the settled rounds: 3.4 ms;
now 0.1 ms). The settled board is kept across starts (`snapshot`); a start without it rates
the season a look at a time, on the ladder's budget (`read`). Nothing it keeps grows with
the record but the ratings, each version's decision times, each entrant's rating after each
game, and each game's finishing order by version: the batch fit's games (`finishes`), which
it is fed from this read rather than a read of its own (`refit`).
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from arena.league.ladder import snapshot
from arena.league.ladder.finishes import Finished, Prefix
from arena.league.ladder.ratings import RatingState, VersionRatings
from arena.league.ladder.rounds import is_ladder
from arena.league.ladder.settled import LATEST, LadderGame, Settled, unsettled
from arena.rankings.groups import Finish, finishes
from arena.store import LeagueStore, Mark

__all__ = ["LATEST", "LadderBoard", "LadderGame", "Look"]

SAVE_SEATS = 3_000
"""Seats' games settled (about 1,000 games) before the snapshot is written again, or a
twentieth of the board's, whichever is more: writing it costs about what rating a twentieth
of its games does, so it stays a small share of the rating, and a start after a kill rates
at most that many games again."""

BUDGET_ROWS = 1_000
"""Tournaments a look with a budget lists at most: a first start's look lists a few, not
the season's (a third of a million rounds at a million games)."""


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
        self.behind = False
        """Whether rounds were left to settle when the last look's budget was spent: its
        board was the season's only as far as it had rated (a start without its snapshot)."""

    def save(self) -> None:
        """Keep the settled board in its snapshot now (the ladder stops)."""
        if self._kept is not None and self._saved != (seats := self._settled.seats()):
            snapshot.save(self._kept, self._settled)
            self._saved = seats

    def read(self, store: LeagueStore, busy: Collection[str], budget: float | None = None) -> Look:
        """Every version's rating, the latest games and every game's finishing order, as the
        store holds them now; `busy`, the ladder's rounds in play. With a `budget` (seconds),
        a look settles rounds until it is spent (one at least) and, if some are left
        (`behind`), returns the board as far as it has rated: the next looks go on from
        there."""
        deadline = None if budget is None else time.monotonic() + budget
        if not self._loaded:
            self._loaded = True
            assert self._kept is not None
            if (found := snapshot.load(self._kept)) is not None:
                self._settled, self._saved = found, found.seats()
        seen = store.generation()  # before anything is read: a later write is after it
        settled = self._settled
        last = settled.seen  # this store's generation when last looked at, if any
        changed = store.changed_since(last[1]) if last and last[0] == seen[0] else None
        most = None if budget is None else BUDGET_ROWS
        after = store.tournaments_after(settled.mark, most)  # after `changed`: it has the new
        if settled.mark is not None and not _intact(store, settled, after, changed):
            settled = self._settled = unsettled()  # a settled round removed or changed
            self._saved = 0
            after = store.tournaments_after(None, most)
        settled.seen = seen
        # The rounds on record up to the first that can still gain a game are settled, one at
        # a time, each read whole first: a read that fails leaves none half rated.
        count, settled.recent = settled.count, {}
        self.behind = len(after) == most  # more than listed: the next look goes on
        ready = 0
        for mark, games in after:
            if is_ladder(mark.id) and (mark.id in busy or not self._versions.finished(mark.id)):
                self.behind = False
                break
            if settled.recent and deadline is not None and time.monotonic() >= deadline:
                self.behind = True  # a round rated at least, whatever the budget
                break
            ready += 1
            count += 1
            if is_ladder(mark.id):
                self._rate(store, mark.id, settled.state, settled.latest, settled.finishes.add)
                settled.mark, settled.count, settled.games = mark, count, games
                settled.recent[mark.id] = games
                self._versions.forget(mark.id)  # rated for good: its pins are not asked again
        if self._kept is not None and (seats := settled.seats()) - self._saved >= max(
            SAVE_SEATS, seats // 20
        ):
            with contextlib.suppress(OSError):  # a cache: a full disk costs a slow start
                snapshot.save(self._kept, settled)
                self._saved = seats
        state, latest = settled.state.copy(), deque(settled.latest, maxlen=LATEST)
        tail: list[Finish] = []
        for mark, _ in [] if self.behind else after[ready:]:
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


def _intact(
    store: LeagueStore,
    settled: Settled,
    after: list[tuple[Mark, int]],
    changed: list[str] | None,
) -> bool:
    """Whether the store still holds the settled rounds as they were rated.

    The store's changes since the generation the board last saw (`changed`, read before
    `after`) say it by index, whatever the season's length (a count of its rounds took
    about 30 ms at a million games): each ladder round written since is after the last
    settled one, or one the last look settled that still has the games it was rated with
    (`recent`); a night is not on the board. A settled round written since (the arena never
    writes one again: a store edited or rebuilt), or taken out, is not as it was rated.
    Without a generation of this store to start from (None: none seen, or the epoch
    another's, a copy or a store restored), the rounds are counted as before: the same
    number up to the last, and it with the same games."""
    assert settled.mark is not None
    if changed is None:
        return store.tournaments_through(settled.mark) == (settled.count, settled.games)
    later = {mark.id for mark, _ in after}
    unlisted = [tid for tid in changed if tid not in later and is_ladder(tid)]
    marks = store.marks_of(unlisted)  # past those listed, when a budget cut the list
    for tid in unlisted:
        if (mark := marks.get(tid)) is not None and mark > settled.mark:
            continue
        held = store.tournament(tid) if tid in settled.recent else None
        if held is None or held.games != settled.recent[tid]:
            return False
    return True
