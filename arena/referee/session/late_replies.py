"""Replies that come after their request timed out: expected, dropped, and told of once.

The game went on without such a reply at the deadline, but a reply seconds
late and none at all are different bugs, so the timeout's record is told by
how much the bot missed (through the future `expect` returns). Only the last
`EXPIRED_KEPT` timeouts of a session are remembered: a reply older than that
is a stray like any other.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from arena.referee.clock.deadline import late_by
from arena.referee.clock.loop_lag import LoopLag

EXPIRED_KEPT = 64
"""Timed-out requests remembered per session, whose late replies are expected."""


class LateReplies:
    """One session's timed-out requests, oldest first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, lag: LoopLag) -> None:
        self._loop = loop
        self._lag = lag
        self._expired: OrderedDict[int, tuple[float, float, float, asyncio.Future[str]]] = (
            OrderedDict()
        )
        """When each was written, its limit, its link's credit, and the future its late reply
        resolves."""

    def expect(
        self, request_id: int, sent: float, limit: float, credit: float = 0.0
    ) -> asyncio.Future[str]:
        """Remember a timed-out request: the future its late reply resolves with how late
        it was, in words (its link's `credit` not counted)."""
        late: asyncio.Future[str] = self._loop.create_future()
        self._expired[request_id] = (sent, limit, credit, late)
        while len(self._expired) > EXPIRED_KEPT:
            self._expired.popitem(last=False)
        return late

    def arrived(self, request_id: int, at: float) -> bool:
        """Whether a reply read at `at` is the late reply of a remembered timeout (told once);
        the referee's own hold-ups are not counted as the bot's lateness."""
        expired = self._expired.pop(request_id, None)
        if expired is None:
            return False
        sent, limit, credit, late = expired
        if not late.done():
            over = late_by(at - sent, self._lag.between(sent, at), limit, credit)
            late.set_result(f"it replied {over:.2f} s after the {limit:.2f} s limit")
        return True
