"""Helpers for the engine tests: a rules oracle written from docs/rules.md, and random play.

The oracle restates the raising table, the counting rule and the calza rules of
the rule book directly (it does not call engine.bidding), so the property tests
compare two independent readings of the rules.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import (
    CALZA,
    Action,
    Bid,
    Calza,
    CalzaRule,
    Dudo,
    FaultPenalty,
    GameState,
    HmacDice,
    Opener,
    PalificoFaceChange,
    Phase,
    Ruleset,
    Side,
    apply,
    calza_offers,
    deal,
    fault,
    legal_actions,
    new_game,
    roll_hands,
    rolloff,
)

PACO = 1

# Every random game must be over within this many events (deals, actions, faults).
MAX_EVENTS = 4000

QUICK_SCALE = 0.4
"""The share of each property's examples the default suite tries: the properties are most of
the engine's tests' time. test_properties_in_full.py (slow) tries them all."""

_SCALE = float(os.environ.get("ENGINE_PROPERTY_SCALE", str(QUICK_SCALE)))


def property_settings(examples: int) -> settings:
    """Hypothesis settings for the engine properties: `examples` of each in full, a share
    of them (QUICK_SCALE) in the default suite; ENGINE_PROPERTY_SCALE sets the share."""
    return settings(
        max_examples=max(1, int(examples * _SCALE)),
        deadline=None,
        database=None,  # tests must not write outside tests/engine
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- the rules, restated from the rule book ---------------------------------------------


def is_raise(
    ruleset: Ruleset,
    standing: Bid | None,
    new: Bid,
    *,
    palifico: bool,
    face_free: bool,
    dice_in_play: int,
) -> bool:
    """Whether `new` may follow `standing`, read straight off the rule book's tables.

    In a palifico round "the same face" is read as the standing bid's face: it is
    the opening face unless a one-die bidder changed it. `face_free`: this
    bidder may change face in a palifico round (see `may_change_face`).
    """
    c2, f2 = new.count, new.face
    if not (1 <= f2 <= 6 and 1 <= c2 <= dice_in_play):
        return False
    if standing is None:
        return palifico or ruleset.open_on_pacos or f2 != PACO
    c, f = standing.count, standing.face
    if palifico:
        if f2 == f:
            return c2 > c
        if face_free:
            return c2 > c or (c2 == c and f2 > f)
        return False
    if PACO not in (f, f2):  # face -> face
        if c2 > c:
            return ruleset.lower_face_with_higher_count or f2 >= f
        return c2 == c and f2 > f
    if f != PACO:  # face -> pacos
        return c2 >= math.ceil(c / 2)
    if f2 == PACO:  # pacos -> pacos
        return c2 > c
    return c2 >= 2 * c + 1  # pacos -> face


def may_change_face(state: GameState, seat: int) -> bool:
    """The rule book's `palifico_face_change`: which one-die bidders may name another face;
    the palifico player is the one who opened the palifico round."""
    rule = state.ruleset.palifico_face_change
    if not state.palifico or state.dice[seat] != 1 or rule is PalificoFaceChange.NONE:
        return False
    return rule is PalificoFaceChange.ALL or seat != state.opener


def count_dice(hands: Sequence[Sequence[int]], face: int, palifico: bool) -> int:
    """Dice counting for `face`: pacos are wild unless in palifico or when the bid is on pacos."""
    wild = not palifico and face != PACO
    return sum(1 for hand in hands for die in hand if die == face or (wild and die == PACO))


def oracle_legal(state: GameState, seat: int, action: Action) -> bool:
    """Whether the rule book lets `seat` take `action` now."""
    if state.phase is not Phase.BIDDING:
        return False
    if not 0 <= seat < state.players or state.dice[seat] == 0:
        return False
    standing = state.standing
    if isinstance(action, Calza):
        rule = state.ruleset.calza
        if rule is CalzaRule.OFF or standing is None or standing.seat == seat:
            return False
        return rule is CalzaRule.ANY or seat == state.to_act
    if seat != state.to_act:
        return False
    if isinstance(action, Dudo):
        return standing is not None
    return is_raise(
        state.ruleset,
        None if standing is None else standing.bid,
        action,
        palifico=state.palifico,
        face_free=may_change_face(state, seat),
        dice_in_play=state.dice_in_play,
    )


def seat_left_of(dice: Sequence[int], seat: int) -> int:
    """The next seat after `seat` (clockwise) that holds dice."""
    n = len(dice)
    return next(s for s in ((seat + k) % n for k in range(1, n + 1)) if dice[s] > 0)


def opener_after_out(ruleset: Ruleset, dice: Sequence[int], seat: int) -> int:
    """Who opens after `seat` went out: the next seat with dice on the ruleset's side."""
    if ruleset.opener_after_elimination is Side.LEFT:
        return seat_left_of(dice, seat)
    n = len(dice)
    return next(s for s in ((seat - k) % n for k in range(1, n + 1)) if dice[s] > 0)


def players_left(dice: Sequence[int]) -> int:
    return sum(1 for d in dice if d > 0)


def candidate_actions(state: GameState) -> Iterator[Action]:
    """Bids (c, f) for c in 0..dice_in_play+1 and f in 0..7, then dudo and calza."""
    for count in range(state.dice_in_play + 2):
        for face in range(8):
            yield Bid(count, face)
    yield Dudo()
    yield Calza()


# --- random play -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    kind: Literal["deal", "act", "fault"]
    seat: int = -1
    action: Action | None = None


@dataclass(frozen=True, slots=True)
class Transition:
    before: GameState
    event: Event
    after: GameState


@dataclass(frozen=True, slots=True)
class Game:
    seed: bytes
    start: GameState
    transitions: tuple[Transition, ...]

    @property
    def final(self) -> GameState:
        return self.transitions[-1].after if self.transitions else self.start

    @property
    def states(self) -> list[GameState]:
        return [self.start, *(t.after for t in self.transitions)]


GAME_KEY = "property-game"


def first_opener(ruleset: Ruleset, players: int, dice: HmacDice, rng: random.Random) -> int:
    if ruleset.opener is Opener.ROLLOFF:
        return rolloff(dice, players)
    return rng.randrange(players)


def _choose(state: GameState, rng: random.Random) -> Action:
    options = list(legal_actions(state))
    calls = [a for a in options if not isinstance(a, Bid)]
    bids = [a for a in options if isinstance(a, Bid)]
    if calls and (not bids or rng.random() < 0.3):
        return rng.choice(calls)
    if rng.random() < 0.5:
        return rng.choice(bids)
    # The smallest raise on some face: this walks through the paco conversions.
    smallest: dict[int, Bid] = {}
    for bid in bids:
        if bid.face not in smallest or bid.count < smallest[bid.face].count:
            smallest[bid.face] = bid
    return rng.choice(sorted(smallest.values(), key=lambda bid: (bid.count, bid.face)))


def _next_event(
    state: GameState, dice: HmacDice, rng: random.Random, fault_rate: float
) -> tuple[Event, GameState]:
    if fault_rate and rng.random() < fault_rate:
        seat = rng.choice([s for s, d in enumerate(state.dice) if d > 0])
        return Event("fault", seat), fault(state, seat)
    if state.phase is Phase.DEAL:
        return Event("deal"), deal(state, roll_hands(state, dice))
    offers = calza_offers(state)
    if offers and rng.random() < 0.15:
        seat = rng.choice(offers)
        return Event("act", seat, CALZA), apply(state, seat, CALZA)
    action = _choose(state, rng)
    return Event("act", state.to_act, action), apply(state, state.to_act, action)


def play_game(
    ruleset: Ruleset, players: int, seed: bytes, choice_seed: int, fault_rate: float
) -> Game:
    """A random legal game; stops at the end of the game or after MAX_EVENTS events."""
    rng = random.Random(choice_seed)
    dice = HmacDice(seed, GAME_KEY)
    start = new_game(ruleset, players, first_opener(ruleset, players, dice, rng))
    state = start
    transitions: list[Transition] = []
    while not state.is_over and len(transitions) < MAX_EVENTS:
        event, after = _next_event(state, dice, rng, fault_rate)
        transitions.append(Transition(state, event, after))
        state = after
    return Game(seed, start, tuple(transitions))


def replay(game: Game) -> list[GameState]:
    """The states of `game` again, from its events and a fresh dice source on its seed."""
    dice = HmacDice(game.seed, GAME_KEY)
    start = game.start
    state = new_game(start.ruleset, start.players, start.opener)
    states = [state]
    for transition in game.transitions:
        event = transition.event
        if event.kind == "deal":
            state = deal(state, roll_hands(state, dice))
        elif event.kind == "fault":
            state = fault(state, event.seat)
        else:
            assert event.action is not None
            state = apply(state, event.seat, event.action)
        states.append(state)
    return states


rulesets = st.builds(
    Ruleset,
    dice_per_player=st.integers(1, 5),
    opener=st.sampled_from(Opener),
    lower_face_with_higher_count=st.booleans(),
    calza=st.sampled_from(CalzaRule),
    palifico=st.booleans(),
    palifico_once=st.booleans(),
    palifico_face_change=st.sampled_from(PalificoFaceChange),
    palifico_min_players=st.integers(2, 7),
    open_on_pacos=st.booleans(),
    opener_after_elimination=st.sampled_from(Side),
    calza_max_dice=st.none() | st.integers(1, 7),
    fault_penalty=st.sampled_from(FaultPenalty),
)

seeds = st.binary(min_size=16, max_size=32)


@st.composite
def games(draw: st.DrawFn) -> Game:
    return play_game(
        ruleset=draw(rulesets),
        players=draw(st.integers(2, 6)),
        seed=draw(seeds),
        choice_seed=draw(st.integers(0, 2**32 - 1)),
        fault_rate=draw(st.sampled_from([0.0, 0.0, 0.02, 0.08])),
    )
