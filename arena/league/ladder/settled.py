"""The part of the ladder's board rated for good: its rounds can gain no game, so it is only
ever added to (`board`), and kept on disk across starts (`snapshot`): their ratings, and
their games as the fit needs them (`finishes`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

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
    seen: tuple[str, int] | None = None
    """The store's epoch and generation (`LeagueStore.generation`) when the rounds up to
    `mark` were last found as they were: a look asks the store only what changed since, by
    index (`LeagueStore.changed_since`), rather than counting them. None: count them."""
    recent: dict[str, int] = field(default_factory=dict)
    """The rounds the last look settled, with their games: a round's last game written
    between that look's reading of `seen` and of its games is a change after `seen` that
    the look did read, told from a change made since by the count of its games."""

    def seats(self) -> int:
        """Each entrant's games summed: how much it holds."""
        return sum(len(path) for path in self.state.paths.values())


def unsettled() -> Settled:
    """Nothing rated yet."""
    return Settled(None, 0, 0, RatingState(), deque(maxlen=LATEST), Finishes())
