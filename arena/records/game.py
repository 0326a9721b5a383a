"""A game's line in games.jsonl: what rating needs, and the commit point of a tournament."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records.fields import Fields, Json, RecordError, each, integer, number, string, strings


def fault_record_from_json(data: object) -> FaultRecord:
    """The inverse of `FaultRecord.to_json`, as a game line holds it. It lives here, not with
    the fault, because reading JSON back, and saying what in it is wrong, is this package's."""
    fields = Fields(data, "a fault")
    record = FaultRecord(
        fields.get("game", string, ""),
        fields.get("bot", string, ""),
        fields.get("seat", integer, 0),
        fields.get("round", integer, 0),
        Fault(
            fields.get("kind", FaultKind, FaultKind.CRASH),
            fields.get("detail", string, ""),
            fields.get("sent", string, ""),
            fields.get("request_id", integer, 0),
        ),
    )
    fields.done()
    return record


@dataclass(frozen=True, slots=True)
class LateDecision:
    """A decision the referee itself was late for (its loop held up), not charged to the bot."""

    seat: int
    request_id: int
    wall_ms: float
    """The decision as the referee's clock saw it, over the limit."""
    bot_ms: float
    """What the bot took, once the referee's own lag is taken off."""

    def to_json(self) -> Json:
        return {
            "seat": self.seat,
            "request_id": self.request_id,
            "wall_ms": self.wall_ms,
            "bot_ms": self.bot_ms,
        }

    @classmethod
    def from_json(cls, data: object) -> LateDecision:
        fields = Fields(data, "a late decision")
        late = cls(
            fields.get("seat", integer, 0),
            fields.get("request_id", integer, 0),
            fields.get("wall_ms", number, 0.0),
            fields.get("bot_ms", number, 0.0),
        )
        fields.done()
        return late


@dataclass(frozen=True, slots=True)
class GameLine:
    """One line of games.jsonl: a finished game, as rating, resume and the league need it.

    The fields from `deal_key` on came after the first tournaments were played:
    None (or empty) where a line from then has none, and left out when written.
    """

    game: str
    index: int
    """The game's place in the schedule, which is the order games are rated in."""
    players: tuple[str, ...]
    """In seat order."""
    ranking: tuple[str, ...]
    """Winner first."""
    faults: tuple[FaultRecord, ...]
    think_ms: Mapping[str, float]
    """Each bot's median decision time, for the bots that answered at least once."""
    deal_key: str | None = None
    decisions: int | None = None
    started: float | None = None
    """Wall-clock time the game began (seconds since the epoch)."""
    duration_s: float | None = None
    referee_late: tuple[LateDecision, ...] = ()

    def to_json(self) -> Json:
        data: Json = {
            "game": self.game,
            "index": self.index,
            "players": list(self.players),
            "deal_key": self.deal_key,
            "ranking": list(self.ranking),
            "faults": [f.to_json() for f in self.faults],
            "decisions": self.decisions,
            "think_ms": dict(self.think_ms),
            "started": self.started,
            "duration_s": self.duration_s,
        }
        if self.referee_late:
            data["referee_late"] = [late.to_json() for late in self.referee_late]
        return {key: value for key, value in data.items() if value is not None}

    @classmethod
    def from_json(cls, data: object) -> GameLine:
        fields = Fields(data, "a game record")
        line = cls(
            game=fields.get("game", string, ""),
            index=fields.get("index", integer, 0),
            players=fields.get("players", strings, ()),
            ranking=fields.get("ranking", strings, ()),
            faults=fields.get("faults", each(fault_record_from_json), ()),
            think_ms=fields.get("think_ms", _times, {}),
            deal_key=fields.optional("deal_key", string),
            decisions=fields.optional("decisions", integer),
            started=fields.optional("started", number),
            duration_s=fields.optional("duration_s", number),
            referee_late=fields.optional("referee_late", each(LateDecision.from_json)) or (),
        )
        fields.done()
        return line

    def fault_counts(self) -> dict[str, int]:
        """How many faults each bot committed in this game (bots with none left out)."""
        counts: dict[str, int] = {}
        for fault in self.faults:
            counts[fault.bot] = counts.get(fault.bot, 0) + 1
        return counts


def _times(value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        raise RecordError("of the wrong type")
    return {string(name): number(ms) for name, ms in value.items()}
