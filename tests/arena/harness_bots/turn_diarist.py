"""A bot that writes a line to its stderr on every request, naming the game it is asked in.

The lines say which game the bot was playing when it wrote them, so a test
can tell whether a game's part of the bot's log holds that game's lines, all
of them, and no other game's. It writes nothing after a game ends (that
would be written while the next game is in play), and is self-contained, so
that it can be copied into a bots folder under any name.
"""

from __future__ import annotations

import os
import sys

from arena.kit import PASS, Answer, PolicyHandler, run_handler
from arena.protocol.messages import referee as pb
from engine import DUDO, Bid, Observation

NAME = os.environ.get("PERUDO_BOT_NAME", "diarist")


def line(name: str, game: str, turn: int) -> str:
    """What the bot writes on its `turn`-th request of `game` (counted from 1)."""
    return f"{name} diary: turn {turn} of game [{game}]"


def act(obs: Observation) -> Answer:
    if not obs.my_turn:
        return PASS
    faces = [face for face in range(1, 7) if obs.floors[face - 1]]
    if obs.can_dudo and (len(obs.bids) >= 2 or not faces):
        return DUDO
    face = max(faces)
    return Bid(obs.floors[face - 1], face)


class Diarist(PolicyHandler):
    def __init__(self) -> None:
        super().__init__(act)
        self.turns: dict[str, int] = {}

    async def request(self, request: pb.ActionRequest) -> pb.Action:
        turn = self.turns[request.game_id] = self.turns.get(request.game_id, 0) + 1
        print(line(NAME, request.game_id, turn), file=sys.stderr, flush=True)
        return await super().request(request)


if __name__ == "__main__":
    run_handler(Diarist)
