"""A session's network round trip, timed by pings that the bot cannot hurry.

A decision is timed from writing its request to reading its reply, so a bot far
away pays its link on every one. To credit that (`deadline.network_credit`) the
referee must know the link, and in a way the bot cannot shrink. The kernel's TCP
estimate misses delay added above TCP (a proxy on the way), and gRPC's own
HTTP/2 pings are not timed for Python; so the referee sends its own `Ping`,
between decisions, to a bot whose Hello said it answers them. Each carries a
random nonce that its `Pong` must echo: no Pong can leave before its Ping has
arrived. Timed from the moment the Ping begins to be written to the moment its
Pong is read, no measurement is shorter than the link's round trip; a bot can
delay its Pongs and seem farther away, never nearer.

The estimate is the least of the last `WINDOW` measurements: one made long by
a busy bot, a busy link or a busy referee (whose hold-ups are left in: taking
them out would let the least measurement undercut the link) is outvoted, and
the least is what the link itself takes. One Ping is out at a time, at most
one every `PING_INTERVAL` once the first `WARM_UP` are in: a few small
messages a second per session, which the referee does not notice beside its
games.
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections import deque
from collections.abc import Awaitable, Callable

from arena.protocol.messages import referee as pb

WINDOW = 12
"""Measurements the estimate is the least of: six seconds of a session in play, and
enough that a few slow Pongs among them change nothing."""

PING_INTERVAL = 0.5
"""Seconds at least between two Pings on one session, once it is warmed up."""

WARM_UP = 4
"""Pings a session gets back to back when it opens, each as soon as the last one's Pong is
read: its link is known from several before its first game, not from one Pong that a bot
still busy starting up was slow to send."""


class RoundTrip:
    """One session's Ping in flight and its recent measurements."""

    __slots__ = ("_began", "_nonce", "_samples", "estimate")

    def __init__(self) -> None:
        self._samples: deque[float] = deque(maxlen=WINDOW)
        self._nonce: int | None = None
        """The Ping awaiting its Pong, if one is."""
        self._began = -math.inf
        """When the last Ping began to be written (loop time)."""
        self.estimate: float | None = None
        """The link's round trip in seconds: the least of the recent measurements; None
        before the first Pong."""

    @property
    def warming(self) -> bool:
        """Whether the first `WARM_UP` Pongs are not all in yet."""
        return len(self._samples) < WARM_UP

    def due(self, now: float) -> bool:
        """Whether a Ping may be sent at `now`: none is awaiting its Pong, and the last one
        was long enough ago (or the session is still warming up)."""
        return self._nonce is None and (
            len(self._samples) < WARM_UP or now - self._began >= PING_INTERVAL
        )

    def start(self, now: float) -> int:
        """A new Ping begins to be written at `now`: its nonce, never 0 (the value of a Pong
        that sets none)."""
        nonce = secrets.randbits(64) or 1
        self._nonce = nonce
        self._began = now
        return nonce

    def answered(self, nonce: int, at: float) -> bool:
        """A Pong read at `at`: whether it answers the Ping in flight, which it then times."""
        if nonce != self._nonce:
            return False
        self._nonce = None
        samples = self._samples
        samples.append(at - self._began)
        self.estimate = min(samples)
        return True


class Pinger:
    """When a session's Pings go out, and what their Pongs tell (`round_trip`).

    Only to a bot whose Hello said it answers them (`answers`). The first goes
    once the session is welcomed, before its first game, and the next `WARM_UP`
    as each Pong comes; then one after a reply read in time, when one is due.
    Each from a task of its own: its write must neither hold up the game nor
    come before the session's next request, and the task sends nothing if a
    request awaits its reply by the time it runs.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        send: Callable[[pb.RefereeMessage], Awaitable[bool]],
        awaiting: Callable[[], bool],
    ) -> None:
        """`send` writes a message on the session; `awaiting` says whether a request awaits
        its reply there (or the session is closed): no Ping then."""
        self.answers = False
        self.round_trip = RoundTrip()
        self._loop = loop
        self._send = send
        self._awaiting = awaiting
        self._task: asyncio.Task[None] | None = None
        self._wanted = False
        """Whether `_soon` was asked for a Ping that its running task has not yet tried."""

    async def ping(self) -> bool:
        """One Ping, if the bot answers them, one is due and no request awaits its reply;
        whether one was written."""
        now = self._loop.time()
        if not self.answers or self._awaiting() or not self.round_trip.due(now):
            return False
        return await self._send(pb.RefereeMessage(ping=pb.Ping(nonce=self.round_trip.start(now))))

    def after_reply(self, at: float) -> None:
        """A reply was read in time at `at`: a Ping, if one is due, once the game moves on."""
        if self.answers and self.round_trip.due(at):
            self._soon()

    def pong(self, nonce: int, at: float) -> bool:
        """A Pong read at `at`: whether it answers the Ping in flight (`RoundTrip.answered`);
        while the session warms up, the next Ping follows it."""
        if not self.round_trip.answered(nonce, at):
            return False
        if self.round_trip.warming:
            self._soon()
        return True

    def _soon(self) -> None:
        """`ping` from a task of its own. A Pong can be read while the task that wrote its
        Ping still awaits the write's end; the task then tries once more before it ends,
        or the warm-up would stall on that Pong."""
        self._wanted = True
        if self._task is None or self._task.done():
            self._task = self._loop.create_task(self._pings())

    async def _pings(self) -> None:
        while self._wanted:
            self._wanted = False
            await self.ping()

    def stop(self) -> None:
        """The session is closed: a Ping still to be written never will be."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
