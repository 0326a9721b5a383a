"""A request for test games judged: the versions it seats, and each refusal saying what was
wrong and what to do; the daily quota counts what the store holds and says when it frees."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import LeagueStore, open_store
from arena.store.requests import RequestState
from arena.submissions.requests import (
    DAY,
    RequestLimits,
    RequestRefusedError,
    judge,
    left_today,
    parse_opponent,
)

NOW = 1_800_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LeagueStore]:
    opened = open_store(tmp_path / "league.sqlite")
    for name in ("alice", "bob", "carol", "dave"):
        opened.set_entrant(name, name[0] * 64)
    for uid, name in [("a1", "alice"), ("a2", "alice"), ("b1", "bob"), ("c1", "carol")]:
        opened.begin_submission(uid, name, f"sha-{uid}", size=10, files=1, received=1.0)
        opened.finish_submission(uid, True, "", "", "[]")
    try:
        yield opened
    finally:
        opened.close()


def _refusal(store: LeagueStore, *against: str, **given: object) -> str:
    limits = given.pop("limits", RequestLimits())
    version = given.pop("version", None)
    games = given.pop("games", 2)
    with pytest.raises(RequestRefusedError) as refused:
        judge(store, limits, "alice", version, list(against), games, NOW)  # type: ignore[arg-type]
    return str(refused.value)


def test_a_request_seats_the_playing_versions_or_those_named(store: LeagueStore) -> None:
    asked = judge(store, RequestLimits(), "alice", None, ["bob", "carol@1"], 4, NOW)
    assert {n: r.version for n, r in asked.seats.items()} == {"alice": 2, "bob": 1, "carol": 1}
    assert list(asked.seats) == ["alice", "bob", "carol"]  # the author first
    assert asked.games == 6  # rounded up to whole rotations of three seats
    older = judge(store, RequestLimits(), "alice", 1, ["bob"], 1, NOW)
    assert older.seats["alice"].version == 1 and older.games == 2


def test_unknown_opponents_versions_and_bad_tables_are_refused(store: LeagueStore) -> None:
    assert "no entrant 'zoe'" in _refusal(store, "zoe")
    assert "alice, bob, carol" in _refusal(store, "zoe")  # the entrants it could have named
    assert "dave has no accepted version" in _refusal(store, "dave")
    assert "bob has no version 3 that can play (its versions: 1)" in _refusal(store, "bob@3")
    assert "alice has no version 5" in _refusal(store, "bob", version=5)
    assert "NAME@VERSION" in _refusal(store, "bob@x")
    assert "(5000 characters)" in _refusal(store, "z" * 5000)  # a name is said cut short
    assert "own versions" in _refusal(store, "alice@1")
    assert "named twice" in _refusal(store, "bob", "bob@1")
    assert "at least one opponent" in _refusal(store)
    assert "1 to 12 games (--request-max-games), not 13" in _refusal(store, "bob", games=13)


def test_a_withdrawn_version_cannot_be_asked_for(store: LeagueStore) -> None:
    assert store.withdraw_version("bob", 1)
    assert "bob has no accepted version" in _refusal(store, "bob")
    assert "bob has no version 1" in _refusal(store, "bob@1")


def test_the_daily_quota_says_its_limit_and_when_it_frees(store: LeagueStore) -> None:
    limits = RequestLimits(per_day=2)
    first = store.add_request("alice", [("alice", 2), ("bob", 1)], 2, NOW - DAY + 600)
    store.set_request(first.uid, RequestState.PLAYED)
    second = store.add_request("alice", [("alice", 2), ("bob", 1)], 2, NOW - 60)
    assert "one request at a time" in _refusal(store, "bob", limits=limits)
    assert f"{second.uid} is still queued" in _refusal(store, "bob", limits=limits)
    store.set_request(second.uid, RequestState.FAILED, "a bot could not play")
    said = _refusal(store, "bob", limits=limits)
    frees = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(NOW + 600))
    assert "at most 2 requests for test games a day per author (--requests-per-day)" in said
    assert f"alice has made 2 in the last 24 hours; the next frees at {frees}" in said
    assert left_today(store, limits, "alice", NOW) == 0
    # Another author's quota is its own; past the day, the oldest frees.
    judge(store, limits, "bob", None, ["alice"], 2, NOW)
    judge(store, limits, "alice", None, ["bob"], 2, NOW + 601)


def test_a_request_a_stop_interrupted_costs_no_quota(store: LeagueStore) -> None:
    limits = RequestLimits(per_day=1)
    store.add_request("alice", [("alice", 2), ("bob", 1)], 2, NOW - 60)
    store.interrupt_requests()
    judge(store, limits, "alice", None, ["bob"], 2, NOW)
    assert left_today(store, limits, "alice", NOW) == 1


def test_an_opponent_is_a_name_and_maybe_a_version() -> None:
    assert parse_opponent("bob") == ("bob", None)
    assert parse_opponent(" bob@12 ") == ("bob", 12)
    for bad in ("", "@3", "bob@", "bob@0", "bob@-1"):
        with pytest.raises(RequestRefusedError):
            parse_opponent(bad)


def test_a_server_may_take_no_requests(store: LeagueStore) -> None:
    said = _refusal(store, "bob", limits=RequestLimits(per_day=0))
    assert "takes no requests for test games (--requests-per-day 0)" in said
