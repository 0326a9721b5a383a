"""The ladder's one refit: the batch fit fed the games the board read, each seat as its
version, never a read of the store of its own; refitted only when games were added and the
last fit is old enough, in a process of its own, and the stronger version rated higher."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from ladder_season import lay_out_round

from arena.league.ladder import refit as refit_module
from arena.league.ladder.refit import REFIT_S, FitJob, Refit
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
    """A fit of games made here (sent to the fit's process as they are)."""

    groups: int

    def __call__(self) -> Confidence:
        return confidence(finishes(_lines(self.groups)), ["middle", "strong", "weak"], seed=0)


async def _in_this_process(job: Reckoning, bots: int, give_up: asyncio.Event) -> Reckoned:
    """A fit that ends at once without an answer: the interval is the clock's, whatever the
    process answers (test_the_fit_rates_the_stronger_version_higher starts a real one)."""
    return Reckoned(None, "not run: the interval alone is tried here")


def test_a_fit_is_due_only_with_new_games_and_not_sooner_than_its_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refit_module, "reckon_apart", _in_this_process)

    async def body() -> None:
        clock = Clock()
        refit = Refit(tmp_path, clock)
        assert not refit.due(0) and refit.due(3)
        refit.begin(Given(1), 3, 3)
        assert not refit.due(6)  # one in flight
        await refit.settled()
        assert not refit.due(3)  # nothing new
        assert not refit.due(6)  # new games, too soon
        clock.now += REFIT_S
        assert refit.due(6)

    asyncio.run(body())


def test_the_fit_rates_the_stronger_version_higher(tmp_path: Path) -> None:
    async def body() -> Refit:
        refit = Refit(tmp_path, Clock())
        refit.begin(Given(12), 36, 3)
        await refit.settled()  # its bootstrap in a process of its own
        return refit

    refit = asyncio.run(body())
    assert refit.refits == 1
    ratings = refit.ratings
    assert set(ratings) == {"strong", "middle", "weak"}
    assert ratings["strong"].mu > ratings["middle"].mu > ratings["weak"].mu
    assert all(r.sigma > 0 for r in ratings.values())


def test_a_stop_gives_up_the_fit_in_flight(tmp_path: Path) -> None:
    async def body() -> Refit:
        refit = Refit(tmp_path, Clock())
        refit.begin(Given(200), 600, 3)
        await refit.stop()  # its process killed, no wait for its answer
        return refit

    assert asyncio.run(body()).refits == 0


def test_the_fit_is_fed_the_games_the_board_read_each_seat_as_its_version(
    tmp_path: Path,
) -> None:
    """Only the ladder's rounds, each entrant's games under the version its round pinned, as
    the board's look read them: the league store is gone before the fit begins, and the fit
    (in its own process) holds every version all the same."""
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
                lay_out_round(results, tid, pins, finished=True)
            store.add_game(tid, line)
        refit = Refit(results, Clock())
        look = refit.look(store, {"ladder-000011"})  # the last round still in play
    finally:
        store.close()
    league.unlink()

    assert look.games == 36 and len(look.tail) == 3
    sure = FitJob(look.finished())()
    assert sure is not None and sure.games == 36
    strength = {b.name: b.strength for b in sure.bots}
    assert set(strength) == {"strong v1", "strong v2", "middle v1", "weak"}
    assert min(strength["strong v1"], strength["strong v2"]) > strength["weak"]

    async def fitted() -> Refit:
        refit.fit_when_due(look, 4)
        await refit.settled()
        return refit

    assert asyncio.run(fitted()).refits == 1
    assert set(refit.ratings) == set(strength)
    rated = look.state.rated()
    weak = refit_module.Version("weak", None)
    assert refit.rating(rated, weak) == (refit.ratings["weak"], rated.of(weak)[1])
    newer = refit_module.Version("strong", 3)  # not in the fit yet: the board's rating
    assert refit.rating(rated, newer) == rated.of(newer)


def test_a_fit_of_no_ladder_game_has_no_answer(tmp_path: Path) -> None:
    store = open_store(tmp_path / "league.sqlite")
    try:
        store.add_tournament("night", {})
        store.add_game("night", GameLine("n0", 0, ("weak", "strong"), ("weak", "strong"), (), {}))
        look = Refit(tmp_path).look(store, ())
    finally:
        store.close()
    assert look.games == 0 and FitJob(look.finished())() is None
