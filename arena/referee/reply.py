"""What one request comes to: the bot's reply, or the fault that replaces it.

Kept apart from the session so the match runner, which only reads replies,
needs nothing of the stream that carries them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from google.protobuf import text_format

from arena.protocol import wire
from arena.protocol._proto.perudo.v1 import referee_pb2 as pb
from arena.protocol.faults import Fault, FaultKind

_request_ids = itertools.count(1)


def next_request_id() -> int:
    """Request ids are unique across the referee, so a reply can never match another request."""
    return next(_request_ids)


@dataclass(frozen=True, slots=True)
class Arrival:
    """What reached a pending request: a message, or the fault that replaces it."""

    message: pb.BotMessage | None
    kind: FaultKind | None
    problem: str
    at: float


@dataclass(frozen=True, slots=True)
class Reply:
    """What became of one request: an answer, or the fault that replaced it."""

    answer: wire.Answer | None
    fault: Fault | None
    elapsed: float
    """From the request's being written to the reply's being read, on the referee's clock."""
    action: pb.Action | None = None
    """The action as the bot sent it."""
    request_id: int = 0
    """The request answered, so that a fault found later (an illegal action) names it."""
    referee_lag: float = 0.0
    """Seconds of `elapsed` in which the referee itself was held up: never charged to the bot."""
    wall: float = 0.0
    """From starting to write the request to reading the reply: `elapsed`, and the
    referee's own queueing before the request was out."""
    cpu: float | None = None
    """CPU seconds the bot's process used meanwhile, where the platform tells (`cputime`)."""
    cpu_wait: float | None = None
    """Seconds it was runnable but waiting for a CPU meanwhile: the machine's load."""

    @property
    def sent(self) -> str:
        """The action as text, for fault records (rendered only when asked: it is slow)."""
        if self.action is None:
            return ""
        return text_format.MessageToString(self.action, as_one_line=True)
