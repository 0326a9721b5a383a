"""The end of a run says what its timeouts look like: the machine's load, a slow bot, or a
slow link.

Timeouts spread evenly over nearly every bot, the quickest included, are the
machine's doing: too many games at once for its cores, or other work on it.
Timeouts piled on one bot are that bot's. Where the platform tells it, the
late decisions' CPU figures back the verdict: a bot that spent the decision
waiting for a CPU was starved; one that spent it on a CPU was thinking. A bot
whose link (its round trip, as the referee's pings measured it, less what a lag
allowance credited) took a large share of the move time in its timeouts is
told apart first: its timeouts are its network's, not its thinking.
"""

from __future__ import annotations

import statistics
from collections import Counter

from arena.protocol.faults import FaultKind
from arena.records import FaultEvent
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameRecord

SPREAD = 0.75
"""Timeouts among at least this share of the bots look like load."""

PILED = 0.8
"""One bot with at least this share of the timeouts is a slow bot."""

LINK_SHARE = 0.5
"""A bot whose uncredited link took at least this share of the move time, in the median of
its timeouts, timed out on its network as much as on its thinking."""


DEFAULT_CONTROL = TimeControl()
"""A second a decision, no lag allowance: a report made before its run says its control."""


class TimingReport:
    def __init__(self, control: TimeControl = DEFAULT_CONTROL) -> None:
        """`control`: the time control the run was given (its move time and lag allowance)."""
        self.move_ms = control.move_time * 1000
        self.allowance_ms = control.lag_allowance * 1000
        self.decisions = 0
        self.timeouts: Counter[str] = Counter()
        self.players: set[str] = set()
        self.referee_late = 0
        self._wall_ms = 0.0
        self._cpu_ms = 0.0
        self._wait_ms = 0.0
        self._sampled = 0
        self._links: dict[str, list[tuple[float, float]]] = {}
        """Per bot, for each timeout whose link was measured: its round trip and the share
        of it credited, in ms."""

    def add(self, record: GameRecord) -> None:
        players = record.spec.players
        self.players.update(players)
        self.decisions += record.decisions
        self.referee_late += len(record.referee_late)
        for event in record.events:
            if not isinstance(event, FaultEvent) or event.kind is not FaultKind.TIMEOUT:
                continue
            self.timeouts[players[event.seat]] += 1
            if event.rtt_ms is not None:
                link = (event.rtt_ms, event.credit_ms or 0.0)
                self._links.setdefault(players[event.seat], []).append(link)
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
        far = self._far()
        notes += [self._link_words(bot) for bot in far]
        timeouts = Counter({bot: n for bot, n in self.timeouts.items() if bot not in far})
        total = sum(timeouts.values())
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
        spread = len(timeouts) / max(len(self.players), 1)
        slowest, most = timeouts.most_common(1)[0]
        if total >= 3 and spread >= SPREAD and len(self.players) > 1:
            notes.append(
                f"{total} timeouts ({rate:.1f} per 1,000 decisions) spread over "
                f"{len(timeouts)} of {len(self.players)} bots: that looks like machine "
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
                f"{len(timeouts)} of {len(self.players)} bots{figures}"
            )
        return notes

    def _uncredited_ms(self, bot: str) -> float:
        """The median, over a bot's timeouts, of its link less what was credited of it."""
        return statistics.median(rtt - credit for rtt, credit in self._links[bot])

    def _far(self) -> list[str]:
        """The bots whose timeouts were their link's as much as their thinking's."""
        return sorted(
            bot for bot in self._links if self._uncredited_ms(bot) >= LINK_SHARE * self.move_ms
        )

    def _link_words(self, bot: str) -> str:
        links = self._links[bot]
        rtt = statistics.median(rtt for rtt, _ in links)
        credit = statistics.median(credit for _, credit in links)
        alone = "alone " if self._uncredited_ms(bot) >= self.move_ms else ""
        words = (
            f"{bot}: {self.timeouts[bot]} timeouts, its link {alone}took {rtt:.0f} ms "
            f"of {self.move_ms:.0f}"
        )
        if credit:
            return (
                f"{words}, {credit:.0f} ms of it credited (--lag-allowance "
                f"{self.allowance_ms / 1000:g}): a link longer than the allowance, the rest "
                "counted as its thinking"
            )
        if self.allowance_ms:  # an allowance, and none of it credited
            return (
                f"{words}: its network, not its thinking, and none of it credited: a bot the "
                "arena started is never credited, and a link not yet timed is not"
            )
        return (
            f"{words}: its network, not its thinking; --lag-allowance S would credit up to S "
            "of it on each decision"
        )
