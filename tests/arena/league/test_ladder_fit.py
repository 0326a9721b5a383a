"""The batch fit's ratings for the matchmaker: refitted only when games were added and the
last refit is old enough, away from the loop, and the stronger version rated higher."""

from __future__ import annotations

import asyncio

from arena.league.ladder_fit import REFIT_S, LadderFit
from arena.records import GameLine

ORDERS = (("strong", "middle", "weak"), ("middle", "strong", "weak"), ("strong", "weak", "middle"))


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def _lines(groups: int) -> list[tuple[str, GameLine]]:
    """Rotation groups of three games each, the strong bot first in most."""
    lines = []
    for g in range(groups):
        for r in range(3):
            order = ORDERS[(g + r) % len(ORDERS)]
            game = f"u{g:03d}-t000-r{r}"
            lines.append((f"ladder-{g:06d}", GameLine(game, r, order, order, (), {})))
    return lines


def test_a_refit_is_due_only_with_new_games_and_not_sooner_than_its_interval() -> None:
    async def body() -> None:
        clock = Clock()
        fit = LadderFit(clock)
        assert not fit.due(0) and fit.due(3)
        fit.refit(_lines(1))
        assert not fit.due(6)  # one in flight
        await fit.settled()
        assert not fit.due(3)  # nothing new
        assert not fit.due(6)  # new games, too soon
        clock.now += REFIT_S
        assert fit.due(6)

    asyncio.run(body())


def test_the_fit_rates_the_stronger_version_higher() -> None:
    async def body() -> LadderFit:
        fit = LadderFit(Clock())
        fit.refit(_lines(12))
        await fit.settled()  # its bootstrap in a process of its own
        return fit

    fit = asyncio.run(body())
    assert fit.refits == 1
    ratings = fit.ratings
    assert set(ratings) == {"strong", "middle", "weak"}
    assert ratings["strong"].mu > ratings["middle"].mu > ratings["weak"].mu
    assert all(r.sigma > 0 for r in ratings.values())


def test_a_stop_gives_up_the_refit_in_flight() -> None:
    async def body() -> LadderFit:
        fit = LadderFit(Clock())
        fit.refit(_lines(200))
        await fit.stop()  # its process killed, no wait for its answer
        return fit

    assert asyncio.run(body()).refits == 0
