"""Answers legally, but its first two decisions (in each process) take 0.8 s each."""

import itertools
import time

from arena.kit import PASS, run
from engine import DUDO, Bid

_decisions = itertools.count(1)


def act(obs):
    if next(_decisions) <= 2:
        time.sleep(0.8)
    if not obs.my_turn:
        return PASS
    if obs.can_dudo:
        return DUDO
    face = next(f for f in range(6, 0, -1) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
