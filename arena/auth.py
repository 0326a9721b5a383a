"""Who may play under which name: tokens, kept and compared as hashes.

A token is stored only as its SHA-256, and checked with a constant-time
comparison, so neither the store nor the timing of a refusal gives it away.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBook:
    """Names and the hashes of their tokens."""

    def __init__(self, hashes: Mapping[str, str] | None = None) -> None:
        self._hashes: dict[str, str] = dict(hashes or {})

    def issue(self, name: str) -> str:
        """A fresh token for `name` (replacing any earlier one); only its hash is kept."""
        token = new_token()
        self._hashes[name] = token_hash(token)
        return token

    def add_hash(self, name: str, digest: str) -> None:
        self._hashes[name] = digest

    def revoke(self, name: str) -> None:
        self._hashes.pop(name, None)

    def knows(self, name: str) -> bool:
        return name in self._hashes

    def check(self, name: str, token: str) -> bool:
        expected = self._hashes.get(name)
        # Compare even for unknown names, so timing does not tell which names exist.
        actual = token_hash(token)
        return hmac.compare_digest(actual, expected or "0" * 64) and expected is not None

    def names(self) -> list[str]:
        return sorted(self._hashes)
