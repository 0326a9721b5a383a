"""The bootstrap: whole rotation groups, rank probabilities, separation, seeds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pl_sample import draw

from arena.rankings import Finish, confidence, finishes, group_keys
from arena.rankings.bootstrap import draws
from arena.records import GameLine
from arena.tournament.schedule.round_robin import Deals, build

GRADED = {"a": 1.5, "b": 0.5, "c": -0.5, "d": -1.5}
SAME = {"p": 0.0, "q": 0.0, "r": 0.0}


def test_a_groups_games_always_count_together() -> None:
    games = draw(GRADED, tables=30, size=3, rotations=3, seed=1)
    counts = draws(games, resamples=200, seed=4)
    group = np.asarray([int(g.group[1:]) for g in games])
    for t in set(group.tolist()):
        members = counts[:, group == t]
        assert (members == members[:, :1]).all()  # all the group's games, or none, k times
    # every copy draws as many groups as there are
    assert (counts.sum(axis=1) == 3 * 30).all()
    assert counts.std(axis=0).min() > 0  # and it does resample


def test_rank_probabilities_sum_to_one_each_way() -> None:
    sure = confidence(draw(GRADED, 40, 3, 3, seed=2), sorted(GRADED), resamples=120)
    table = np.asarray([b.rank_probabilities for b in sure.bots])
    assert np.allclose(table.sum(axis=1), 1.0)
    assert np.allclose(table.sum(axis=0), 1.0)  # each rank is held by one bot in each copy
    for bot in sure.bots:
        assert bot.low <= bot.strength <= bot.high
        assert bot.rank_low <= bot.rank_high
        assert bot.p_first == bot.rank_probabilities[0]


def test_clear_strengths_are_separated_and_equal_ones_are_not() -> None:
    clear = confidence(draw(GRADED, 200, 4, 4, seed=3), sorted(GRADED))
    assert clear.unseparated(["a", "b", "c", "d"]) == []
    assert [b.rank_range for b in clear.bots] == ["1", "2", "3", "4"]
    assert clear.unseparated(["d", "c", "b", "a"]) == [("d", "c"), ("c", "b"), ("b", "a")]
    even = confidence(draw(SAME, 20, 3, 3, seed=3), sorted(SAME))
    assert len(even.unseparated(sorted(SAME))) >= 1
    assert all(b.rank_low < b.rank_high for b in even.bots)


def test_the_same_seed_gives_the_same_figures() -> None:
    games = draw(GRADED, 25, 3, 3, seed=9)
    one = confidence(games, sorted(GRADED), resamples=60, seed=5)
    assert one == confidence(games, sorted(GRADED), resamples=60, seed=5)
    assert one != confidence(games, sorted(GRADED), resamples=60, seed=6)


def test_correlated_groups_widen_the_interval() -> None:
    """A group's games repeated: resampling games as if independent would count each twice."""
    once = draw(GRADED, 60, 3, 1, seed=11)
    twice = [g for g in once for _ in range(2)]
    alone = [type(g)(f"{g.group}-{i}", g.order) for i, g in enumerate(twice)]
    grouped = confidence(twice, sorted(GRADED), seed=1).bot("b")
    naive = confidence(alone, sorted(GRADED), seed=1).bot("b")
    assert grouped.high - grouped.low > 1.2 * (naive.high - naive.low)


def _line(game: str, deal_key: str, players: tuple[str, ...]) -> GameLine:
    return GameLine(game, 0, players, players, (), {}, deal_key=deal_key)


def test_rotation_groups_are_read_as_the_schedule_plays_them(tmp_path: Path) -> None:
    names = [f"bot{i}" for i in range(6)]
    for deals in Deals:
        schedule = build(names, 3, 1, b"s" * 32, deals)
        keys = group_keys(("t", g.game_id, g.deal_key) for g in schedule)
        by_key: dict[str, set[frozenset[str]]] = {}
        for game, key in zip(schedule, keys, strict=True):
            by_key.setdefault(key, set()).add(frozenset(game.players))
        tables = {frozenset(g.players) for g in schedule}
        if deals is Deals.OWN:  # one table, in each of its rotations, per group
            assert all(len(seated) == 1 for seated in by_key.values())
            assert len(by_key) == len(tables)
        else:  # the tables of a deal are one group
            assert any(len(seated) > 1 for seated in by_key.values())
            for game_a, key_a in zip(schedule, keys, strict=True):
                for game_b, key_b in zip(schedule, keys, strict=True):
                    if game_a.deal_key == game_b.deal_key:
                        assert key_a == key_b
    line = _line("u001-t002-r1", "u001-t002-r1", ("a", "b"))
    assert finishes([("one", line)])[0].group != finishes([("two", line)])[0].group
    assert finishes([("one", _line("hand-made", "k", ("a", "b")))])[0].group == "one/hand-made"


def test_no_games_and_no_bots_is_an_empty_answer() -> None:
    empty = confidence([], [])
    assert empty.bots == () and empty.games == 0
    alone = confidence([], ["solo"])
    assert alone.bot("solo").rank_range == "1" and alone.unseparated(["solo"]) == []


def test_a_tie_in_a_copy_counts_half_for_the_rank_as_for_the_share_ahead() -> None:
    # Six games, three rotation groups: A won one group, the two others were split. A copy
    # of only split groups leaves A and B level; ranked by the order of the names, such a
    # copy made A first every time: P(rank 1) 100% beside "not separated (87%)".
    played = [("g1", "AB"), ("g1", "AB"), ("g2", "AB"), ("g2", "BA"), ("g3", "AB"), ("g3", "BA")]
    games = [Finish(group, tuple(order)) for group, order in played]
    for names in (["A", "B"], ["B", "A"]):
        sure = confidence(games, names)
        ahead = sure.p_ahead("A", "B")
        assert ahead < 0.95  # not separated
        assert sure.bot("A").p_first < 1.0
        assert abs(sure.bot("A").p_first - ahead) < 0.1  # two bots: the same share, near enough
