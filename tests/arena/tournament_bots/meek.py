"""A deterministic test bot: doubts a bid above a third of the dice, else bids low."""

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
    if obs.standing is not None and obs.can_dudo and obs.standing.count * 3 > obs.dice_in_play:
        return DUDO
    for face in range(1, 7):
        bid = Bid(obs.floors[face - 1], face)
        if obs.may_bid(bid):
            return bid
    return DUDO


if __name__ == "__main__":
    run(act)
