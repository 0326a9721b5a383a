"""What a soak of the ladder found, summed up from its samples and records, and its verdict.

Pure: the soak (`bench.soak`) gathers; this says what it comes to. The whole process
tree is judged as well as the server, because a leak may be in a process the server starts
(a sandbox, a bot it never stops) as much as in its own heap. The tree's memory is a saw:
each ladder round starts its table's bots and stops them, every few seconds, so a single
reading is the tree with a table up or without one, twice the memory or half. Memory is
therefore read often and judged by its average over the first and the last tenth of the
soak, not by single readings, nor by their median, which jumps between the two levels
(measured: 237 and 159 MiB for the two tenths of a steady 3-minute soak).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

MIB = 1024 * 1024
HANG_S = 120.0
"""The longest a ladder with entrants to seat may go without finishing a game: a round of
the sample bots takes seconds, a restart after a kill well under a minute."""
GROWTH_BOUND = 1.5
"""The most the last tenth's median memory may be of the first tenth's."""


SAMPLE_FIELDS = ("at_s", "server_mib", "server_peak_mib", "tree_mib", "tree_peak_mib", "games")
"""The columns of a sample in the JSON report."""


@dataclass(frozen=True, slots=True)
class Sample:
    """The readings of a few seconds, averaged (and their peaks kept)."""

    at: float
    """Seconds into the soak's play at the sample's end."""
    server_rss: int
    server_peak: int
    tree_rss: int
    """The server and everything it started, in bytes."""
    tree_peak: int
    games: int
    """Ladder games the server had said finished, over all its runs."""

    def to_json(self) -> list[float]:
        mib = (self.server_rss, self.server_peak, self.tree_rss, self.tree_peak)
        return [round(self.at, 1), *(round(m / MIB, 1) for m in mib), self.games]


@dataclass(frozen=True, slots=True)
class Memory:
    """Resident memory over the soak, in MiB."""

    first: float
    """The average over the first tenth of the soak."""
    last: float
    """The average over the last tenth."""
    peak: float

    @property
    def growth(self) -> float:
        return self.last / self.first if self.first > 0 else 0.0

    def to_json(self) -> dict[str, float]:
        return {
            "first_tenth_mib": round(self.first, 1),
            "last_tenth_mib": round(self.last, 1),
            "max_mib": round(self.peak, 1),
            "growth": round(self.growth, 3),
        }


def memory_of(averages: Sequence[int], peaks: Sequence[int]) -> Memory | None:
    """The summary of samples' averages and peaks in bytes, in the order taken; None with
    none."""
    if not averages:
        return None
    tenth = max(1, len(averages) // 10)
    return Memory(
        statistics.fmean(averages[:tenth]) / MIB,
        statistics.fmean(averages[-tenth:]) / MIB,
        max(peaks) / MIB,
    )


@dataclass(frozen=True, slots=True)
class Gap:
    seconds: float
    ends: float
    """Seconds into the soak when it ended (a game finished, or the soak did)."""


def longest_gap(finished: Iterable[float], start: float, end: float) -> Gap:
    """The longest stretch of [start, end] in which no game finished, its ends included: a
    ladder that never began, or stopped before the end, has a gap up to that end."""
    points = [start, *sorted(t for t in finished if start <= t <= end), end]
    best = Gap(0.0, 0.0)
    for before, after in itertools.pairwise(points):
        if after - before > best.seconds:
            best = Gap(after - before, after - start)
    return best


def pace(finished: Iterable[float], end: float) -> tuple[float, float]:
    """Games a minute in the first and the last tenth of [0, end]: a ladder that slows as
    its record grows shows here before it hangs."""
    tenth = end / 10
    if tenth <= 0:
        return 0.0, 0.0
    times = list(finished)
    first = sum(1 for t in times if 0 <= t < tenth)
    last = sum(1 for t in times if end - tenth <= t <= end)
    return first * 60 / tenth, last * 60 / tenth


@dataclass(frozen=True, slots=True)
class Ledger:
    """The games on record at the end: the journals against the league store."""

    journaled: int
    doubled: tuple[str, ...]
    """`round/game` of every game a journal holds more than once."""
    stored: int | None
    """The games the league store holds, as `arena league check` counted them; None when
    it found a difference (or could not say)."""
    check: str
    """`arena league check`'s last line."""
    disk: tuple[int, int] = (0, 0)
    """Bytes and files of the results folder and the league store at the end."""

    def per_game(self) -> tuple[float, float]:
        """Bytes and files a game on disk (the goal: 3,000 and 0.05)."""
        games = max(1, self.journaled)
        return self.disk[0] / games, self.disk[1] / games


@dataclass(frozen=True, slots=True)
class KillCheck:
    at: float
    """Seconds into the soak when the server was killed."""
    journaled: int
    """Games the journals held at the kill."""
    lost: tuple[str, ...]
    """`round/game` of games journaled at the kill and missing at the end."""
    restart_s: float
    """From the kill until the new server listened."""
    orphans: int
    """Processes of the killed server still running when it was started again."""


@dataclass(frozen=True, slots=True)
class SoakFigures:
    minutes: float
    """Minutes played (less than asked if the soak was cut short by a finding)."""
    asked_minutes: float
    bots: tuple[str, ...]
    """The entrants whose submission was accepted."""
    rejected: Mapping[str, str]
    """Entrants whose submission was not, and why."""
    table_size: int
    jobs: int
    games: int
    faults: Mapping[str, Mapping[str, int]]
    """Faults charged in the games on record: by kind, then by bot."""
    gap: Gap
    pace: tuple[float, float]
    """Games a minute in the first and the last tenth of the soak."""
    server: Memory | None
    tree: Memory | None
    ledger: Ledger
    kill: KillCheck | None
    stopped: str
    """How the server ended: `exit 0 in 3.1 s` after its SIGTERM, or what went wrong."""
    stop_clean: bool
    died: str = ""
    """What the server said when it ended by itself during the soak, if it did."""
    samples: Sequence[Sample] = field(default_factory=tuple)

    @property
    def rate(self) -> float:
        return self.games / self.minutes if self.minutes > 0 else 0.0

    def findings(self) -> list[str]:
        """Each reason the soak failed, one line each; none when it passed."""
        found = [f"rejected: {name}: {why}" for name, why in sorted(self.rejected.items())]
        if self.died:
            found.append(f"server died: {self.died}")
        faults = sum(sum(bots.values()) for bots in self.faults.values())
        if faults:
            found.append(f"fault: {faults} charged to bots ({_faults(self.faults)})")
        if self.gap.seconds > HANG_S:
            found.append(
                f"hang: no game finished for {self.gap.seconds:.0f} s, to minute "
                f"{self.gap.ends / 60:.1f} (the limit is {HANG_S:.0f} s)"
            )
        elif not self.died and self.minutes < self.asked_minutes * 0.99:
            found.append(
                f"cut short: {self.minutes:.1f} of {self.asked_minutes:g} minutes (the server "
                f"stopped telling its games)"
            )
        if not self.stop_clean:
            found.append(f"stop: {self.stopped}")
        if self.ledger.doubled:
            found.append(f"doubled: {_some(self.ledger.doubled)}")
        if self.kill is not None and self.kill.lost:
            found.append(f"lost: {_some(self.kill.lost)} journaled before the kill")
        if self.kill is not None and self.kill.orphans:
            found.append(f"orphans: {self.kill.orphans} processes outlived the killed server")
        if self.ledger.stored != self.ledger.journaled:
            found.append(
                f"store: {self.ledger.journaled} games journaled; arena league check: "
                f"{self.ledger.check}"
            )
        for name, memory in (("server", self.server), ("tree", self.tree)):
            if memory is None:
                found.append(f"memory: no reading of the {name}'s")
            elif memory.growth > GROWTH_BOUND:
                found.append(
                    f"memory: the {name}'s grew {memory.growth:.2f}x ({memory.first:.0f} to "
                    f"{memory.last:.0f} MiB; the bound is {GROWTH_BOUND:g}x)"
                )
        return found

    def lines(self) -> list[str]:
        """The report, for a person."""
        lines = [
            f"soak: {self.minutes:.1f} of {self.asked_minutes:g} minutes, "
            f"{len(self.bots)} bots at tables of {self.table_size}, {self.jobs} games at once "
            f"({', '.join(self.bots)})",
            f"games: {self.games}, {self.rate:.1f} a minute{self._before()}; longest "
            f"without one {self.gap.seconds:.1f} s (to minute {self.gap.ends / 60:.1f}; a "
            f"hang is over {HANG_S:.0f} s)",
            f"pace: {self.pace[0]:.1f} games a minute in the first tenth, {self.pace[1]:.1f} in "
            f"the last",
            f"faults: {_faults(self.faults) if self.faults else 'none'}",
        ]
        for name, memory in (("server RSS", self.server), ("tree RSS", self.tree)):
            if memory is not None:
                lines.append(
                    f"{name}: {memory.first:.0f} MiB the first tenth (average), "
                    f"{memory.last:.0f} MiB the last, {memory.peak:.0f} MiB max: "
                    f"{memory.growth:.2f}x (bound {GROWTH_BOUND:g}x)"
                )
        ledger = self.ledger
        lines.append(
            f"record: {ledger.journaled} games journaled, "
            f"{'?' if ledger.stored is None else ledger.stored} stored, "
            f"{len(ledger.doubled)} doubled; arena league check: {ledger.check}"
        )
        size, files = ledger.per_game()
        lines.append(
            f"disk: {size:,.0f} bytes and {files:.3f} files a game, the results folder and "
            f"the league store ({ledger.disk[0] / 2**20:.1f} MiB, {ledger.disk[1]} files)"
        )
        if self.kill is not None:
            kill = self.kill
            lines.append(
                f"kill: SIGKILL at minute {kill.at / 60:.1f} with {kill.journaled} games "
                f"journaled, {len(kill.lost)} of them lost; listening again in "
                f"{kill.restart_s:.1f} s; {kill.orphans} processes outlived it"
            )
        lines.append(f"stop: {self.stopped}")
        found = self.findings()
        lines += [f"FAIL {line}" for line in found] or [
            "PASS: no fault, hang, loss, double or memory growth"
        ]
        return lines

    def _before(self) -> str:
        """The games the ladder played while the last submissions were judged, if any."""
        before = self.ledger.journaled - self.games
        return f" (and {before} before, while submissions were judged)" if before > 0 else ""

    def to_json(self) -> dict[str, object]:
        return {
            "minutes": round(self.minutes, 2),
            "asked_minutes": self.asked_minutes,
            "bots": list(self.bots),
            "rejected": dict(self.rejected),
            "table_size": self.table_size,
            "jobs": self.jobs,
            "games": self.games,
            "games_per_minute": round(self.rate, 2),
            "faults": {kind: dict(bots) for kind, bots in self.faults.items()},
            "games_per_minute_first_tenth": round(self.pace[0], 2),
            "games_per_minute_last_tenth": round(self.pace[1], 2),
            "longest_gap_s": round(self.gap.seconds, 1),
            "longest_gap_ends_s": round(self.gap.ends, 1),
            "hang_limit_s": HANG_S,
            "server_rss": None if self.server is None else self.server.to_json(),
            "tree_rss": None if self.tree is None else self.tree.to_json(),
            "growth_bound": GROWTH_BOUND,
            "journaled": self.ledger.journaled,
            "stored": self.ledger.stored,
            "doubled": list(self.ledger.doubled),
            "league_check": self.ledger.check,
            "disk_bytes": self.ledger.disk[0],
            "disk_files": self.ledger.disk[1],
            "bytes_per_game": round(self.ledger.per_game()[0], 1),
            "files_per_game": round(self.ledger.per_game()[1], 4),
            "kill": None if self.kill is None else _kill_json(self.kill),
            "stopped": self.stopped,
            "died": self.died or None,
            "findings": self.findings(),
            "passed": not self.findings(),
            "sample_fields": list(SAMPLE_FIELDS),
            "samples": [sample.to_json() for sample in self.samples],
        }


def _kill_json(kill: KillCheck) -> dict[str, object]:
    return {
        "at_s": round(kill.at, 1),
        "journaled": kill.journaled,
        "lost": list(kill.lost),
        "restart_s": round(kill.restart_s, 1),
        "orphans": kill.orphans,
    }


def _faults(faults: Mapping[str, Mapping[str, int]]) -> str:
    return "; ".join(
        f"{kind}: " + ", ".join(f"{bot} {n}" for bot, n in sorted(bots.items()))
        for kind, bots in sorted(faults.items())
    )


def _some(names: Sequence[str]) -> str:
    shown = ", ".join(names[:5])
    return f"{len(names)} games ({shown}{', ...' if len(names) > 5 else ''})"
