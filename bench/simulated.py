"""Bots of known, graded strength, playing real engine games in process (no gRPC).

One policy with a noise knob: with probability `noise` a decision is a random
legal move, otherwise the binomial bot's (call dudo when the standing bid is
less likely than not, else bid the floor of the face one holds most of). More
noise is a weaker bot, so a field of noises is a field of known order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import engine
from arena.kit.odds import chance_per_die
from engine import DUDO, PACO, Action, Bid, Observation


def act(obs: Observation, noise: float, rng: random.Random) -> Action:
    if rng.random() < noise:
        return _random(obs, rng)
    standing = obs.standing
    hand = obs.my_dice
    if standing is not None and obs.can_dudo:
        unseen = obs.dice_in_play - len(hand)
        mine = _count(hand, standing.face, obs.palifico)
        if standing.count > mine + unseen * chance_per_die(standing.face, obs.palifico):
            return DUDO
    best, face = -1, 0
    for f in range(6, 0, -1):
        if obs.floors[f - 1]:
            held = 0 if f == PACO else _count(hand, f, obs.palifico)
            if held > best:
                best, face = held, f
    if not face:
        return DUDO
    return Bid(obs.floors[face - 1], face)


def _count(hand: tuple[int, ...], face: int, palifico: bool) -> int:
    """The kit's `counting`, inlined: it is most of a simulated decision's cost."""
    if palifico or face == PACO:
        return hand.count(face)
    return hand.count(face) + hand.count(PACO)


def _random(obs: Observation, rng: random.Random) -> Action:
    if obs.can_dudo and rng.random() < 0.3:
        return DUDO
    faces = [face for face in range(1, 7) if obs.floors[face - 1]]
    if not faces:
        return DUDO
    face = rng.choice(faces)
    return Bid(obs.floors[face - 1] + (rng.random() < 0.3), face)


def play(
    noises: Sequence[float],
    seed: bytes,
    deal_key: str,
    rng: random.Random,
    ruleset: engine.Ruleset,
) -> tuple[int, ...]:
    """One game of bots with these noises, seat by seat, on the deal `deal_key` of `seed`:
    the seats' finishing order, winner first."""
    dice = engine.HmacDice(seed, deal_key)
    players = len(noises)
    state = engine.new_game(ruleset, players, engine.rolloff(dice, players))
    while not state.is_over:
        if state.phase is engine.Phase.DEAL:
            state = engine.deal(state, engine.roll_hands(state, dice))
            continue
        seat = state.to_act
        action = act(engine.observe(state, seat), noises[seat], rng)
        try:
            state = engine.apply(state, seat, action)
        except engine.IllegalActionError:  # a random count above the dice on the table
            fallback = DUDO if engine.can_dudo(state, seat) else _floor(state, seat)
            state = engine.apply(state, seat, fallback)
    return state.order


def _floor(state: engine.GameState, seat: int) -> Action:
    floors = engine.bid_floors(state, seat)
    face = next(f for f in range(6, 0, -1) if floors[f - 1])
    return Bid(floors[face - 1], face)
