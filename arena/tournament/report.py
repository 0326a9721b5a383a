"""What the end of a run tells the organiser beyond the standings.

The leaderboard counts each bot's faults but not their kinds, and shows each
bot's median decision time but not the outliers that came near the limit
(the 99th percentile, the slowest, and how many came within 10% of it);
both are what an organiser acts on (a bot that times out, a machine that is
too busy). They are read back from the files, so a resumed run reports the
whole tournament, not only the part it played itself.

All of it, standings included, is one `RunReport`: `arena run` has it from
its own run, `arena admin start` from the league server's stream, and both
print it alike.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.rankings import Confidence
from arena.records import Answer, Deal, GameLine, Replay
from arena.tournament.folder import read_replay
from arena.tournament.info import RunStatus
from arena.tournament.ratings import Standing


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
    """Decisions that took at least 90% of the time the bot had for them."""
    closest_ms: float
    closest_limit_ms: float
    """The decision that came closest to its limit (the largest share of it): its time, and
    the time the bot had for it."""

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Timing:
    slowest: tuple[SlowDecision, ...]
    bots: tuple[BotTimes, ...]
    """By bot name."""


@dataclass(frozen=True, slots=True)
class RunReport:
    """What the end of a run tells the organiser: the leaderboard, how sure it is, and the
    rest of this module's findings, with where the results are."""

    folder: Path
    status: RunStatus
    games: int
    """Games on record."""
    total: int
    """Games scheduled."""
    seed_hex: str | None
    """Revealed once the run finished."""
    table: tuple[Standing, ...]
    """Best first, by TrueSkill."""
    sure: Confidence | None
    """The batch fit's confidence; None when it was given up."""
    separation: str
    """The neighbours the fit cannot yet tell apart, in a line ("": nothing to say)."""
    outcome: str | None
    """With --until-confident: whether the ranking was known or the budget was spent."""
    skipped: tuple[tuple[str, str], ...]
    """Bots that did not play, with the reason."""
    faults: dict[str, dict[str, int]]
    """Per bot, per fault kind."""
    slowest: tuple[SlowDecision, ...]
    times: tuple[BotTimes, ...]
    notes: tuple[str, ...]
    """What the run's timing says."""


def decision_timing(
    replays: Path, games: Iterable[str], move_time: float, count: int = 5
) -> Timing:
    """The `count` slowest answers in the replays of `games`, and each bot's times;
    an unreadable replay is skipped. A decision's limit is the one its replay
    recorded (under a time bank), else `move_time`."""
    found: list[SlowDecision] = []
    times: dict[str, list[float]] = {}
    near: dict[str, int] = {}
    closest: dict[str, tuple[float, float]] = {}
    default_ms = move_time * 1000
    for game in games:
        try:
            replay = read_replay(replays / f"{game}.json")
        except (OSError, ValueError):
            continue  # reported by whoever checks the replays; it has no times to give here
        decisions = _decisions(replay)
        found = heapq.nlargest(count, [*found, *decisions], key=lambda d: d.ms)
        for d in decisions:
            limit = d.limit_ms if d.limit_ms is not None else default_ms
            times.setdefault(d.bot, []).append(d.ms)
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
            near[bot],
            *closest[bot],
        )
        for bot, ms in sorted(times.items())
    )
    return Timing(tuple(found), bots)


def percentile(values: Sequence[float], p: float) -> float:
    """The `p`th percentile by the nearest rank: a time some decision really took."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _decisions(replay: Replay) -> list[SlowDecision]:
    decisions = []
    current = 0
    for event in replay.events:
        if isinstance(event, Deal):
            current = event.round
        elif isinstance(event, Answer):
            bot = replay.players[event.seat]
            decisions.append(
                SlowDecision(event.ms, bot, replay.game, current, event.action, event.limit_ms)
            )
    return decisions
