"""What a run says at its end: how it stands and how it went, in one record.

Made by the runner as it closes the books, and told by whoever started the
run (the terminal, the web page, the league server's admin stream).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.tournament.report.decisions import BotTimes, SlowDecision
from arena.tournament.report.ratings import Standing
from arena.tournament.report.standings import Board


@dataclass(frozen=True, slots=True)
class Summary:
    folder: Path
    status: str
    table: list[Standing]
    games: int
    total: int
    seed_hex: str | None
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per bot, per fault kind."""
    slowest: tuple[SlowDecision, ...] = ()
    times: tuple[BotTimes, ...] = ()
    """Each bot's decision times: median, 99th percentile, slowest, and how near the limit."""
    skipped: tuple[tuple[str, str], ...] = ()
    """Bots that did not play, with the reason."""
    notes: tuple[str, ...] = ()
    """What the run's timing says (see `TimingReport`), for the end-of-run summary."""
    board: Board | None = None
    """The leaderboard with the batch fit's confidence and the cross-table."""
    outcome: str | None = None
    """With --until-confident: whether the ranking was known or the budget was spent."""
