"""The ladder: games played all the time among the league's entrants, each table chosen where
the ranking is least sure, every entrant given a fair share.

Pure: no store, no server, no grpc. The server hands `choose` the entrants available (their
rating, TrueSkill's or the batch fit's, and their games on record), the organiser's `Rules`
and the table's `Draw`, keyed by a secret of its own, and plays the `Table` it gets in every
rotation.
"""

from arena.matchmaking.draw import Draw
from arena.matchmaking.field import (
    FLOOR,
    FRESH,
    PLACEMENT_GAMES,
    Entrant,
    LadderError,
    Rating,
    Rules,
    from_fit,
    starting_rating,
    tables_of,
)
from arena.matchmaking.table import Reason, Table, choose

__all__ = [
    "FLOOR",
    "FRESH",
    "PLACEMENT_GAMES",
    "Draw",
    "Entrant",
    "LadderError",
    "Rating",
    "Reason",
    "Rules",
    "Table",
    "choose",
    "from_fit",
    "starting_rating",
    "tables_of",
]
