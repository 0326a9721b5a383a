"""From the games of an A/B test to its pairs: which two games share a deal, and who won it.

A pair is done when both its games are on record; its outcome then joins the
test in the order the pairs were completed in `games.jsonl`, so a resumed
test, reading the file again, sees the very sequence the live one saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ab.sprt import Outcome, outcome_of
from arena.errors import ArenaError
from arena.records import GameLine
from arena.tournament.schedule.round_robin import ScheduledGame


class BookError(ArenaError):
    """A game of the test that is not what its pair schedule planned; the message says which."""


@dataclass(frozen=True, slots=True)
class Half:
    """One game of a pair: the pair (its deal key), and whether NEW or OLD sat in it."""

    pair: str
    new: bool


class PairBook:
    """The pairs of one schedule, filled in game by game."""

    def __init__(self, schedule: Sequence[ScheduledGame], new: str, old: str) -> None:
        self.new, self.old = new, old
        self._halves: dict[str, Half] = {}
        for game in schedule:
            if (new in game.players) == (old in game.players):
                raise BookError(f"{game.game_id} seats both or neither of {new} and {old}")
            self._halves[game.game_id] = Half(game.deal_key, new in game.players)
        self._waiting: dict[str, int] = {}
        """Pairs with one game on record: the place of the bot under test in it."""
        self.pairs = len(self._halves) // 2

    def add(self, line: GameLine) -> Outcome | None:
        """Take a finished game; the pair's outcome if it completes one."""
        half = self._halves.get(line.game)
        if half is None:
            raise BookError(f"{line.game} is no game of this A/B test")
        place = line.ranking.index(self.new if half.new else self.old) + 1
        first = self._waiting.pop(half.pair, None)
        if first is None:
            self._waiting[half.pair] = place
            return None
        return outcome_of(place, first) if half.new else outcome_of(first, place)

    def outcomes(self, lines: Iterable[GameLine]) -> list[Outcome]:
        """The outcomes of the pairs `lines` complete, in the order they complete them."""
        found = (self.add(line) for line in lines)
        return [outcome for outcome in found if outcome is not None]

    @property
    def half_done(self) -> int:
        """Pairs with one game played and the other not yet."""
        return len(self._waiting)
