"""What one seat may know: the only window from the game onto a player.

Everything a bot is ever told is built here, from the state and a seat, so
privacy has one place to be right: own dice, everyone's dice counts, the bids,
and the history of ended rounds (whose dice were shown to everyone).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Bid
from engine.game import seat_options
from engine.ruleset import Ruleset
from engine.state import GameState, Phase, PlacedBid, RoundOutcome


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of the game at one moment."""

    seat: int
    ruleset: Ruleset
    round: int
    my_dice: tuple[int, ...]
    """This seat's own dice: empty between rounds and once it is out."""
    dice: tuple[int, ...]
    """Every seat's number of dice."""
    bids: tuple[PlacedBid, ...]
    palifico: bool
    to_act: int
    """Who acts now: another seat when this one is offered an out-of-turn calza."""
    floors: tuple[int, ...]
    """For faces 1..6, the smallest count this seat may bid now (0 = may not)."""
    can_dudo: bool
    can_calza: bool
    history: tuple[RoundOutcome, ...]
    phase: Phase = Phase.BIDDING
    """Where the game stands. Bots are asked only during a round, so a view rebuilt
    from a request is right to leave it out; `observe` always sets it, since a seat
    that is out cannot otherwise tell a round just dealt from one about to be."""

    @property
    def dice_in_play(self) -> int:
        """The dice on the table: the ceiling of every bid's count."""
        return sum(self.dice)

    @property
    def my_turn(self) -> bool:
        """False for an out-of-turn calza offer (calza `any`): calza or pass only."""
        return self.seat == self.to_act

    @property
    def standing(self) -> Bid | None:
        """The bid to raise, dudo or calza; None before the round's first bid."""
        return self.bids[-1].bid if self.bids else None

    def may_bid(self, bid: Bid) -> bool:
        """Whether `bid` is legal for this seat now, read off the floors."""
        if not 1 <= bid.face <= 6:
            return False
        floor = self.floors[bid.face - 1]
        return 0 < floor <= bid.count <= self.dice_in_play


def observe(state: GameState, seat: int) -> Observation:
    """What `seat` may know of `state`; the referee builds every request from it.

    Its floors and dudo/calza flags are computed here, from the full state, so a
    bot never has to re-derive the raising rules to know what it may do.
    """
    floors, dudo, calza = seat_options(state, seat)
    # Every field in order, none by keyword: the referee builds one for every decision,
    # and a frozen dataclass takes keywords a third slower.
    return Observation(
        seat,
        state.ruleset,
        state.round,
        state.hands[seat],
        state.dice,
        state.bids,
        state.palifico,
        state.to_act,
        floors,
        dudo,
        calza,
        state.history,
        state.phase,
    )
