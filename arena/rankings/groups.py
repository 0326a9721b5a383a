"""Which games are correlated, and so resampled together: a game's rotation group.

The schedule plays each table in every seat rotation (game ids
`uUUU-tTTT-rR`: unit, table, rotation), and the rotations of a table are one
group: the same bots, each in every seat, so they rise and fall together. With
`--deals disjoint` the tables sharing a deal (keys `uUUU-dDDD-rR`) are linked
by their dice too, so every table of such a deal joins one group. A game
whose id follows no such pattern (written by hand, say) is a group alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from arena.records import GameLine

_TABLE = re.compile(r"^(u\d+-t\d+)-r\d+$")
_DEAL = re.compile(r"^(u\d+-d\d+)-r\d+$")


@dataclass(frozen=True, slots=True)
class Finish:
    """A game as the rankings need it: its resampling group and its finishing order."""

    group: str
    order: tuple[str, ...]
    """Bot names, winner first."""


def finishes(lines: Iterable[tuple[str, GameLine]]) -> list[Finish]:
    """Each (tournament, game line) as a Finish, its group named within its tournament."""
    items = list(lines)
    keys = group_keys((tournament, line.game, line.deal_key) for tournament, line in items)
    return [Finish(key, line.ranking) for key, (_, line) in zip(keys, items, strict=True)]


def group_keys(games: Iterable[tuple[str, str, str | None]]) -> list[str]:
    """The group of each (tournament, game id, deal key): games of one group share a key."""
    items = list(games)
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    own: list[str] = []
    for tournament, game, deal_key in items:
        table = _TABLE.match(game)
        key = f"{tournament}/{table.group(1) if table else game}"
        own.append(key)
        deal = _DEAL.match(deal_key or "")
        if deal:
            parent[root(key)] = root(f"{tournament}/{deal.group(1)}")
    return [root(key) for key in own]
