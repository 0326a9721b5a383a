"""Login sessions of the author's page: kept in the server's memory, named by a random id.

The browser holds only the session's id, in a cookie it sends back but no
script can read (HttpOnly) and no other site's page can make it send
(SameSite=Strict). The token an author logs in with is checked and
forgotten: a session keeps the hash the entrant had then, and a request
whose entrant's token has since been revoked or replaced finds its session
ended. Each session has its own CSRF token, which every form that changes
something (an upload, the logout) must carry back.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

COOKIE = "arena_author"
LIFETIME_S = 8 * 3600.0
"""How long a login lasts, from the moment it was made."""
MAX_SESSIONS = 10_000
"""Sessions kept at most; the oldest give way (a flood of logins cannot fill the memory)."""


@dataclass(frozen=True, slots=True)
class Session:
    name: str
    token_hash: str
    """The entrant's token's hash at login: a new token or a revocation ends the session."""
    csrf: str
    expires: float


class Sessions:
    def __init__(
        self,
        entrants: Callable[[], Mapping[str, str]],
        clock: Callable[[], float] = time.monotonic,
        lifetime: float = LIFETIME_S,
    ) -> None:
        """`entrants`: names and their tokens' hashes, read afresh at every request."""
        self._entrants = entrants
        self._clock = clock
        self.lifetime = lifetime
        self._open: dict[str, Session] = {}

    def open(self, name: str, token_hash: str) -> str:
        """A new session for an entrant whose token was just checked; its id."""
        self._sweep()
        while len(self._open) >= MAX_SESSIONS:
            self._open.pop(next(iter(self._open)))
        sid = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        self._open[sid] = Session(name, token_hash, csrf, self._clock() + self.lifetime)
        return sid

    def get(self, sid: str | None) -> Session | None:
        """The live session of this id, if any: not expired, its entrant's token unchanged."""
        if not sid:
            return None
        session = self._open.get(sid)
        if session is None:
            return None
        current = self._entrants().get(session.name)
        if self._clock() >= session.expires or current != session.token_hash:
            self._open.pop(sid, None)
            return None
        return session

    def close(self, sid: str) -> None:
        self._open.pop(sid, None)

    def _sweep(self) -> None:
        now = self._clock()
        for sid in [s for s, session in self._open.items() if now >= session.expires]:
            del self._open[sid]


def csrf_ok(session: Session, sent: str | None) -> bool:
    return hmac.compare_digest(session.csrf.encode(), (sent or "").encode())
