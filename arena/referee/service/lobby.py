"""The connected sessions, by bot name, and which of them are free for a game.

A session plays one game at a time; a bot that plays several games at once
opens several sessions. A game is played on a free session of each of its bots,
borrowed for it and given back afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter, defaultdict, deque
from collections.abc import Iterable

import grpc

from arena.errors import ArenaError
from arena.referee.service.auth import TokenBook
from arena.referee.session.exits import ExitProbe
from arena.referee.session.session import Session
from arena.text import short_name


class RefusalError(ArenaError):
    """A Hello that the referee will not accept, with the status to close with."""

    def __init__(self, code: grpc.StatusCode, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class Lobby:
    def __init__(self, tokens: TokenBook, max_sessions_per_bot: int = 16) -> None:
        self.tokens = tokens
        self.max_sessions_per_bot = max_sessions_per_bot
        self._sessions: dict[str, list[Session]] = defaultdict(list)
        self._held: Counter[str] = Counter()
        """Places taken by admitted sessions not yet added (their Welcome is on its way)."""
        self._free: dict[str, deque[Session]] = defaultdict(deque)
        self._changed = asyncio.Condition()
        self.crash_probes: dict[str, ExitProbe] = {}
        """Per bot name: how to learn its process's exit status, to tell a crash from a hang-up."""
        self.process_ids: dict[str, int] = {}
        """Per bot name: the process the arena started, whose sessions' CPU time is sampled."""
        self._refused: dict[str, str] = {}
        """Per bot name with no session open since: why the referee closed its last one, when
        it closed it for what the bot sent (a flood of stray messages, one too large)."""

    def admit(self, name: str, token: str) -> None:
        """Hold a place for one more session of `name`, or raise `RefusalError`.

        The place is taken here, in the same step as the check, so that Hellos
        arriving together cannot all pass before any is counted: a session is
        refused before its Welcome or never. The holder either `add`s the
        session or `release`s the place.
        """
        if not self.tokens.knows(name):
            raise RefusalError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"no bot named {short_name(name)} is registered here",
            )
        if not self.tokens.check(name, token):
            raise RefusalError(
                grpc.StatusCode.UNAUTHENTICATED, f"wrong token for bot {short_name(name)}"
            )
        self._check_room(name)
        self._held[name] += 1

    def release(self, name: str) -> None:
        """Give up a place `admit` held, for a session that never joined."""
        self._held[name] -= 1
        if self._held[name] <= 0:
            del self._held[name]

    def _check_room(self, name: str) -> None:
        if len(self._sessions[name]) + self._held[name] >= self.max_sessions_per_bot:
            raise RefusalError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"bot {name!r} already has {self.max_sessions_per_bot} sessions open, the limit",
            )

    async def add(self, session: Session) -> None:
        """Register an admitted session, in the place `admit` held for it."""
        async with self._changed:
            self.release(session.name)
            self._refused.pop(session.name, None)
            self._sessions[session.name].append(session)
            self._free[session.name].append(session)
            self._changed.notify_all()

    def has(self, session: Session) -> bool:
        """Whether `session` was added (and not yet removed)."""
        return session in self._sessions[session.name]

    async def remove(self, session: Session) -> None:
        """Forget a session whose stream ended: at once, before waiting for the lock to say
        so, since a stream's end often comes as a cancellation, and one that lands during
        that wait would otherwise leave a dead session listed, and given games, for good."""
        if session in self._sessions[session.name]:
            self._sessions[session.name].remove(session)
            if session.abort_status is not None:
                self._refused[session.name] = session.abort_status[1]
        if session in self._free[session.name]:
            self._free[session.name].remove(session)
        async with self._changed:
            self._changed.notify_all()

    async def changed(self, timeout: float) -> bool:
        """Wait for any session to come, go, or come free; False on timeout."""
        async with self._changed:
            try:
                async with asyncio.timeout(timeout):
                    await self._changed.wait()
            except TimeoutError:
                return False
            return True

    def connected(self) -> dict[str, int]:
        """Open sessions per bot name."""
        return {name: len(s) for name, s in self._sessions.items() if s}

    def absence(self, name: str) -> str:
        """Why a bot has no session open (asked when it has none), as its seat's fault and the
        log say it: a session the referee closed (for a flood, say) before any game would
        otherwise read as a bot that never came."""
        refused = self._refused.get(name) if not self._sessions[name] else None
        if refused is None:
            return "not connected"
        return f"the referee closed its last session: {refused}"

    def all_sessions(self) -> list[Session]:
        return [s for sessions in self._sessions.values() for s in sessions]

    def idle(self) -> int:
        """Open sessions waiting for a game (the rest are lent to one)."""
        return sum(not s.closed for free in self._free.values() for s in free)

    def round_trips(self) -> dict[str, float]:
        """Per bot name whose link was timed: its round trip in seconds, the least over its
        sessions (a bot's sessions share its link)."""
        found: dict[str, float] = {}
        for session in self.all_sessions():
            seconds = None if session.link is None else session.link.estimate
            if seconds is not None:
                found[session.name] = min(seconds, found.get(session.name, seconds))
        return found

    async def wait_for(self, names: Iterable[str], sessions: int, timeout: float) -> set[str]:
        """Wait until each bot has `sessions` open (or the timeout); return those that do."""
        wanted = set(names)

        def ready() -> set[str]:
            return {n for n in wanted if len(self._sessions[n]) >= sessions}

        async with self._changed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._changed.wait_for(lambda: ready() == wanted)
            return ready()

    async def borrow_table(self, names: Iterable[str]) -> dict[str, Session | None]:
        """One free session of every bot, taken together so two tables never deadlock.

        A bot with no session open at all gets None at once instead of a wait.
        """
        wanted = list(names)

        def ready() -> bool:
            for name in wanted:
                while self._free[name] and self._free[name][0].closed:
                    self._free[name].popleft()
                if self._sessions[name] and not self._free[name]:
                    return False
            return True

        async with self._changed:
            await self._changed.wait_for(ready)
            return {n: self._free[n].popleft() if self._free[n] else None for n in wanted}

    async def give_back(self, session: Session) -> None:
        async with self._changed:
            if not session.closed and session in self._sessions[session.name]:
                self._free[session.name].append(session)
                self._changed.notify_all()
