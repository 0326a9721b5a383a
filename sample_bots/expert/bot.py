"""The expert house bot: reads its opponents, searches, bluffs (see policy.py).

It answers whole requests rather than views, for two things a view leaves
out: the players' names, under which it remembers each opponent from game to
game, and the time the referee says is left, which caps its thinking.

Its thinking time per decision is `--budget-ms` (or EXPERT_BUDGET_MS),
default 25, and never more than a quarter of the time left.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable

from policy import BUDGET_S, Expert

from arena.kit import run_handler
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from engine import RoundOutcome


class ExpertHandler:
    """One session's requests, answered by the session's one `Expert`."""

    def __init__(self, expert: Expert) -> None:
        self._expert = expert
        self._history: dict[str, tuple[RoundOutcome, ...]] = {}

    async def open(self) -> None:
        return None

    async def request(self, request: pb.ActionRequest) -> pb.Action:
        known = self._history.get(request.game_id, ()) + _outcomes(request.results)
        self._history[request.game_id] = known
        obs = wire.observation_from_proto(request, known)
        answer = self._expert.act(obs, request.game_id, request.players, request.time_left_ms)
        return wire.answer_to_proto(answer)

    async def game_over(self, message: pb.GameOver) -> None:
        known = self._history.pop(message.game_id, ()) + _outcomes(message.results)
        self._expert.game_over(message.game_id, message.players, message.seat, known)

    async def close(self) -> None:
        return None


def _outcomes(results: Iterable[pb.RoundResult]) -> tuple[RoundOutcome, ...]:
    return tuple(wire.outcome_from_proto(result) for result in results)


def main() -> None:
    # No --help of its own: the kit's lists the connection flags, and this docstring the rest.
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=float(os.environ.get("EXPERT_BUDGET_MS", BUDGET_S * 1000)),
        help="thinking time per decision, in milliseconds (default 25)",
    )
    args, rest = parser.parse_known_args()  # the kit reads (strictly) the connection flags
    expert = Expert(budget=args.budget_ms / 1000)
    run_handler(lambda: ExpertHandler(expert), name="expert", argv=rest)


if __name__ == "__main__":
    main()
