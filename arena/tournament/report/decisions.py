"""What the end of a run tells the organiser beyond the standings.

The leaderboard counts each bot's faults but not their kinds, and shows each
bot's median decision time but not the outliers that came near the limit
(the 99th percentile, the slowest, and how many came within 10% of it);
both are what an organiser acts on (a bot that times out, a machine that is
too busy). They are read back from the files, so a resumed run reports the
whole tournament, not only the part it played itself.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.records import Deal, Decision, GameLine, Replay
from arena.tournament.results.folder import read_replay


@dataclass(frozen=True, slots=True)
class SlowDecision:
    ms: float
    bot: str
    game: str
    round: int
    action: str
    limit_ms: float | None = None
    """The time the bot had, where a time bank made it differ from the move time."""


def faults_by_kind(lines: Iterable[GameLine]) -> dict[str, dict[str, int]]:
    """Faults per bot, then per kind, from games.jsonl lines."""
    counts: dict[str, dict[str, int]] = {}
    for line in lines:
        for fault in line.faults:
            kinds = counts.setdefault(fault.bot, {})
            kind = fault.fault.kind.value
            kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(counts.items()))


NEAR_LIMIT = 0.9
"""A decision that takes this share of its limit is close to a timeout: its author is warned."""


@dataclass(frozen=True, slots=True)
class BotTimes:
    """One bot's decision times over a tournament: the outliers beside the median."""

    bot: str
    decisions: int
    median_ms: float
    p99_ms: float
    slowest_ms: float
    near_limit: int
    """Decisions that took at least 90% of the time the bot had for them, and no more."""
    closest_ms: float
    closest_limit_ms: float
    """The decision within its limit that came closest to it (the largest share of it): its
    time, and the time the bot had for it. A decision over its limit is never one of these:
    it was not charged (see `OverLimit`), and "took 4335 ms of the 1000 ms it had" beside
    "No faults" would read as a contradiction."""
    round_trip_ms: float | None = None
    """Its network round trip, the median over its games (each game's as the referee's pings
    last measured it); None for a bot that does not answer them. Its times above are its
    own: any of it a lag allowance credited is not in them."""

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class OverLimit:
    """A bot's answers that came after their limit and were taken all the same, so never
    charged: the referee itself was held up during them (`Decision.referee_ms`), or the
    tournament's time margin (or timeouts off) let them in."""

    bot: str
    decisions: int
    slowest_ms: float
    limit_ms: float
    """The slowest of them, and the time the bot had for it."""
    referee_ms: float
    """The longest the referee was held up during one of them: 0 if never."""

    def sentence(self) -> str:
        """Said once, the reason in the same sentence as the time."""
        n = self.decisions
        what = f"{self.bot}: {n} answer{'' if n == 1 else 's'} came after the time"
        took = f"(the slowest {self.slowest_ms:.0f} ms of {self.limit_ms:.0f} ms)"
        if self.referee_ms:
            return (
                f"{what} {took} while the referee itself was late, held up for up to "
                f"{self.referee_ms:.0f} ms: not charged to the bot, no fault"
            )
        return (
            f"{what} {took} but within the time margin (or with timeouts off): "
            "not charged to the bot, no fault"
        )


@dataclass(frozen=True, slots=True)
class Timing:
    slowest: tuple[SlowDecision, ...]
    bots: tuple[BotTimes, ...]
    """By bot name."""
    over: tuple[OverLimit, ...] = ()
    """By bot name: the answers over their limit that were not charged."""

    def notes(self) -> list[str]:
        return [o.sentence() for o in self.over]


def decision_timing(
    replays: Path, games: Iterable[str], move_time: float, count: int = 5
) -> Timing:
    """The `count` slowest answers in the replays of `games`, and each bot's times and round
    trip; an unreadable replay is skipped. A decision's limit is the one its replay
    recorded (under a time bank), else `move_time`."""
    found: list[SlowDecision] = []
    times: dict[str, list[float]] = {}
    links: dict[str, list[float]] = {}
    near: dict[str, int] = {}
    closest: dict[str, tuple[float, float]] = {}
    over: dict[str, list[tuple[SlowDecision, float]]] = {}
    default_ms = move_time * 1000
    for game in games:
        try:
            replay = read_replay(replays / f"{game}.json")
        except (OSError, ValueError):
            continue  # reported by whoever checks the replays; it has no times to give here
        held = _decisions(replay)
        decisions = [d for d, _ in held]
        for bot, link in zip(replay.players, replay.round_trip_ms, strict=False):
            if link is not None:
                links.setdefault(bot, []).append(link)
        found = heapq.nlargest(count, [*found, *decisions], key=lambda d: d.ms)
        for d, referee_ms in held:
            limit = d.limit_ms if d.limit_ms is not None else default_ms
            times.setdefault(d.bot, []).append(d.ms)
            if d.ms > limit:  # answered after its time, yet taken: no fault, not close to one
                over.setdefault(d.bot, []).append(
                    (dataclasses.replace(d, limit_ms=limit), referee_ms)
                )
                continue
            near[d.bot] = near.get(d.bot, 0) + (d.ms >= NEAR_LIMIT * limit)
            ms, had = closest.get(d.bot, (-1.0, 1.0))
            if d.ms * had > ms * limit:  # a larger share of its limit than the closest so far
                closest[d.bot] = (d.ms, limit)
    bots = tuple(
        BotTimes(
            bot,
            len(ms),
            round(statistics.median(ms), 3),
            round(percentile(ms, 99), 3),
            max(ms),
            near.get(bot, 0),
            *closest.get(bot, (0.0, default_ms)),
            round(statistics.median(links[bot]), 3) if bot in links else None,
        )
        for bot, ms in sorted(times.items())
    )
    return Timing(tuple(found), bots, tuple(_over(bot, late) for bot, late in sorted(over.items())))


def _over(bot: str, late: list[tuple[SlowDecision, float]]) -> OverLimit:
    worst = max((d for d, _ in late), key=lambda d: d.ms)
    held = max(referee_ms for _, referee_ms in late)
    return OverLimit(bot, len(late), worst.ms, worst.limit_ms or 0.0, held)


def percentile(values: Sequence[float], p: float) -> float:
    """The `p`th percentile by the nearest rank: a time some decision really took."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _decisions(replay: Replay) -> list[tuple[SlowDecision, float]]:
    """Each decision, with how long the referee itself was held up during it."""
    decisions = []
    current = 0
    for event in replay.events:
        if isinstance(event, Deal):
            current = event.round
        elif isinstance(event, Decision):
            bot = replay.players[event.seat]
            decisions.append(
                (
                    SlowDecision(event.ms, bot, replay.game, current, event.action, event.limit_ms),
                    event.referee_ms or 0.0,
                )
            )
    return decisions
