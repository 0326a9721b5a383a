"""The batch Plackett-Luce fit: it finds a known order, agrees with choix, survives sweeps."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from pl_sample import draw

from arena.rankings.fit import Orders, RankingError, fit, fit_weighted

TRUE = {"a": 1.2, "b": 0.6, "c": 0.0, "d": -0.5, "e": -1.3}


def test_the_fit_recovers_a_known_order_and_scale() -> None:
    games = draw(TRUE, tables=400, size=4, rotations=1, seed=7)
    names = sorted(TRUE)
    found = fit(Orders.of(names, [g.order for g in games]))
    assert sorted(names, key=lambda n: -found[names.index(n)]) == sorted(TRUE, key=TRUE.get)[::-1]
    truth = np.asarray([TRUE[n] for n in names])
    assert np.abs(found - (truth - truth.mean())).max() < 0.25


def test_the_vectorised_fit_is_choix_on_unit_weights() -> None:
    games = draw(TRUE, tables=150, size=3, rotations=2, seed=3)
    names = sorted(TRUE)
    orders = Orders.of(names, [g.order for g in games])
    expected = choix.ilsr_rankings(len(names), list(orders.indexes), alpha=0.01, tol=1e-8)
    found = fit_weighted(orders, np.ones((2, len(games))))
    assert np.allclose(found, expected, atol=1e-6)


def test_counting_a_game_twice_is_listing_it_twice() -> None:
    games = draw(TRUE, tables=60, size=3, rotations=1, seed=5)
    names = sorted(TRUE)
    counts = np.random.default_rng(1).integers(0, 3, size=len(games)).astype(float)
    weighted = fit_weighted(Orders.of(names, [g.order for g in games]), counts[None, :])[0]
    listed = [g.order for g, k in zip(games, counts, strict=True) for _ in range(int(k))]
    assert np.allclose(weighted, fit(Orders.of(names, listed)), atol=1e-6)


def test_a_bot_that_always_wins_gets_a_finite_top_strength() -> None:
    orders = [("champ", "x", "y"), ("champ", "y", "x"), ("champ", "x", "y")] * 5
    found = fit(Orders.of(["champ", "x", "y"], orders))
    assert np.isfinite(found).all()
    assert found[0] > max(found[1], found[2]) + 1


def test_a_bot_in_no_game_sits_at_the_middle() -> None:
    orders = [("x", "y")] * 4 + [("y", "x")] * 4
    found = fit(Orders.of(["x", "y", "absent"], orders))
    assert abs(found[2]) < 1e-6


@pytest.mark.parametrize("order", [("a", "a"), ("a",), ("a", "stranger")])
def test_an_order_that_is_no_ranking_is_refused(order: tuple[str, ...]) -> None:
    with pytest.raises(RankingError):
        Orders.of(["a", "b"], [order])
