"""A deterministic test bot: bids what it holds, doubts what looks too high.

Every choice depends only on the observation (no randomness, no memory), so
a tournament of these bots plays the same games from the same seed. Set
PERUDO_TEST_DELAY (seconds) to slow each decision down, for tests that need
a run to last a little while.
"""

from __future__ import annotations

import os
import time

from arena.kit import PASS, Answer, run
from engine import DUDO, Bid, Observation

DELAY = float(os.environ.get("PERUDO_TEST_DELAY", "0"))


def act(obs: Observation) -> Answer:
    if DELAY:
        time.sleep(DELAY)
    if not obs.my_turn:
        return PASS
    others = obs.dice_in_play - len(obs.my_dice)
    if obs.standing is not None and obs.can_dudo:
        face = obs.standing.face
        mine = sum(1 for d in obs.my_dice if d == face or (d == 1 and not obs.palifico))
        if obs.standing.count > mine + others / 3:
            return DUDO
    held = sorted(range(1, 7), key=lambda f: (obs.my_dice.count(f), f), reverse=True)
    for face in held:
        bid = Bid(obs.floors[face - 1], face)
        if obs.may_bid(bid):
            return bid
    return DUDO


if __name__ == "__main__":
    run(act)
