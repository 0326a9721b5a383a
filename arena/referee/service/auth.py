"""Who may play under which name: tokens, kept and compared as hashes.

A token is stored only as its SHA-256, and checked with a constant-time
comparison, so neither the store nor the timing of a refusal gives it away.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBook:
    """Names and the hashes of their tokens.

    Tokens issued here live as long as the book (a tournament's local bots);
    a `registry` adds names kept elsewhere (a league's entrants), read afresh
    at every check so that a token added or revoked there counts at once.
    """

    def __init__(
        self,
        hashes: Mapping[str, str] | None = None,
        registry: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self._hashes: dict[str, str] = dict(hashes or {})
        self._registry = registry

    def _lookup(self, name: str) -> str | None:
        if name in self._hashes:
            return self._hashes[name]
        return self._registry().get(name) if self._registry is not None else None

    def issue(self, name: str) -> str:
        """A fresh token for `name` (replacing any earlier one); only its hash is kept."""
        token = new_token()
        self._hashes[name] = token_hash(token)
        return token

    def revoke(self, name: str) -> None:
        self._hashes.pop(name, None)

    def current(self, name: str) -> str | None:
        """The hash of `name`'s token now, or None when the name is not registered."""
        return self._lookup(name)

    def knows(self, name: str) -> bool:
        return self._lookup(name) is not None

    def check(self, name: str, token: str) -> bool:
        expected = self._lookup(name)
        # Compare even for unknown names, so timing does not tell which names exist.
        actual = token_hash(token)
        return hmac.compare_digest(actual, expected or "0" * 64) and expected is not None
