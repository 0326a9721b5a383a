"""Rankings you can trust: a batch Plackett-Luce fit, its bootstrap, the cross-table.

Pure: numpy, scipy and choix, no grpc, no rich. TrueSkill stays the league's
rating; these say how sure its order is (see `bootstrap`), and how often each
bot finished ahead of each other (`cross`).
"""

from arena.rankings.bootstrap import (
    LEVEL,
    MIN_GROUPS,
    RESAMPLES,
    BotConfidence,
    Confidence,
    confidence,
)
from arena.rankings.cross import Pairing, cross_table, wilson
from arena.rankings.fit import RankingError
from arena.rankings.groups import Finish, finishes, group_keys

__all__ = [
    "LEVEL",
    "MIN_GROUPS",
    "RESAMPLES",
    "BotConfidence",
    "Confidence",
    "Finish",
    "Pairing",
    "RankingError",
    "confidence",
    "cross_table",
    "finishes",
    "group_keys",
    "wilson",
]
