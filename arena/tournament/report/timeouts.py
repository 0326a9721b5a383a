"""The end of a run says what its timeouts look like: the machine's load, or a slow bot.

Timeouts spread evenly over nearly every bot, the quickest included, are the
machine's doing: too many games at once for its cores, or other work on it.
Timeouts piled on one bot are that bot's. Where the platform tells it, the
late decisions' CPU figures back the verdict: a bot that spent the decision
waiting for a CPU was starved; one that spent it on a CPU was thinking.
"""

from __future__ import annotations

from collections import Counter

from arena.protocol.faults import FaultKind
from arena.records import FaultEvent
from arena.referee.match import GameRecord

SPREAD = 0.75
"""Timeouts among at least this share of the bots look like load."""

PILED = 0.8
"""One bot with at least this share of the timeouts is a slow bot."""


class TimingReport:
    def __init__(self) -> None:
        self.decisions = 0
        self.timeouts: Counter[str] = Counter()
        self.players: set[str] = set()
        self.referee_late = 0
        self._wall_ms = 0.0
        self._cpu_ms = 0.0
        self._wait_ms = 0.0
        self._sampled = 0

    def add(self, record: GameRecord) -> None:
        players = record.spec.players
        self.players.update(players)
        self.decisions += record.decisions
        self.referee_late += len(record.referee_late)
        for event in record.events:
            if not isinstance(event, FaultEvent) or event.kind is not FaultKind.TIMEOUT:
                continue
            self.timeouts[players[event.seat]] += 1
            wall, cpu, wait = event.wall_ms, event.cpu_ms, event.cpu_wait_ms
            if wall is not None and cpu is not None and wait is not None:
                self._sampled += 1
                self._wall_ms += wall
                self._cpu_ms += cpu
                self._wait_ms += wait

    def notes(self) -> list[str]:
        """What the organiser should know, in words: nothing when all was well."""
        notes = []
        if self.referee_late:
            notes.append(
                f"the referee itself was late for {self.referee_late} decisions (its event loop "
                "was held up); no bot was charged for them"
            )
        total = sum(self.timeouts.values())
        if not total:
            return notes
        rate = 1000 * total / max(self.decisions, 1)
        figures = ""
        if self._sampled:
            figures = (
                f"; in the late decisions the bots ran on a CPU "
                f"{100 * self._cpu_ms / self._wall_ms:.0f}% of the time and waited for one "
                f"{100 * self._wait_ms / self._wall_ms:.0f}%"
            )
        spread = len(self.timeouts) / max(len(self.players), 1)
        slowest, most = self.timeouts.most_common(1)[0]
        if total >= 3 and spread >= SPREAD and len(self.players) > 1:
            notes.append(
                f"{total} timeouts ({rate:.1f} per 1,000 decisions) spread over "
                f"{len(self.timeouts)} of {len(self.players)} bots: that looks like machine "
                f"load, not a slow bot{figures}; try fewer --jobs, a --time-margin, or a "
                "quieter machine"
            )
        elif most / total >= PILED:
            notes.append(
                f"{total} timeouts ({rate:.1f} per 1,000 decisions), {most} of them {slowest}'s: "
                f"a slow bot{figures}"
            )
        else:
            notes.append(
                f"{total} timeouts ({rate:.1f} per 1,000 decisions) among "
                f"{len(self.timeouts)} of {len(self.players)} bots{figures}"
            )
        return notes
