"""The engine's own speed: random legal games in process, deals included, every engine call
a referee makes for a decision and nothing else (`arena bench`'s first figures)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import engine


@dataclass(frozen=True, slots=True)
class EngineSpeed:
    players: int
    us_per_decision: float
    games_per_s: float


def random_legal(obs: engine.Observation, rng: random.Random) -> engine.Action:
    """A quick legal move: dudo now and then, else the smallest bid on a random face.

    Kept cheap, since its cost is counted in the engine's time per decision.
    """
    roll = rng.random()
    if obs.can_dudo and roll < 0.25:
        return engine.DUDO
    floors = obs.floors
    start = int(roll * 6)
    for step in range(6):
        face = (start + step) % 6
        if floors[face]:
            return engine.Bid(floors[face], face + 1)
    return engine.DUDO


def engine_speed(players: int, seconds: float, seed: int = 1) -> EngineSpeed:
    """Random legal play in process; every engine call a referee makes per decision."""
    rng = random.Random(seed)
    ruleset = engine.Ruleset()
    dice = engine.HmacDice(engine.new_seed(), "bench")
    decisions = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = engine.new_game(ruleset, players, engine.rolloff(dice, players))
        while not state.is_over:
            if state.phase is engine.Phase.DEAL:
                state = engine.deal(state, engine.roll_hands(state, dice))
                continue
            seat = state.to_act
            obs = engine.observe(state, seat)
            state = engine.apply(state, seat, random_legal(obs, rng))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - started
    return EngineSpeed(players, elapsed / decisions * 1e6, games / elapsed)
