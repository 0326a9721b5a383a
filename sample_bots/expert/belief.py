"""What every opponent holds, given the bids of the round and how each bids.

Before the bids, every unseen die is uniform. Each bid is then evidence about
its bidder's hand, weighed by that bidder's learned honesty (`tendencies`): a
hand that backs the faces its owner bid is likelier, by how much depending on
how that owner has bid when its dice were shown. The hands of different
opponents are independent given the bids, so each opponent has a posterior
of its own, and a joint guess at the table draws one hand from each.

A posterior is over the hand's face counts (order does not matter). Up to
`EXACT_DICE` dice every possible hand is listed with its uniform chance, so
the posterior is exact; above that, a pool of hands drawn uniformly by
`engine.sample_hands` stands in for the list (importance sampling).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate, combinations_with_replacement

from tendencies import counts_for, face_log_likelihoods, informative

from engine import FACES, Observation, sample_hands

EXACT_DICE = 6
"""The most dice per hand for which every hand is listed (462 hands of 6 dice)."""
POOL = 384
"""Uniform deals drawn to stand in for the list of hands larger than `EXACT_DICE`."""

Support = tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]
"""Hands as face counts, with their chance before any bid."""


@lru_cache(maxsize=64)
def exact_support(n: int, palifico: bool) -> Support:
    """Every hand of `n` dice as counts for faces 1..6, with its chance under uniform dice."""
    merged: Counter[tuple[int, ...]] = Counter()
    for hand in combinations_with_replacement(FACES, n):
        faces = Counter(hand)
        ways = math.factorial(n)
        for k in faces.values():
            ways //= math.factorial(k)
        merged[counts_for(hand, palifico)] += ways / 6**n
    return tuple(merged), tuple(merged.values())


def drawn_supports(
    obs: Observation, seats: Sequence[int], rng: random.Random
) -> dict[int, Support]:
    """For each of `seats`, `POOL` of its hands drawn uniformly (one deal each), of weight 1."""
    deals = [sample_hands(obs, rng) for _ in range(POOL)]
    return {
        seat: (tuple(counts_for(deal[seat], obs.palifico) for deal in deals), (1.0,) * POOL)
        for seat in seats
    }


def bid_likelihood(
    counts: tuple[int, ...], faces: tuple[int, ...], palifico: bool, honesty: Sequence[float]
) -> float:
    """P(a player bids `faces` | its hand's `counts`), averaged over its honesty posterior."""
    total = 0.0
    logs = [face_log_likelihoods(counts, face, palifico) for face in faces]
    for i, weight in enumerate(honesty):
        if weight > 1e-9:
            total += weight * math.exp(sum(log[i] for log in logs))
    return total


class Belief:
    """Every opponent still in the round, with the posterior over its hand.

    `honesty[seat]` is that seat's posterior over the honesty grid of
    `tendencies.LAMBDAS`; the observer's own entry is not read.
    """

    def __init__(
        self, obs: Observation, honesty: Sequence[Sequence[float]], rng: random.Random
    ) -> None:
        self.obs = obs
        self.rng = rng
        palifico = obs.palifico
        self.mine = counts_for(obs.my_dice, palifico)
        self.seats = tuple(seat for seat, n in enumerate(obs.dice) if n > 0 and seat != obs.seat)
        evidence: dict[int, list[int]] = {seat: [] for seat in self.seats}
        for placed in informative(obs.bids, palifico):
            if placed.seat in evidence:
                evidence[placed.seat].append(placed.bid.face)
        self.counts: dict[int, tuple[tuple[int, ...], ...]] = {}
        self.cumulative: dict[int, list[float]] = {}
        large = [seat for seat in self.seats if obs.dice[seat] > EXACT_DICE]
        drawn = drawn_supports(obs, large, rng) if large else {}
        for seat in self.seats:
            n = obs.dice[seat]
            hands, prior = exact_support(n, palifico) if n <= EXACT_DICE else drawn[seat]
            faces = tuple(evidence[seat])
            weights: Sequence[float] = prior
            if faces:
                weights = [
                    p * bid_likelihood(counts, faces, palifico, honesty[seat])
                    for counts, p in zip(hands, prior, strict=True)
                ]
            self.counts[seat] = hands
            self.cumulative[seat] = list(accumulate(weights))

    def draw(self, k: int) -> dict[int, list[tuple[int, ...]]]:
        """`k` joint guesses: for each opponent, the counts (faces 1..6) of its hand in each."""
        choices = self.rng.choices
        return {
            seat: choices(self.counts[seat], cum_weights=self.cumulative[seat], k=k)
            for seat in self.seats
        }

    def chance_per_die(self, seat: int, face: int) -> float:
        """The chance one of `seat`'s dice counts for `face` under its posterior."""
        cumulative = self.cumulative[seat]
        weights = [b - a for a, b in zip([0.0, *cumulative], cumulative, strict=False)]
        held = sum(w * c[face - 1] for w, c in zip(weights, self.counts[seat], strict=True))
        return held / (cumulative[-1] * self.obs.dice[seat])
