"""What the organiser watches: a live view on a terminal, plain lines elsewhere."""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from arena.ratings import Standing
from arena.report import SlowDecision
from arena.schedule import explain
from arena.tournament import Progress as TournamentProgress


def leaderboard_table(
    table: list[Standing], title: str = "Leaderboard", limit: int | None = None
) -> Table:
    view = Table(title=title, title_justify="left", header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("rating", "right"),
        ("mu", "right"),
        ("sigma", "right"),
        ("games", "right"),
        ("wins", "right"),
        ("win %", "right"),
        ("avg place", "right"),
        ("faults", "right"),
        ("median ms", "right"),
    ):
        view.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rank, s in enumerate(table[:limit] if limit else table, start=1):
        view.add_row(
            str(rank),
            s.name,
            f"{s.conservative:.2f}",
            f"{s.mu:.2f}",
            f"{s.sigma:.2f}",
            str(s.games),
            str(s.wins),
            f"{100 * s.win_rate:.1f}",
            f"{s.average_place:.2f}",
            Text(str(s.faults), style="red" if s.faults else ""),
            f"{s.median_think_ms:.2f}",
        )
    return view


def standings_table(table: list[Standing], limit: int) -> Table:
    """The live standings: the columns that move during play, narrow enough for 80 columns."""
    view = Table(title="Standings (live)", title_justify="left", header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("rating", "right"),
        ("games", "right"),
        ("win %", "right"),
        ("faults", "right"),
        ("ms", "right"),
    ):
        view.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for rank, s in enumerate(table[:limit], start=1):
        view.add_row(
            str(rank),
            Text(s.name),
            f"{s.conservative:.2f}",
            str(s.games),
            f"{100 * s.win_rate:.1f}",
            Text(str(s.faults), style="red" if s.faults else ""),
            f"{s.median_think_ms:.1f}",
        )
    if len(table) > limit:
        view.caption = f"and {len(table) - limit} more"
    return view


def fault_lines(faults: dict[str, dict[str, int]]) -> list[str]:
    """One line per bot that faulted: its total, then each kind."""
    return [
        f"  {bot}: {sum(kinds.values())} "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        for bot, kinds in faults.items()
    ]


def slow_lines(slowest: tuple[SlowDecision, ...]) -> list[str]:
    return [f"  {d.ms:9.1f} ms  {d.bot}  {d.game} round {d.round}: {d.action}" for d in slowest]


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

    def note(self, text: str) -> None:
        self.console.print(f"[yellow]![/] {text}", highlight=False)

    def started(self, folder: Path, entrants: list[str], progress: TournamentProgress) -> None:
        self.console.print(
            f"Tournament [bold]{folder.name}[/] with {len(entrants)} bots: {', '.join(entrants)}",
            highlight=False,
        )
        self.console.print(f"Writing to {folder}", highlight=False)
        with contextlib.suppress(OSError, ValueError, KeyError):
            commitment = json.loads((folder / "tournament.json").read_text())["seed_sha256"]
            self.console.print(
                f"Dice commitment (SHA-256 of the seed): {commitment}", highlight=False
            )
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            info = json.loads((folder / "tournament.json").read_text())
            self.console.print(
                explain(len(entrants), info["table_size"], info["games"]),
                highlight=False,
                markup=False,
            )
        self._playing = True
        self._bar.update(self._task, total=progress.total, completed=progress.done)
        if not self.interactive:
            self.console.print(f"{progress.done}/{progress.total} games already played")

    def game_finished(
        self, line: dict[str, Any], table: list[Standing], progress: TournamentProgress
    ) -> None:
        self._table = table
        elapsed = max(time.monotonic() - progress.started, 1e-9)
        rate = progress.played_now / elapsed
        self._bar.update(self._task, completed=progress.done, rate=f"{rate:.1f} games/s")
        for fault in line["faults"]:
            message = f"{line['game']}: {fault['bot']} {fault['kind']}: {fault['detail']}"
            self._faults.append(message)
            if not self.interactive:
                self.console.print(f"fault {message}", highlight=False)
        if self._live is not None:
            self._live.update(self._render())
        elif time.monotonic() - self._last_line > 5 or progress.done == progress.total:
            self._last_line = time.monotonic()
            leader = table[0].name if table else "-"
            self.console.print(
                f"{progress.done}/{progress.total} games, {rate:.1f} games/s, leader {leader}",
                highlight=False,
            )

    def _render(self) -> RenderableType:
        if not self._playing:
            return _Preparing(self._opened)
        parts: list[Any] = [self._bar]
        if self._table and not self._final:
            parts.append(standings_table(self._table, limit=12))
        if self._faults:
            parts.append(Text("Recent faults", style="bold red"))
            parts.extend(Text(f"  {f}", style="red") for f in self._faults)
        return Group(*parts)


class _Preparing:
    """Until play begins, the time spent finding, building and connecting the bots."""

    def __init__(self, since: float) -> None:
        self._since = since

    def __rich__(self) -> Text:
        elapsed = time.monotonic() - self._since
        return Text(f"preparing the bots (builds, connections): {elapsed:.0f} s", style="dim")
