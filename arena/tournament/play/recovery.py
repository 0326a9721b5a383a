"""`--recover`: a local bot whose process died is started again, a few times a tournament.

Without it, a bot that crashes is out of the night: every later game of its
faults it at once, as it has no session. With it (cutechess's -recover), the
crash is still a fault in the game it was in, and its next game waits while
the bot is started again and connects. Restarts are counted per bot for the
whole tournament (a resume goes on counting, from tournament.json), so a bot
that crashes every game stops being restarted once its restarts are spent.

The restart happens when a game that needs the bot is about to begin, not
when the process ends: a bot is never started again once the run is over.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from arena.bots.run.processes import BotProcess
from arena.referee.service.lobby import Lobby
from arena.referee.session.exits import describe_exit, exit_probe
from arena.referee.session.session import CRASH_WAIT


class Restarter(Protocol):
    """The bots' processes, and how to start one again (the tournament's `Lineup`)."""

    processes: dict[str, BotProcess]

    async def restart(self, name: str) -> str | None: ...


class Recovery:
    def __init__(
        self,
        bots: Restarter,
        lobby: Lobby,
        limit: int,
        note: Callable[[str], None],
        restarts: Mapping[str, int],
    ) -> None:
        self._bots = bots
        self._lobby = lobby
        self.limit = limit
        self._note = note
        self.restarts = dict(restarts)
        """Restarts so far, per bot, from the first of the run's restarts (`restarts`, as
        tournament.json had them): the runner keeps them there, so a resume counts on."""
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._given_up: set[str] = set()

    async def ready(self, names: Iterable[str]) -> None:
        """Start again each of `names` whose process has died, restarts allowing."""
        for name in names:
            if name in self._bots.processes and not self._lobby.connected().get(name):
                async with self._locks[name]:  # one restart, however many games wait for it
                    await self._revive(name)

    async def _revive(self, name: str) -> None:
        if self._lobby.connected().get(name) or name in self._given_up:
            return
        process = self._bots.processes[name]
        # Its sessions end a moment before its process can be reaped.
        status = await exit_probe(process.process)(CRASH_WAIT)
        if status is None:
            return  # alive without a session: it hung up, which no restart mends
        used = self.restarts.get(name, 0)
        how = describe_exit(status)
        if used >= self.limit:
            self._given_up.add(name)
            self._note(
                f"{name}: its process {how}; not restarted, its {self.limit} restarts are "
                "spent: its remaining games are faults"
            )
            return
        self.restarts[name] = used + 1
        self._note(f"{name}: its process {how}; restarting it (restart {used + 1} of {self.limit})")
        failure = await self._bots.restart(name)
        if failure is not None:
            self._note(f"{name}: the restart failed: {failure}; its remaining games are faults")
            self._given_up.add(name)
