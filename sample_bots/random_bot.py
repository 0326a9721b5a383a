"""A Perudo bot that plays at random: the floor every other bot should clear.

It never looks at the odds. On its turn it calls dudo a third of the time when
it may, calza now and then when it may, and otherwise bids a random face it may
bid at or just above that face's smallest legal count. Every answer is read off
the observation's floors and flags, so it is always legal; that makes it a
useful sparring partner for checking that a referee accepts odd but legal play.
"""

from __future__ import annotations

import os
import random

from arena.kit import PASS, Answer, run
from engine import CALZA, DUDO, Bid, Observation

rng = random.Random(os.urandom(16))
"""Module-level so that an in-process harness can seed it and replay games exactly."""

DUDO_CHANCE = 1 / 3
CALZA_CHANCE = 1 / 10


def act(obs: Observation) -> Answer:
    if not obs.my_turn:  # an out-of-turn calza offer (calza "any")
        return CALZA if obs.can_calza and rng.random() < CALZA_CHANCE else PASS
    bids = [
        Bid(min(floor + rng.randint(0, 1), obs.dice_in_play), face)
        for face, floor in enumerate(obs.floors, start=1)
        if floor
    ]
    if obs.can_calza and rng.random() < CALZA_CHANCE:
        return CALZA
    # With no legal raise left (the bid is at the top), dudo is the only move.
    if obs.can_dudo and (not bids or rng.random() < DUDO_CHANCE):
        return DUDO
    return rng.choice(bids)


if __name__ == "__main__":
    run(act, name="py-random")
