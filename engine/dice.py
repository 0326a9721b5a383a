"""Where dice come from: a source handed to the game, never a global RNG.

`HmacDice` is the arena's source. Each die is HMAC-SHA256(seed, game, round,
seat, die index), turned into a face by rejection sampling, so that:
- a tournament replays exactly from its seed;
- without the seed no deal can be predicted, even knowing all earlier ones;
- publishing the seed's SHA-256 up front commits the organiser to it, and
  publishing the seed afterwards lets anyone check every deal.
Seats of one game share the key `game`; rotations of a table pass the same key
so that they play duplicate deals.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from typing import Protocol

from engine.errors import PerudoError
from engine.state import GameState

_DOMAIN = b"perudo-arena/dice/v1"
_ACCEPT_BELOW = 252  # 252 = 42 * 6: bytes at or above it would bias faces.


class DiceSource(Protocol):
    """Gives the face of one die, addressed by round, seat and index."""

    def face(self, round: int, seat: int, index: int) -> int: ...


class HmacDice:
    """Dice derived from a secret seed; see the module docstring for why."""

    __slots__ = ("_game", "_seed")

    def __init__(self, seed: bytes, game: str) -> None:
        if len(seed) < 16:
            raise PerudoError("a dice seed needs at least 16 bytes")
        self._seed = seed
        self._game = game.encode()

    def face(self, round: int, seat: int, index: int) -> int:
        prefix = _DOMAIN + struct.pack(">I", len(self._game)) + self._game
        prefix += struct.pack(">qII", round, seat, index)
        counter = 0
        while True:
            digest = hmac.digest(self._seed, prefix + struct.pack(">I", counter), "sha256")
            for byte in digest:
                if byte < _ACCEPT_BELOW:
                    return byte % 6 + 1
            counter += 1  # all 32 bytes rejected: about one chance in 10**55


def roll_hands(state: GameState, source: DiceSource) -> tuple[tuple[int, ...], ...]:
    """The hands for the state's next round, one per seat."""
    r = state.round
    return tuple(
        tuple(source.face(r, seat, i) for i in range(count)) for seat, count in enumerate(state.dice)
    )


def rolloff(source: DiceSource, players: int) -> int:
    """The first opener: everyone rolls two dice, the highest sum opens.

    Tied leaders roll again. Roll-off attempts use rounds -1, -2, ... so they
    never share dice with the game's rounds.
    """
    contenders = list(range(players))
    attempt = 0
    while len(contenders) > 1:
        attempt += 1
        sums = {s: source.face(-attempt, s, 0) + source.face(-attempt, s, 1) for s in contenders}
        best = max(sums.values())
        contenders = [s for s in contenders if sums[s] == best]
    return contenders[0]


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, published before play so the seed cannot change."""
    return hashlib.sha256(seed).hexdigest()
