"""The A/B test's pair schedule: each deal twice, the same table but for the tested seat,
and neither NEW nor OLD ever dealt a deal twice."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.schedule.pairs import build_pairs
from arena.tournament.schedule.round_robin import ScheduledGame, ScheduleError, unit_size

SEED = bytes(range(32))
NEW, OLD = "new-bot", "old-bot"


def _field(n: int) -> list[str]:
    return [f"field-{i}" for i in range(n)]


def _pairs(games: list[ScheduledGame]) -> dict[str, list[ScheduledGame]]:
    by_deal: dict[str, list[ScheduledGame]] = defaultdict(list)
    for game in games:
        by_deal[game.deal_key].append(game)
    return by_deal


@settings(max_examples=60, deadline=None)
@given(field=st.integers(1, 8), size=st.integers(2, 6), pairs=st.integers(1, 120))
def test_every_deal_is_one_pair_differing_only_in_the_tested_seat(
    field: int, size: int, pairs: int
) -> None:
    size = min(size, field + 1)
    games = build_pairs(NEW, OLD, _field(field), size, pairs, SEED)
    assert len(games) == 2 * pairs
    assert [g.index for g in games] == list(range(len(games)))
    assert len({g.game_id for g in games}) == len(games)
    by_deal = _pairs(games)
    assert len(by_deal) == pairs
    for key, (a, b) in by_deal.items():
        assert abs(a.index - b.index) == 1, f"the games of {key} are not side by side"
        new, old = (a, b) if NEW in a.players else (b, a)
        assert NEW not in old.players and OLD not in new.players and OLD in old.players
        seat = new.players.index(NEW)
        assert old.players.index(OLD) == seat
        assert new.players[:seat] + new.players[seat + 1 :] == (
            old.players[:seat] + old.players[seat + 1 :]
        )
        assert len(set(new.players)) == size
    for bot in (NEW, OLD):
        keys = [g.deal_key for g in games if bot in g.players]
        assert len(keys) == len(set(keys)) == pairs, f"{bot} meets a deal twice"


def test_which_of_the_two_plays_first_is_drawn() -> None:
    games = build_pairs(NEW, OLD, _field(3), 4, 200, SEED)
    first = Counter(NEW in a.players for a in games[::2])
    assert 70 < first[True] < 130


@pytest.mark.parametrize(("field", "size"), [(3, 4), (5, 3), (2, 2), (30, 4)])
def test_whole_units_seat_each_opponent_equally_and_the_tested_seat_everywhere(
    field: int, size: int
) -> None:
    names = _field(field)
    unit = unit_size(field, size - 1) // (size - 1)  # tables of the field at one seat fewer
    pairs = 2 * unit * size  # two whole units: every table in every rotation
    games = build_pairs(NEW, OLD, names, size, pairs, SEED)
    news = [g for g in games if NEW in g.players]
    per_opponent = Counter(p for g in news for p in g.players if p != NEW)
    assert len(set(per_opponent.values())) == 1 and set(per_opponent) == set(names)
    seats = Counter(g.players.index(NEW) for g in news)
    assert seats == dict.fromkeys(range(size), pairs // size)


def test_the_same_seed_plans_the_same_test_and_another_another() -> None:
    one = build_pairs(NEW, OLD, _field(4), 4, 50, SEED)
    assert one == build_pairs(NEW, OLD, _field(4), 4, 50, SEED)
    assert one != build_pairs(NEW, OLD, _field(4), 4, 50, bytes(32))


@pytest.mark.parametrize(
    ("new", "old", "field", "size", "pairs", "says"),
    [
        (NEW, NEW, _field(3), 3, 5, "both named"),
        (NEW, OLD, [NEW, "x"], 3, 5, "not in it"),
        (NEW, OLD, _field(2), 4, 5, "seats 2..3"),
        (NEW, OLD, _field(2), 3, 0, "at least one pair"),
    ],
)
def test_a_plan_that_is_no_test_is_refused(
    new: str, old: str, field: list[str], size: int, pairs: int, says: str
) -> None:
    with pytest.raises(ScheduleError, match=says):
        build_pairs(new, old, field, size, pairs, SEED)
