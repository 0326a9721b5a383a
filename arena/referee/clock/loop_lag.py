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
        self._upto: list[float] = []
        """Seconds held up in all hold-ups recorded up to each one, itself included: any run
        of them sums to a difference of two, however many the run holds."""
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
            self.record(due, now)
        self._due = now + self.tick
        self._timer = loop.call_at(self._due, self._wake)

    def record(self, start: float, end: float) -> None:
        """Count [start, end] as a hold-up: one that ends after every one recorded so far
        (the monitor records each as it sees it), and forget those older than `KEEP`."""
        upto = self._upto
        upto.append((upto[-1] if upto else 0.0) + end - start)
        self._starts.append(start)
        self._ends.append(end)
        self.worst = max(self.worst, end - start)
        if self._starts[0] < end - KEEP:
            cut = bisect.bisect_left(self._ends, end - KEEP)
            del self._starts[:cut], self._ends[:cut], upto[:cut]

    def between(self, start: float, end: float) -> float:
        """Seconds of [start, end] (loop time) in which the loop was held up.

        A hold-up in progress counts up to `end`: the monitor's overdue
        wake-up has not yet run to record it.
        """
        held = 0.0
        ends = self._ends
        if ends and ends[-1] > start:  # else nothing recorded since `start`: the usual case
            starts = self._starts
            first = bisect.bisect_right(ends, start)  # the first to end after `start`
            last = bisect.bisect_left(starts, end, first) - 1  # the last to start before `end`
            if last >= first:
                # The whole of each, less what of the first and the last lies outside.
                begun, over = starts[first], ends[last]
                held = self._upto[last] - self._upto[first] + ends[first] - begun
                if begun < start:
                    held -= start - begun
                if over > end:
                    held -= over - end
        if self._timer is not None:
            overdue_from = self._due if self._due > start else start
            if end - overdue_from > self.slack:
                held += end - overdue_from
        return held
