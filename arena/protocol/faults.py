"""Faults: what a bot did wrong, typed, with what it sent.

Every way a bot can fail a request becomes one `Fault`, so the match runner
has one thing to apply to the game and the results have one thing to record.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class FaultKind(enum.Enum):
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    MALFORMED_MESSAGE = "malformed_message"
    DISCONNECT = "disconnect"
    CRASH = "crash"
    STALL = "stall"
    """The bot stopped accepting data: a request could not even be written to it in time."""


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    detail: str
    """Why, in words meant for the bot's author."""
    sent: str = ""
    """What the bot sent, as text (empty when it sent nothing)."""
    request_id: int = 0


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A fault as the results keep it: with the game, the bot and its seat."""

    game_id: str
    bot: str
    seat: int
    round: int
    fault: Fault

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game_id,
            "bot": self.bot,
            "seat": self.seat,
            "round": self.round,
            "kind": self.fault.kind.value,
            "detail": self.fault.detail,
            "sent": self.fault.sent,
            "request_id": self.fault.request_id,
        }
