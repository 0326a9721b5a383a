"""The events of a replay, in the order they happened: deals, decisions, faults, round ends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import engine
from arena.protocol.faults import FaultKind
from arena.records.fields import Fields, Json, RecordError, array, boolean, integer, number, string


@dataclass(slots=True)
class Deal:
    """A round begins: who opens, and every seat's dice (a seat out of the game has none).

    Never changed once made; not frozen, as `Decision` is not, for the referee's sake.
    """

    round: int
    opener: int
    palifico: bool
    hands: tuple[tuple[int, ...], ...]

    def to_json(self) -> Json:
        return {
            "round": self.round,
            "opener": self.opener,
            "palifico": self.palifico,
            "hands": [list(hand) for hand in self.hands],
        }

    @classmethod
    def from_json(cls, data: object) -> Deal:
        fields = Fields(data, "a deal")
        deal = cls(
            fields.get("round", integer, 0),
            fields.get("opener", integer, 0),
            fields.get("palifico", boolean, False),
            fields.get("hands", _hands, ()),
        )
        fields.done()
        return deal


def _hands(value: object) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(integer(face) for face in array(hand)) for hand in array(value))


@dataclass(slots=True)
class Decision:
    """A seat's decision that the rules took, with its time: the bot's answer (`wire.Answer`)
    as an action in `engine.parse_action`'s words, or "pass" (a calza offer out of turn,
    declined).

    A value, never changed once made, but not a frozen dataclass: the referee makes one for
    every decision, and a frozen one sets each field through `object.__setattr__`, which
    took three times as long as the rest of recording the answer.
    """

    seat: int
    action: str
    ms: float
    """The bot's own time, from request to answer as the referee measured it, less any
    time the referee itself was held up meanwhile (`referee_ms`)."""
    cpu_ms: float | None = None
    """CPU time the bot spent on it, where the sandbox could tell."""
    limit_ms: float | None = None
    """The time the bot was told it had (its move time and its bank), where a time bank
    made it differ from the tournament's move time."""
    referee_ms: float | None = None
    """Where the referee was held up during the decision (a stall, a stop, a long pause
    of its own): that share of the wall time, which is never the bot's."""
    credit_ms: float | None = None
    """Where the tournament credits a bot's link (`--lag-allowance`): the share of the wall
    time taken as its network's round trip, which `ms` does not count."""

    @property
    def declined(self) -> bool:
        """Whether this is a declined calza offer, which changes nothing in the game."""
        return self.action == "pass"

    def to_json(self) -> Json:
        data: Json = {"seat": self.seat, "action": self.action, "ms": self.ms}
        if self.cpu_ms is not None:
            data["cpu_ms"] = self.cpu_ms
        if self.limit_ms is not None:
            data["limit_ms"] = self.limit_ms
        if self.referee_ms is not None:
            data["referee_ms"] = self.referee_ms
        if self.credit_ms is not None:
            data["credit_ms"] = self.credit_ms
        return data

    @classmethod
    def from_json(cls, data: object) -> Decision:
        fields = Fields(data, "an action")
        answer = cls(
            fields.get("seat", integer, 0),
            fields.get("action", string, ""),
            fields.get("ms", number, 0.0),
            fields.optional("cpu_ms", number),
            fields.optional("limit_ms", number),
            fields.optional("referee_ms", number),
            fields.optional("credit_ms", number),
        )
        fields.done()
        return answer


@dataclass(frozen=True, slots=True)
class FaultEvent:
    """A seat's fault, applied to the game by the ruleset's penalty."""

    seat: int
    kind: FaultKind
    detail: str
    sent: str
    """What the bot sent, as text (empty when it sent nothing)."""
    wall_ms: float | None = None
    """For a timeout: how long the referee waited."""
    cpu_ms: float | None = None
    cpu_wait_ms: float | None = None
    """For a timeout, where the sandbox could tell: the bot's CPU time, and its time
    waiting for a CPU, so that a busy machine is told from a slow bot."""
    rtt_ms: float | None = None
    """For a timeout, where it was measured: the bot's link's round trip, so that a slow
    link is told from a slow bot."""
    credit_ms: float | None = None
    """For a timeout under a lag allowance: how much of its link the limit allowed for."""

    def to_json(self) -> Json:
        data: Json = {
            "seat": self.seat,
            "fault": self.kind.value,
            "detail": self.detail,
            "sent": self.sent,
        }
        for key, value in (
            ("wall_ms", self.wall_ms),
            ("cpu_ms", self.cpu_ms),
            ("cpu_wait_ms", self.cpu_wait_ms),
            ("rtt_ms", self.rtt_ms),
            ("credit_ms", self.credit_ms),
        ):
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: object) -> FaultEvent:
        fields = Fields(data, "a fault")
        event = cls(
            fields.get("seat", integer, 0),
            fields.get("fault", FaultKind, FaultKind.CRASH),
            fields.get("detail", string, ""),
            fields.get("sent", string, ""),
            fields.optional("wall_ms", number),
            fields.optional("cpu_ms", number),
            fields.optional("cpu_wait_ms", number),
            fields.optional("rtt_ms", number),
            fields.optional("credit_ms", number),
        )
        fields.done()
        return event


@dataclass(slots=True)
class RoundEnd:
    """A round ends by a dudo or calza: how many dice counted, and whose count changed.

    Never changed once made; not frozen, as `Decision` is not, for the referee's sake.
    """

    end: engine.RoundEnd
    counted: int
    changed: int
    """The seat that lost (or, by calza, gained) a die."""
    change: int
    """-1, +1, or 0 when a calza was right at the maximum."""

    def to_json(self) -> Json:
        return {
            "end": self.end.value,
            "counted": self.counted,
            "changed": self.changed,
            "change": self.change,
        }

    @classmethod
    def from_json(cls, data: object) -> RoundEnd:
        fields = Fields(data, "a round's end")
        end = cls(
            fields.get("end", engine.RoundEnd, engine.RoundEnd.DUDO),
            fields.get("counted", integer, 0),
            fields.get("changed", integer, 0),
            fields.get("change", integer, 0),
        )
        fields.done()
        return end


ReplayEvent = Deal | Decision | FaultEvent | RoundEnd
"""One thing that happened in a game, in the order it happened."""

_EVENT_KEYS: tuple[tuple[str, Callable[[object], ReplayEvent]], ...] = (
    ("hands", Deal.from_json),
    ("action", Decision.from_json),
    ("fault", FaultEvent.from_json),
    ("end", RoundEnd.from_json),
)
"""How a replay's JSON tells its events apart: by the one key each kind has."""


def event_from_json(data: object) -> ReplayEvent:
    if isinstance(data, dict):
        for key, parse in _EVENT_KEYS:
            if key in data:
                return parse(data)
    raise RecordError("is not a replay event (none of hands, action, fault, end)")
