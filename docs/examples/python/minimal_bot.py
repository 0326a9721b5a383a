"""A minimal Perudo Arena bot in Python, using the arena's bot kit."""

from arena.kit import PASS, run
from engine import DUDO, Bid


def matches(dice, face, palifico):
    """How many of `dice` count for `face`: pacos are wild unless palifico or bid."""
    if palifico or face == 1:
        return dice.count(face)
    return dice.count(face) + dice.count(1)


def act(obs):
    if not obs.my_turn:  # an out-of-turn calza offer (calza "any"): calza or pass only
        return PASS
    standing = obs.standing
    if standing is not None and obs.can_dudo:
        wild = not obs.palifico and standing.face != 1
        unseen = obs.dice_in_play - len(obs.my_dice)
        expected = matches(obs.my_dice, standing.face, obs.palifico) + unseen / (3 if wild else 6)
        if standing.count > expected:
            return DUDO
    faces = [face for face in range(1, 7) if obs.floors[face - 1] > 0]
    if not faces:  # the standing bid is already at the top: dudo is the only move
        return DUDO
    face = max(faces, key=lambda f: (matches(obs.my_dice, f, obs.palifico), f))
    return Bid(obs.floors[face - 1], face)


if __name__ == "__main__":
    run(act, name="minimal-python")
