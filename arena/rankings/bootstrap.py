"""How sure the strengths are: a bootstrap over whole rotation groups.

The games of a rotation group are played by the same bots in every seat, so
they are not independent draws: resampling single games would count each
group's luck as if it were many games' worth and give intervals too narrow.
Each copy draws as many groups as were played, with replacement, and counts
each game of a group drawn k times k times; the batch fit is run on every
copy. From the copies: each bot's 95% interval of strength, the probability
of each rank, and for any two bots the share of copies that put one ahead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from arena.rankings.fit import Floats, Orders, RankingError, fit, fit_weighted
from arena.rankings.groups import Finish
from arena.rankings.level import LEVEL

RESAMPLES = 300
"""Copies: enough for a rank's probability to within about 3 points; 1.7 s for 3,000
six-player games of nine bots."""
MIN_GROUPS = 10
"""Rotation groups below which the bootstrap's rank ranges, P(rank 1) and separations are
not told: from a handful of groups it can draw only a handful of distinct copies (3 from 2
groups, 10 from 3), and its shares are then artefacts of the resampling, not evidence."""


@dataclass(frozen=True, slots=True)
class BotConfidence:
    name: str
    strength: float
    """The batch fit's strength, log scale, the field's average at 0."""
    low: float
    high: float
    """The bootstrap's interval of strength at the level asked."""
    rank_probabilities: tuple[float, ...]
    """P(rank 1), P(rank 2), ...: summing to 1."""
    rank_low: int
    rank_high: int
    """The ranks the bot holds in the central share of copies at the level asked."""

    @property
    def p_first(self) -> float:
        return self.rank_probabilities[0] if self.rank_probabilities else 0.0

    @property
    def rank_range(self) -> str:
        """ "2" when the bot holds one rank, else "1-3"."""
        if self.rank_low == self.rank_high:
            return str(self.rank_low)
        return f"{self.rank_low}-{self.rank_high}"


@dataclass(frozen=True, slots=True)
class Confidence:
    """The batch fit of a set of games and what its bootstrap says of it."""

    bots: tuple[BotConfidence, ...]
    """In the order of the names given, not by strength."""
    level: float
    resamples: int
    games: int
    groups: int
    ahead: tuple[tuple[float, ...], ...]
    """ahead[i][j]: the share of copies with bot i stronger than bot j (a tie counts half)."""

    @property
    def enough(self) -> bool:
        """Whether the bootstrap rests on enough rotation groups (`MIN_GROUPS`) to be told."""
        return self.groups >= MIN_GROUPS

    def bot(self, name: str) -> BotConfidence:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise RankingError(f"{name!r} is not ranked here")

    def p_ahead(self, first: str, second: str) -> float:
        names = [b.name for b in self.bots]
        return self.ahead[names.index(first)][names.index(second)]

    def unseparated(
        self, order: Sequence[str], level: float | None = None
    ) -> list[tuple[str, str]]:
        """The neighbours in `order` (a leaderboard, best first) not yet told apart at `level`:
        fewer than that share of copies put the upper one ahead."""
        at = self.level if level is None else level
        return [(a, b) for a, b in pairwise(order) if self.p_ahead(a, b) < at]


def confidence(
    finishes: Sequence[Finish],
    names: Sequence[str],
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Confidence:
    """The fit and its bootstrap; the same seed gives the same figures."""
    if not 0 < level < 1:
        raise RankingError(f"a confidence level is between 0 and 1, not {level}")
    if resamples < 1:
        raise RankingError(f"the bootstrap needs at least one copy, not {resamples}")
    orders = Orders.of(names, [f.order for f in finishes])
    point = fit(orders)
    groups = len({f.group for f in finishes})
    if groups:
        copies = fit_weighted(orders, draws(finishes, resamples, seed))
    else:
        copies = np.zeros((resamples, len(names)))
    return _summary(names, point, copies, level, len(finishes), groups, seed)


def draws(finishes: Sequence[Finish], resamples: int, seed: int) -> Floats:
    """Copies x games: how often each game counts in each copy. A copy draws as many
    groups as there are, with replacement, and a game counts as often as its group."""
    names = sorted({f.group for f in finishes})
    number = {g: i for i, g in enumerate(names)}
    of_game = np.asarray([number[f.group] for f in finishes], dtype=np.intp)
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(len(names), np.full(len(names), 1 / len(names)), size=resamples)
    counts: Floats = drawn.astype(np.float64)[:, of_game]
    return counts


def _summary(
    names: Sequence[str],
    point: Floats,
    copies: Floats,
    level: float,
    games: int,
    groups: int,
    seed: int = 0,
) -> Confidence:
    n = len(names)
    resamples = copies.shape[0]
    if n == 0:  # a league filtered down to no games: nothing to be sure of
        return Confidence((), level, resamples, games, groups, ())
    tail = (1 - level) / 2
    low, high = np.quantile(copies, [tail, 1 - tail], axis=0)
    # Rank r (from 0) of each bot in each copy: its place when sorted strongest first.
    places = np.empty_like(copies, dtype=np.intp)
    # A tie is broken by a coin (seeded), as `ahead` counts it half: broken always for the
    # bot named first, it made P(rank 1) 100% beside an 87% share of copies ahead.
    coin = np.random.default_rng(seed).random(copies.shape)
    order = np.lexsort((coin, -copies), axis=1)
    places[np.arange(resamples)[:, None], order] = np.arange(n)[None, :]
    seats = (np.arange(n)[None, :] * n + places).ravel()
    probabilities = np.bincount(seats, minlength=n * n).reshape(n, n) / resamples
    cumulative = np.cumsum(probabilities, axis=1)
    ahead = _ahead(copies)
    np.fill_diagonal(ahead, 0.5)
    bots = []
    for i, name in enumerate(names):
        bots.append(
            BotConfidence(
                name,
                float(point[i]),
                float(low[i]),
                float(high[i]),
                tuple(float(p) for p in probabilities[i]),
                1 + int(np.searchsorted(cumulative[i], tail + 1e-9)),
                1 + int(np.searchsorted(cumulative[i], 1 - tail - 1e-9)),
            )
        )
    return Confidence(
        tuple(bots),
        level,
        resamples,
        games,
        groups,
        tuple(tuple(float(x) for x in row) for row in ahead),
    )


_CHUNK = 1 << 22
"""Differences held at once by `_ahead`: all of them for 500 bots would be 600 MB."""


def _ahead(copies: Floats) -> Floats:
    """ahead[i][j]: the share of copies with bot i stronger than bot j, a tie counting half;
    a band of bots at a time, so that memory grows with the field, not with its square."""
    resamples, n = copies.shape
    ahead = np.empty((n, n))
    band = max(1, _CHUNK // max(1, resamples * n))
    for start in range(0, n, band):
        diff = copies[:, start : start + band, None] - copies[:, None, :]
        ahead[start : start + band] = (diff > 0).mean(axis=0) + 0.5 * (diff == 0).mean(axis=0)
    return ahead
