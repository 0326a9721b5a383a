"""The time a policy has for one decision: what the referee said, and what is left of it now.

A policy that thinks longer in hard positions (a search deepened until time
runs short, say) needs the request's `time_left_ms` and `bank_left_ms`,
which the game's own view knows nothing of: the engine has no clock. The kit
hands its policies the game's view with this clock beside it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from arena.protocol.messages import referee as pb
from engine import Observation


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """One decision's time, in the referee's figures, and when the kit read the request."""

    time_left_ms: int
    """What this decision may take: the move time plus the bank left. The referee counts it
    from writing the request, so the transport's share before `received` is already spent."""
    bank_left_ms: int
    """What is left of this seat's bank in this game: spent only by time over the move time."""
    move_time_ms: int
    """What every decision may take without touching the bank."""
    increment_ms: int
    """Added to the bank after each decision answered in time."""
    received: float
    """`time.monotonic()` when the kit read the request."""

    @classmethod
    def of(cls, request: pb.ActionRequest, received: float) -> DecisionClock:
        control = request.time_control
        return cls(
            time_left_ms=request.time_left_ms,
            bank_left_ms=request.bank_left_ms,
            move_time_ms=control.move_time_ms,
            increment_ms=control.increment_ms,
            received=received,
        )

    def remaining(self) -> float:
        """Seconds left of `time_left_ms` now, by this process's clock (never below 0).

        Answer with a margin: the reply's way back to the referee counts too.
        """
        return max(0.0, self.time_left_ms / 1000 - (time.monotonic() - self.received))


@dataclass(frozen=True, slots=True)
class TimedObservation(Observation):
    """What a kit policy is given: the game's view (an `engine.Observation`) and its clock."""

    clock: DecisionClock = field(kw_only=True)
