"""The records the arena keeps of its games, typed, each with its one JSON form.

A game leaves two records: its line in games.jsonl (what rating needs, and
the commit point of a tournament) and its replay (every deal, answer, fault
and round's end). The referee builds them, the tournament folder writes them,
a resume, `arena verify`, `arena replay`, the report and the league store read
them back, all through the classes here: what crosses a module boundary is a
record, and a `dict` only at the JSON edge (`to_json`, `from_json`).

`from_json` takes any decoded JSON and either returns the record or raises a
`RecordError` naming every field that is missing or of the wrong type, so the
caller can say which file and line hold it. The JSON forms are those the
arena has always written: fields added since are optional, and a record read
from an old folder writes back as it was read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from arena.errors import ArenaError
from arena.protocol.faults import Fault, FaultKind, FaultRecord

Json = dict[str, Any]
"""A decoded JSON object: what a record is written as, and read from."""

_T = TypeVar("_T")


class RecordError(ArenaError, ValueError):
    """Decoded JSON that is not the record it should be; the message says which fields."""


class _Fields:
    """Reads the fields of one JSON object, gathering the names of those that are wrong."""

    def __init__(self, data: object, what: str) -> None:
        if not isinstance(data, dict):
            raise RecordError(f"is not {what} (not a JSON object)")
        self.data: Mapping[str, object] = data
        self.what = what
        self.wrong: list[str] = []

    def get(self, key: str, parse: Callable[[object], _T], fallback: _T) -> _T:
        """The field parsed; else `fallback`, which stands in only until `done` raises."""
        try:
            return parse(self.data[key])
        except (KeyError, TypeError, ValueError):
            self.wrong.append(key)
            return fallback

    def optional(self, key: str, parse: Callable[[object], _T]) -> _T | None:
        if key not in self.data:
            return None
        return self.get(key, parse, None)

    def done(self) -> None:
        if self.wrong:
            raise RecordError(f"is not {self.what} (no valid {', '.join(self.wrong)})")


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise RecordError("of the wrong type")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError("of the wrong type")
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise RecordError("of the wrong type")
    return value


def _float(value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise RecordError("of the wrong type")
    return float(value)


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise RecordError("of the wrong type")
    return value


def _strs(value: object) -> tuple[str, ...]:
    return tuple(_str(x) for x in _list(value))


def _each(parse: Callable[[object], _T]) -> Callable[[object], tuple[_T, ...]]:
    """A parser of a list of records: one wrong record (a RecordError is a ValueError) makes
    the whole field wrong."""
    return lambda value: tuple(parse(x) for x in _list(value))


def fault_record_from_json(data: object) -> FaultRecord:
    """The inverse of `FaultRecord.to_json`, as a game line holds it. It lives here, not with
    the fault, because reading JSON back, and saying what in it is wrong, is this module's."""
    fields = _Fields(data, "a fault")
    record = FaultRecord(
        fields.get("game", _str, ""),
        fields.get("bot", _str, ""),
        fields.get("seat", _int, 0),
        fields.get("round", _int, 0),
        Fault(
            fields.get("kind", FaultKind, FaultKind.CRASH),
            fields.get("detail", _str, ""),
            fields.get("sent", _str, ""),
            fields.get("request_id", _int, 0),
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
        fields = _Fields(data, "a late decision")
        late = cls(
            fields.get("seat", _int, 0),
            fields.get("request_id", _int, 0),
            fields.get("wall_ms", _float, 0.0),
            fields.get("bot_ms", _float, 0.0),
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
        fields = _Fields(data, "a game record")
        line = cls(
            game=fields.get("game", _str, ""),
            index=fields.get("index", _int, 0),
            players=fields.get("players", _strs, ()),
            ranking=fields.get("ranking", _strs, ()),
            faults=fields.get("faults", _each(fault_record_from_json), ()),
            think_ms=fields.get("think_ms", _times, {}),
            deal_key=fields.optional("deal_key", _str),
            decisions=fields.optional("decisions", _int),
            started=fields.optional("started", _float),
            duration_s=fields.optional("duration_s", _float),
            referee_late=fields.optional("referee_late", _each(LateDecision.from_json)) or (),
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
    return {_str(name): _float(ms) for name, ms in value.items()}


@dataclass(frozen=True, slots=True)
class Deal:
    """A round begins: who opens, and every seat's dice (a seat out of the game has none)."""

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
        fields = _Fields(data, "a deal")
        deal = cls(
            fields.get("round", _int, 0),
            fields.get("opener", _int, 0),
            fields.get("palifico", _bool, False),
            fields.get("hands", _hands, ()),
        )
        fields.done()
        return deal


def _hands(value: object) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(_int(face) for face in _list(hand)) for hand in _list(value))


@dataclass(frozen=True, slots=True)
class Answer:
    """A seat's answer that the rules took: an action in `engine.parse_action`'s words, or
    "pass" (a calza offer out of turn, declined)."""

    seat: int
    action: str
    ms: float
    """Wall time from request to answer, as the referee measured it."""
    cpu_ms: float | None = None
    """CPU time the bot spent on it, where the sandbox could tell."""

    @property
    def declined(self) -> bool:
        """Whether this is a declined calza offer, which changes nothing in the game."""
        return self.action == "pass"

    def to_json(self) -> Json:
        data: Json = {"seat": self.seat, "action": self.action, "ms": self.ms}
        if self.cpu_ms is not None:
            data["cpu_ms"] = self.cpu_ms
        return data

    @classmethod
    def from_json(cls, data: object) -> Answer:
        fields = _Fields(data, "an action")
        answer = cls(
            fields.get("seat", _int, 0),
            fields.get("action", _str, ""),
            fields.get("ms", _float, 0.0),
            fields.optional("cpu_ms", _float),
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
        ):
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: object) -> FaultEvent:
        fields = _Fields(data, "a fault")
        event = cls(
            fields.get("seat", _int, 0),
            fields.get("fault", FaultKind, FaultKind.CRASH),
            fields.get("detail", _str, ""),
            fields.get("sent", _str, ""),
            fields.optional("wall_ms", _float),
            fields.optional("cpu_ms", _float),
            fields.optional("cpu_wait_ms", _float),
        )
        fields.done()
        return event


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round ends by a dudo or calza: how many dice counted, and whose count changed."""

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
        fields = _Fields(data, "a round's end")
        end = cls(
            fields.get("end", engine.RoundEnd, engine.RoundEnd.DUDO),
            fields.get("counted", _int, 0),
            fields.get("changed", _int, 0),
            fields.get("change", _int, 0),
        )
        fields.done()
        return end


ReplayEvent = Deal | Answer | FaultEvent | RoundEnd
"""One thing that happened in a game, in the order it happened."""

_EVENT_KEYS: tuple[tuple[str, Callable[[object], ReplayEvent]], ...] = (
    ("hands", Deal.from_json),
    ("action", Answer.from_json),
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


@dataclass(frozen=True, slots=True)
class Replay:
    """Everything that happened in one game: enough to tell it, and to play it again."""

    game: str
    players: tuple[str, ...]
    ruleset: engine.Ruleset
    ranking: tuple[str, ...]
    events: tuple[ReplayEvent, ...]
    deal_key: str | None = None
    """The key the game's dice were dealt on (None in replays from before it was kept)."""

    def to_json(self) -> Json:
        data: Json = {
            "game": self.game,
            "players": list(self.players),
            "deal_key": self.deal_key,
            "ruleset": self.ruleset.to_mapping(),
            "ranking": list(self.ranking),
            "events": [event.to_json() for event in self.events],
        }
        if self.deal_key is None:
            del data["deal_key"]
        return data

    @classmethod
    def from_json(cls, data: object) -> Replay:
        fields = _Fields(data, "a replay")
        replay = cls(
            game=fields.get("game", _str, ""),
            players=fields.get("players", _strs, ()),
            ruleset=fields.get("ruleset", _ruleset, engine.Ruleset()),
            ranking=fields.get("ranking", _strs, ()),
            events=fields.get("events", _each(event_from_json), ()),
            deal_key=fields.optional("deal_key", _str),
        )
        fields.done()
        return replay

    def deals(self) -> list[Deal]:
        return [event for event in self.events if isinstance(event, Deal)]


def _ruleset(value: object) -> engine.Ruleset:
    if not isinstance(value, dict):
        raise RecordError("of the wrong type")
    return engine.Ruleset.from_mapping(value)  # a RulesetError is a ValueError


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """A bot's place on a leaderboard, as leaderboard.json, `arena leaderboard --json` and the
    admin stream give it: figures rounded for people, not for rating again."""

    rank: int
    bot: str
    mu: float
    sigma: float
    rating: float
    """The conservative rating, mu - 3 sigma, that the table is sorted by."""
    games: int
    wins: int
    win_rate: float
    average_place: float
    faults: int
    median_decision_ms: float

    def to_json(self) -> Json:
        return {
            "rank": self.rank,
            "bot": self.bot,
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.rating,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "average_place": self.average_place,
            "faults": self.faults,
            "median_decision_ms": self.median_decision_ms,
        }

    @classmethod
    def from_json(cls, data: object) -> LeaderboardRow:
        fields = _Fields(data, "a leaderboard row")
        row = cls(
            rank=fields.get("rank", _int, 0),
            bot=fields.get("bot", _str, ""),
            mu=fields.get("mu", _float, 0.0),
            sigma=fields.get("sigma", _float, 0.0),
            rating=fields.get("rating", _float, 0.0),
            games=fields.get("games", _int, 0),
            wins=fields.get("wins", _int, 0),
            win_rate=fields.get("win_rate", _float, 0.0),
            average_place=fields.get("average_place", _float, 0.0),
            faults=fields.get("faults", _int, 0),
            median_decision_ms=fields.get("median_decision_ms", _float, 0.0),
        )
        fields.done()
        return row
