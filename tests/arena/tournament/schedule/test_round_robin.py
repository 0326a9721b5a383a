"""The schedule's guarantees, checked from their definitions for many shapes of tournament."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from itertools import combinations, pairwise
from math import ceil, comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.schedule.round_robin import (
    MAX_FULL_TABLES,
    Deals,
    ScheduledGame,
    build,
    unit_tables,
)

SEED = bytes(range(32))
OTHER_SEED = bytes(range(1, 33))


def _names(n: int) -> list[str]:
    return [f"bot-{i:02d}" for i in range(n)]


def _tables_per_bot(n: int, size: int) -> int:
    """In one unit: every table holding the bot, or `size` windows of a cyclic order."""
    return comb(n - 1, size - 1) if comb(n, size) <= MAX_FULL_TABLES else size


def _unit_games(n: int, size: int) -> int:
    tables = comb(n, size) if comb(n, size) <= MAX_FULL_TABLES else n
    return tables * size


def _is_rotation(players: tuple[str, ...], of: tuple[str, ...]) -> bool:
    return any(players == of[r:] + of[:r] for r in range(len(of)))


def _table_of(game: ScheduledGame) -> str:
    """The rotation group a game belongs to: its id without the rotation."""
    return game.game_id.rpartition("-r")[0]


def check_no_deal_seen_twice(games: list[ScheduledGame]) -> None:
    """Each deal's games share no bot: nobody is dealt, or shown, a deal twice.

    A bot sees the dice of exactly the games it sits in (its own hand as dealt,
    every hand when a round ends), so this is all it takes.
    """
    seen: set[tuple[str, str]] = set()
    for game in games:
        for bot in game.players:
            assert (bot, game.deal_key) not in seen, f"{bot} meets deal {game.deal_key} twice"
            seen.add((bot, game.deal_key))


def check_fair(games: list[ScheduledGame], names: list[str], size: int, units: int) -> None:
    """Equal games and equal seats for every bot, whole rotation groups."""
    per_bot = Counter(p for g in games for p in g.players)
    per_seat = Counter((p, seat) for g in games for seat, p in enumerate(g.players))
    each = units * _tables_per_bot(len(names), size)
    assert per_bot == dict.fromkeys(names, each * size)
    assert per_seat == {(n, s): each for n in names for s in range(size)}
    groups: dict[str, list[ScheduledGame]] = defaultdict(list)
    for game in games:
        assert len(game.players) == size
        assert len(set(game.players)) == size
        groups[_table_of(game)].append(game)
    for key, group in groups.items():
        assert len(group) == size, f"table {key} has {len(group)} games, not {size}"
        first = group[0].players
        for game in group:
            assert _is_rotation(game.players, first)
        for seat in range(size):
            assert sorted(g.players[seat] for g in group) == sorted(first)


CASES = [
    (n, size, target)
    for n in range(2, 10)
    for size in range(2, min(n, 6) + 1)
    for target in (1, _unit_games(n, size), _unit_games(n, size) + 1, 2 * _unit_games(n, size))
]


@pytest.mark.parametrize(("n", "size", "target"), CASES)
def test_schedule_guarantees(n: int, size: int, target: int) -> None:
    names = _names(n)
    games = build(names, size, target, SEED)
    unit = _unit_games(n, size)
    units = max(1, ceil(target / unit))
    assert len(games) >= target
    assert len(games) == units * unit  # whole units, and no unit more than needed
    assert [g.index for g in games] == list(range(len(games)))
    assert len({g.game_id for g in games}) == len(games)
    check_fair(games, names, size, units)
    check_no_deal_seen_twice(games)
    # Every prefix of whole units is fair on its own: the night may stop there.
    for done in range(1, units + 1):
        check_fair(games[: done * unit], names, size, done)
    if comb(n, size) <= MAX_FULL_TABLES:  # each unit holds every table exactly once
        for u in range(units):
            tables = Counter(frozenset(g.players) for g in games[u * unit : (u + 1) * unit])
            assert tables == {frozenset(t): size for t in combinations(names, size)}


@pytest.mark.parametrize(("n", "size", "target"), [(30, 4, 200), (25, 6, 1), (12, 6, 1000)])
def test_sampled_units_keep_the_guarantees(n: int, size: int, target: int) -> None:
    assert comb(n, size) > MAX_FULL_TABLES  # too many tables: units are sampled
    names = _names(n)
    games = build(names, size, target, SEED)
    unit = n * size
    units = max(1, ceil(target / unit))
    assert len(games) == units * unit
    check_fair(games, names, size, units)
    for done in range(1, units + 1):
        check_fair(games[: done * unit], names, size, done)


def test_unit_tables_sample_each_bot_at_size_tables() -> None:
    names = _names(30)
    tables = unit_tables(names, 4, random.Random(7))
    assert len(tables) == 30
    assert Counter(p for t in tables for p in t) == dict.fromkeys(names, 4)
    assert all(len(set(t)) == 4 for t in tables)


def test_one_table_when_everyone_sits_at_it() -> None:
    tables = unit_tables(["c", "a", "b"], 3, random.Random(0))
    assert len(tables) == 1
    assert sorted(tables[0]) == ["a", "b", "c"]


def test_over_a_night_every_bot_sits_after_every_other() -> None:
    # One full table: rotations alone would keep each bot's left neighbour fixed.
    names = _names(5)
    followers = {
        (game.players[i], game.players[(i + 1) % 5])
        for game in build(names, 5, 200, SEED)
        for i in range(5)
    }
    assert followers == {(a, b) for a in names for b in names if a != b}


def test_deterministic_for_a_seed() -> None:
    names = _names(7)
    assert build(names, 4, 300, SEED) == build(names, 4, 300, SEED)
    assert build(list(reversed(names)), 4, 300, SEED) == build(names, 4, 300, SEED)
    sampled = _names(30)
    assert build(sampled, 4, 100, SEED) == build(sampled, 4, 100, SEED)


def test_another_seed_gives_another_order() -> None:
    names = _names(5)
    # 60 games a unit: two seeds giving the same shuffle has odds of 1 in 60!.
    first = [(g.game_id, g.players) for g in build(names, 3, 60, SEED)]
    second = [(g.game_id, g.players) for g in build(names, 3, 60, OTHER_SEED)]
    assert first != second
    # The same games (ids, and the same bots at each table), seated and ordered anew.
    assert sorted(i for i, _ in first) == sorted(i for i, _ in second)
    assert sorted(tuple(sorted(p)) for _, p in first) == sorted(tuple(sorted(p)) for _, p in second)
    # Sampled units also sit different tables.
    sampled = _names(30)
    tables_a = {frozenset(g.players) for g in build(sampled, 4, 1, SEED)}
    tables_b = {frozenset(g.players) for g in build(sampled, 4, 1, OTHER_SEED)}
    assert tables_a != tables_b


def test_units_are_shuffled_not_laid_out_in_order() -> None:
    games = build(_names(6), 3, 1, SEED)
    assert [g.game_id for g in games] != sorted(g.game_id for g in games)
    # Rotations of a table are spread out, not played back to back.
    tables = [_table_of(g) for g in games]
    assert any(a != b for a, b in pairwise(tables))


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 12),
    data=st.data(),
    target=st.integers(1, 400),
    seed=st.binary(min_size=16, max_size=32),
)
def test_guarantees_for_any_seed(n: int, data: st.DataObject, target: int, seed: bytes) -> None:
    size = data.draw(st.integers(2, min(n, 6)), label="size")
    names = _names(n)
    games = build(names, size, target, seed)
    units = max(1, ceil(target / _unit_games(n, size)))
    assert len(games) == units * _unit_games(n, size)
    check_fair(games, names, size, units)
    check_no_deal_seen_twice(games)
    assert len({g.deal_key for g in games}) == len(games)  # by default, each game its own dice


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(4, 14),
    data=st.data(),
    target=st.integers(1, 400),
    seed=st.binary(min_size=16, max_size=32),
)
def test_disjoint_deals_share_dice_but_no_bot(
    n: int, data: st.DataObject, target: int, seed: bytes
) -> None:
    size = data.draw(st.integers(2, min(n // 2, 6)), label="size")
    names = _names(n)
    games = build(names, size, target, seed, Deals.DISJOINT)
    units = max(1, ceil(target / _unit_games(n, size)))
    # The same games as by default (every bot in every seat), only the dice are shared.
    assert [(g.game_id, g.players) for g in games] == [
        (g.game_id, g.players) for g in build(names, size, target, seed)
    ]
    check_fair(games, names, size, units)
    check_no_deal_seen_twice(games)
    by_key = Counter(g.deal_key for g in games)
    assert max(by_key.values()) >= 2  # some deal really is played at two tables
    assert max(by_key.values()) <= n // size


def test_disjoint_deals_need_two_tables_of_entrants() -> None:
    with pytest.raises(ValueError, match="at least two tables"):
        build(_names(5), 3, 10, SEED, Deals.DISJOINT)
    assert build(_names(6), 3, 10, SEED, Deals.DISJOINT)


@pytest.mark.parametrize(
    ("entrants", "size", "message"),
    [
        (["a", "b", "a"], 2, "unique"),
        (["a", "b", "c"], 1, "2..3"),
        (["a", "b", "c"], 4, "2..3"),
        (["a"], 2, "2..1"),
    ],
)
def test_bad_requests(entrants: list[str], size: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build(entrants, size, 10, SEED)
