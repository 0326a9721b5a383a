"""Games into the league store as the folder records them, a short outage waited out.

The folder is the record (games.jsonl is the commit point) and the league its
index, so a store that cannot be reached for a while (a database restarting, a
lock another process holds) need not stop a night: play goes on, each game is
recorded in the folder as ever, and the games the league lacks are owed to it
and given, in order, once it answers again. Each is written under its unique
id with insert-if-absent, so a write whose answer was lost and is made again
doubles nothing. Retries back off, and the wait is bounded (the run's
`store_patience`): past it the run stops as it would have at once, saying
that every game is in the folder and that a resume gives the league the rest.

A fault that does not pass by itself (a full disk, a damaged store, a refused
login) is not waited for: it stops the run at once, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from arena.records import GameLine
from arena.store import LeagueStore, StoreError

DEFAULT_STORE_PATIENCE_S = 60.0
"""Seconds a run waits for a league store that cannot be reached before it stops."""

BUSY_WAIT_S = 0.5
"""Seconds one write of a run waits for an SQLite lock, blocking the run (the referee
included); longer locks are waited for between tries, without blocking."""

FIRST_RETRY_S = 0.25
LONGEST_RETRY_S = 2.0

T = TypeVar("T")


def _waiting(error: StoreError, patience: float) -> str:
    return f"{error}. Waiting up to {patience:g} s for it, trying again"


def _gave_up(error: StoreError, patience: float) -> str:
    return f"the league store was {error.cause.value} for {patience:g} s (last: {error})"


async def patiently(
    call: Callable[[], T],
    patience: float,
    note: Callable[[str], None],
    stopping: asyncio.Event,
) -> T:
    """`call`, tried again with backoff while it fails for a cause that passes, for up to
    `patience` seconds; before play, where nothing is owed yet. A stop ends the wait."""
    since: float | None = None
    delay = FIRST_RETRY_S
    while True:
        try:
            result = call()
        except StoreError as error:
            now = time.monotonic()
            if not error.cause.passing:
                raise
            if since is None:
                since = now
                note(_waiting(error, patience))
            if stopping.is_set():  # asked to stop: the fault as it stands
                raise
            left = since + patience - now
            if left <= 0:
                raise StoreError(_gave_up(error, patience), error.cause) from None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(delay, left)):
                    await stopping.wait()
            delay = min(delay * 2, LONGEST_RETRY_S)
            continue
        if since is not None:
            note(f"the league store answers again, after {time.monotonic() - since:.1f} s")
        return result


class LeagueWriter:
    """One tournament's games into the store, in the order the folder recorded them."""

    def __init__(
        self,
        store: LeagueStore,
        tournament_id: str,
        journal: Path,
        patience: float,
        note: Callable[[str], None],
        fail: Callable[[str, bool], None],
    ) -> None:
        """`fail` is told, once, why the run must stop, and whether it is the outage (the
        bound passed, or a stop while waiting) rather than a fault that does not pass;
        `journal` is the folder's games.jsonl, named in messages."""
        self.store = store
        self.tournament_id = tournament_id
        self.journal = journal
        self.patience = patience
        self._note = note
        self._fail = fail
        self.owed: deque[GameLine] = deque()
        """Games in the folder, not yet in the league, oldest first."""
        self.failed: str | None = None
        self._since = 0.0
        self._task: asyncio.Task[None] | None = None

    def offer(self, line: GameLine) -> None:
        """Record a game the folder holds; a StoreError for a fault that does not pass (the
        run stops, and the game is owed to the league, which a resume pays)."""
        if self.owed or self.failed is not None:
            self.owed.append(line)  # behind the others, or for the resume
            return
        try:
            self.store.add_game(self.tournament_id, line)
        except StoreError as error:
            self.owed.append(line)
            if not error.cause.passing:
                self.failed = str(error)
                raise
            self._since = time.monotonic()
            self._note(
                f"{_waiting(error, self.patience)}; play goes on, every game is recorded in "
                f"{self.journal} and goes into the league once it is back"
            )
            self._task = asyncio.ensure_future(self._catch_up(error))

    async def _catch_up(self, error: StoreError) -> None:
        delay = FIRST_RETRY_S
        paid = 0
        while self.owed:
            left = self._since + self.patience - time.monotonic()
            if left <= 0:
                self._give_up(_gave_up(error, self.patience), outage=True)
                return
            await asyncio.sleep(min(delay, left))
            delay = min(delay * 2, LONGEST_RETRY_S)
            try:
                while self.owed:
                    self.store.add_game(self.tournament_id, self.owed[0])
                    self.owed.popleft()
                    paid += 1
            except StoreError as again:
                if not again.cause.passing:
                    self._give_up(str(again), outage=False)
                    return
                error = again
        self._note(
            f"the league store answers again, after {time.monotonic() - self._since:.1f} s: "
            f"{paid} games waiting for it are in the league"
        )

    def _give_up(self, why: str, outage: bool) -> None:
        self.failed = why
        self._note(f"{why}: stopping")
        self._fail(why, outage)

    async def settled(self) -> None:
        """Once nothing is owed, or the wait is over (the bound, or `abandon`)."""
        if self._task is not None:
            await asyncio.wait([self._task])  # (cancelled or not: never raises)

    def abandon(self) -> None:
        """Stop waiting (a Ctrl-C: a stop is prompt): what is owed stays owed, for the
        resume."""
        if self._task is not None and not self._task.done() and self.failed is None:
            self._task.cancel()
            self.failed = (
                f"stopped while waiting for the league store: {len(self.owed)} games are in "
                f"{self.journal}, not yet in the league"
            )
            self._fail(self.failed, True)
