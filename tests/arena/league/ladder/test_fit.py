"""The batch fit's ratings for the matchmaker: refitted only when games were added and the
last refit is old enough, in a process of its own, and the stronger version rated higher;
the ladder's games read there from the league store, each seat as its version."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_ladder_ratings import _round

from arena.league.ladder import fit as ladder_fit
from arena.league.ladder.fit import REFIT_S, LadderFit, LadderGames
from arena.rankings import Confidence, confidence, finishes
from arena.rankings.background import Reckoned, Reckoning
from arena.records import GameLine
from arena.store import open_store

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


@dataclass(frozen=True)
class Given:
    """A refit of games made here (sent to the refit's process as they are)."""

    groups: int

    def __call__(self) -> Confidence:
        return confidence(finishes(_lines(self.groups)), ["middle", "strong", "weak"], seed=0)


async def _in_this_process(job: Reckoning, bots: int, give_up: asyncio.Event) -> Reckoned:
    """A refit that ends at once without a fit: the interval is the clock's, whatever the
    process answers (test_the_fit_rates_the_stronger_version_higher starts a real one)."""
    return Reckoned(None, "not run: the interval alone is tried here")


def test_a_refit_is_due_only_with_new_games_and_not_sooner_than_its_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ladder_fit, "reckon_apart", _in_this_process)

    async def body() -> None:
        clock = Clock()
        fit = LadderFit(clock)
        assert not fit.due(0) and fit.due(3)
        fit.refit(Given(1), 3, 3)
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
        fit.refit(Given(12), 36, 3)
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
        fit.refit(Given(200), 600, 3)
        await fit.stop()  # its process killed, no wait for its answer
        return fit

    assert asyncio.run(body()).refits == 0


def test_a_refits_games_are_read_from_the_store_each_seat_as_its_version(
    tmp_path: Path,
) -> None:
    """Only the ladder's rounds, each entrant's games under the version its round pinned."""
    league, results = tmp_path / "league.sqlite", tmp_path / "results"
    results.mkdir()
    store = open_store(league)
    try:
        store.add_tournament("night", {})  # a league night's games: not the ladder's
        store.add_game("night", GameLine("n0", 0, ("weak", "strong"), ("weak", "strong"), (), {}))
        for g, (tid, line) in enumerate(_lines(12)):
            pins = {"strong": 1 if g < 18 else 2, "middle": 1, "weak": None}
            if tid not in {t for t, _ in store.tournaments()}:
                store.add_tournament(tid, {})
                _round(results, tid, pins, finished=True)
            store.add_game(tid, line)
    finally:
        store.close()

    sure = LadderGames(league, results)()
    assert sure is not None and sure.games == 36
    strength = {b.name: b.strength for b in sure.bots}
    assert set(strength) == {"strong v1", "strong v2", "middle v1", "weak"}
    assert min(strength["strong v1"], strength["strong v2"]) > strength["weak"]
    assert LadderGames(tmp_path / "none" / "league.sqlite", results)() is None  # no games
