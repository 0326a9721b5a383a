"""The part of the ladder's board rated for good: its rounds can gain no game, so it is only
ever added to (`board`), and kept on disk across starts (`snapshot`): their ratings, and
their games as the fit needs them (`finishes`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from arena.league.ladder.finishes import Finishes
from arena.league.ladder.ratings import RatingState
from arena.store import Mark

LATEST = 20
"""Ladder games in its status, the newest."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """A ladder game on record: its round, id and finishing order (entrants' names)."""

    round: str
    game_id: str
    ranking: tuple[str, ...]


@dataclass(slots=True)
class Settled:
    """The rounds rated for good: up to `mark` (the last of them), `count` tournaments of the
    store (nights among them), the last with `games` games; their ratings, latest games and
    every game's finishing order by version (the fit's)."""

    mark: Mark | None
    count: int
    games: int
    state: RatingState
    latest: deque[LadderGame]
    finishes: Finishes

    def seats(self) -> int:
        """Each entrant's games summed: how much it holds."""
        return sum(len(path) for path in self.state.paths.values())


def unsettled() -> Settled:
    """Nothing rated yet."""
    return Settled(None, 0, 0, RatingState(), deque(maxlen=LATEST), Finishes())
