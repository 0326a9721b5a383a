"""The test bots' way of playing: deterministic, always legal, and quick to end a game.

Deterministic play means that a game between these bots depends only on the
dice, so a seeded game plays out the same way on every run, however slow the
machine is.
"""

from __future__ import annotations

from arena.kit import PASS, Answer
from arena.kit.odds import chance_per_die, counting
from engine import DUDO, PACO, Bid, Observation


def act(obs: Observation) -> Answer:
    if not obs.my_turn:  # an out-of-turn calza offer (calza "any")
        return PASS
    standing = obs.standing
    if standing is not None and obs.can_dudo:
        unseen = obs.dice_in_play - len(obs.my_dice)
        mine = counting(obs.my_dice, standing.face, obs.palifico)
        if standing.count > mine + unseen * chance_per_die(standing.face, obs.palifico):
            return DUDO
    faces = [face for face in range(1, 7) if obs.floors[face - 1]]
    if not faces:
        return DUDO  # the bid is at the top: dudo is the only move left
    face = max(faces, key=lambda f: (0 if f == PACO else counting(obs.my_dice, f, obs.palifico), f))
    return Bid(obs.floors[face - 1], face)


def illegal(obs: Observation) -> Answer:
    """An answer the rules refuse: an opening bid on pacos, or no raise at all."""
    if obs.standing is None and not obs.palifico:
        return Bid(1, PACO)  # an ordinary round may not open on pacos
    if obs.standing is not None:
        return obs.standing  # repeating the standing bid is not a raise
    return Bid(obs.dice_in_play + 1, 2)  # more dice than there are
