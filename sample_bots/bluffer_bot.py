"""A Perudo bot that bluffs boldly and seldom challenges.

Half of its bids name the face it holds fewest of, to send the table after dice
that are not there; the rest name the face it holds most of. It often jumps
the count above the smallest legal raise to put pressure on the next player,
and it calls dudo only when the standing bid is nearly impossible by the
binomial odds of its own dice, so it is hard to push around but pays for its
bluffs when someone calls them. It never calls calza. It plays better than
random because it knows the odds well enough not to challenge sound bids, and
worse than the binomial bot because its bluffs are often false.
"""

from __future__ import annotations

import os
import random

from arena.kit import PASS, Answer, run
from arena.kit.odds import chance_true, counting
from engine import DUDO, Bid, Observation

rng = random.Random(os.urandom(16))
"""Module-level so that an in-process harness can seed it and replay games exactly."""

BLUFF_CHANCE = 0.5
"""How often it names the face it holds fewest of instead of the one it holds most of."""
JUMPS = (0, 1, 2)
JUMP_WEIGHTS = (4, 4, 2)
"""How far above the smallest legal count it bids, and how often."""
DUDO_BELOW = 0.1
"""It challenges only bids that its own dice and the odds make this unlikely."""


def choose_bid(obs: Observation) -> Bid | None:
    """A bid on its weakest or strongest legal face, jumped a random step; None if none is legal."""
    faces = [face for face, floor in enumerate(obs.floors, start=1) if floor]
    if not faces:
        return None
    held = {face: counting(obs.my_dice, face, obs.palifico) for face in faces}
    # Shuffle first so that ties between faces are broken at random.
    rng.shuffle(faces)
    pick = min if rng.random() < BLUFF_CHANCE else max
    face = pick(faces, key=held.__getitem__)
    jump = rng.choices(JUMPS, JUMP_WEIGHTS)[0]
    return Bid(min(obs.floors[face - 1] + jump, obs.dice_in_play), face)


def act(obs: Observation) -> Answer:
    if not obs.my_turn:  # an out-of-turn calza offer: this bot never calls calza
        return PASS
    bid = choose_bid(obs)
    if bid is None:
        return DUDO  # the standing bid is at the top: no raise is left
    if obs.standing is not None and chance_true(obs, obs.standing) < DUDO_BELOW:
        return DUDO
    return bid


if __name__ == "__main__":
    run(act, name="py-bluffer")
