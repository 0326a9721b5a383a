"""The game state and the public record of how rounds ended.

A `GameState` is an immutable value: every transition in `engine.game`
returns a new one, so a refused action can never leave a half-changed state
behind and any state can be kept, compared or replayed.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Bid
from engine.errors import SetupError
from engine.ruleset import Ruleset


class Phase(enum.Enum):
    """Where the game stands."""

    DEAL = "deal"
    """Between rounds: the next opener is known and the dice are to be rolled."""
    BIDDING = "bidding"
    """A round is in progress."""
    OVER = "over"
    """One player has dice left."""


class RoundEnd(enum.Enum):
    """How a round ended."""

    DUDO = "dudo"
    CALZA = "calza"
    FAULT = "fault"


@dataclass(frozen=True, slots=True)
class PlacedBid:
    """A bid together with the seat that made it."""

    seat: int
    bid: Bid


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """What every player learns when a round ends."""

    round: int
    end: RoundEnd
    caller: int
    """The dudo or calza caller, or the seat that committed the fault."""
    standing: PlacedBid | None
    """The bid that was challenged; None for a fault before any bid."""
    counted: int
    """How many dice counted for the standing bid (0 for a fault)."""
    hands: tuple[tuple[int, ...], ...]
    """Every seat's dice as revealed; all empty when a fault abandoned the round."""
    changed_seat: int
    dice_change: int
    """-1, +1, 0 (calza on a full hand), or minus the seat's dice when eliminated."""
    palifico: bool
    bids: tuple[PlacedBid, ...] = ()
    """Every bid of the round, oldest first (the last is `standing`): how each seat bid,
    to read against the hands revealed."""


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole game at one moment. Build it with `engine.game.new_game`."""

    ruleset: Ruleset
    dice: tuple[int, ...]
    """Dice held by each seat; 0 for a seat that is out."""
    phase: Phase
    round: int
    """The current round's number, or the next one's between rounds (from 1)."""
    opener: int
    """Who opened the current round, or who opens the next one."""
    to_act: int
    """Who acts now; between rounds the next opener; at the end the winner."""
    palifico: bool
    """Whether the current round (or, between rounds, the next) is palifico."""
    hands: tuple[tuple[int, ...], ...]
    """Every seat's dice this round; all empty between rounds."""
    bids: tuple[PlacedBid, ...]
    """The bids of the current round, oldest first."""
    palifico_used: frozenset[int]
    """Seats that have dropped to one die (with `palifico_once`, no second palifico)."""
    out: tuple[int, ...]
    """Seats that are out, in the order they went out."""
    history: tuple[RoundOutcome, ...]
    """How each ended round ended, oldest first: public, so every view carries it."""

    @property
    def players(self) -> int:
        """Seats at the table, out ones included: seat numbers stay fixed all game."""
        return len(self.dice)

    @property
    def dice_in_play(self) -> int:
        """The dice on the table: the ceiling of every bid's count."""
        return sum(self.dice)

    @property
    def standing(self) -> PlacedBid | None:
        """The bid a dudo or calza would challenge; None before the round's first bid."""
        return self.bids[-1] if self.bids else None

    @property
    def is_over(self) -> bool:
        """Whether one seat alone has dice: the loop condition of every referee."""
        return self.phase is Phase.OVER

    @property
    def winner(self) -> int | None:
        """The seat left with dice, once the game is over (None until then)."""
        return self.to_act if self.phase is Phase.OVER else None

    @property
    def order(self) -> tuple[int, ...]:
        """The finishing order, winner first; only meaningful once the game is over."""
        if self.phase is not Phase.OVER:
            return ()
        return (self.to_act, *reversed(self.out))

    @property
    def last_outcome(self) -> RoundOutcome | None:
        """How the latest round ended, for telling the players; None before any did."""
        return self.history[-1] if self.history else None


def left_of(dice: Sequence[int], seat: int) -> int:
    """The next seat after `seat` (clockwise) that still has dice.

    Play passes to the left, and it is also who opens after a seat goes out, so
    every "who is next" of the rules is this one walk round the table.
    """
    n = len(dice)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if dice[candidate] > 0:
            return candidate
    raise SetupError(f"no seat has dice, so none is left of seat {seat}: {list(dice)}")


def right_of(dice: Sequence[int], seat: int) -> int:
    """The seat before `seat` (counter-clockwise) that still has dice: who opens after an
    elimination under `opener_after_elimination = right`."""
    n = len(dice)
    for step in range(1, n + 1):
        candidate = (seat - step) % n
        if dice[candidate] > 0:
            return candidate
    raise SetupError(f"no seat has dice, so none is right of seat {seat}: {list(dice)}")
