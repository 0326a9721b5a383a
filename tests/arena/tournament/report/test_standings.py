"""The separation line under the leaderboard: it never reads against the table's order. The
table is TrueSkill's; where the batch fit's copies put the lower one ahead, the line says
they disagree rather than leave "A / B 42%" under A above B."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from arena.tournament.report.standings import Board


class Sure:
    """The batch fit's confidence, as the board reads it: these shares, none separated."""

    enough = True
    groups = 40

    def __init__(self, shares: dict[tuple[str, str], float]) -> None:
        self._shares = shares

    def unseparated(self, names: list[str], level: float) -> list[tuple[str, str]]:
        return list(self._shares)

    def p_ahead(self, upper: str, lower: str) -> float:
        return self._shares[(upper, lower)]


def board(shares: dict[tuple[str, str], float]) -> Board:
    table = [SimpleNamespace(name=n) for n in ("alpha", "beta", "gamma", "delta")]
    return Board(cast(Any, table), cast(Any, Sure(shares)), [])


def test_a_pair_the_batch_fit_orders_the_other_way_is_said_to_disagree() -> None:
    line = board(
        {("alpha", "beta"): 0.42, ("beta", "gamma"): 0.8, ("gamma", "delta"): 0.5}
    ).separation()
    assert line.startswith("Not yet separated at 95% (of each pair, the upper one in TrueSkill's")
    assert (
        "alpha / beta 42% (the batch fit puts beta ahead: it and TrueSkill disagree here)" in line
    )
    assert "beta / gamma 80%," in line and "80% (" not in line
    assert "gamma / delta 50% (a coin toss to the batch fit)" in line
