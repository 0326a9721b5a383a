"""The matchmaker's randomness: keyed by a secret of the server's, one draw per table.

A bot that could predict the draw could predict its opponents, and one that
could steer it could choose them. So the draw for the table numbered `counter`
is HMAC-SHA256(secret, domain, counter), as the arena's dice and schedules are
keyed by the night's secret seed: the same secret and counter always give the
same table (a server restarted on its record chooses as it would have), a
different secret a different sequence, and without the secret no table can be
foretold, even knowing every earlier one.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass, field

from arena.matchmaking.field import LadderError

DOMAIN = b"perudo-arena/ladder/v1"
MIN_SECRET_BYTES = 16
"""As a dice seed's: 128 bits no one guesses."""


@dataclass(frozen=True, slots=True)
class Draw:
    """The random source of the table numbered `counter`."""

    secret: bytes = field(repr=False)
    counter: int

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_SECRET_BYTES:
            raise LadderError(
                f"the ladder's secret needs at least {MIN_SECRET_BYTES} bytes, "
                f"not {len(self.secret)}"
            )
        if not 0 <= self.counter < 1 << 64:
            raise LadderError(f"a table's number is from 0 to 2**64 - 1, not {self.counter}")

    def random(self) -> random.Random:
        message = DOMAIN + self.counter.to_bytes(8, "big")
        return random.Random(hmac.digest(self.secret, message, hashlib.sha256))
