"""A weak test bot: it calls dudo on every bid it may, and opens with the smallest bid.

Against `strategy.act` it loses nearly every game, which is what a test of a
ranking that should be known quickly needs: bots of clearly different strength.
"""

from __future__ import annotations

from arena.kit import PASS, Answer, run
from engine import DUDO, Bid, Observation


def act(obs: Observation) -> Answer:
    if not obs.my_turn:
        return PASS
    if obs.can_dudo:
        return DUDO
    face = next(f for f in range(6, 0, -1) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


if __name__ == "__main__":
    run(act)
