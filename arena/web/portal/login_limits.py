"""How often a login to the author's page may fail: per client address, and per address and name.

Each failed login counts against the address it came from, and against that
address with the name it gave. `failures` of them within `window` seconds
lock that address (for every name), or that name from that address, out for
`lockout` seconds; each further lockout of the same one lasts twice as long
as the one before, up to `longest`, until it has been left alone for
`forget` seconds after its last lockout ended. While locked out a login is
refused before its token is looked at: a right token does not lift it, or
the lockout would only slow the guessing, and tell the guesser when a guess
was right.

No lockout is per name alone: failures for a name from anywhere would let a
stranger keep its author out of the page, again and again, from addresses
of his own. A name is locked only at the address that failed for it; and an
address's lockout (its guesses at many names) does not hold back a name that
has logged in from that address before, so a stranger behind the same
address as an author, guessing other names, locks only himself out. A
success clears the failures of its name at its address, not the address's:
a token of one's own must not wipe the count of one's guesses at other
entrants'. What keeps guessing hopeless across many addresses is the
token's 192 random bits, not a lock (the bots' port checks tokens with no
lock at all); docs/threat-model.md gives the bound.

The address is the peer's as the server sees it, an IPv6 one by its /64 (one
machine is commonly given a whole /64): behind a reverse proxy every client
has the proxy's, and one client's guesses lock out those that never logged in
there before. The table is bounded (`most`): past it, the entries neither
locked out nor counting a recent failure are forgotten first, then the oldest;
the names known at each address are bounded as well, the oldest forgotten.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.referee.service.peers import counted_as

FAILURES = 5
WINDOW_S = 60.0
LOCKOUT_S = 60.0
LONGEST_S = 3600.0
FORGET_S = 3600.0
MOST = 10_000
"""Addresses and names remembered at most (failures, and the names each address has logged in
as): a flood of made-up names cannot fill the memory."""
_NAME_CHARS = 200
"""Characters of a name kept as its key: a name sent by anyone may be of any length."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A login refused for now: for how many seconds more, and whose failures it is for."""

    wait: float
    whose: str
    """'this address' or 'this name from this address', for the page."""

    def words(self) -> str:
        """When to try again, as the page says it."""
        seconds = max(1, math.ceil(self.wait))
        if seconds < 120:
            return f"{seconds} seconds"
        return f"{math.ceil(seconds / 60)} minutes"


@dataclass(slots=True)
class _Record:
    """One address's failures, or one name's from one address; mutable, the limiter's own."""

    failures: list[float] = field(default_factory=list)
    """When each failure within the window came (by the limiter's clock)."""
    locked_until: float = 0.0
    lockouts: int = 0


class LoginLimits:
    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        failures: int = FAILURES,
        window: float = WINDOW_S,
        lockout: float = LOCKOUT_S,
        longest: float = LONGEST_S,
        forget: float = FORGET_S,
        most: int = MOST,
    ) -> None:
        self._clock = clock
        self.failures = failures
        self.window = window
        self.lockout = lockout
        self.longest = longest
        self.forget = forget
        self.most = most
        self._records: dict[tuple[str, ...], _Record] = {}
        self._known: dict[tuple[str, str], None] = {}
        """(address, name) that logged in, oldest first."""

    def refusal(self, address: str, name: str) -> Refusal | None:
        """Why a login from `address` for `name` is refused now, if it is."""
        now = self._clock()
        found = None
        where = counted_as(address)
        keys = [(_pair(where, name), "this name from this address")]
        if (where, _name(name)) not in self._known:
            keys.insert(0, (_address(where), "this address"))
        for key, whose in keys:
            record = self._records.get(key)
            if record is not None and now < record.locked_until:
                wait = record.locked_until - now
                if found is None or wait > found.wait:
                    found = Refusal(wait, whose)
        return found

    def failed(self, address: str, name: str) -> None:
        now = self._clock()
        where = counted_as(address)
        for key in (_address(where), _pair(where, name)):
            self._fail(key, now)

    def succeeded(self, address: str, name: str) -> None:
        """Clear the name's failures at the address, whose own stay (see the module's
        docstring); the name is known there from now on."""
        where = counted_as(address)
        self._records.pop(_pair(where, name), None)
        known = (where, _name(name))
        self._known.pop(known, None)
        while len(self._known) >= self.most:
            self._known.pop(next(iter(self._known)))
        self._known[known] = None

    def _fail(self, key: tuple[str, ...], now: float) -> None:
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = self._new(now)
        elif record.lockouts and now >= record.locked_until + self.forget:
            record.lockouts = 0  # left alone long enough: the next lockout is the first again
        record.failures = [t for t in record.failures if now - t < self.window] + [now]
        if len(record.failures) >= self.failures:
            record.lockouts += 1
            length = self.lockout * 2 ** min(record.lockouts - 1, 60)
            record.locked_until = now + min(self.longest, length)
            record.failures = []

    def _new(self, now: float) -> _Record:
        """A fresh record, room made for it first: the records with nothing to hold against
        anyone go first, then the oldest not locked out, then the oldest. A tenth of the
        table is made free at once, so that a flood does not look through it every time."""
        if len(self._records) >= self.most:
            room = self.most - max(1, self.most // 10)
            records = self._records.items()
            free = [key for key, record in records if now >= record.locked_until]
            idle = [key for key in free if self._idle(self._records[key], now)]
            for key in [*idle, *free, *list(self._records)]:
                if len(self._records) <= room:
                    break
                self._records.pop(key, None)
        return _Record()

    def _idle(self, record: _Record, now: float) -> bool:
        return not record.lockouts and all(now - t >= self.window for t in record.failures)


def _address(where: str) -> tuple[str, ...]:
    return ("address", where)


def _pair(where: str, name: str) -> tuple[str, ...]:
    return ("pair", where, _name(name))


def _name(name: str) -> str:
    return name[:_NAME_CHARS]
