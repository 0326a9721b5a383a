"""A link's round trip, timed by pings that the bot cannot hurry.

A decision is timed from writing its request to reading its reply, so a bot far
away pays its link on every one. To credit that (`deadline.network_credit`) the
referee must know the link, and in a way the bot cannot shrink. The front door
(`arena.referee.service.front_door`) sends HTTP/2 PINGs on each remote bot's
connection, each with 8 random bytes its answer must echo: no answer can leave
before its PING has arrived. Timed from the moment the PING is written to the
moment its answer is read, no measurement is shorter than the link's round
trip; one held up (a busy bot's machine, a busy link, a busy referee, whose
hold-ups are left in: taking them out would let the least measurement undercut
the link) is longer, never shorter.

The estimate is the least of the last `WINDOW` measurements: a few long ones
are outvoted, and the least is what the link itself takes. One PING is out at
a time, at most one every `PING_INTERVAL` once the first `WARM_UP` are in: 17
bytes each way twice a second per connection, which neither side notices.
"""

from __future__ import annotations

import math
import secrets
from collections import deque

WINDOW = 12
"""Measurements the estimate is the least of: six seconds of a connection, and enough
that a few slow answers among them change nothing."""

PING_INTERVAL = 0.5
"""Seconds at least between two PINGs on one connection, once it is warmed up."""

WARM_UP = 4
"""PINGs a connection gets back to back when it opens, each as soon as the last one's
answer is read: its link is known from several before its bot's first game, not from one
answer that a machine still busy starting the bot was slow to send."""


class RoundTrip:
    """One connection's PING in flight and its recent measurements."""

    __slots__ = ("_began", "_nonce", "_samples", "estimate")

    def __init__(self) -> None:
        self._samples: deque[float] = deque(maxlen=WINDOW)
        self._nonce: int | None = None
        """The PING awaiting its answer, if one is."""
        self._began = -math.inf
        """When the last PING was written (loop time)."""
        self.estimate: float | None = None
        """The link's round trip in seconds: the least of the recent measurements; None
        before the first answer."""

    @property
    def warming(self) -> bool:
        """Whether the first `WARM_UP` answers are not all in yet."""
        return len(self._samples) < WARM_UP

    def due(self, now: float) -> bool:
        """Whether a PING may be sent at `now`: none is awaiting its answer, and the last one
        was long enough ago (or the connection is still warming up)."""
        return self._nonce is None and (
            len(self._samples) < WARM_UP or now - self._began >= PING_INTERVAL
        )

    def start(self, now: float) -> int:
        """A new PING is written at `now`: its nonce, never 0. One started and never written
        is never answered; the next `start` replaces it."""
        nonce = secrets.randbits(64) or 1
        self._nonce = nonce
        self._began = now
        return nonce

    def answered(self, nonce: int, at: float) -> bool:
        """An answer read at `at`: whether it answers the PING in flight, which it then times."""
        if nonce != self._nonce:
            return False
        self._nonce = None
        samples = self._samples
        samples.append(at - self._began)
        self.estimate = min(samples)
        return True
