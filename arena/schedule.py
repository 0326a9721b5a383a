"""Which games a tournament plays, in what order.

A *table* is a set of bots in a seating order; its *rotation group* is the
table played once with every seat rotation, all on the same dice (duplicate
deals), so each bot meets the same luck from each seat. A *unit* is a set of
tables in which every bot sits equally often: every table of the chosen size
when that is small enough, else a balanced sample (consecutive windows of a
random cyclic order, which puts each bot at exactly `size` tables). Each unit
seats its tables afresh, so over a night every bot also sits after every
other. The schedule is whole units until at least the requested number of
games, each unit shuffled on its own, so that whenever the night stops the
finished units are fair and the unfinished one is a random slice.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

MAX_FULL_TABLES = 400
"""A unit uses every table when there are at most this many, else a sample."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    index: int
    game_id: str
    players: tuple[str, ...]
    """Bot names by seat."""
    deal_key: str
    """Games of one rotation group share it, and so their dice."""


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


def build(entrants: Sequence[str], size: int, games: int, seed: bytes) -> list[ScheduledGame]:
    """Whole units, each a shuffle of its rotation groups, until at least `games` games."""
    if len(set(entrants)) != len(entrants):
        raise ValueError("entrant names must be unique")
    if not 2 <= size <= len(entrants):
        raise ValueError(f"a table seats 2..{len(entrants)} bots here, not {size}")
    rng = random.Random(hmac.digest(seed, b"perudo-arena/schedule/v1", hashlib.sha256))
    schedule: list[ScheduledGame] = []
    unit = 0
    while unit == 0 or len(schedule) < games:
        unit_games = [
            (f"u{unit:03d}-t{t:03d}-r{r}", table[r:] + table[:r], f"u{unit}-t{t}")
            for t, table in enumerate(unit_tables(entrants, size, rng))
            for r in range(size)
        ]
        rng.shuffle(unit_games)
        first = len(schedule)  # not len() inside the generator: extend() grows the list as it goes
        schedule.extend(
            ScheduledGame(first + i, game_id, players, key)
            for i, (game_id, players, key) in enumerate(unit_games)
        )
        unit += 1
    return schedule


def unit_size(entrants: int, size: int) -> int:
    """Games in one unit: its tables (as `unit_tables` picks them), each in every rotation."""
    tables = comb(entrants, size) if comb(entrants, size) <= MAX_FULL_TABLES else entrants
    return tables * size


def planned_games(entrants: int, size: int, games: int) -> int:
    """How many games `build` schedules: `games` rounded up to whole units (at least one)."""
    unit = unit_size(entrants, size)
    return max(1, -(-games // unit)) * unit


def explain(entrants: int, size: int, games: int) -> str:
    """Why the schedule has the size it has, in one line for the organiser."""
    unit = unit_size(entrants, size)
    total = planned_games(entrants, size, games)
    if comb(entrants, size) <= MAX_FULL_TABLES:
        what = "one round of every table in every rotation"
    else:
        what = f"one round of a balanced sample of {entrants:,} tables, each in every rotation,"
    head = f"{entrants:,} bots, tables of {size}: {what} is {unit:,} games"
    if total == games:
        return f"{head}; --games {games:,} is {total // unit:,} whole round(s)"
    return f"{head}; --games {games:,} rounds up to {total:,}"
