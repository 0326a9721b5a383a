"""The ladder's board, kept as its rounds settle: every version's rating, each entrant's
rating after each of its games, and the latest games, as the league store holds them.

Rating every ladder game afresh costs about 0.4 ms a game (two seconds at 5,000), in the
event loop the referee runs in, at every table chosen and every look at the status. A round
whose folder says it finished, and that is not in play, can gain no game; so the rounds on
record up to the first that still can (in play, unfinished, or with no folder to say) are
rated once, in the store's order, and the rest on top of them at each look: the same board
as rating them all, at the cost of the unsettled rounds' games. A settled round removed
from the store, or changed, makes it rate everything afresh. A look reads the store's list
of rounds, and the pins of the rounds past the settled ones; nothing it keeps grows with the
record but the ratings and each entrant's rating after each game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from arena.league.ladder_ratings import RatingState, VersionRatings
from arena.store import LeagueStore

LATEST = 20
"""Ladder games in its status, the newest."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """A ladder game on record: its round, id and finishing order (entrants' names)."""

    round: str
    game_id: str
    ranking: tuple[str, ...]


class LadderBoard:
    """The board as of the last look (`read`)."""

    def __init__(self, versions: VersionRatings) -> None:
        self._versions = versions
        self._settled: list[tuple[str, int]] = []
        """The rounds rated into `_state`, each with its games, in the store's order."""
        self._state = RatingState()
        self._latest: deque[LadderGame] = deque(maxlen=LATEST)

    def read(
        self, store: LeagueStore, rounds: Sequence[tuple[str, int]], busy: Collection[str]
    ) -> tuple[RatingState, list[LadderGame]]:
        """Every version's rating and the latest games, as the store holds them now: `rounds`,
        its ladder rounds with their games (`ladder_rounds.on_record`); `busy`, those in play."""
        kept = len(self._settled)
        if list(rounds[:kept]) != self._settled:  # a settled round removed or changed
            self._settled, self._state, self._latest = [], RatingState(), deque(maxlen=LATEST)
            kept = 0
        settled = kept
        while settled < len(rounds):
            tid = rounds[settled][0]
            if tid in busy or not self._versions.finished(tid):
                break
            settled += 1
        # One round at a time, each read whole first: a read that fails leaves none half rated.
        for entry in rounds[kept:settled]:
            self._rate(store, entry[0], self._state, self._latest)
            self._settled.append(entry)
            self._versions.forget(entry[0])  # rated for good: its pins are not asked again
        state, latest = self._state.copy(), deque(self._latest, maxlen=LATEST)
        for tid, _ in rounds[settled:]:
            self._rate(store, tid, state, latest)
        return state, list(latest)

    def _rate(
        self, store: LeagueStore, tid: str, state: RatingState, latest: deque[LadderGame]
    ) -> None:
        """One round's games, in the order of its schedule."""
        games = self._versions.labelled((tid, line) for line in store.games_of(tid).values())
        state.add(games)
        for _, line in games.lines:
            ranking = tuple(games.versions[label].name for label in line.ranking)
            latest.append(LadderGame(tid, line.game, ranking))
