"""Loads slowly (as a bot with a big model does), in each process it runs in.

The kit opens a second session from a copy of the process, which loads as
slowly again: that session comes seconds after the first.
"""

import time

from arena.kit import PASS, run
from engine import DUDO, Bid

time.sleep(3.5)


def act(obs):
    if not obs.my_turn:
        return PASS
    if obs.can_dudo:
        return DUDO
    face = next(f for f in range(6, 0, -1) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
