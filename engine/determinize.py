"""The full game behind one seat's view, for bots that search or learn.

A view hides only the other seats' current dice; everything else about the
game is public and is either in the view or follows from its history. So
`determinize` rebuilds the whole `GameState` from a view and a guess at the
hidden dice, and `apply`, `legal_actions` and the rest play on from it as from
the referee's own state. `sample_hands` makes such a guess, uniformly.

The past is read off the history of ended rounds: walking it backwards from
today's dice counts gives every seat's count before each change, hence who
went out in which order and who has had a palifico round. A position set up
mid-game with `new_game(palifico_used=...)` has a past its history does not
hold; a game played from its start has none.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.actions import FACES
from engine.errors import DealError
from engine.game import checked_hands
from engine.state import GameState, Phase, RoundOutcome
from engine.view import Observation


def determinize(observation: Observation, hands: Sequence[Sequence[int]]) -> GameState:
    """The state behind `observation` with the hidden dice set to `hands`, one per seat.

    During a round every hand must hold its seat's dice count and the
    observer's own hand must be the one in the view; between rounds and after
    the game nobody holds dice, so every hand must be empty. Raises
    `DealError` when the hands do not fit.
    """
    seat, dice = observation.seat, observation.dice
    if not 0 <= seat < len(dice):
        raise DealError(f"the view's seat {seat} is not at the table of {len(dice)} seats")
    phase = observation.phase
    if phase is Phase.BIDDING:
        filled = checked_hands(dice, hands)
    else:
        filled = tuple(tuple(hand) for hand in hands)
        if len(filled) != len(dice) or any(filled):
            raise DealError(
                f"between rounds and after the game nobody holds dice: expected "
                f"{len(dice)} empty hands, got {[list(hand) for hand in filled]}"
            )
    if filled[seat] != observation.my_dice:
        raise DealError(
            f"seat {seat}'s own hand is {list(observation.my_dice)} in its view, "
            f"but the hands give it {list(filled[seat])}"
        )
    bids = observation.bids
    out, palifico_used = _past(observation.history, dice, observation.ruleset.palifico)
    return GameState(
        ruleset=observation.ruleset,
        dice=dice,
        phase=phase,
        round=observation.round,
        # A round's first bid is its opener's; before it, the opener is to act.
        opener=bids[0].seat if bids else observation.to_act,
        to_act=observation.to_act,
        palifico=observation.palifico,
        hands=filled,
        bids=bids,
        palifico_used=palifico_used,
        out=out,
        history=observation.history,
    )


def sample_hands(observation: Observation, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """Hands consistent with `observation`: its own kept, every other die uniform.

    Uniform is the prior before the bids: a bot that reads the bids as evidence
    weighs or rejects these samples itself. Between rounds every hand is empty,
    as `determinize` expects.
    """
    if observation.phase is not Phase.BIDDING:
        return ((),) * len(observation.dice)
    return tuple(
        observation.my_dice if seat == observation.seat else tuple(rng.choices(FACES, k=count))
        for seat, count in enumerate(observation.dice)
    )


def _past(
    history: tuple[RoundOutcome, ...], dice: tuple[int, ...], palifico: bool
) -> tuple[tuple[int, ...], frozenset[int]]:
    """Who went out, in order, and who has had a palifico round, from the history."""
    counts = list(dice)
    changes = []
    for outcome in reversed(history):
        changed = outcome.changed_seat
        after = counts[changed]
        counts[changed] = after - outcome.dice_change
        changes.append((changed, counts[changed], after))
    # Seats without dice before the first recorded round went out first, in seat order.
    out = [seat for seat, count in enumerate(counts) if count == 0]
    used = set()
    for changed, before, after in reversed(changes):
        if after == 0:
            out.append(changed)
        elif palifico and before > 1 and after == 1:
            used.add(changed)
    return tuple(out), frozenset(used)
