"""Binomial odds of bids, the arithmetic most Perudo bots start from.

Each unseen die counts for a face with probability 1/3 in an ordinary round
(the face itself or a wild paco) and 1/6 on pacos or in a palifico round.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

from engine import PACO, Bid, Observation, count_for


def counting(dice: tuple[int, ...], face: int, palifico: bool) -> int:
    """How many of `dice` count for `face`: the engine's count, for one hand."""
    return count_for((dice,), face, palifico)


def chance_per_die(face: int, palifico: bool) -> float:
    return 1 / 6 if palifico or face == PACO else 1 / 3


@lru_cache(maxsize=4096)
def at_least(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def unseen(obs: Observation) -> int:
    return obs.dice_in_play - len(obs.my_dice)


def chance_true(obs: Observation, bid: Bid) -> float:
    """The chance that `bid` holds, knowing only one's own dice."""
    mine = counting(obs.my_dice, bid.face, obs.palifico)
    return at_least(unseen(obs), chance_per_die(bid.face, obs.palifico), bid.count - mine)


def legal_bids(obs: Observation, extra: int = 0) -> list[Bid]:
    """For each face that may be bid: the smallest legal bid and up to `extra` above it."""
    top = obs.dice_in_play
    return [
        Bid(count, face)
        for face, floor in enumerate(obs.floors, start=1)
        if floor
        for count in range(floor, min(floor + extra, top) + 1)
    ]
