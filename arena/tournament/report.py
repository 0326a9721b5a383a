"""What the end of a run tells the organiser beyond the standings.

The leaderboard counts each bot's faults but not their kinds, and shows each
bot's median decision time but not the outliers that came near the limit;
both are what an organiser acts on (a bot that times out, a machine that is
too busy). They are read back from the files, so a resumed run reports the
whole tournament, not only the part it played itself.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.records import Answer, Deal, GameLine, Replay
from arena.tournament.folder import read_replay


@dataclass(frozen=True, slots=True)
class SlowDecision:
    ms: float
    bot: str
    game: str
    round: int
    action: str


def faults_by_kind(lines: Iterable[GameLine]) -> dict[str, dict[str, int]]:
    """Faults per bot, then per kind, from games.jsonl lines."""
    counts: dict[str, dict[str, int]] = {}
    for line in lines:
        for fault in line.faults:
            kinds = counts.setdefault(fault.bot, {})
            kind = fault.fault.kind.value
            kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def slowest_decisions(replays: Path, games: Iterable[str], count: int = 5) -> list[SlowDecision]:
    """The `count` slowest answers in the replays of `games`; an unreadable replay is skipped."""
    found: list[SlowDecision] = []
    for game in games:
        try:
            replay = read_replay(replays / f"{game}.json")
        except (OSError, ValueError):
            continue  # reported by whoever checks the replays; it has no times to give here
        found = heapq.nlargest(count, [*found, *_decisions(replay)], key=lambda d: d.ms)
    return found


def _decisions(replay: Replay) -> list[SlowDecision]:
    decisions = []
    current = 0
    for event in replay.events:
        if isinstance(event, Deal):
            current = event.round
        elif isinstance(event, Answer):
            bot = replay.players[event.seat]
            decisions.append(SlowDecision(event.ms, bot, replay.game, current, event.action))
    return decisions
