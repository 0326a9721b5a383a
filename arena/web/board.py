"""The leaderboard a page shows once a run has ended: the terminal's, with its confidence.

While games are played the page shows TrueSkill's standings as they move,
as the terminal does. At the end the runner rates every game in schedule
order and makes the batch fit and its bootstrap (`Board`); the page is sent
that board, so that the two screens agree: each bot's rank range and
chance of first place, and how sure the fit is that it is above the bot
under it (the share of bootstrap copies that put it ahead), with the line
the terminal prints under its table.
"""

from __future__ import annotations

from itertools import pairwise

from arena.records import Json
from arena.tournament.report.standings import Board


def board_json(board: Board) -> Json:
    rows = [row.to_json() for row in board.rows()]
    names = [s.name for s in board.table]
    sure = board.sure
    if sure is None:
        return {"standings": rows, "separation": board.separation()}
    for row, (upper, lower) in zip(rows, pairwise(names), strict=False):
        row["p_above_next"] = round(sure.p_ahead(upper, lower), 4)
    return {
        "standings": rows,
        "level": sure.level,
        "groups": sure.groups,
        "separation": board.separation(),
    }
