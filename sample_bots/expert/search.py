"""Price every sensible answer over guessed deals, one bid ahead.

The guessed deals come from the belief; every candidate is priced on the
same deals (common random numbers), so their differences are not noise.

The price of an answer is the dice it is expected to cost us this round, less
a little for each die it costs somebody else (`Prices.others_loss`):

- dudo costs a die when the bid is true, and the bidder one when it is false;
- calza gains a die back (worth `calza_gain`) when the count is exact and
  costs one otherwise;
- a raise is answered by the next player, who sees only its own dice and
  calls dudo about as often as it has been seen to on a bid that likely from
  its dice (`tendencies`). In each guessed deal we know its dice, so its
  dudo is priced where it falls: a die lost to a false raise, a die it loses
  to a true one. Otherwise the round goes on and our share of its risk is
  `continuation` per player still in.

The next player's dudo and the truth of our raise are correlated (it calls
dudo when it holds few of the face), which a flat challenge rate misses.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from belief import Belief
from tendencies import Tendencies, chance_per_die, tail

from engine import (
    CALZA,
    DUDO,
    Action,
    Bid,
    GameState,
    Observation,
    apply,
    determinize,
    left_of,
    legal_actions,
    sample_hands,
)

BATCH = 32
"""Guessed deals drawn between two looks at the clock."""
RAISE_STEPS = 3
"""How far above each face's smallest legal count a raise is priced, at least."""


@dataclass(frozen=True, slots=True)
class Prices:
    """What the outcomes of a round are worth, in our own dice."""

    others_loss: float = 0.2
    calza_gain: float = 0.7
    continuation: float = 0.1
    """Our risk in a round that goes on past the next player, times the players in it."""


@dataclass(frozen=True, slots=True)
class Priced:
    """An answer and its price (expected dice lost, net)."""

    action: Action
    price: float


@dataclass(frozen=True, slots=True)
class Searched:
    """The priced answers and what the search cost."""

    options: tuple[Priced, ...]
    deals: int
    """Guessed deals drawn."""


def candidates(obs: Observation, state: GameState, mine: tuple[int, ...]) -> list[Action]:
    """Dudo, calza and the sensible raises: for each face, its smallest legal count
    and a few above it, up to a little past its expected count."""
    legal = legal_actions(state, obs.seat)
    out: list[Action] = [call for call in (DUDO, CALZA) if call in legal]
    unseen = obs.dice_in_play - len(obs.my_dice)
    for face, floor in enumerate(obs.floors, start=1):
        if not floor:
            continue
        expected = mine[face - 1] + unseen * chance_per_die(face, obs.palifico)
        top = min(obs.dice_in_play, max(floor + RAISE_STEPS, round(expected) + 1))
        out += [Bid(count, face) for count in range(floor, top + 1)]
    return [action for action in out if action in legal]


def search(
    obs: Observation,
    belief: Belief,
    tendencies: Tendencies,
    players: Sequence[str],
    prices: Prices,
    deadline: float,
    max_deals: int,
) -> Searched:
    """Price the candidates over as many guessed deals as the deadline allows
    (at least one batch, at most `max_deals`)."""
    # The rules of what may follow what are the engine's: any deal gives the same answers.
    state = determinize(obs, sample_hands(obs, belief.rng))
    options = candidates(obs, state, belief.mine)
    facer = left_of(obs.dice, obs.seat)
    seen: list[Counter[tuple[int, int]]] = [Counter() for _ in range(6)]
    deals = 0
    mine = belief.mine
    while deals == 0 or (deals < max_deals and time.perf_counter() < deadline):
        draws = belief.draw(BATCH)
        facer_draws = draws[facer]  # the next player, or on an offer the one to act after us
        for i in range(BATCH):
            totals = mine
            for column in draws.values():
                totals = tuple(a + b for a, b in zip(totals, column[i], strict=True))
            held = facer_draws[i]
            for face in range(6):
                seen[face][held[face], totals[face]] += 1
        deals += BATCH
    context = _Context(obs, state, deals, tendencies, players, prices)
    priced = tuple(Priced(a, context.price(a, seen[_face(obs, a) - 1])) for a in options)
    return Searched(priced, deals)


def _face(obs: Observation, action: Action) -> int:
    if isinstance(action, Bid):
        return action.face
    assert obs.standing is not None
    return obs.standing.face


@dataclass(frozen=True, slots=True)
class _Context:
    obs: Observation
    state: GameState
    deals: int
    tendencies: Tendencies
    players: Sequence[str]
    prices: Prices

    def price(self, action: Action, seen: Counter[tuple[int, int]]) -> float:
        """Expected net dice lost by `action`, from the (facer's count, total) of each deal."""
        obs, prices, deals = self.obs, self.prices, self.deals
        if not isinstance(action, Bid):
            standing = obs.standing
            assert standing is not None
            if action == DUDO:
                true = sum(w for (_, total), w in seen.items() if total >= standing.count) / deals
                return true - prices.others_loss * (1 - true)
            exact = sum(w for (_, total), w in seen.items() if total == standing.count) / deals
            gain = prices.calza_gain if len(obs.my_dice) < obs.ruleset.calza_cap else 0.0
            return (1 - exact) - gain * exact
        facer = left_of(obs.dice, obs.seat)
        after = apply(self.state, obs.seat, action)
        cornered = not any(isinstance(a, Bid) for a in legal_actions(after))
        unseen = obs.dice_in_play - obs.dice[facer]
        p = chance_per_die(action.face, obs.palifico)
        name = self.players[facer]
        dudo = [
            1.0 if cornered else self.tendencies.dudo_rate(name, tail(unseen, p, action.count - k))
            for k in range(obs.dice[facer] + 1)
        ]
        going_on = prices.continuation / sum(1 for n in obs.dice if n > 0)
        price = 0.0
        for (held, total), w in seen.items():
            d = dudo[held]
            called = 1.0 if total < action.count else -prices.others_loss
            price += w * (d * called + (1 - d) * going_on)
        return price / deals
