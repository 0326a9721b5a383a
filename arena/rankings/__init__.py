"""Rankings you can trust: a batch Plackett-Luce fit, its bootstrap, the cross-table.

Pure: numpy, scipy and choix, no grpc, no rich. TrueSkill stays the league's
rating; these say how sure its order is (see `bootstrap`), and how often each
bot finished ahead of each other (`cross`).

Each name is loaded from its module when it is first used (PEP 562): numpy and
scipy take most of a second to import, and a command that shows no ranking
(`arena --help`, `arena replay`) should not pay for them. `LEVEL` lives in
`arena.rankings.level`, which imports nothing, for the options that name it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena.rankings.level import LEVEL

if TYPE_CHECKING:
    from arena.rankings.bootstrap import (
        MIN_GROUPS,
        RESAMPLES,
        BotConfidence,
        Confidence,
        confidence,
    )
    from arena.rankings.cross import Pairing, cross_table, wilson
    from arena.rankings.fit import RankingError
    from arena.rankings.groups import Finish, finishes, group_keys

_WHERE = {
    "MIN_GROUPS": "bootstrap",
    "RESAMPLES": "bootstrap",
    "BotConfidence": "bootstrap",
    "Confidence": "bootstrap",
    "confidence": "bootstrap",
    "Pairing": "cross",
    "cross_table": "cross",
    "wilson": "cross",
    "RankingError": "fit",
    "Finish": "groups",
    "finishes": "groups",
    "group_keys": "groups",
}

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


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.rankings' has no attribute {name!r}")
    return getattr(importlib.import_module(f"arena.rankings.{module}"), name)
