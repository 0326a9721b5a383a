"""Where dice come from: a source handed to the game, never a global RNG.

`HmacDice` is the arena's source; `RandomDice` is for simulations, where
speed matters and secrecy does not. Each die is HMAC-SHA256(seed, game, round,
seat, die index), turned into a face by rejection sampling, so that:
- a tournament replays exactly from its seed;
- without the seed no deal can be predicted, even knowing all earlier ones;
- publishing the seed's SHA-256 up front commits the organiser to it, and
  publishing the seed afterwards lets anyone check every deal.
Seats of one game share the key `game`; games given the same key play the
same deal (the arena's schedule gives one key only to games with no bot in
common, as a bot that met a deal twice would know its opponents' dice).

To check a deal by hand: the message for a die is b"perudo-arena/dice/v1",
the game key's length in UTF-8 (4 bytes, big-endian), the key, then the round
(8 bytes, signed), the seat, the die index and a counter (4 bytes each), all
big-endian. The face is 1 + (b mod 6) for the first digest byte b below 252;
only if all 32 bytes are 252 or more does the counter go from 0 to 1.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import struct
from typing import Protocol

from engine.actions import FACES
from engine.errors import SeedError
from engine.state import GameState

_DOMAIN = b"perudo-arena/dice/v1"
MIN_SEED_BYTES = 16
_ADDRESS = struct.Struct(">qIII")  # round, seat, die index, rejection counter
_ACCEPT_BELOW = 252  # 252 = 42 * 6: bytes at or above it would bias faces.
_BLOCK = 64
"""SHA-256's block, in bytes: HMAC pads its key to it (RFC 2104)."""
_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))
"""`bytes.translate` tables: each key byte XOR 0x36 (ipad) or 0x5C (opad)."""


class DiceSource(Protocol):
    """Gives the faces of dice, each addressed by round, seat and index."""

    def face(self, round: int, seat: int, index: int) -> int:
        """Die `index` (from 0) of `seat` in `round`; rounds below 1 are the roll-off's."""
        ...

    def hand(self, round: int, seat: int, count: int) -> tuple[int, ...]:
        """Dice 0..count-1 of `seat` in `round`: the same faces `face` gives."""
        ...


class HmacDice:
    """Dice derived from a secret seed; see the module docstring for why.

    Each die is HMAC-SHA256 computed from its two halves (RFC 2104): the inner
    hash of the padded key and the message, and the outer hash of the padded key
    and the inner digest. Both pads, and the message's prefix that every die
    shares, are hashed once here; a die then costs two copies of a SHA-256
    state, each a block to finish, where the `hmac` module's copy of its three
    states took a sixth longer, and dealing is a third of a game's cost to the
    engine. `test_each_die_is_the_documented_hmac` holds it to `hmac.new`.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: bytes, game: str) -> None:
        if len(seed) < MIN_SEED_BYTES:
            raise SeedError(
                f"a dice seed needs at least {MIN_SEED_BYTES} bytes, got {len(seed)}: "
                "make one with new_seed()"
            )
        name = game.encode()
        key = seed if len(seed) <= _BLOCK else hashlib.sha256(seed).digest()
        key = key.ljust(_BLOCK, b"\0")
        inner = hashlib.sha256(key.translate(_INNER_PAD))
        # Every die's message starts with the same prefix: absorbed once here.
        inner.update(_DOMAIN + struct.pack(">I", len(name)) + name)
        self._inner = inner
        self._outer = hashlib.sha256(key.translate(_OUTER_PAD))

    def _digest(self, address: bytes) -> bytes:
        """HMAC-SHA256(seed, prefix + `address`)."""
        inner = self._inner.copy()
        inner.update(address)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def face(self, round: int, seat: int, index: int) -> int:
        """One die, exactly as the module docstring tells a checker to derive it."""
        counter = 0
        while True:
            for byte in self._digest(_ADDRESS.pack(round, seat, index, counter)):
                if byte < _ACCEPT_BELOW:
                    return byte % 6 + 1
            counter += 1  # all 32 bytes rejected: about one chance in 10**55

    def hand(self, round: int, seat: int, count: int) -> tuple[int, ...]:
        """A seat's dice for a round: the faces `face` gives for indexes 0..count-1."""
        # The same derivation as face(), inlined: dealing is a third of a game's cost.
        inner_state, outer_state, pack = self._inner, self._outer, _ADDRESS.pack
        faces = []
        for index in range(count):
            inner = inner_state.copy()
            inner.update(pack(round, seat, index, 0))
            outer = outer_state.copy()
            outer.update(inner.digest())
            byte = outer.digest()[0]  # the first byte decides, but 4 times in 252
            faces.append(byte % 6 + 1 if byte < _ACCEPT_BELOW else self.face(round, seat, index))
        return tuple(faces)


class RandomDice:
    """Dice from Python's `random`, seeded: fast and reproducible, but not secret.

    Anyone who knows the seed knows every deal, so the arena never uses it; a
    bot that plays out many games in its head, or a test that wants dice, does.
    Each seat's dice in a round come from their own stream, seeded by the seed
    and that address, so `hand` agrees with `face` and one round's dice do not
    depend on how many were rolled before it.
    """

    __slots__ = ("_seed",)

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def face(self, round: int, seat: int, index: int) -> int:
        """Die `index` (from 0) of `seat` in `round`: the hand's die at that index."""
        return self._stream(round, seat).choices(FACES, k=index + 1)[index]

    def hand(self, round: int, seat: int, count: int) -> tuple[int, ...]:
        """A seat's dice for a round, uniform and independent."""
        return tuple(self._stream(round, seat).choices(FACES, k=count))

    def _stream(self, round: int, seat: int) -> random.Random:
        # Seeding by text hashes it (SHA-512): nearby addresses get unrelated streams.
        return random.Random(f"perudo-arena/random-dice/{self._seed}/{round}/{seat}")


def roll_hands(state: GameState, source: DiceSource) -> tuple[tuple[int, ...], ...]:
    """The hands for the state's next round, one per seat."""
    r = state.round
    return tuple(source.hand(r, seat, count) for seat, count in enumerate(state.dice))


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


def seed_from_hex(text: str, what: str = "the seed") -> bytes:
    """A seed given as hex (a flag, a request); `what` names it in the error."""
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        # The text is not echoed: it may be a secret seed mistyped.
        raise SeedError(f"{what} must be hexadecimal (digits 0-9 and a-f)") from None
    if len(seed) < MIN_SEED_BYTES:
        raise SeedError(
            f"{what} needs at least {MIN_SEED_BYTES} bytes ({2 * MIN_SEED_BYTES} hex digits), "
            f"got {len(seed)}"
        )
    return seed


def new_seed() -> bytes:
    """A fresh secret seed for `HmacDice`, from the OS: 32 bytes, twice the minimum."""
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, published before play so the seed cannot change."""
    return hashlib.sha256(seed).hexdigest()
