"""The cross-table: counts anyone can check by hand, and Wilson's interval."""

from __future__ import annotations

import pytest

from arena.rankings import cross_table, wilson


def test_the_counts_are_those_of_the_games() -> None:
    games = [("a", "b", "c"), ("b", "a"), ("c", "a", "b"), ("a", "c")]
    table = {(p.first, p.second): p for p in cross_table(["a", "b", "c"], games)}
    assert set(table) == {("a", "b"), ("a", "c"), ("b", "c")}
    a_b = table["a", "b"]
    assert (a_b.games, a_b.ahead) == (3, 2)  # a ahead in games 1 and 3, b in game 2
    a_c = table["a", "c"]
    assert (a_c.games, a_c.ahead) == (3, 2)
    b_c = table["b", "c"]
    assert (b_c.games, b_c.ahead) == (2, 1)
    for p in table.values():
        assert p.low <= p.share <= p.high


def test_the_first_of_a_pair_is_the_first_named() -> None:
    games = [("a", "b"), ("a", "b"), ("b", "a")]
    (ba,) = cross_table(["b", "a"], games)
    assert (ba.first, ba.second, ba.games, ba.ahead) == ("b", "a", 3, 1)


def test_bots_that_never_met_have_no_row() -> None:
    assert cross_table(["a", "b", "c"], [("a", "b")]) == cross_table(["a", "b"], [("a", "b")])


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (50, 100), (1, 1)])
def test_wilsons_interval_is_inside_0_1_and_mirrors(k: int, n: int) -> None:
    low, high = wilson(k, n)
    assert 0 <= low <= k / n <= high <= 1
    mirror_low, mirror_high = wilson(n - k, n)
    assert low == pytest.approx(1 - mirror_high) and high == pytest.approx(1 - mirror_low)


def test_wilsons_interval_narrows_with_games_and_is_open_with_none() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    wide = wilson(6, 10)
    narrow = wilson(60, 100)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
