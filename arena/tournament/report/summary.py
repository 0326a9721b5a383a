"""What a run says at its end: how it stands and how it went, in one record.

Made by the runner as it closes the books, and told by whoever started the
run (the terminal, the web page, the league server's admin stream). All of
it, standings included, is one `RunReport`: `arena run` has it from its own
run, `arena admin start` from the league server's stream, and both print it
alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.rankings import Confidence
from arena.tournament.config import TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.report.decisions import BotTimes, SlowDecision
from arena.tournament.report.ratings import Standing
from arena.tournament.report.standings import Board


@dataclass(frozen=True, slots=True)
class RunReport:
    """What the end of a run tells the organiser: the leaderboard, how sure it is, and the
    rest of the report's findings, with where the results are."""

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

    def report(self) -> RunReport:
        """What the end of the run tells the organiser, here or down the admin stream."""
        board = self.board
        return RunReport(
            folder=self.folder,
            status=RunStatus(self.status),
            games=self.games,
            total=self.total,
            seed_hex=self.seed_hex,
            table=tuple(self.table),
            sure=None if board is None else board.sure,
            separation="" if board is None else board.separation(),
            outcome=self.outcome,
            skipped=self.skipped,
            faults=self.faults,
            slowest=self.slowest,
            times=self.times,
            notes=self.notes,
        )


class StoppedError(TournamentError):
    """The run stopped before its end for a fault of the disk or the store, its books closed
    as far as they could be: `summary` says what it played (for the HTML replays, say)."""

    def __init__(self, message: str, summary: Summary) -> None:
        super().__init__(message)
        self.summary = summary
