"""Plays the boxed rulebook whatever ruleset it is told: it works out its own raises
with the rulebook's rules instead of reading the ones sent (a common bot bug)."""

from arena.kit import PASS, run
from engine import DUDO, Bid, Ruleset
from engine.bidding import floors

RULEBOOK = Ruleset()


def act(obs):
    if not obs.my_turn:
        return PASS
    standing = obs.standing
    own = floors(RULEBOOK, standing, obs.palifico, False, obs.dice_in_play)
    others = obs.dice_in_play - len(obs.my_dice)
    best = None
    for face in range(2, 7):
        held = sum(1 for d in obs.my_dice if d == face or (d == 1 and not obs.palifico))
        expected = held + others / 3
        if own[face - 1] and own[face - 1] <= expected and (best is None or held >= best[0]):
            best = (held, Bid(own[face - 1], face))
    if best is not None:
        return best[1]
    if standing is not None:
        return DUDO
    first = next(f for f in range(6) if own[f])
    return Bid(own[first], first + 1)


run(act)
