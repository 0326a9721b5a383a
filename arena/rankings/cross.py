"""The cross-table: for every two bots, how often one finished ahead of the other.

It is read straight off the games, with no model: the check on the fitted
strengths that anyone can do by hand. The interval is Wilson's, which stays
inside 0..1 and is honest for few games and for shares near 0 or 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from arena.records import Json

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Pairing:
    """Bot `first` against bot `second` at the same table."""

    first: str
    second: str
    games: int
    ahead: int
    """Games in which `first` finished ahead of `second`."""
    low: float
    high: float
    """The 95% interval of the share of games `first` finishes ahead."""

    @property
    def share(self) -> float:
        return self.ahead / self.games if self.games else 0.0

    def to_json(self) -> Json:
        return {
            "first": self.first,
            "second": self.second,
            "games": self.games,
            "ahead": self.ahead,
            "share": round(self.share, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
        }


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a share; (0, 1) when there are no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    middle = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    # Clamped to the share itself: at 0 or n successes rounding would leave it a hair outside.
    return max(0.0, min(p, (middle - spread) / scale)), min(1.0, max(p, (middle + spread) / scale))


def cross_table(names: Sequence[str], orders: Iterable[Sequence[str]]) -> list[Pairing]:
    """Every pair of `names` (in that order, the first of a pair listed first) that met."""
    met: dict[tuple[str, str], list[int]] = {}
    for order in orders:
        place = {name: i for i, name in enumerate(order)}
        for a, b in combinations(order, 2):
            key = (a, b) if a < b else (b, a)
            tally = met.setdefault(key, [0, 0])
            tally[0] += 1
            tally[1] += place[key[0]] < place[key[1]]
    pairings = []
    for a, b in combinations(names, 2):
        key = (a, b) if a < b else (b, a)
        if key not in met:
            continue
        games, first_ahead = met[key]
        ahead = first_ahead if key[0] == a else games - first_ahead
        pairings.append(Pairing(a, b, games, ahead, *wilson(ahead, games)))
    return pairings
