"""The referee's loop-lag monitor sees each hold-up of its loop, and only inside an interval."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee.clock.loop_lag import KEEP, LoopLag

HOLD = 0.15
"""Seconds the tests hold the loop up (time.sleep: nothing else can run meanwhile)."""


@contextlib.asynccontextmanager
async def monitoring() -> AsyncIterator[LoopLag]:
    """A started monitor, past its first few ticks; stopped afterwards."""
    lag = LoopLag()
    lag.start()
    try:
        await asyncio.sleep(lag.tick * 3)
        yield lag
    finally:
        await lag.stop()


def test_every_hold_up_is_recorded_and_falls_inside_the_interval_it_happened_in() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with monitoring() as lag:
            first_start = loop.time()
            time.sleep(HOLD)
            first_end = loop.time()
            await asyncio.sleep(lag.tick * 3)  # the monitor wakes, late, and records it
            between = loop.time()
            time.sleep(HOLD)  # a second one: the monitor re-armed itself after the first
            await asyncio.sleep(lag.tick * 3)
            second_end = loop.time()
            # Hold-ups are never shorter than they were, bar the tick before they were seen.
            assert lag.between(first_start, first_end) >= HOLD - lag.tick - lag.slack
            assert lag.between(between, second_end) >= HOLD - lag.tick - lag.slack
            assert lag.worst >= HOLD - lag.tick - lag.slack
            # An interval that holds neither is charged nothing of them.
            assert lag.between(first_end + lag.tick, first_end + lag.tick * 2) < HOLD / 2

    asyncio.run(main())


def test_a_hold_up_in_progress_counts_before_the_monitor_has_woken() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with monitoring() as lag:
            start = loop.time()
            time.sleep(HOLD)
            # Read at once, as a reply read right after a stall is: no wake-up has run yet.
            assert lag.between(start, loop.time()) >= HOLD - lag.tick - lag.slack
        # Stopped, it no longer counts a wake-up overdue.
        start = loop.time()
        time.sleep(lag.tick * 5)
        assert lag.between(start, loop.time()) == 0.0

    asyncio.run(main())


def _walked(holds: list[tuple[float, float]], start: float, end: float) -> float:
    """What of [start, end] the hold-ups cover, summed one by one."""
    return sum(max(0.0, min(e, end) - max(s, start)) for s, e in holds)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.0, 2.0), st.floats(0.001, 1.0)), max_size=30),
    st.floats(-1.0, 70.0),
    st.floats(0.0, 30.0),
)
def test_held_time_in_an_interval_is_the_sum_of_the_hold_ups_inside_it(
    steps: list[tuple[float, float]], start: float, length: float
) -> None:
    """Prefix sums answer as a walk over every hold-up would, for any interval."""
    lag = LoopLag()  # not started: no wake-up is overdue, only the recorded hold-ups count
    holds = []
    at = 0.0
    for gap, duration in steps:
        holds.append((at + gap, at + gap + duration))
        at += gap + duration
        lag.record(*holds[-1])
    assert lag.between(start, start + length) == pytest.approx(
        _walked(holds, start, start + length), abs=1e-9
    )


def test_hold_ups_older_than_kept_are_forgotten_and_the_rest_still_sum() -> None:
    lag = LoopLag()
    for i in range(int(KEEP) * 2):
        lag.record(i + 0.25, i + 0.5)
    newest = int(KEEP) * 2 - 1 + 0.5
    assert lag.between(0.0, newest - KEEP - 1) == 0.0  # forgotten
    assert lag.between(newest - 10.0, newest) == pytest.approx(10 * 0.25)
