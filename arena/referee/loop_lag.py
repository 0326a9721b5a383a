"""The referee's own lateness: how long its event loop could not run, and when.

A bot is timed by the referee's clock, but the referee learns of a reply
only when its loop gets to it. When the loop is held up (the process was
stopped, a long garbage collection, a burst of work from other games), replies
that came in time sit unread while deadlines pass. A timer that fires a
tick at a time measures how late each wake-up is: that lateness is the
referee's, and a decision's time limit is extended by whatever of it fell
inside the decision, so no bot is ever charged for it.

The price is a benefit of the doubt: while the loop was held up the referee
cannot tell when a reply arrived, so a bot's reply read after a stall is
taken as having arrived as early as it could have.
"""

from __future__ import annotations

import asyncio
import bisect

TICK = 0.01
"""Seconds between the monitor's wake-ups: lateness shorter than a tick may go unseen."""

SLACK = 0.002
"""Wake-ups later than this count as the loop being held up; less is ordinary timer jitter."""

KEEP = 600.0
"""Seconds of history kept: longer than any decision's time limit."""


class LoopLag:
    """Records the intervals in which the event loop was held up.

    The monitor is a timer callback, re-armed at each wake-up: no task, no
    future and no coroutine step per tick, which the referee pays a hundred
    times a second.
    """

    def __init__(self, tick: float = TICK, slack: float = SLACK) -> None:
        self.tick = tick
        self.slack = slack
        self._starts: list[float] = []
        self._ends: list[float] = []
        self._due = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.worst = 0.0
        """The longest hold-up seen, in seconds."""

    def start(self) -> None:
        if self._timer is None:
            self._loop = loop = asyncio.get_running_loop()
            self._due = loop.time() + self.tick
            self._timer = loop.call_at(self._due, self._wake)

    async def stop(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _wake(self) -> None:
        loop = self._loop
        assert loop is not None  # set by `start`, which armed this timer
        now = loop.time()
        due = self._due
        if now - due > self.slack:
            self._starts.append(due)
            self._ends.append(now)
            self.worst = max(self.worst, now - due)
            if self._starts[0] < now - KEEP:
                cut = bisect.bisect_left(self._ends, now - KEEP)
                del self._starts[:cut], self._ends[:cut]
        self._due = now + self.tick
        self._timer = loop.call_at(self._due, self._wake)

    def between(self, start: float, end: float) -> float:
        """Seconds of [start, end] (loop time) in which the loop was held up.

        A hold-up in progress counts up to `end`: the monitor's overdue
        wake-up has not yet run to record it.
        """
        held = 0.0
        ends = self._ends
        if ends and ends[-1] > start:  # else nothing recorded since `start`: the usual case
            for i in range(bisect.bisect_right(ends, start), len(ends)):
                s = self._starts[i]
                if s >= end:
                    break
                held += min(ends[i], end) - max(s, start)
        if self._timer is not None:
            overdue_from = max(self._due, start)
            if end - overdue_from > self.slack:
                held += end - overdue_from
        return held
