"""What the matchmaker knows of the field: each entrant's rating and games, and the rules.

A rating is a belief about strength, a mean and a standard deviation on one
scale for the whole field: TrueSkill's mu and sigma as the league keeps them,
or the batch fit's strength and its bootstrap interval put on TrueSkill's
scale (`from_fit`). Either can feed the matchmaker; `arena bench ladder`
measures both (docs/ladder.md has the figures):

- TrueSkill is updated game by game at no cost, so it is never stale. But
  its dynamics keep every sigma above about 0.7, so once the field has
  played a while every pair of neighbours looks about as unsure as any other,
  and the games are spread over all of them alike.
- The batch fit's bootstrap is the league's own judge of which neighbours
  are told apart, so the games go to the pairs it has not yet separated. It
  refits every game, seconds at a league's size, so it is read as of its last
  look; an entrant it does not hold yet (a new version) is fed its TrueSkill
  rating, which began at its `starting_rating`, until it does. Measured, it
  needs as many games as TrueSkill or fewer, and its slowest leagues are
  faster: it is the one to feed.

A bot has no say in any of these: the server fills them from the games on
record, and a name is only compared (see `matchmaking`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.errors import ArenaError


class LadderError(ArenaError, ValueError):
    """A field, rules or secret the matchmaker cannot choose a table from; the message says
    which."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A belief about an entrant's strength: TrueSkill's mean and standard deviation."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise LadderError(f"a rating needs a finite mu and a positive sigma, not {self}")


FRESH = Rating(25.0, 25.0 / 3)
"""TrueSkill's default: an entrant the league knows nothing of."""
SCALE = 0.25 * math.sqrt(2) * (FRESH.sigma / 2) / NormalDist().pdf(0)
"""TrueSkill units per unit of the batch fit's log strength, about 3.7: where two bots are
even, one more unit of log strength moves the chance one finishes ahead of the other by
1/4 (the logistic's slope), and so does this many units of mu with TrueSkill's beta of
sigma/2 (the slope of Phi(d / (beta sqrt 2)))."""
MIN_SIGMA = 0.01
"""Sigma at the least: a bootstrap whose copies all agree says nothing is certain."""


def from_fit(strength: float, low: float, high: float, level: float) -> Rating:
    """The batch fit's strength (log scale, the field's average at 0) and its bootstrap's
    interval at `level`, as a rating on TrueSkill's scale: the interval's half width over
    the normal quantile of the level is sigma."""
    half = (high - low) / 2 / NormalDist().inv_cdf((1 + level) / 2)
    return Rating(FRESH.mu + SCALE * strength, max(MIN_SIGMA, SCALE * half))


WIDEN = FRESH.sigma / 2
"""How far a new version may have moved from its last, one sigma: half the field's spread
of a fresh rating, so that two sigmas still reach past most of a league."""


def starting_rating(previous: Rating | None) -> Rating:
    """A new version's first rating: its last version's mu, with sigma widened by `WIDEN`.

    Why not fresh: most new versions are small changes, so the last version's
    mu is a far better first guess than the league's middle, and the placement
    burst then spends its games against the neighbours it most likely has,
    not against the middle of the field. The widened sigma lets a version that
    moved a lot travel fast (TrueSkill moves a rating in proportion to its
    sigma squared), and puts a new version below its last on a leaderboard of
    mu - 3 sigma until its own games have earned it more: an author gains
    nothing by submitting a new version of a strong bot. A first version, with
    no last, starts fresh.
    """
    if previous is None:
        return FRESH
    return Rating(previous.mu, min(FRESH.sigma, math.hypot(previous.sigma, WIDEN)))


@dataclass(frozen=True, slots=True)
class Entrant:
    """One entrant the matchmaker may seat, as the server has it on record."""

    name: str
    rating: Rating
    games: int
    """Ladder games played, and in play: a table chosen counts at once, so that tables
    chosen while others are in play see it."""

    def __post_init__(self) -> None:
        if not self.name:
            raise LadderError("an entrant needs a name")
        if self.games < 0:
            raise LadderError(f"{self.name} cannot have played {self.games} games")


PLACEMENT_GAMES = 12
"""Games a new entrant is given before any other is seated ahead of it: against neighbours,
about what TrueSkill needs to take a sigma of 4 to under 2."""
FLOOR = 0.5
"""An entrant below this share of the field's mean games is seated before any other."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The organiser's: the table sizes allowed, the placement burst, the fairness floor."""

    sizes: tuple[int, ...] = (3,)
    placement: int = PLACEMENT_GAMES
    floor: float = FLOOR

    def __post_init__(self) -> None:
        if not self.sizes or min(self.sizes) < 2 or len(set(self.sizes)) != len(self.sizes):
            raise LadderError(f"table sizes are distinct numbers of at least 2, not {self.sizes}")
        if self.placement < 0:
            raise LadderError(f"a placement burst is 0 games or more, not {self.placement}")
        if not 0 <= self.floor <= 1:
            raise LadderError(f"the fairness floor is a share of the mean games, not {self.floor}")


def tables_of(sizes: Sequence[int]) -> str:
    """As the ladder's status says its sizes: `tables of 3`, `tables of 2, 3 or 4`."""
    said = [str(size) for size in sorted(sizes)]
    if len(said) < 2:
        return f"tables of {''.join(said)}"
    return f"tables of {', '.join(said[:-1])} or {said[-1]}"
