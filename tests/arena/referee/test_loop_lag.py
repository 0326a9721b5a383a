"""The referee's loop-lag monitor sees each hold-up of its loop, and only inside an interval."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from arena.referee.loop_lag import LoopLag

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
