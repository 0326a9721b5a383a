"""What the organiser watches: a live view on a terminal, plain lines elsewhere.

Bot names, log lines and fault details are written by bots (or their
authors): they are always shown as text, never read as rich markup, so a
log line like `[/bold]` is printed as it is instead of ending the arena.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from arena.ratings import Standing
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
            Text(s.name),
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

    def __enter__(self) -> LiveView:
        if self.interactive:
            self._live = Live(
                self._render(), console=self.console, refresh_per_second=4, transient=False
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(None, None, None)
            self._live = None

    def note(self, text: str) -> None:
        self.console.print(Text.assemble(("!", "yellow"), " ", text), highlight=False)

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
        with contextlib.suppress(OSError, ValueError, KeyError):
            commitment = json.loads((folder / "tournament.json").read_text())["seed_sha256"]
            self.console.print(
                f"Dice commitment (SHA-256 of the seed): {commitment}",
                highlight=False,
                markup=False,
            )
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

    def _render(self) -> Group:
        parts: list[Any] = [self._bar]
        if self._table:
            parts.append(leaderboard_table(self._table, "Standings", limit=12))
        if self._faults:
            parts.append(Text("Recent faults", style="bold red"))
            parts.extend(Text(f"  {f}", style="red") for f in self._faults)
        return Group(*parts)
