"""The strongest of the Python sample bots: binomial odds sharpened by reading the table.

Beliefs. A die nobody has shown counts for a face with chance 1/3 in an
ordinary round (the face or a wild paco) and 1/6 on pacos or in a palifico
round. But players mostly bid what they hold, so every face another seat has
bid this round makes that seat's dice more likely to show it: each of its
dice shows a face it bid with a weight above 1, the others with weight 1. The
weight depends on who bid: it is learned per seat from the rounds of this game
already shown, so a seat whose revealed bids were backed by its dice is
believed, and a bluffer's or a random player's bids come to count for nothing.
The number of unseen dice counting for a face is then a sum of per-seat
binomials, one distribution per face, built once per decision.

Choice. Each answer is priced in expected dice lost, and the cheapest is played:
- dudo loses a die when the standing bid is true; when it is false the bidder
  loses one, which is worth a little to us too (`OTHERS_LOSS`);
- calza gains a die (if we hold fewer than the maximum) when the count is
  exact and loses one otherwise;
- a raise loses a die only if it is false and the next player challenges it,
  which happens about `CHALLENGE_RATE` of the time; the raise considered is
  the bid most likely true (on a tie the higher count, leaving the next player
  less room), which also opens each round on what we hold.
So the bot challenges when the standing bid is more likely false than the best
raise is true, weighted by those prices, and calls calza only on a likely
exact count. Out-of-turn calza offers (calza "any") are taken when calza pays.

Palifico. The floors fix the face and the odds stop counting pacos as wild.
The opening face binds everyone for the whole round, and its opener (down to
one die) has chosen it with that in mind, so the opener's bid weighs
`PALIFICO_OPENER` times more than an ordinary bid.
"""

from __future__ import annotations

from math import comb

from arena.kit import PASS, Answer, run
from arena.kit.odds import counting, legal_bids
from engine import CALZA, DUDO, PACO, Bid, Observation

RAISE_STEPS = 3
"""How far above each face's smallest legal count a raise is looked for."""
TILT = 3.5
"""A seat's starting weight for the faces it bids, against 1 for the faces it does not."""
PRIOR_DICE = 10.0
"""How many revealed dice' worth of evidence `TILT` counts for, against what a seat shows."""
PALIFICO_OPENER = 2.0
"""How much more the opener's face weighs in a palifico round."""
OTHERS_LOSS = 0.2
"""What another player's lost die is worth to us, in our own dice."""
CHALLENGE_RATE = 0.4
"""Roughly how often the next player challenges a raise (tuned by play, not derived)."""
CALZA_GAIN = 0.7
"""What a regained die is worth against a lost one. Below 1 (measured): the exact
count is the least certain part of the beliefs, so calza is kept for clear cases."""


def _seat_tilts(obs: Observation) -> list[float]:
    """For each seat, the weight its bid faces get on each of its dice.

    What is learned is the rate at which a seat's dice count for the face it
    bid, from its bids revealed at the end of earlier rounds, starting from the
    rate that `TILT` gives as if `PRIOR_DICE` dice had been seen. The rate is
    turned back into the weight that gives it and never goes below 1: a
    bluffer's bids are ignored, not inverted. Only ordinary faces teach, so
    that every rate is on the one scale (1/3 by chance); paco and palifico bids
    are too rare to matter.
    """
    held = [PRIOR_DICE * (1 + TILT) / (5 + TILT)] * len(obs.dice)
    seen = [PRIOR_DICE] * len(obs.dice)
    for outcome in obs.history:
        if outcome.standing is None or outcome.palifico or outcome.standing.bid.face == PACO:
            continue
        seat, face = outcome.standing.seat, outcome.standing.bid.face
        hand = outcome.hands[seat]  # empty after a fault
        held[seat] += counting(hand, face, palifico=False)
        seen[seat] += len(hand)
    # Solve (1 + w) / (5 + w) = rate for w.
    return [max(1.0, (5 * h / n - 1) / (1 - h / n)) for h, n in zip(held, seen, strict=True)]


class Beliefs:
    """How many unseen dice count for each face, given the bids of the round."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        bid_faces: list[set[int]] = [set() for _ in obs.dice]
        for placed in obs.bids:
            bid_faces[placed.seat].add(placed.bid.face)
        tilts = _seat_tilts(obs)
        if obs.palifico and obs.bids:
            tilts[obs.bids[0].seat] *= PALIFICO_OPENER
        self._unseen = [self._distribution(face, bid_faces, tilts) for face in range(1, 7)]

    def _distribution(
        self, face: int, bid_faces: list[set[int]], tilts: list[float]
    ) -> list[float]:
        """P(k unseen dice count for `face`) for k = 0..unseen, a sum of per-seat binomials."""
        obs = self.obs
        counted = {face} if obs.palifico or face == PACO else {face, PACO}
        dist = [1.0]
        for seat, n in enumerate(obs.dice):
            if seat == obs.seat or n == 0:
                continue
            extra = tilts[seat] - 1
            faces = bid_faces[seat]
            q = (len(counted) + extra * len(counted & faces)) / (6 + extra * len(faces))
            dist = _convolve(dist, [comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)])
        return dist

    def _needed(self, bid: Bid) -> int:
        return bid.count - counting(self.obs.my_dice, bid.face, self.obs.palifico)

    def chance_true(self, bid: Bid) -> float:
        return sum(self._unseen[bid.face - 1][max(0, self._needed(bid)) :])

    def chance_exact(self, bid: Bid) -> float:
        dist = self._unseen[bid.face - 1]
        needed = self._needed(bid)
        return dist[needed] if 0 <= needed < len(dist) else 0.0


def _convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def calza_value(obs: Observation, beliefs: Beliefs, standing: Bid) -> float:
    """Expected dice gained by calling calza on `standing` now."""
    exact = beliefs.chance_exact(standing)
    gain = CALZA_GAIN if len(obs.my_dice) < obs.ruleset.calza_cap else 0.0
    return exact * gain - (1 - exact)


def best_raise(obs: Observation, beliefs: Beliefs) -> tuple[Bid, float] | None:
    """The legal bid most likely true; on a tie the higher count, then the higher face."""
    scored = [(beliefs.chance_true(bid), bid) for bid in legal_bids(obs, RAISE_STEPS)]
    if not scored:
        return None
    chance, bid = max(scored, key=lambda s: (round(s[0], 9), s[1].count, s[1].face))
    return bid, chance


def act(obs: Observation) -> Answer:
    beliefs = Beliefs(obs)
    standing = obs.standing
    if not obs.my_turn:  # an out-of-turn calza offer (calza "any")
        calza = obs.can_calza and standing is not None and calza_value(obs, beliefs, standing) > 0
        return CALZA if calza else PASS
    # Expected dice lost by each answer. There is always one: an opening bid,
    # or dudo on a standing bid.
    options: list[tuple[float, Answer]] = []
    best = best_raise(obs, beliefs)
    if best is not None:
        options.append(((1 - best[1]) * CHALLENGE_RATE, best[0]))
    if standing is not None:
        true = beliefs.chance_true(standing)
        options.append((true - OTHERS_LOSS * (1 - true), DUDO))
        if obs.can_calza:
            options.append((-calza_value(obs, beliefs, standing), CALZA))
    return min(options, key=lambda option: option[0])[1]


if __name__ == "__main__":
    run(act, name="py-strong")
