"""The ladder's next table: games spent where the ranking is least sure, none starved.

Each table is chosen in three steps, the first that applies:

1. placement: an entrant with fewer than `Rules.placement` games (a new
   version) is seated, the one with fewest games first, so its burst of games
   comes before anyone else's;
2. the floor: an entrant below `Rules.floor` of the field's mean games is
   seated, fewest first, and every seat the table has left goes to the other
   entrants below the floor before anyone else;
3. uncertainty: the entrants are put in order of mu, and each two neighbours
   given the chance they are in the wrong order, Phi(-gap / spread) with the
   spread sqrt(sigma_a^2 + sigma_b^2); one pair is drawn with that chance as
   its weight (a tenth of the draws evenly over every pair, `EXPLORE`) and
   both are seated.

The table's other seats are then drawn one by one, each entrant weighted by how
much its rating overlaps the nearest one seated, exp(-d^2 / 2 s^2) with d the
distance in mu and s the two sigmas together: the table grows along the
ladder around the pair least told apart, so that its games answer that
question and the ones next to it. Weights never reach zero, so anyone may be
drawn, and no one can know who.

A bot has no way in: the inputs are the server's record (rating, games), and
every tie and every draw goes to the secret-keyed random source, not to the
order given or to a name, which is only compared to find duplicates and to put
the field in one order before the draw shuffles it.

The table is played in every rotation, one game with each entrant in each seat
(a rotation group, as a league night's), so no seat is anyone's more than
another's, and the bootstrap resamples the table's games together.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.matchmaking.draw import Draw
from arena.matchmaking.field import Entrant, LadderError, Rules

OVERLAP_FLOOR = 1e-6
"""The least weight an entrant has of being drawn to a table: never zero, so that every
table could be any; small enough that the table stays around its question."""


EXPLORE = 0.1
"""The share of the pair draws spread evenly over every two neighbours, whatever their
ratings say, so that every two neighbours meet now and then. Without it, ratings that
drifted apart with no game between them would stay apart: TrueSkill's sigma never falls
below about 0.7, and two halves of a field that never meet drift freely (measured: a
league of eight whose two middle bots, 0.15 apart in the batch fit, looked 3 mu apart to
TrueSkill and never met in 4,200 games)."""


class Reason(enum.Enum):
    """Why a table was chosen: its first step."""

    PLACEMENT = "placement"
    FLOOR = "floor"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True, slots=True)
class Table:
    seats: tuple[str, ...]
    """Entrant names by seat, for the group's first game."""
    reason: Reason

    def rotations(self) -> tuple[tuple[str, ...], ...]:
        """The group's games: the seating rotated by one seat each."""
        n = len(self.seats)
        return tuple(self.seats[r:] + self.seats[:r] for r in range(n))


def choose(entrants: Sequence[Entrant], rules: Rules, draw: Draw) -> Table:
    """The next table, from the entrants available now."""
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise LadderError("entrant names must be unique")
    rng = draw.random()
    sizes = [s for s in rules.sizes if s <= len(entrants)]
    if not sizes:
        raise LadderError(
            f"{len(entrants)} entrants available, and the smallest table seats {min(rules.sizes)}"
        )
    size = rng.choice(sizes)
    field = sorted(entrants, key=lambda e: e.name)
    rng.shuffle(field)  # every tie below is broken by this order, which no one foresees
    mean = sum(e.games for e in field) / len(field)
    starved = sorted((e for e in field if e.games < rules.floor * mean), key=_games)
    new = [e for e in field if e.games < rules.placement]
    if new:
        seated, reason = [min(new, key=_games)], Reason.PLACEMENT
    elif starved:
        seated, reason = [starved[0]], Reason.FLOOR
    else:
        seated, reason = _least_apart(field, rng), Reason.UNCERTAIN
    seated = seated[:size]
    taken = {e.name for e in seated}
    seated += [e for e in starved if e.name not in taken][: size - len(seated)]
    taken = {e.name for e in seated}
    seated += _around(seated, [e for e in field if e.name not in taken], size - len(seated), rng)
    rng.shuffle(seated)
    return Table(tuple(e.name for e in seated), reason)


def _games(entrant: Entrant) -> int:
    return entrant.games


def _least_apart(field: Sequence[Entrant], rng: random.Random) -> list[Entrant]:
    """Two neighbours in order of mu, drawn by the chance they are the wrong way round:
    Phi(-z) = erfc(z / sqrt 2) / 2, z the gap over the spread (the halving left out), with
    `EXPLORE` of the draws spread evenly over every pair."""
    ladder = sorted(field, key=lambda e: -e.rating.mu)
    mus = [e.rating.mu for e in ladder]
    sigmas = [e.rating.sigma for e in ladder]
    doubts = [
        math.erfc((mus[i] - mus[i + 1]) / math.hypot(sigmas[i], sigmas[i + 1]) * _ROOT_HALF)
        for i in range(len(ladder) - 1)
    ]
    total = sum(doubts)
    even = EXPLORE / len(doubts)
    weights = [even + (1 - EXPLORE) * d / total for d in doubts] if total > 0 else None
    i = rng.choices(range(len(doubts)), weights=weights)[0]
    return [ladder[i], ladder[i + 1]]


_ROOT_HALF = math.sqrt(0.5)


def _around(
    seated: Sequence[Entrant], rest: Sequence[Entrant], seats: int, rng: random.Random
) -> list[Entrant]:
    """`seats` more of `rest`, drawn one by one by their overlap with the nearest one seated:
    exp(-d^2 / 2 s^2), d the distance in mu, s the two sigmas together."""
    left = list(rest)
    mus = [e.rating.mu for e in left]
    variances = [e.rating.sigma**2 for e in left]
    nearest = [math.inf] * len(left)
    drawn: list[Entrant] = []
    newest = list(seated)
    for _ in range(seats):
        for s in newest:
            mu, variance = s.rating.mu, s.rating.sigma**2
            nearest = [
                n if n < (d := (m - mu) ** 2 / (2 * (v + variance))) else d
                for n, m, v in zip(nearest, mus, variances, strict=True)
            ]
        weights = [OVERLAP_FLOOR + math.exp(-d) for d in nearest]
        pick = rng.choices(range(len(left)), weights=weights)[0]
        newest = [left.pop(pick)]
        drawn += newest
        del mus[pick], variances[pick], nearest[pick]
    return drawn
