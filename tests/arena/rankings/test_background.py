"""The bootstrap away from the event loop: the same figures, and given up on a stop."""

from __future__ import annotations

import asyncio
import multiprocessing

import pytest
from pl_sample import draw

from arena.rankings import Finish, background, confidence
from arena.rankings.background import PROCESS_FROM, reckon

LIMIT = 120.0
"""Seconds any one of these may take, however busy the machine: a stop is told at once."""


def _field(bots: int, tables: int) -> tuple[dict[str, float], list[Finish]]:
    strengths = {f"bot{i:03d}": (i % 7) / 3 for i in range(bots)}
    return strengths, draw(strengths, tables=tables, size=6, rotations=2, seed=3)


def test_a_large_fields_bootstrap_in_its_own_process_gives_the_same_figures() -> None:
    strengths, games = _field(PROCESS_FROM, tables=60)
    names = sorted(strengths)

    async def main() -> background.Reckoned:
        return await asyncio.wait_for(reckon(games, names, 0, asyncio.Event()), LIMIT)

    reckoned = asyncio.run(main())
    assert reckoned.sure == confidence(games, names, seed=0)
    assert reckoned.why_not == ""
    assert not multiprocessing.active_children()


def test_a_stop_while_it_reckons_gives_it_up_and_leaves_no_process() -> None:
    # 400 bots take the best part of a minute: the stop comes long before the answer.
    strengths, games = _field(400, tables=400)
    names = sorted(strengths)

    async def main() -> tuple[background.Reckoned, bool]:
        stop = asyncio.Event()
        task = asyncio.ensure_future(reckon(games, names, 0, stop))
        while not multiprocessing.active_children():  # the worker has started
            await asyncio.sleep(0.01)
        stop.set()
        reckoned = await asyncio.wait_for(task, LIMIT)
        return reckoned, bool(multiprocessing.active_children())

    reckoned, left = asyncio.run(main())
    assert reckoned.sure is None
    assert reckoned.why_not == "not computed: the run was stopped"
    assert not left


def test_a_bootstrap_past_its_budget_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "budget_for", lambda bots: 0.05)
    strengths, games = _field(400, tables=400)

    async def main() -> background.Reckoned:
        return await asyncio.wait_for(reckon(games, sorted(strengths), 0, asyncio.Event()), LIMIT)

    reckoned = asyncio.run(main())
    assert reckoned.sure is None
    assert reckoned.why_not == "not computed: it took longer than its 0 s"
    assert not multiprocessing.active_children()


def test_a_small_field_is_reckoned_even_when_the_run_was_stopped() -> None:
    strengths, games = _field(6, tables=20)
    stop = asyncio.Event()
    stop.set()
    reckoned = asyncio.run(reckon(games, sorted(strengths), 0, stop))
    assert reckoned.sure == confidence(games, sorted(strengths), seed=0)
