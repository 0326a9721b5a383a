"""The bot that `arena bench` plays with: legal, instant, and thoughtless.

Its decisions cost next to nothing, so what the benchmark measures is the
referee and the transport, not the bot.
"""

from __future__ import annotations

import asyncio

from arena.kit import PASS, Answer, Observation, connection_from_env, serve
from engine import DUDO, Bid


def act(obs: Observation) -> Answer:
    if not obs.my_turn:
        return PASS
    if obs.can_dudo and len(obs.bids) >= 3:
        return DUDO
    for face in (6, 5, 4, 3, 2, 1):
        floor = obs.floors[face - 1]
        if floor:
            return Bid(floor, face)
    return DUDO


if __name__ == "__main__":
    # Every session in this one process (kit.serve, not kit.run): the benchmark
    # compares the referee with the bare transport, and both see the same bots.
    asyncio.run(serve(connection_from_env("bench"), act))
