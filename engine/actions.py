"""Actions as small immutable values, and their one text form.

The text form (`bid 3 4`, `dudo`, `calza`) is what the conformance cases and
the replays use. `parse_action` raises `MalformedActionError` for text that is
not an action; whether an action is *legal* is the game's business, not this
module's, so `Bid(9, 7)` is a value that the game will refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import MalformedActionError

PACO = 1
"""The face of a paco (an ace): wild in ordinary rounds, so it has rules of its own."""
FACES = (1, 2, 3, 4, 5, 6)
"""The faces in order: per-face tuples (floors, counts) are indexed by `face - 1`."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A claim of at least `count` dice counting as `face` on the table.

    Not ordered: which bid raises which is the game's to say (`engine.bidding`), and it
    depends on the ruleset and the round (pacos, palifico), so no order of the values
    alone could agree with it.
    """

    count: int
    face: int

    def __str__(self) -> str:
        return f"bid {self.count} {self.face}"


@dataclass(frozen=True, slots=True)
class Dudo:
    """A challenge to the standing bid."""

    def __str__(self) -> str:
        return "dudo"


@dataclass(frozen=True, slots=True)
class Calza:
    """A claim that the standing bid is exactly right."""

    def __str__(self) -> str:
        return "calza"


Action = Bid | Dudo | Calza
"""What a player may do on the table; a `match` on it covers every case."""

DUDO = Dudo()
"""The one dudo: the value has no fields, so one instance serves every caller."""
CALZA = Calza()
"""The one calza, shared for the same reason as `DUDO`."""


def parse_action(text: str) -> Action:
    """Parse `bid C F`, `dudo` or `calza` (case and spacing are forgiven)."""
    if not isinstance(text, str):
        raise MalformedActionError(f"an action is text, got {text!r}")
    words = text.split()
    match [w.lower() for w in words]:
        case ["dudo"]:
            return DUDO
        case ["calza"]:
            return CALZA
        case ["bid", count, face]:
            try:
                return Bid(int(count), int(face))
            except ValueError:
                raise MalformedActionError(f"a bid needs two whole numbers, got {text!r}") from None
    raise MalformedActionError(f"not an action: {text!r} (expected 'bid C F', 'dudo' or 'calza')")
