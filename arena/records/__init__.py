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

from arena.records.fields import Json, RecordError
from arena.records.game import GameLine, LateDecision, fault_record_from_json
from arena.records.leaderboard import LeaderboardRow
from arena.records.replay import Replay
from arena.records.replay_events import (
    Deal,
    Decision,
    FaultEvent,
    ReplayEvent,
    RoundEnd,
    event_from_json,
)

__all__ = [
    "Deal",
    "Decision",
    "FaultEvent",
    "GameLine",
    "Json",
    "LateDecision",
    "LeaderboardRow",
    "RecordError",
    "Replay",
    "ReplayEvent",
    "RoundEnd",
    "event_from_json",
    "fault_record_from_json",
]
