"""Which games a tournament plays, in what order, on which dice.

A *table* is a set of bots in a seating order; its *rotation group* is the
table played once with every seat rotation, so each bot sits in every seat. A
*unit* is a set of tables in which every bot sits equally often: every table
of the chosen size when that is small enough, else a balanced sample
(consecutive windows of a random cyclic order, which puts each bot at exactly
`size` tables). Each unit seats its tables afresh, so over a night every bot
also sits after every other. The schedule is whole units until at least the
requested number of games, each unit shuffled on its own, so that whenever the
night stops the finished units are fair and the unfinished one is a random
slice.

A gauntlet tests one bot against the field: every table seats it, and the
rest of each table is a unit of the others at one seat fewer, so every other
bot still sits at equally many tables, in every seat, after every neighbour.

Dice: every hand is shown when its round ends, so a bot that meets a deal
twice knows its opponents' dice the second time. No bot ever may: by default
each game has dice of its own (keyed by its id); with `Deals.DISJOINT` one
deal is played at several tables of a unit that share no bot (duplicate deals
for less luck in the standings, with nobody at two of them).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

from arena.errors import ArenaError

MAX_FULL_TABLES = 400
"""A unit uses every table when there are at most this many, else a sample."""


class Deals(enum.Enum):
    """Which games share their dice."""

    OWN = "own"
    """Every game is dealt on its own."""
    DISJOINT = "disjoint"
    """Tables of a unit with no bot in common play the same deal."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    index: int
    game_id: str
    players: tuple[str, ...]
    """Bot names by seat."""
    deal_key: str
    """Games sharing it share their dice: never two with a bot in common."""


def unit_tables(entrants: Sequence[str], size: int, rng: random.Random) -> list[tuple[str, ...]]:
    """The tables of one unit: every bot sits at the same number of them."""
    names = sorted(entrants)
    n = len(names)
    if comb(n, size) <= MAX_FULL_TABLES:
        tables = list(combinations(names, size))
    else:
        order = names[:]
        rng.shuffle(order)
        tables = [tuple(order[(i + j) % n] for j in range(size)) for i in range(n)]
    # Rotations give every bot every seat, but keep who sits after whom; a fresh
    # seating per unit gives every bot every neighbour over the night.
    return [tuple(rng.sample(table, size)) for table in tables]


def gauntlet_tables(
    entrants: Sequence[str], bot: str, size: int, rng: random.Random
) -> list[tuple[str, ...]]:
    """The tables of one gauntlet unit: `bot` at every one, the others as in `unit_tables`."""
    others = [name for name in entrants if name != bot]
    return [tuple(rng.sample((bot, *table), size)) for table in unit_tables(others, size - 1, rng)]


def disjoint_groups(tables: Sequence[tuple[str, ...]], rng: random.Random) -> list[int]:
    """A group number per table, tables of a group having no bot in common.

    Greedy over a random order: each table joins the first group it shares no
    bot with. A table may end alone; its deal is then simply its own.
    """
    seated: list[set[str]] = []
    group_of = [0] * len(tables)
    order = list(range(len(tables)))
    rng.shuffle(order)
    for t in order:
        bots = set(tables[t])
        for g, taken in enumerate(seated):
            if not taken & bots:
                taken.update(bots)
                group_of[t] = g
                break
        else:
            group_of[t] = len(seated)
            seated.append(bots)
    return group_of


class ScheduleError(ArenaError, ValueError):
    """Entrants, table size and deal mode that make no schedule; the message says which."""


def check_deals(deals: Deals, entrants: int, size: int, gauntlet: str | None = None) -> None:
    """Refuse a deal mode the field cannot play: disjoint tables need two tables' worth."""
    if deals is Deals.DISJOINT and gauntlet is not None:
        raise ScheduleError(
            f"--deals disjoint needs tables that share no bot, and a gauntlet seats "
            f"{gauntlet} at every table; use --deals own with --gauntlet"
        )
    if deals is Deals.DISJOINT and entrants < 2 * size:
        raise ScheduleError(
            f"--deals disjoint needs at least two tables that share no bot: "
            f"{2 * size} entrants at tables of {size}, not {entrants}; "
            f"use --deals own, or smaller tables"
        )


def build(
    entrants: Sequence[str],
    size: int,
    games: int,
    seed: bytes,
    deals: Deals = Deals.OWN,
    gauntlet: str | None = None,
) -> list[ScheduledGame]:
    """Whole units, each a shuffle of its rotation groups, until at least `games` games.

    With a `gauntlet` bot, every table seats it (see `gauntlet_tables`).
    """
    if len(set(entrants)) != len(entrants):
        raise ScheduleError("entrant names must be unique")
    if not 2 <= size <= len(entrants):
        raise ScheduleError(f"a table seats 2..{len(entrants)} bots here, not {size}")
    if gauntlet is not None and gauntlet not in entrants:
        raise ScheduleError(f"the gauntlet's bot {gauntlet} is not among the entrants")
    check_deals(deals, len(entrants), size, gauntlet)
    rng = random.Random(hmac.digest(seed, b"perudo-arena/schedule/v1", hashlib.sha256))
    # Its own generator, so that both modes play the same games in the same order.
    grouping = random.Random(hmac.digest(seed, b"perudo-arena/deals/v1", hashlib.sha256))
    schedule: list[ScheduledGame] = []
    unit = 0
    while unit == 0 or len(schedule) < games:
        if gauntlet is None:
            tables = unit_tables(entrants, size, rng)
        else:
            tables = gauntlet_tables(entrants, gauntlet, size, rng)
        groups = disjoint_groups(tables, grouping) if deals is Deals.DISJOINT else []
        unit_games = []
        for t, table in enumerate(tables):
            for r in range(size):
                game_id = f"u{unit:03d}-t{t:03d}-r{r}"
                key = f"u{unit:03d}-d{groups[t]:03d}-r{r}" if groups else game_id
                unit_games.append((game_id, table[r:] + table[:r], key))
        rng.shuffle(unit_games)
        first = len(schedule)  # not len() inside the generator: extend() grows the list as it goes
        schedule.extend(
            ScheduledGame(first + i, game_id, players, key)
            for i, (game_id, players, key) in enumerate(unit_games)
        )
        unit += 1
    return schedule


def _unit_tables(entrants: int, size: int, gauntlet: bool) -> tuple[int, bool]:
    """How many tables a unit has, and whether they are every table (not a sample)."""
    if gauntlet:  # the others, at one seat fewer
        entrants, size = entrants - 1, size - 1
    every = comb(entrants, size) <= MAX_FULL_TABLES
    return (comb(entrants, size) if every else entrants), every


def unit_size(entrants: int, size: int, gauntlet: bool = False) -> int:
    """Games in one unit: its tables (as `build` picks them), each in every rotation."""
    return _unit_tables(entrants, size, gauntlet)[0] * size


def planned_games(entrants: int, size: int, games: int, gauntlet: bool = False) -> int:
    """How many games `build` schedules: `games` rounded up to whole units (at least one)."""
    unit = unit_size(entrants, size, gauntlet)
    return max(1, -(-games // unit)) * unit


def explain(entrants: int, size: int, games: int, gauntlet: str | None = None) -> str:
    """Why the schedule has the size it has, in one line for the organiser."""
    unit = unit_size(entrants, size, gauntlet is not None)
    total = planned_games(entrants, size, games, gauntlet is not None)
    tables, every = _unit_tables(entrants, size, gauntlet is not None)
    if every:
        what = "one round of every table in every rotation"
    else:
        what = f"one round of a balanced sample of {tables:,} tables, each in every rotation,"
    if gauntlet is not None:
        what += f" (the gauntlet: {gauntlet} at every table)"
    head = f"{entrants:,} bots, tables of {size}: {what} is {unit:,} games"
    if total == games:
        return f"{head}; --games {games:,} is {total // unit:,} whole round(s)"
    return f"{head}; --games {games:,} rounds up to {total:,}"
