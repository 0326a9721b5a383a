"""What the organiser watches: a live view on a terminal, plain lines elsewhere.

Bot names, log lines and fault details are written by bots (or their
authors): they are always shown as text, never read as rich markup, so a
log line like `[/bold]` is printed as it is instead of ending the arena,
and with every control character escaped (`arena.text`), so a log line
that clears the screen or rewrites the lines above is shown, not obeyed.
The records escape them where a bot's words are taken in; the screen does
it again for whatever reached it by another way (it changes nothing twice).
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text

from arena.cli.standings import LeaderBoard, standings_table
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.schedule.round_robin import explain

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from arena.records import GameLine
    from arena.tournament.report.decisions import BotTimes, SlowDecision
    from arena.tournament.report.ratings import Standing
    from arena.tournament.report.summary import RunReport
    from arena.tournament.tournament import Progress as TournamentProgress


def report_lines(
    skipped: Sequence[tuple[str, str]],
    faults: dict[str, dict[str, int]],
    slowest: Sequence[SlowDecision],
    times: Sequence[BotTimes] = (),
    near: Sequence[BotTimes] | None = None,
) -> list[str]:
    """After the leaderboard: who did not play, faults by bot and kind, the slowest answers,
    each bot's `times` (unless the board showed them beside it), and a warning for each bot
    of `near` (`times` if not given) that came within 10% of its limit.

    Plain text: the reasons quote bots' output and the names are the bots' own.
    """
    lines = []
    if skipped:
        lines.append(f"Skipped, did not play ({len(skipped)}):")
        lines += [f"  {name}: {reason}" for name, reason in skipped]
    if faults:
        lines.append("Faults by bot and kind:")
        lines += [
            f"  {bot}: {sum(kinds.values())} "
            + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
            for bot, kinds in faults.items()
        ]
    else:
        lines.append("No faults.")
    if slowest:
        lines.append("Slowest decisions:")
        lines += [
            f"  {d.ms:9.1f} ms  {d.bot}  {d.game} round {d.round}: {d.action}" for d in slowest
        ]
    if times:
        lines.append("Decision times (ms: median, 99th percentile, slowest):")
        lines += [
            f"  {t.bot}: {t.median_ms:.1f}, {t.p99_ms:.1f}, {t.slowest_ms:.1f}"
            f" ({t.decisions} decisions{_link(t)})"
            for t in times
        ]
    close = [t for t in (times if near is None else near) if t.near_limit]
    if close:
        lines.append("Close to the limit (90% of it or more: on a busier machine, a timeout):")
        lines += [
            f"  {t.bot}: {t.near_limit} of {t.decisions} decisions; the closest took "
            f"{t.closest_ms:.0f} ms of the {t.closest_limit_ms:.0f} ms it had"
            for t in close
        ]
    return [printable(line) for line in lines]


def _link(times: BotTimes) -> str:
    """A bot's network round trip, where the referee's pings measured it."""
    if times.round_trip_ms is None:
        return ""
    return f"; network round trip {times.round_trip_ms:.1f} ms"


def print_report(console: Console, report: RunReport, resume: str = "") -> None:
    """The end of a run, as `arena run` and `arena admin start` both print it: the leaderboard
    with the batch fit's rank range and P(rank 1), the neighbours not yet separated, the
    outcome of a confidence goal, `report_lines` and the timing's notes, then where the
    results are and the commands to go on from them, `resume` (the command that continues
    the run) among them if it was interrupted.

    Prose wraps between words only; every command stands on a line of its own, never
    wrapped, so that it copies and pastes whole at any width.
    """
    board = LeaderBoard(
        report.table, f"Leaderboard ({report.games} games)", report.sure, report.times
    )
    view, beside = board.fitted(console, console.options)
    console.print(view)
    said = [report.separation, report.outcome or ""]
    times = () if beside else report.times
    found = report_lines(report.skipped, report.faults, report.slowest, times, report.times)
    for line in [*said, *found, *report.notes]:
        if line:
            say(console, line)
    say(console, f"Results: {report.folder} ({report.status})")
    say(console, "The cross-table is in cross.json, or:")
    command(console, f"arena leaderboard --cross --tournament {report.folder.name}")
    if report.status is not RunStatus.FINISHED:
        say(console, f"Interrupted after {report.games} of {report.total} games.", "yellow")
        if resume:
            say(console, "Continue with:")
            command(console, resume)
        return
    if report.seed_hex is not None:
        say(console, f"Dice seed: {report.seed_hex}")
        say(console, "Check every deal with:")
        command(console, f"arena verify {report.folder}")


def say(console: Console, text: str, style: str = "") -> None:
    """A line of prose, folded between words (a word, path or name is never cut)."""
    console.print(Text(printable(text), style=style), highlight=False, overflow="fold")


def command(console: Console, text: str) -> None:
    """A command to run, alone on its line and never wrapped, to copy and paste."""
    console.print(printable(text), highlight=False, markup=False, soft_wrap=True)


class LiveView:
    """An Observer that draws progress, standings and faults as games finish."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.interactive = console.is_terminal
        self._bar = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
        self._task = self._bar.add_task("games", total=1, rate="")
        self._table: list[Standing] = []
        self._faults: deque[str] = deque(maxlen=6)
        self._live: Live | None = None
        self._last_line = 0.0
        self._opened = time.monotonic()
        self._builds: dict[str, float] = {}
        """The builds running, each with when it began (monotonic)."""
        self._playing = False
        """False while bots are found, built and connected: the bar has no total yet."""
        self._final = False

    def __enter__(self) -> LiveView:
        if self.interactive:
            self._live = Live(
                self._render(), console=self.console, refresh_per_second=4, transient=False
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        # The last frame keeps the progress but not the live standings: they are rated in
        # the order games finished, the final leaderboard printed next in schedule order.
        self._final = True
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(None, None, None)
            self._live = None

    def redraw(self) -> None:
        """Draw the current frame now, not at the screen's next tick (four a second)."""
        if self._live is not None:
            self._live.refresh()

    def note(self, text: str) -> None:
        self.console.print(Text.assemble(("!", "yellow"), " ", printable(text)), highlight=False)

    def building(self, name: str, running: bool) -> None:
        if running:
            self._builds[name] = time.monotonic()
        else:
            self._builds.pop(name, None)

    def started(self, folder: Path, entrants: list[str], progress: TournamentProgress) -> None:
        self.console.print(
            Text.assemble(
                "Tournament ",
                (folder.name, "bold"),
                f" with {len(entrants)} bots: {', '.join(entrants)}",
            ),
            highlight=False,
        )
        self.console.print(f"Writing to {folder}", highlight=False, markup=False)
        with contextlib.suppress(OSError, ValueError):
            commitment = TournamentFolder(folder).info().seed_sha256
            self.console.print(
                f"Dice commitment (SHA-256 of the seed): {commitment}",
                highlight=False,
                markup=False,
            )
        self._say_schedule(folder, len(entrants))
        self._playing = True
        self._bar.update(self._task, total=progress.total, completed=progress.done)
        if not self.interactive and progress.done:  # a resume: what it starts from
            self.console.print(f"{progress.done}/{progress.total} games already played")

    def _say_schedule(self, folder: Path, entrants: int) -> None:
        """Why the schedule holds as many games as it does, before they are played."""
        with contextlib.suppress(OSError, ValueError, TournamentError):
            info = TournamentFolder(folder).info()
            if info.plan.ab is not None:  # the pair schedule: a budget, cut in whole pairs
                text = (
                    f"an A/B test at tables of {info.size()}: at most "
                    f"{info.plan.games // 2:,} pairs ({info.plan.games:,} games)"
                )
            else:
                text = explain(entrants, info.size(), info.plan.games, info.plan.gauntlet)
            self.console.print(text, highlight=False, markup=False)

    def game_finished(
        self, line: GameLine, table: list[Standing], progress: TournamentProgress
    ) -> None:
        self._table = table
        elapsed = max(time.monotonic() - progress.started, 1e-9)
        rate = progress.played_now / elapsed
        self._bar.update(self._task, completed=progress.done, rate=f"{rate:.1f} games/s")
        for fault in line.faults:
            message = printable(
                f"{line.game}: {fault.bot} {fault.fault.kind.value}: {fault.fault.detail}"
            )
            self._faults.append(message)
            if not self.interactive:
                self.console.print(f"fault {message}", highlight=False, markup=False)
        if self._live is not None:
            self._live.update(self._render())
        elif time.monotonic() - self._last_line > 5 or progress.done == progress.total:
            self._last_line = time.monotonic()
            leader = table[0].name if table else "-"
            self.console.print(
                f"{progress.done}/{progress.total} games, {rate:.1f} games/s, leader {leader}",
                highlight=False,
                markup=False,
            )

    def _render(self) -> RenderableType:
        if not self._playing:
            return _Preparing(self._opened, self._builds)
        parts: list[Any] = [self._bar]
        if self._table and not self._final:
            parts.append(standings_table(self._table, limit=12))
        if self._faults:
            parts.append(Text("Recent faults", style="bold red"))
            parts.extend(Text(f"  {f}", style="red") for f in self._faults)
        return Group(*parts)


class _Preparing:
    """Until play begins, the time spent finding, building and connecting the bots.

    Each build running shows its own time so far: one slow build among many
    is then seen for what it is, while its cap (said as it began) runs.
    """

    def __init__(self, since: float, builds: dict[str, float]) -> None:
        self._since = since
        self._builds = builds

    def __rich__(self) -> Text:
        now = time.monotonic()
        text = Text(
            f"preparing the bots (builds, connections): {now - self._since:.0f} s", style="dim"
        )
        for name, began in sorted(self._builds.items(), key=lambda item: item[1]):
            text.append(f"\n  building {name}: {now - began:.0f} s", style="dim")
        return text
