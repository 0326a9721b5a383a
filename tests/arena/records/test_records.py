"""The typed records and their JSON forms: each reads back what it writes, old forms included."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import (
    Deal,
    Decision,
    FaultEvent,
    GameLine,
    LateDecision,
    LeaderboardRow,
    RecordError,
    Replay,
    RoundEnd,
    event_from_json,
)

names = st.text(min_size=1, max_size=12)
ms = st.floats(min_value=0, max_value=1e6, allow_nan=False)
small = st.integers(min_value=0, max_value=50)

faults = st.builds(
    FaultRecord,
    game_id=names,
    bot=names,
    seat=small,
    round=small,
    fault=st.builds(Fault, st.sampled_from(FaultKind), st.text(), st.text(), small),
)
lates = st.builds(LateDecision, small, small, ms, ms)
lines = st.builds(
    GameLine,
    game=names,
    index=small,
    players=st.lists(names, max_size=6).map(tuple),
    ranking=st.lists(names, max_size=6).map(tuple),
    faults=st.lists(faults, max_size=3).map(tuple),
    think_ms=st.dictionaries(names, ms, max_size=4),
    deal_key=st.none() | names,
    decisions=st.none() | small,
    started=st.none() | ms,
    duration_s=st.none() | ms,
    referee_late=st.lists(lates, max_size=2).map(tuple),
)
events = st.one_of(
    st.builds(
        Deal,
        small,
        small,
        st.booleans(),
        st.lists(st.lists(st.integers(1, 6), max_size=5).map(tuple), max_size=6).map(tuple),
    ),
    st.builds(
        Decision,
        small,
        st.sampled_from(["bid 3 5", "dudo", "calza", "pass"]),
        ms,
        st.none() | ms,
        st.none() | ms,
        st.none() | ms,
        st.none() | ms,
    ),
    st.builds(
        FaultEvent,
        small,
        st.sampled_from(FaultKind),
        st.text(),
        st.text(),
        st.none() | ms,
        st.none() | ms,
        st.none() | ms,
        st.none() | ms,
        st.none() | ms,
    ),
    st.builds(RoundEnd, st.sampled_from(engine.RoundEnd), small, small, st.integers(-1, 1)),
)
replays = st.builds(
    Replay,
    game=names,
    players=st.lists(names, max_size=6).map(tuple),
    ruleset=st.sampled_from([engine.Ruleset(), engine.preset("rulebook")]),
    ranking=st.lists(names, max_size=6).map(tuple),
    events=st.lists(events, max_size=8).map(tuple),
    deal_key=st.none() | names,
    round_trip_ms=st.lists(st.none() | ms, max_size=6).map(tuple),
    tournament=st.just("") | names,
)


rows = st.builds(
    LeaderboardRow, small, names, ms, ms, st.floats(-1e3, 1e3), small, small, ms, ms, small, ms
)


def _through_text(data: dict[str, Any]) -> object:
    """What a reader gets back: the JSON as written to disk, and decoded again."""
    return json.loads(json.dumps(data))


@given(lines)
def test_a_game_line_reads_back_what_it_writes(line: GameLine) -> None:
    assert GameLine.from_json(_through_text(line.to_json())) == line


@given(events)
def test_a_replay_event_reads_back_what_it_writes(event: object) -> None:
    assert isinstance(event, (Deal, Decision, FaultEvent, RoundEnd))
    assert event_from_json(_through_text(event.to_json())) == event


@given(replays)
def test_a_replay_reads_back_what_it_writes(replay: Replay) -> None:
    assert Replay.from_json(_through_text(replay.to_json())) == replay


@given(rows)
def test_a_leaderboard_row_reads_back_what_it_writes(row: LeaderboardRow) -> None:
    assert LeaderboardRow.from_json(_through_text(row.to_json())) == row


OLD_LINE = (
    '{"game": "u000-t000-r0", "index": 0, "players": ["a", "b"], "ranking": ["b", "a"], '
    '"faults": [{"game": "u000-t000-r0", "bot": "a", "seat": 0, "round": 3, "kind": "timeout", '
    '"detail": "no answer within 100 ms", "sent": "", "request_id": 17}], '
    '"think_ms": {"b": 1.25}}'
)
"""A line as the first tournaments wrote it: before deal keys, decision counts and times."""


def test_a_line_from_an_old_folder_reads_and_writes_back_as_it_was() -> None:
    line = GameLine.from_json(json.loads(OLD_LINE))
    assert line.deal_key is None and line.decisions is None and line.referee_late == ()
    assert line.fault_counts() == {"a": 1}
    assert line.faults[0].fault.kind is FaultKind.TIMEOUT
    assert json.dumps(line.to_json()) == OLD_LINE


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({}, "no valid game, index, players, ranking, faults, think_ms"),
        ([1], "not a JSON object"),
        (json.loads(OLD_LINE) | {"index": True}, "no valid index"),
        (json.loads(OLD_LINE) | {"players": ["a", 2]}, "no valid players"),
        (json.loads(OLD_LINE) | {"think_ms": {"b": "fast"}}, "no valid think_ms"),
        (json.loads(OLD_LINE) | {"faults": [{"bot": "a", "kind": "slow"}]}, "no valid faults"),
        (json.loads(OLD_LINE) | {"decisions": "6"}, "no valid decisions"),
    ],
)
def test_a_wrong_line_names_its_wrong_fields(data: object, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        GameLine.from_json(data)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"seat": 0, "ms": 1.0}, "not a replay event"),
        ({"round": 1, "opener": 0, "palifico": False, "hands": [[1, "x"]]}, "no valid hands"),
        ({"seat": 0, "fault": "late", "detail": "", "sent": ""}, "no valid fault"),
        ({"end": "dudo", "counted": 1, "changed": 0}, "no valid change"),
    ],
)
def test_a_wrong_event_names_what_is_wrong(data: object, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        event_from_json(data)


def test_a_replay_with_a_wrong_event_or_ruleset_is_refused() -> None:
    good = Replay("g", ("a", "b"), engine.Ruleset(), ("a", "b"), ()).to_json()
    with pytest.raises(RecordError, match="no valid events"):
        Replay.from_json(good | {"events": [{"seat": 0}]})
    with pytest.raises(RecordError, match="no valid ruleset"):
        Replay.from_json(good | {"ruleset": {"dice": 5}})


def test_a_replay_names_its_game_across_the_league_as_arena_replay_takes_it() -> None:
    """Every ladder round has a `u000-t000-r0`: the id that names one game alone is its
    tournament's folder and its own id, as `arena replay TOURNAMENT/GAME` takes it."""
    replay = Replay("u000-t000-r0", ("a", "b"), engine.Ruleset(), ("a", "b"), ())
    assert replay.league_id == "u000-t000-r0"  # a replay from before the tournament was kept
    kept = dataclasses.replace(replay, tournament="ladder-000042")
    assert kept.league_id == "ladder-000042/u000-t000-r0"
    assert Replay.from_json(kept.to_json()).league_id == "ladder-000042/u000-t000-r0"
    assert "tournament" not in replay.to_json()
