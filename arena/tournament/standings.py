"""The leaderboard with its confidence: TrueSkill's order, and how sure the batch fit is of it.

TrueSkill stays the rating the table is sorted by. Beside it each bot gets
the batch fit's rank range and chance of first place, and the board says
which neighbours on it the bootstrap cannot yet tell apart: those where fewer
than LEVEL of the copies put the upper bot ahead of the lower.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.rankings import LEVEL, Confidence, Pairing, confidence, cross_table, finishes
from arena.records import GameLine, LeaderboardRow
from arena.tournament.ratings import Standing, rate_all, result_of


@dataclass(frozen=True, slots=True)
class Board:
    table: list[Standing]
    """Best first, by TrueSkill."""
    sure: Confidence
    cross: list[Pairing]

    def rows(self) -> list[LeaderboardRow]:
        return [s.row(rank, self.sure.bot(s.name)) for rank, s in enumerate(self.table, start=1)]

    def unseparated(self, level: float = LEVEL) -> list[tuple[str, str]]:
        return self.sure.unseparated([s.name for s in self.table], level)

    def separation(self, level: float = LEVEL) -> str:
        """One line for under the table: the neighbours not yet told apart, if any."""
        pairs = self.unseparated(level)
        if len(self.table) < 2:
            return ""
        if not pairs:
            return f"Every adjacent pair is separated at {level:.0%}."
        told = ", ".join(f"{a} / {b} {self.sure.p_ahead(a, b):.0%}" for a, b in pairs)
        return (
            f"Not yet separated at {level:.0%} (the share of bootstrap copies putting the "
            f"upper one ahead): {told}"
        )


def board(lines: Sequence[tuple[str, GameLine]], names: Iterable[str] = (), seed: int = 0) -> Board:
    """The board of these (tournament, game) lines, rated by TrueSkill in the order given."""
    table = rate_all([result_of(line) for _, line in lines], names).table()
    order = [s.name for s in table]
    games = finishes(lines)
    sure = confidence(games, order, seed=seed)
    return Board(table, sure, cross_table(order, (g.order for g in games)))
