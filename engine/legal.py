"""Every action a seat may take now, as one collection.

Bots ask "is this legal", "how many choices" and "give me the i-th" far more
often than they walk the whole list, so the collection keeps only what decides
legality (dudo, calza, and a floor per face up to the dice in play) and
answers `in`, `len` and indexing from it without building the bids; a walk
through it joins runs of bids built once and shared, since bids are
immutable values. It reads the same floors as `refusal`, so it cannot
disagree with `is_legal`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import final, overload

from engine.actions import CALZA, DUDO, FACES, Action, Bid
from engine.game import NO_FLOORS, seat_options
from engine.state import GameState, Phase


@final
class LegalActions(Sequence[Action]):
    """The legal actions of one seat at one moment: dudo, calza, then bids by face.

    Built by `legal_actions`, from the floors `bid_floors` gives (`seat_options`).

    Immutable and reusable: `in`, `len`, indexing and iteration (as often as
    wanted) all work from the floors, so `action in legal` costs no more than
    `is_legal` and a uniform random pick needs no list.
    """

    __slots__ = ("_calls", "_floors", "_top")

    def __init__(self, calls: tuple[Action, ...], floors: tuple[int, ...], top: int) -> None:
        # Only stored: a bot that asks one question should not pay for the others.
        self._calls = calls
        self._floors = floors
        self._top = top

    def __len__(self) -> int:
        # A plain loop: list() asks the length first, and a generator costs more here.
        size, above = len(self._calls), self._top + 1
        for floor in self._floors:
            if floor:
                size += above - floor
        return size

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Bid):
            face = action.face
            if face not in FACES:
                return False
            floor = self._floors[face - 1]
            return 0 < floor <= action.count <= self._top
        return action in self._calls

    def __iter__(self) -> Iterator[Action]:
        return iter(self._listing())

    def _listing(self) -> tuple[Action, ...]:
        listed, top = self._calls, self._top
        for face, floor in zip(FACES, self._floors, strict=True):
            if floor:
                listed += _bids(face, floor, top)
        return listed

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return self._listing()[index]
        position = index + len(self) if index < 0 else index
        calls = len(self._calls)
        if 0 <= position < calls:
            return self._calls[position]
        rest, above = position - calls, self._top + 1
        if rest >= 0:
            for face, floor in zip(FACES, self._floors, strict=True):
                if floor:
                    if rest < above - floor:
                        return Bid(floor + rest, face)
                    rest -= above - floor
        # Not an engine error: the sequence protocol's signal, as a tuple gives it.
        raise IndexError(f"legal action index {index} out of range (there are {len(self)})")

    def __eq__(self, other: object) -> bool:
        """The same actions in the same order, like two tuples (and hashable like one)."""
        if not isinstance(other, LegalActions):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[tuple[Action, ...], tuple[int, ...], int]:
        # The dice in play matter only while some face may be bid.
        return self._calls, self._floors, self._top if any(self._floors) else 0

    def __repr__(self) -> str:
        return f"LegalActions({[str(action) for action in self]})"


@functools.lru_cache(maxsize=4096)
def _bids(face: int, floor: int, top: int) -> tuple[Bid, ...]:
    """The bids on `face` from `floor` to `top`, built once: bids are immutable values,
    and building them is most of what a listing costs."""
    return tuple(Bid(count, face) for count in range(floor, top + 1))


def legal_actions(state: GameState, seat: int | None = None) -> LegalActions:
    """Every action `seat` (default: the seat to act) may take now, as a collection.

    Empty between rounds, after the game, and for a seat that may do nothing
    (waiting for its turn with no calza to offer).
    """
    if state.phase is not Phase.BIDDING:
        return _NOTHING
    floors, dudo, calza = seat_options(state, state.to_act if seat is None else seat)
    return LegalActions(_CALLS[dudo, calza], floors, state.dice_in_play)


_CALLS: dict[tuple[bool, bool], tuple[Action, ...]] = {
    (False, False): (),
    (True, False): (DUDO,),
    (False, True): (CALZA,),
    (True, True): (DUDO, CALZA),
}
_NOTHING = LegalActions((), NO_FLOORS, 0)
