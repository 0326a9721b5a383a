"""The referee's own time per decision, apart from the transport's: `arena bench` reports it.

A decision's round trip is the transport's and the bot's; what the referee adds
lies between two round trips of a game: from reading one seat's reply to
having written the next request (applying the action, the replay's and the
spectators' events, the clock's bookkeeping, building and writing the next
request, and whatever else the event loop runs meanwhile). The same gap is
measured on raw gRPC streams that only relay requests (`transport_speed`), so
the two percentiles side by side say what the referee costs beyond a write.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from arena.protocol.messages import referee as pb
from arena.referee.session.reply import Reply
from arena.referee.session.session import Session


@dataclass(frozen=True, slots=True)
class Overhead:
    """Percentiles of the gaps between a reply read and the next request written, in µs."""

    p50_us: float
    p99_us: float
    count: int

    @classmethod
    def of(cls, gaps_s: Sequence[float]) -> Overhead:
        if len(gaps_s) < 2:
            return cls(0.0, 0.0, len(gaps_s))
        cuts = statistics.quantiles(gaps_s, n=100, method="inclusive")
        return cls(cuts[49] * 1e6, cuts[98] * 1e6, len(gaps_s))

    def line(self) -> str:
        return f"p50 {self.p50_us:.0f} us, p99 {self.p99_us:.0f} us ({self.count} decisions)"


class GameGaps:
    """One game's seats, each timed: the gap from the last reply read (on any seat) to the
    next request written. A game asks one seat at a time, so the gaps are its own."""

    def __init__(self, gaps: list[float]) -> None:
        self._gaps = gaps
        self._last_read: float | None = None

    def seat(self, session: Session) -> TimedSeat:
        return TimedSeat(session, self)

    def asked(self, session: Session) -> None:
        """`session` has just answered: the gap before its request was written, counted."""
        if self._last_read is not None and session.request_written:
            self._gaps.append(session.request_written - self._last_read)
        self._last_read = session.reply_read


class TimedSeat:
    """A session as a match's seat (`arena.referee.match.Seat`), reporting its times to its
    game's `GameGaps`."""

    def __init__(self, session: Session, game: GameGaps) -> None:
        self.name = session.name
        self._session = session
        self._game = game

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        reply = await self._session.ask(request, request_id, timeout, allowance)
        self._game.asked(self._session)
        return reply

    async def send(self, message: pb.RefereeMessage) -> bool:
        return await self._session.send(message)

    async def crashed(self) -> str | None:
        return await self._session.crashed()
