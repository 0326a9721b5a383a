"""A game's replay: everything that happened in it, enough to tell it and to play it again."""

from __future__ import annotations

from dataclasses import dataclass

import engine
from arena.records.fields import Fields, Json, RecordError, each, number, string, strings
from arena.records.replay_events import Deal, ReplayEvent, event_from_json


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
    round_trip_ms: tuple[float | None, ...] = ()
    """Each seat's link, by seat: its measured network round trip in milliseconds when it
    was last asked (None: not measured, a bot that does not answer pings); empty in
    replays from before it was measured."""
    tournament: str = ""
    """The tournament (a night, a ladder round) it was played in, by its folder's name; ""
    in replays from before it was kept."""

    @property
    def league_id(self) -> str:
        """The game's id across the league: `TOURNAMENT/GAME`, as `arena replay` takes it.
        A game's own id names it within its tournament alone (every round of the ladder
        has a `u000-t000-r0`)."""
        return f"{self.tournament}/{self.game}" if self.tournament else self.game

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
        if self.round_trip_ms:
            data["round_trip_ms"] = list(self.round_trip_ms)
        if self.tournament:
            data["tournament"] = self.tournament
        return data

    @classmethod
    def from_json(cls, data: object) -> Replay:
        fields = Fields(data, "a replay")
        replay = cls(
            game=fields.get("game", string, ""),
            players=fields.get("players", strings, ()),
            ruleset=fields.get("ruleset", _ruleset, engine.Ruleset()),
            ranking=fields.get("ranking", strings, ()),
            events=fields.get("events", each(event_from_json), ()),
            deal_key=fields.optional("deal_key", string),
            round_trip_ms=fields.optional("round_trip_ms", each(_maybe_number)) or (),
            tournament=fields.optional("tournament", string) or "",
        )
        fields.done()
        return replay

    def deals(self) -> list[Deal]:
        return [event for event in self.events if isinstance(event, Deal)]


def _maybe_number(value: object) -> float | None:
    return None if value is None else number(value)


def _ruleset(value: object) -> engine.Ruleset:
    if not isinstance(value, dict):
        raise RecordError("of the wrong type")
    return engine.Ruleset.from_mapping(value)  # a RulesetError is a ValueError
