"""The strongest of the Python sample bots: binomial odds sharpened by reading the table.

Beliefs. A die nobody has shown counts for a face with chance 1/3 in an
ordinary round (the face or a wild paco) and 1/6 on pacos or in a palifico
round. But players mostly bid what they hold, so every face another seat has
bid this round makes that seat's dice a little more likely to show it: each of
its dice shows a face it bid with weight `TILT` instead of 1. How much to
trust a seat is learned from the rounds already shown in this game: when a
seat's challenged bid was revealed, did it hold more of the face than chance
would give, or less? Truthful seats get a stronger tilt, bluffers none.
The count of the unseen dice for a face is then a sum of per-seat binomials.

Choice. Each answer is priced in expected dice lost:
- dudo loses a die when the standing bid is true, and a die lost by the
  bidder otherwise is worth a little to us (`OTHERS_LOSS`);
- calza gains a die (if we hold fewer than the maximum) when the count is
  exact and loses one otherwise;
- a raise loses a die only if it is false and the next player challenges it,
  which they do about `CHALLENGE_RATE` of the time.
The cheapest answer wins. The raise is the bid most likely true; on a tie the
higher count, which leaves the next player less room. Out-of-turn calza offers
(calza "any") are taken when the exact count is likely enough to pay.

Palifico needs no special case: its face is fixed by the floors, pacos are not
wild in the odds, and the opener's face (often their only die) is tilted like
any other bid.
"""

from __future__ import annotations

from math import comb, exp, log

from arena.kit import PASS, Answer, run
from arena.kit.odds import chance_per_die, counting, legal_bids
from engine import CALZA, DUDO, PACO, Bid, Observation, RoundEnd

RAISE_STEPS = 3
"""How far above each face's smallest legal count a raise is looked for."""
TILT = 2.5
"""Weight of a face a seat has bid, for each of its dice, against 1 for the others."""
PRIOR_ROUNDS = 3.0
"""How many rounds' worth of trust a seat starts with, before its shown bids speak."""
OTHERS_LOSS = 0.2
"""What another player's lost die is worth to us, in our own dice."""
CHALLENGE_RATE = 0.6
"""How often a raise is challenged by the next player."""
CALZA_GAIN = 1.0
"""What a regained die is worth, against a lost one."""


def _logit(p: float) -> float:
    return log(p / (1 - p))


def _seat_tilts(obs: Observation) -> list[float]:
    """For each seat, the weight its bid faces get on each of its dice.

    Trust is kept as the log-odds by which a seat's dice beat chance on the
    face it bid: `TILT` makes a prior worth `PRIOR_ROUNDS` rounds, and every
    bid of the seat revealed at the end of a round adds what its hand showed.
    The result is turned back into the weight that gives that rate on an
    ordinary face, and never below 1: a bluffer's bids are ignored, not inverted.
    """
    chance = 1 / 3
    prior = _logit((1 + TILT) / (5 + TILT)) - _logit(chance)
    evidence = [prior * PRIOR_ROUNDS] * len(obs.dice)
    weight = [PRIOR_ROUNDS] * len(obs.dice)
    for outcome in obs.history:
        if outcome.end is RoundEnd.FAULT or outcome.standing is None:
            continue
        seat, bid = outcome.standing.seat, outcome.standing.bid
        hand = outcome.hands[seat]
        p = chance_per_die(bid.face, outcome.palifico)
        # Shrunk towards p so that a hand of all or none of the face stays finite.
        held = (counting(hand, bid.face, outcome.palifico) + p) / (len(hand) + 1)
        evidence[seat] += _logit(held) - _logit(p)
        weight[seat] += 1
    rates = (1 / (1 + exp(-_logit(chance) - e / w)) for e, w in zip(evidence, weight, strict=True))
    return [max(1.0, (5 * h - 1) / (1 - h)) for h in rates]


class Beliefs:
    """How many unseen dice count for each face, given the bids of the round."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        bid_faces: list[set[int]] = [set() for _ in obs.dice]
        for placed in obs.bids:
            bid_faces[placed.seat].add(placed.bid.face)
        tilts = _seat_tilts(obs)
        self._unseen = [
            self._distribution(face, bid_faces, tilts) for face in range(1, 7)
        ]

    def _distribution(self, face: int, bid_faces: list[set[int]], tilts: list[float]) -> list[float]:
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


def calza_value(obs: Observation, beliefs: Beliefs) -> float:
    """Expected dice gained by calling calza on the standing bid now."""
    assert obs.standing is not None
    exact = beliefs.chance_exact(obs.standing)
    gain = CALZA_GAIN if len(obs.my_dice) < obs.ruleset.dice_per_player else 0.0
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
    if not obs.my_turn:  # an out-of-turn calza offer (calza "any")
        return CALZA if obs.can_calza and calza_value(obs, beliefs) > 0 else PASS
    best = best_raise(obs, beliefs)
    if obs.standing is None:
        assert best is not None, "an opening bid is always possible"
        return best[0]
    true = beliefs.chance_true(obs.standing)
    # Expected dice lost by each answer; the cheapest is played.
    options: list[tuple[float, Answer]] = [(true - OTHERS_LOSS * (1 - true), DUDO)]
    if obs.can_calza:
        options.append((-calza_value(obs, beliefs), CALZA))
    if best is not None:
        options.append(((1 - best[1]) * CHALLENGE_RATE, best[0]))
    return min(options, key=lambda o: o[0])[1]


if __name__ == "__main__":
    run(act, name="py-strong")
