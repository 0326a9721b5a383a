"""The leaderboard with its confidence: TrueSkill's order, and how sure the batch fit is of it.

TrueSkill stays the rating the table is sorted by. Beside it each bot gets
the batch fit's rank range and chance of first place, and the board says
which neighbours on it the bootstrap cannot yet tell apart: those where fewer
than LEVEL of the copies put the upper bot ahead of the lower. Below
MIN_GROUPS rotation groups it says none of it, only why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from arena.rankings import (
    LEVEL,
    MIN_GROUPS,
    Confidence,
    Finish,
    Pairing,
    confidence,
    cross_table,
    finishes,
)
from arena.rankings.background import reckon
from arena.records import GameLine, LeaderboardRow
from arena.tournament.report.ratings import Standing, rate_all, result_of


@dataclass(frozen=True, slots=True)
class Board:
    table: list[Standing]
    """Best first, by TrueSkill."""
    sure: Confidence | None
    """None when the bootstrap was given up (a stop, or a field too large for its budget)."""
    cross: list[Pairing]
    why_unsure: str = ""
    """Why `sure` is None, in words for under the table."""

    def rows(self) -> list[LeaderboardRow]:
        sure = self.sure
        return [
            s.row(rank, sure.bot(s.name) if sure else None)
            for rank, s in enumerate(self.table, start=1)
        ]

    def unseparated(self, level: float = LEVEL) -> list[tuple[str, str]]:
        """The neighbours not told apart: every pair of them when there is no confidence."""
        names = [s.name for s in self.table]
        if self.sure is None:
            return list(pairwise(names))
        return self.sure.unseparated(names, level)

    def separation(self, level: float = LEVEL) -> str:
        """One line for under the table: the neighbours not yet told apart, if any."""
        if len(self.table) < 2:
            return ""
        if self.sure is None:
            return f"The batch fit's confidence was {self.why_unsure}."
        if not self.sure.enough:
            groups = self.sure.groups
            return (
                f"No rank range, P(rank 1) nor separation yet: {groups} rotation "
                f"group{'' if groups == 1 else 's'} played, fewer than the {MIN_GROUPS} "
                "a bootstrap needs to mean anything; play more games."
            )
        pairs = self.unseparated(level)
        if not pairs:
            return f"Every adjacent pair is separated at {level:.0%}."
        told = ", ".join(self._pair(a, b) for a, b in pairs)
        return (
            f"Not yet separated at {level:.0%} (of each pair, the upper one in TrueSkill's "
            f"order above, the share of the batch fit's bootstrap copies putting it ahead): "
            f"{told}"
        )

    def _pair(self, upper: str, lower: str) -> str:
        """`upper / lower 80%`; where the copies put the lower one ahead more often, said so:
        the table's order is TrueSkill's, and there the batch fit's disagrees with it."""
        assert self.sure is not None
        share = round(100 * self.sure.p_ahead(upper, lower))
        said = f"{upper} / {lower} {share}%"
        if share < 50:
            return f"{said} (the batch fit puts {lower} ahead: it and TrueSkill disagree here)"
        if share == 50:
            return f"{said} (a coin toss to the batch fit)"
        return said


def board(lines: Sequence[tuple[str, GameLine]], names: Iterable[str] = (), seed: int = 0) -> Board:
    """The board of these (tournament, game) lines, rated by TrueSkill in the order given."""
    table, order, games = _rated(lines, names)
    sure = confidence(games, order, seed=seed)
    return Board(table, sure, cross_table(order, (g.order for g in games)))


async def board_away(
    lines: Sequence[tuple[str, GameLine]], names: Iterable[str], give_up: asyncio.Event
) -> Board:
    """`board`, its bootstrap away from the event loop and given up when `give_up` is set:
    a run's end must not hold a Ctrl-C for as long as a large field's bootstrap takes."""
    table, order, games = _rated(lines, names)
    reckoned = await reckon(games, order, 0, give_up)
    cross = cross_table(order, (g.order for g in games))
    return Board(table, reckoned.sure, cross, reckoned.why_not)


def _rated(
    lines: Sequence[tuple[str, GameLine]], names: Iterable[str]
) -> tuple[list[Standing], list[str], list[Finish]]:
    """TrueSkill's table, its order by name, and the games as the batch fit takes them."""
    table = rate_all([result_of(line) for _, line in lines], names).table()
    return table, [s.name for s in table], finishes(lines)
