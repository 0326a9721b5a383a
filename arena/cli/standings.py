"""The standings as a terminal table: as wide as the screen allows, each bot's name shown as
its own text (`arena.text`), never read as markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from arena.text import printable

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console, ConsoleOptions, RenderResult

    from arena.rankings import BotConfidence, Confidence
    from arena.tournament.report.decisions import BotTimes
    from arena.tournament.report.ratings import Standing


def _figures(
    title: str, headers: tuple[str, ...], rows: Sequence[tuple[str, ...]], fold: bool = True
) -> Table:
    """A table of figures: each keeps its full width. The bot names (column 1) stay whole on
    one line, unless `fold`: then a long name folds onto a second line rather than push a
    figure into an ellipsis."""
    view = Table(
        title=title,
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 0, 0, 1),
    )
    for i, header in enumerate(headers):
        if i == 1:
            if fold:
                view.add_column(header, overflow="fold", min_width=12)
            else:
                view.add_column(header, no_wrap=True)
            continue
        width = max([len(header), *(len(row[i]) for row in rows)])
        view.add_column(header, justify="right", no_wrap=True, min_width=width)
    faults = headers.index("faults")
    for row in rows:
        cells = [Text(printable(cell)) for cell in row]  # bot names: the bots' own text
        if row[faults] != "0":
            cells[faults].stylize("red")
        view.add_row(*cells)
    return view


_DROPPED = (("p99", "slowest"), ("mu", "sigma"))
"""The columns given up, in this order, when the board is too wide for the screen."""


_EMPTY = ("#", "bot", "rating", "mu", "sigma", "games", "wins", "win%", "place", "faults", "ms")
"""The columns of a board with no one on it yet."""


class LeaderBoard:
    """The standings, as wide as the screen allows: at 120 columns each bot's 99th percentile
    and slowest decision beside its row; at 80 without them, then without mu and sigma
    (the rating says them), and only as a last resort a long name folded."""

    def __init__(
        self,
        table: Sequence[Standing],
        title: str = "Leaderboard",
        sure: Confidence | None = None,
        times: Sequence[BotTimes] = (),
    ) -> None:
        self.sure = sure if sure is not None and sure.enough else None
        self._title = title
        self._times = {t.bot: t for t in times}
        self._rows = [self._row(rank, s) for rank, s in enumerate(table, start=1)]

    def _row(self, rank: int, s: Standing) -> dict[str, str]:
        row = {
            "#": str(rank),
            "bot": s.name,
            "rating": f"{s.conservative:.2f}",
            "mu": f"{s.mu:.2f}",
            "sigma": f"{s.sigma:.2f}",
        }
        if self.sure is None:
            row |= {
                "games": str(s.games),
                "wins": str(s.wins),
                "win%": f"{100 * s.win_rate:.1f}",
                "place": f"{s.average_place:.2f}",
            }
        else:
            bot = self.sure.bot(s.name)
            row |= {
                "ranks": bot.rank_range,
                "P1": _share(bot),
                "games": str(s.games),
                "win%": f"{100 * s.win_rate:.1f}",
            }
        row |= {"faults": str(s.faults), "ms": f"{s.median_think_ms:.2f}"}
        times = self._times.get(s.name)
        if times is not None:
            row |= {"p99": f"{times.p99_ms:.1f}", "slowest": f"{times.slowest_ms:.1f}"}
        return row

    def layouts(self) -> list[tuple[str, ...]]:
        """The column sets to try, widest first."""
        every: tuple[str, ...] = tuple(self._rows[0]) if self._rows else _EMPTY
        if self._times and self._rows and any("p99" not in row for row in self._rows):
            every = tuple(h for h in every if h not in ("p99", "slowest"))
        found = [every]
        for drop in _DROPPED:
            narrower = tuple(h for h in found[-1] if h not in drop)
            if narrower != found[-1]:
                found.append(narrower)
        return found

    def table(self, headers: tuple[str, ...], fold: bool = False) -> Table:
        rows = [tuple(row[h] for h in headers) for row in self._rows]
        view = _figures(self._title, headers, rows, fold)
        said = ["rating = mu - 3 sigma" if "mu" in headers else "rating: mu - 3 sigma"]
        said.append("ms: median decision")
        if "p99" in headers:
            said.append("p99, slowest: the 99th percentile and the slowest decision, ms")
        if "place" in headers:
            said.append("place: average finishing place")
        if self.sure is not None:
            said.append(
                f"ranks: the {self.sure.level:.0%} range of rank, P1: the chance of rank 1, "
                f"by a batch fit and its bootstrap over {self.sure.groups:,} rotation groups"
            )
        view.caption = "; ".join(said)
        view.caption_justify = "left"
        return view

    def fitted(self, console: Console, options: ConsoleOptions) -> tuple[Table, bool]:
        """The widest table that fits, and whether it shows the decision times."""
        unbounded = options.update_width(1 << 20)  # a measure is clamped to the width it is given
        for headers in self.layouts():
            view = self.table(headers)
            if Measurement.get(console, unbounded, view).maximum <= options.max_width:
                return view, "p99" in headers
        return self.table(self.layouts()[-1], fold=True), False

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.fitted(console, options)[0]


def leaderboard_table(
    table: list[Standing],
    title: str = "Leaderboard",
    limit: int | None = None,
    sure: Confidence | None = None,
) -> LeaderBoard:
    """The standings; with `sure` (on enough rotation groups to mean anything: `MIN_GROUPS`),
    each bot's rank range and P(rank 1) beside TrueSkill."""
    return LeaderBoard(table[:limit] if limit else table, title, sure)


def _share(bot: BotConfidence) -> str:
    """P(rank 1) as a percentage, with "<1" and ">99" rather than a 0 or 100 it is not."""
    p = 100 * bot.p_first
    if 0 < p < 1:
        return "<1%"
    if 99 < p < 100:
        return ">99%"
    return f"{p:.0f}%"


def standings_table(table: list[Standing], limit: int) -> Table:
    """The live standings: the columns that move during play."""
    rows = [
        (
            str(rank),
            s.name,
            f"{s.conservative:.2f}",
            str(s.games),
            f"{100 * s.win_rate:.1f}",
            str(s.faults),
            f"{s.median_think_ms:.1f}",
        )
        for rank, s in enumerate(table[:limit], start=1)
    ]
    headers = ("#", "bot", "rating", "games", "win%", "faults", "ms")
    view = _figures("Standings (live)", headers, rows)
    if len(table) > limit:
        view.caption = f"and {len(table) - limit} more"
        view.caption_justify = "left"
    return view
