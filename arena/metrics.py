"""The arena's metrics for Prometheus: what a league server or a night is doing, in numbers.

Served at `/metrics` beside the live page (`arena serve --web`, `arena run
--web`), in the text format Prometheus scrapes. The names and labels follow
Prometheus's advice: a `perudo_arena_` prefix, counters ending in `_total`,
seconds for time, and labels with a few values each (a fault's kind, a
session's state, a verdict; never a bot's name, which would make a series per
entrant). Each server keeps its metrics in a registry of its own, not the
library's global one, so that two in one process (the tests) never count into
each other; the process's own figures (resident memory, CPU time, open files)
come from the library's process collector in that registry.

What counts comes from elsewhere: a tournament's games from its observer
(`arena.tournament.metering`), the sessions from the lobby when scraped,
submissions and builds from whoever judges them (`count_submission`,
`count_build`). The referee's own lateness is the lateness of the event loop
it runs in, measured here as `arena.referee.clock.loop_lag` measures it, by a timer
that notes how late each of its wake-ups is. This module imports nothing of the
arena, so every part that counts may import it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The media type of `Metrics.exposition()` (Prometheus's text format)."""

SESSION_STATES = ("hello", "idle", "playing")
"""A session's states: a stream that has not said Hello yet, a session waiting for a game,
one in a game."""

LATENESS_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: a wake-up a millisecond late is ordinary, a tenth of a second is felt by a bot
with a short move time (and not charged to it), seconds are a stall."""

TICK_S = 0.05
"""Seconds between the lateness timer's wake-ups: twenty a second, so the histogram costs the
loop next to nothing; a hold-up shorter than this may fall between two."""


class Metrics:
    """One server's metrics, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        ProcessCollector(registry=registry)
        self.games = Counter(
            "perudo_arena_games", "Games played to their end and recorded.", registry=registry
        )
        self.games_in_flight = Gauge(
            "perudo_arena_games_in_flight", "Games being played now.", registry=registry
        )
        self.decisions = Counter(
            "perudo_arena_decisions",
            "Bots' decisions taken by the referee (answers), counted as they are made.",
            registry=registry,
        )
        self.faults = Counter(
            "perudo_arena_faults",
            "Faults in recorded games, by kind (the fault names of the replays).",
            ["kind"],
            registry=registry,
        )
        self.sessions = Gauge(
            "perudo_arena_sessions",
            "Bots' streams open, by state: hello (not said Hello yet), idle, playing.",
            ["state"],
            registry=registry,
        )
        self.lateness = Histogram(
            "perudo_arena_referee_lateness_seconds",
            "How late each wake-up of the referee's event loop was: its own lateness, which "
            "no bot is charged for.",
            buckets=LATENESS_BUCKETS,
            registry=registry,
        )
        self.submissions = Counter(
            "perudo_arena_submissions",
            "Bots submitted to the league, by verdict.",
            ["verdict"],
            registry=registry,
        )
        self.builds = Counter(
            "perudo_arena_builds", "Bots' builds, by verdict.", ["verdict"], registry=registry
        )
        self.ladder_running = Gauge(
            "perudo_arena_ladder_running",
            "1 while the ladder plays (or waits out a fault), 0 while it is stopped or held "
            "for a night.",
            registry=registry,
        )
        self.ladder_trouble = Gauge(
            "perudo_arena_ladder_trouble",
            "1 for the kind of fault that holds the ladder now (or that stopped it), by kind; "
            "`arena admin ladder status` says it in words.",
            ["kind"],
            registry=registry,
        )
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0

    def count_submission(self, verdict: str) -> None:
        """One submission judged: `verdict` is one of a few fixed words (a label's values)."""
        self.submissions.labels(verdict).inc()

    def count_build(self, verdict: str) -> None:
        """One build ended: `verdict` is one of a few fixed words (a label's values)."""
        self.builds.labels(verdict).inc()

    def follow_sessions(self, count: Callable[[], Mapping[str, int]]) -> None:
        """Read the sessions by state from `count` at each scrape (missing states count 0)."""
        for state in SESSION_STATES:
            self.sessions.labels(state).set_function(_reading(count, state))

    def follow_ladder(
        self, kinds: tuple[str, ...], read: Callable[[], tuple[bool, str | None]]
    ) -> None:
        """Read the ladder at each scrape: whether it plays, and the kind of its fault (one
        of `kinds`, or None)."""
        self.ladder_running.set_function(lambda: float(read()[0]))
        for kind in kinds:
            self.ladder_trouble.labels(kind).set_function(_is(read, kind))

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format (`CONTENT_TYPE`)."""
        return generate_latest(self.registry)

    def watch_loop(self) -> None:
        """Time the running event loop's wake-ups into the lateness histogram until
        `unwatch_loop`: a timer callback re-armed at each wake-up, no task."""
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._due = loop.time() + TICK_S
            self._timer = loop.call_at(self._due, self._wake, loop)

    def unwatch_loop(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        self.lateness.observe(max(0.0, now - self._due))
        self._due = now + TICK_S
        self._timer = loop.call_at(self._due, self._wake, loop)


def _reading(count: Callable[[], Mapping[str, int]], state: str) -> Callable[[], float]:
    """What a session gauge reads at a scrape: its state's count from `count`."""
    return lambda: float(count().get(state, 0))


def _is(read: Callable[[], tuple[bool, str | None]], kind: str) -> Callable[[], float]:
    """What a ladder trouble gauge reads at a scrape: 1 when the fault is of `kind`."""
    return lambda: float(read()[1] == kind)
