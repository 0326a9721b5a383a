"""Each author's quotas: submissions an hour, one at a time, an archive's size.

Each refusal names the limit and the flag that sets it, so an author knows
what to wait for and an organiser what to change. An hour's submissions are
those the league store holds (so a restart forgives nothing) and, since this
server started, those refused before the store ever saw them (an archive
refused at intake costs the server work all the same).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.store import LeagueStore
from arena.submissions.limits import MIB, SubmissionLimits

HOUR = 3600.0


@dataclass
class Quotas:
    store: LeagueStore
    limits: SubmissionLimits
    clock: Callable[[], float] = time.time
    _in_flight: dict[str, float] = field(default_factory=dict)
    """Authors with a submission under way, and when it was sent."""
    _sent: dict[str, list[float]] = field(default_factory=dict)
    closed: str | None = None
    """Why no submission is taken now (the season's final), or None: checked first, at
    every door (`arena submit` and the author's page)."""

    @property
    def busy(self) -> bool:
        """Whether a submission is under way: taken in, built or checked."""
        return bool(self._in_flight)

    def refusal(self, name: str, size: int) -> str | None:
        """Why `name` may not submit an archive of `size` bytes now, or None."""
        if self.closed is not None:
            return self.closed
        limits = self.limits
        if size > limits.max_bytes:
            return (
                f"the archive is {size / MIB:.1f} MiB, over this server's cap of "
                f"{limits.max_bytes / MIB:g} MiB (--submission-max-mb)"
            )
        if name in self._in_flight:
            sent = time.strftime("%H:%M:%S", time.localtime(self._in_flight[name]))
            return (
                f"one build at a time per author: {name}'s submission sent at {sent} is still "
                "being taken in, built or checked; wait for its verdict"
            )
        now = self.clock()
        recent = [t for t in self._sent.get(name, []) if t > now - HOUR]
        self._sent[name] = recent
        count = max(len(recent), self.store.submitted_since(name, now - HOUR))
        if count >= limits.per_hour:
            return (
                f"at most {limits.per_hour} submissions an hour per author "
                f"(--submissions-per-hour): {name} has sent {count} in the last hour"
            )
        return None

    def begin(self, name: str) -> None:
        now = self.clock()
        self._in_flight[name] = now
        self._sent.setdefault(name, []).append(now)

    def end(self, name: str) -> None:
        self._in_flight.pop(name, None)
