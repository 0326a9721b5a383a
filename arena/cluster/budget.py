"""A host's bot budget: which bots run, least recently used first, and which to stop.

A league of hundreds of entrants cannot keep every bot running on every host.
A host starts a bot when a game it is handed needs it and, past its budget,
stops the bot that has gone longest unused (and is in no game now). A game takes
its bots together, so two games never each hold half of what the other needs.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.errors import ArenaError


class BudgetError(ArenaError, ValueError):
    """A bot budget that cannot seat a table: the organiser's flags are wrong."""


@dataclass(frozen=True, slots=True)
class Turnover:
    """What a game needs done before it can begin: bots to start, and bots to stop first."""

    start: tuple[str, ...]
    stop: tuple[str, ...]


class BotBudget:
    def __init__(self, limit: int | None, table_size: int) -> None:
        """At most `limit` bots at once (None: no limit); a table of `table_size` must fit."""
        if limit is not None and limit < table_size:
            raise BudgetError(
                f"--max-bots-per-host {limit} cannot seat a table of {table_size}: "
                f"give at least {table_size}"
            )
        self.limit = limit
        self._running: OrderedDict[str, int] = OrderedDict()
        """The bots running, least recently used first, with the games each is in now."""

    @property
    def running(self) -> tuple[str, ...]:
        return tuple(self._running)

    def take(self, names: Iterable[str]) -> Turnover | None:
        """Take the bots of a game, or None if they cannot all run yet (wait for a game
        to end and `give_back`). The bots to stop are gone from the budget at once, the
        bots to start are in it: the caller starts and stops them before the game."""
        wanted = list(dict.fromkeys(names))
        if self.limit is not None and len(wanted) > self.limit:
            raise BudgetError(
                f"--max-bots-per-host {self.limit} cannot seat a table of {len(wanted)}: "
                f"give at least {len(wanted)}"
            )
        start = [n for n in wanted if n not in self._running]
        over = 0 if self.limit is None else len(self._running) + len(start) - self.limit
        idle = [n for n, games in self._running.items() if games == 0 and n not in wanted]
        if over > len(idle):
            return None
        stop = idle[: max(over, 0)]
        for name in stop:
            del self._running[name]
        for name in wanted:
            self._running[name] = self._running.get(name, 0) + 1
            self._running.move_to_end(name)
        return Turnover(tuple(start), tuple(stop))

    def give_back(self, names: Iterable[str]) -> None:
        """The game of these bots is over: they may be stopped for another's."""
        for name in dict.fromkeys(names):
            self._running[name] -= 1
