"""How each opponent bids and challenges, learned from the dice every round reveals.

Two habits decide how to read a player and how to bid at them:

- Honesty: when a player bids a face, how strongly that face tracks its dice.
  A player is modelled as picking the face of a bid with weight
  `exp(lam * k)`, `k` its dice counting for that face; `lam = 0` is a random
  or pure bluffer, a large `lam` a player who bids what it holds. The
  likelihood of every revealed bid is kept for a grid of values of `lam`, so
  the posterior over `lam` is one sum away.
- Challenging: when a player faces a bid, how often it calls dudo, as a
  function of the chance that bid is true seen from its own dice alone (the
  binomial any player can work out). Kept as dudo / faced counts in bins.

Both are kept per player name, across every game of the session (a bot keeps
its name from game to game, not its seat), and pooled over all names: a name
met for the first time is read like the table so far, and its own record
takes over as it grows.

Evidence is one round at a time, given as the round's bids and its outcome:
today the bids a bot saw in the requests of that round (and its own), and, once
the referee reports a round's whole bid list, that list through the same call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from engine import PACO, PlacedBid, RoundEnd, RoundOutcome, left_of

LAMBDAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
"""The grid on which a player's honesty is weighed."""
PRIOR_LAMBDA = 1.0
"""Where the honesty prior is centred, before anyone has shown a hand."""
POOL_WEIGHT = 12.0
"""How many of a name's own revealed bids the pooled record counts for, at most."""
BINS = 10
"""Bins of the faced bid's chance (from the facer's dice) for the challenge rate."""
PRIOR_DUDO = (0.95, 0.85, 0.7, 0.5, 0.35, 0.2, 0.1, 0.05, 0.03, 0.02)
"""A plausible challenge rate per bin, before any play is seen."""
PRIOR_FACED = 4.0
"""How many faced bids per bin `PRIOR_DUDO` counts for in the pooled record."""
NAME_WEIGHT = 6.0
"""How many faced bids per bin the pooled rate counts for against a name's own."""


@lru_cache(maxsize=65536)
def tail(unseen: int, p: float, needed: int) -> float:
    """P(X >= needed) for X ~ Binomial(unseen, p)."""
    if needed <= 0:
        return 1.0
    if needed > unseen:
        return 0.0
    return sum(
        math.comb(unseen, i) * p**i * (1 - p) ** (unseen - i) for i in range(needed, unseen + 1)
    )


def counts_for(hand: Sequence[int], palifico: bool) -> tuple[int, ...]:
    """For faces 1..6, how many dice of `hand` count for it (pacos wild unless palifico)."""
    raw = [0] * 7
    for die in hand:
        raw[die] += 1
    if palifico:
        return tuple(raw[1:])
    return (raw[PACO], *(raw[face] + raw[PACO] for face in range(2, 7)))


def face_choices(palifico: bool) -> tuple[int, ...]:
    """The faces a player weighs when it picks the face of a bid we learn from.

    Ordinary bids on faces 2..6 (paco bids are rarer and on a scale of their
    own); in palifico a face is chosen only by the opener, from all six.
    """
    return (1, 2, 3, 4, 5, 6) if palifico else (2, 3, 4, 5, 6)


@lru_cache(maxsize=65536)
def face_log_likelihoods(counts: tuple[int, ...], face: int, palifico: bool) -> tuple[float, ...]:
    """log P(bidding `face` | a hand with these counts), for each `lam` of the grid."""
    choices = face_choices(palifico)
    out = []
    for lam in LAMBDAS:
        norm = math.log(sum(math.exp(lam * counts[g - 1]) for g in choices))
        out.append(lam * counts[face - 1] - norm)
    return tuple(out)


def informative(bids: Sequence[PlacedBid], palifico: bool) -> list[PlacedBid]:
    """The bids whose face says something about the bidder's hand.

    Each player's first bid on each face counts once (a raise on the same face
    is mostly the table's momentum). Ordinary rounds skip paco bids; palifico
    rounds keep only bids that chose their face: the opening, and a one-die
    player's change of face where the rules allow it.
    """
    seen: set[tuple[int, int]] = set()
    kept = []
    previous: int | None = None
    for placed in bids:
        face = placed.bid.face
        chose = (not palifico and face != PACO) or (palifico and face != previous)
        previous = face
        if chose and (placed.seat, face) not in seen:
            seen.add((placed.seat, face))
            kept.append(placed)
    return kept


@dataclass
class Record:
    """One name's (or the pool's) evidence."""

    honesty: list[float] = field(default_factory=lambda: [0.0] * len(LAMBDAS))
    """Summed log-likelihood of the revealed bids, per `lam` of the grid."""
    bids: int = 0
    dudos: list[float] = field(default_factory=lambda: [0.0] * BINS)
    faced: list[float] = field(default_factory=lambda: [0.0] * BINS)


def _bin(chance: float) -> int:
    return min(BINS - 1, int(chance * BINS))


class Tendencies:
    """Every opponent's learned habits, for the whole session."""

    def __init__(self) -> None:
        self._names: dict[str, Record] = {}
        self._pool = Record(
            dudos=[rate * PRIOR_FACED for rate in PRIOR_DUDO], faced=[PRIOR_FACED] * BINS
        )

    def record(self, name: str) -> Record:
        return self._names.setdefault(name, Record())

    def honesty(self, name: str) -> tuple[float, ...]:
        """The posterior over `lam` for `name` (weights on `LAMBDAS`), shrunk towards the pool."""
        own = self.record(name)
        pool = self._pool
        temper = min(1.0, POOL_WEIGHT / pool.bids) if pool.bids else 0.0
        logs = [
            -((lam - PRIOR_LAMBDA) ** 2) + temper * p + o
            for lam, p, o in zip(LAMBDAS, pool.honesty, own.honesty, strict=True)
        ]
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        total = sum(weights)
        return tuple(w / total for w in weights)

    def dudo_rate(self, name: str, chance: float) -> float:
        """How often `name` calls dudo on a bid it sees true with `chance` from its own dice."""
        b = _bin(chance)
        pool_rate = self._pool.dudos[b] / self._pool.faced[b]
        own = self.record(name)
        return (own.dudos[b] + NAME_WEIGHT * pool_rate) / (own.faced[b] + NAME_WEIGHT)

    def observe_round(
        self,
        players: Sequence[str],
        bids: Sequence[PlacedBid],
        outcome: RoundOutcome,
        me: int | None = None,
    ) -> None:
        """Learn from one ended round: the bids known of it, oldest first, and how it ended.

        `bids` may be the whole round or only its start (what this bot saw);
        what is learned never depends on the bids missing from the end. The
        seat `me` (the learner's own) teaches nothing: its habits are known.
        """
        players = [name if seat != me else "" for seat, name in enumerate(players)]
        hands = outcome.hands
        if outcome.end is RoundEnd.FAULT or not any(hands):
            return
        palifico = outcome.palifico
        counts = [counts_for(hand, palifico) for hand in hands]
        for placed in informative(bids, palifico):
            if hands[placed.seat] and players[placed.seat]:
                self._learn_face(players[placed.seat], counts[placed.seat], placed, palifico)
        dice = tuple(len(hand) for hand in hands)
        for before in bids[:-1]:  # each was raised by the player who faced it
            self._learn_faced(players, counts, dice, before, palifico, challenged=False)
        if not bids:
            return
        last = bids[-1]
        facer = left_of(dice, last.seat)
        if outcome.standing == last:
            # The round ended on the last bid known: was it its facer who challenged?
            if outcome.caller == facer:  # a dudo, or a calza (which spares the bidder too)
                dudo = outcome.end is RoundEnd.DUDO
                self._learn_faced(players, counts, dice, last, palifico, challenged=dudo)
        else:  # the bid changed after the last one known, so its facer raised it
            self._learn_faced(players, counts, dice, last, palifico, challenged=False)

    def _learn_face(
        self, name: str, counts: tuple[int, ...], placed: PlacedBid, palifico: bool
    ) -> None:
        logs = face_log_likelihoods(counts, placed.bid.face, palifico)
        for record in (self.record(name), self._pool):
            record.bids += 1
            for i, x in enumerate(logs):
                record.honesty[i] += x

    def _learn_faced(
        self,
        players: Sequence[str],
        counts: list[tuple[int, ...]],
        dice: tuple[int, ...],
        placed: PlacedBid,
        palifico: bool,
        *,
        challenged: bool,
    ) -> None:
        """The player left of `placed`'s bidder faced it, and challenged it or not."""
        facer = left_of(dice, placed.seat)
        if not players[facer]:
            return
        bid = placed.bid
        chance = tail(
            sum(dice) - dice[facer],
            chance_per_die(bid.face, palifico),
            bid.count - counts[facer][bid.face - 1],
        )
        b = _bin(chance)
        for record in (self.record(players[facer]), self._pool):
            record.faced[b] += 1
            record.dudos[b] += challenged


def chance_per_die(face: int, palifico: bool) -> float:
    """The chance an unseen die counts for `face`: the face, or also a wild paco."""
    return 1 / 6 if palifico or face == PACO else 1 / 3
