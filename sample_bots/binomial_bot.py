"""A Perudo bot that trusts the binomial odds and nothing else.

It knows its own dice and treats every other die as an independent roll (a
die counts for a face with chance 1/3 in an ordinary round, where pacos are
wild, and 1/6 on pacos or in a palifico round). It ignores who bid what, so
it is easy to bluff, and it never calls calza. That makes it the honest
baseline of the sample bots: sound arithmetic, no reading of the table.
"""

from __future__ import annotations

from arena.kit import PASS, Answer, run
from arena.kit.odds import chance_true, legal_bids
from engine import DUDO, Bid, Observation

RAISE_STEPS = 3
"""How far above each face's smallest legal count to look. The odds only fall as
the count rises, so a higher count wins only on a tie (a bid one's own dice
already make certain), which is how it opens on what it holds."""


def best_raise(obs: Observation) -> tuple[Bid, float] | None:
    """The legal bid most likely true; on a tie the higher count, then the higher face."""
    scored = [(chance_true(obs, bid), bid) for bid in legal_bids(obs, RAISE_STEPS)]
    if not scored:
        return None
    chance, bid = max(scored, key=lambda s: (round(s[0], 12), s[1].count, s[1].face))
    return bid, chance


def act(obs: Observation) -> Answer:
    if not obs.my_turn:  # an out-of-turn calza offer: this bot never calls calza
        return PASS
    best = best_raise(obs)
    if best is None:
        return DUDO  # the standing bid is at the top: no raise is left
    if obs.standing is not None:
        standing = chance_true(obs, obs.standing)
        # Challenge a bid more likely false than true, unless raising is riskier still.
        if standing < 0.5 and standing < best[1]:
            return DUDO
    return best[0]


if __name__ == "__main__":
    run(act, name="py-binomial")
