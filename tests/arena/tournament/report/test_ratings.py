"""TrueSkill standings from finishing orders, and the figures of the leaderboard."""

from __future__ import annotations

import statistics
from itertools import permutations

import pytest
import trueskill

from arena.tournament.report.ratings import GameResult, Ratings, Standing, rate_all


def _dominated_league(games: int) -> list[GameResult]:
    """`champ` wins every game; the others take the other places in turn."""
    others = ["ann", "bob", "cid"]
    orders = list(permutations(others))
    return [GameResult(("champ", *orders[i % len(orders)])) for i in range(games)]


def test_a_bot_that_always_wins_rates_highest() -> None:
    ratings = rate_all(_dominated_league(24), ["ann", "bob", "champ", "cid"])
    table = ratings.table()
    assert table[0].name == "champ"
    assert table[0].mu == max(s.mu for s in table)
    assert table[0].mu > trueskill.MU
    assert all(s.sigma < trueskill.SIGMA for s in table)  # every bot became more certain
    assert table[0].wins == 24
    assert table[0].win_rate == 1.0
    assert table[0].average_place == 1.0


def test_one_game_moves_winner_up_and_loser_down() -> None:
    ratings = rate_all([GameResult(("a", "b"))])
    a, b = ratings.standings["a"], ratings.standings["b"]
    assert a.mu > trueskill.MU > b.mu
    assert a.sigma < trueskill.SIGMA and b.sigma < trueskill.SIGMA


def test_figures_as_defined() -> None:
    games = [
        GameResult(("a", "b", "c"), faults={"c": 1}, think_ms={"a": 1.0, "b": 4.0, "c": 2.0}),
        GameResult(("b", "a", "c"), faults={}, think_ms={"a": 3.0, "b": 5.0}),
        GameResult(("a", "c", "b"), faults={"b": 2, "c": 1}, think_ms={"a": 2.0}),
        GameResult(("c", "a"), faults={"a": 1}, think_ms={"a": 10.0, "c": 7.0}),
    ]
    ratings = rate_all(games, ["a", "b", "c", "idle"])
    a, b, c, idle = (ratings.standings[n] for n in ("a", "b", "c", "idle"))
    # a: places 1, 2, 1, 2
    assert (a.games, a.wins, a.place_sum, a.faults) == (4, 2, 6, 1)
    assert a.win_rate == 2 / 4
    assert a.average_place == 6 / 4
    assert a.median_think_ms == 2.5  # median of 1, 3, 2, 10: the mean of the middle two
    # b: places 2, 1, 3; its think time is known in two games
    assert (b.games, b.wins, b.place_sum, b.faults) == (3, 1, 6, 2)
    assert b.average_place == 2.0
    assert b.median_think_ms == 4.5
    # c: places 3, 3, 2, 1
    assert (c.games, c.wins, c.place_sum, c.faults) == (4, 1, 9, 2)
    assert c.win_rate == 0.25
    assert c.median_think_ms == 4.5  # median of 2 and 7
    # a bot that never played
    assert (idle.games, idle.wins, idle.win_rate, idle.average_place) == (0, 0, 0.0, 0.0)
    assert idle.median_think_ms == 0.0
    assert (idle.mu, idle.sigma) == (trueskill.MU, trueskill.SIGMA)


def test_conservative_rating_orders_the_table() -> None:
    table = rate_all(_dominated_league(12)).table()
    for s in table:
        assert s.conservative == pytest.approx(s.mu - 3 * s.sigma)
    keys = [s.conservative for s in table]
    assert keys == sorted(keys, reverse=True)


def test_a_lucky_newcomer_ranks_below_bots_it_outscores_on_mean() -> None:
    """One win makes a high mean but a wide sigma: the table must rank by mu - 3 sigma."""
    season = [
        GameResult(("steady", "ann", "bob") if i % 3 else ("ann", "steady", "bob"))
        for i in range(30)
    ]
    ratings = rate_all([*season, GameResult(("lucky", "steady", "ann", "bob"))])
    standings = list(ratings.standings.values())
    by_mean = [s.name for s in sorted(standings, key=lambda s: -s.mu)]
    by_rating = [s.name for s in sorted(standings, key=lambda s: -(s.mu - 3 * s.sigma))]
    assert by_mean[0] == "lucky" and by_mean != by_rating  # the data tells the two apart
    assert [s.name for s in ratings.table()] == by_rating


def test_a_row_reports_the_standing() -> None:
    standing = Standing("x", mu=30.123456, sigma=2.5, games=4, wins=1, place_sum=9, faults=3)
    standing.think.extend([1.0, 2.0, 4.0])
    row = standing.row(2)
    assert Standing.from_row(row).row(2) == row  # what the admin stream shows is what it got
    assert row.to_json() == {
        "rank": 2,
        "bot": "x",
        "mu": 30.123,
        "sigma": 2.5,
        "rating": round(30.123456 - 7.5, 3),
        "games": 4,
        "wins": 1,
        "win_rate": 0.25,
        "average_place": 2.25,
        "faults": 3,
        "median_decision_ms": 2.0,
    }


def _snapshot(ratings: Ratings) -> dict[str, tuple[float, float, int, int]]:
    return {n: (s.mu, s.sigma, s.games, s.wins) for n, s in ratings.standings.items()}


def test_order_matters_but_the_same_order_gives_the_same_ratings() -> None:
    games = [
        GameResult(("a", "b", "c")),
        GameResult(("a", "c", "b")),
        GameResult(("b", "c", "a")),
        GameResult(("c", "a", "b")),
        GameResult(("c", "b", "a")),
        GameResult(("b", "a", "c")),
    ]
    once = rate_all(games)
    again = rate_all(list(games))
    assert _snapshot(once) == _snapshot(again)  # exactly, not approximately
    incremental = Ratings()
    for game in games:
        incremental.add(game)
    assert _snapshot(incremental) == _snapshot(once)
    # TrueSkill updates one game at a time: another order of the same games
    # ends elsewhere (the counts agree, the ratings do not).
    backwards = rate_all(list(reversed(games)))
    assert {n: v[2:] for n, v in _snapshot(backwards).items()} == {
        n: v[2:] for n, v in _snapshot(once).items()
    }
    assert _snapshot(backwards) != _snapshot(once)


def test_names_without_games_are_listed() -> None:
    ratings = rate_all([], ["x", "y"])
    assert sorted(s.name for s in ratings.table()) == ["x", "y"]
    assert statistics.fmean(s.mu for s in ratings.table()) == trueskill.MU
