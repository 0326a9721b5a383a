"""The expert's decisions: read the table, search, and now and then bluff.

One `Expert` serves a whole session (one process, several games one after
another), so what it learns of each opponent carries from game to game. Per
game it remembers the bids it saw in each round, which the round's outcome
(revealed dice) later turns into evidence of how each bidder bids and
challenges.

Bluffing: a bot that only ever bids what it holds is read by any opponent
that learns (the strong sample does), so `bluff` of the raises are chosen
among those priced nearly as well as the best, on the face we hold least.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from belief import Belief
from search import Priced, Prices, search
from tendencies import Tendencies

from arena.kit import PASS, Answer
from engine import Bid, Observation, PlacedBid, RoundOutcome

BUDGET_S = 0.025
"""Thinking time per decision, unless the referee gives less."""
TIME_SHARE = 0.25
"""At most this share of the time the referee says is left."""
MAX_DEALS = 512
"""Guessed deals that settle a decision; more change nothing measurable."""
BLUFF = 0.12
"""The share of raises chosen as bluffs."""
BLUFF_SLACK = 0.04
"""How much worse than the best raise a bluff may be priced."""
TIE = 1e-3
"""Per count of a raise: among raises priced alike, the higher leaves the next player less room."""


@dataclass(frozen=True, slots=True)
class Decision:
    """How one decision kept its budget, measured by the bot itself."""

    budget: float
    """Seconds it allowed itself."""
    seconds: float
    """Seconds it took, from the request in hand to the answer."""
    deals: int


@dataclass
class _Game:
    learned: int = 0
    """Ended rounds of the history already learned from."""
    bids: dict[int, tuple[PlacedBid, ...]] = field(default_factory=dict)
    """For each round in progress or not yet learned from, the bids seen of it."""


class Expert:
    """The policy, with its memory of the session."""

    def __init__(
        self,
        budget: float = BUDGET_S,
        prices: Prices | None = None,
        bluff: float = BLUFF,
        seed: int | None = None,
        max_deals: int = MAX_DEALS,
    ) -> None:
        self.budget = budget
        self.max_deals = max_deals
        self.prices = prices or Prices()
        self.bluff = bluff
        self.rng = random.Random(seed)
        self.tendencies = Tendencies()
        self.last: Decision | None = None
        """The latest decision's budget-keeping."""
        self._games: dict[str, _Game] = {}

    def act(
        self,
        obs: Observation,
        game_id: str,
        players: Sequence[str],
        time_left_ms: int | None = None,
    ) -> Answer:
        """The answer to one request of game `game_id`, whose seats hold `players`."""
        start = time.perf_counter()
        budget = self.budget
        if time_left_ms:
            budget = min(budget, time_left_ms / 1000 * TIME_SHARE)
        game = self._games.setdefault(game_id, _Game())
        self._learn(game, obs.history, players, obs.seat)
        game.bids[obs.round] = obs.bids
        honesty = [self.tendencies.honesty(name) for name in players]
        belief = Belief(obs, honesty, self.rng)
        found = search(
            obs, belief, self.tendencies, players, self.prices, start + budget, self.max_deals
        )
        answer = self._choose(obs, belief, found.options)
        if isinstance(answer, Bid):
            game.bids[obs.round] = (*obs.bids, PlacedBid(obs.seat, answer))
        self.last = Decision(budget, time.perf_counter() - start, found.deals)
        return answer

    def game_over(
        self, game_id: str, players: Sequence[str], seat: int, history: Sequence[RoundOutcome]
    ) -> None:
        """Learn from the rounds not yet learned from, and forget the game."""
        game = self._games.pop(game_id, None)
        if game is not None:
            self._learn(game, history, players, seat)

    def _learn(
        self, game: _Game, history: Sequence[RoundOutcome], players: Sequence[str], seat: int
    ) -> None:
        """Learn from the rounds ended since the last request, by every bid of each.

        The round's result carries its whole bid list (a referee older than that
        list sends none: then the bids seen up to our last answer are what there is).
        """
        for outcome in history[game.learned :]:
            seen = game.bids.pop(outcome.round, ())
            self.tendencies.observe_round(players, outcome.bids or seen, outcome, me=seat)
        game.learned = max(game.learned, len(history))

    def _choose(self, obs: Observation, belief: Belief, options: Sequence[Priced]) -> Answer:
        if not obs.my_turn:  # an out-of-turn calza offer: calza, or let the round go on
            going_on = self.prices.continuation / sum(1 for n in obs.dice if n > 0)
            calza = [o for o in options if not isinstance(o.action, Bid)]
            return calza[0].action if calza and calza[0].price < going_on else PASS
        best = min(options, key=_key)
        if not isinstance(best.action, Bid) or self.rng.random() >= self.bluff:
            return best.action
        mine = belief.mine
        held = mine[best.action.face - 1]
        bluffs = [
            o
            for o in options
            if isinstance(o.action, Bid)
            and o.price <= best.price + BLUFF_SLACK
            and mine[o.action.face - 1] < held
        ]
        return min(bluffs, key=_key).action if bluffs else best.action


def _key(option: Priced) -> float:
    count = option.action.count if isinstance(option.action, Bid) else 0
    return option.price - TIE * count
