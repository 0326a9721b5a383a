"""The kit's odds: checked against counting every possible deal, not against its own formula.

A bot built on the kit trusts these numbers blindly, so each is compared with
an independent reckoning: the chance a bid holds is the share of all unseen
deals (enumerated, and counted by the engine itself) in which it holds, and
the bids listed are the engine's legal bids.
"""

from __future__ import annotations

import itertools

import pytest

import engine
from arena.kit import odds
from engine import Bid, GameState, Observation, Ruleset

# Two seats: the observer (seat 0) holds 2 dice and 3 are unseen, 6**3 deals.
MINE = (1, 4)


def _views(palifico: bool) -> list[tuple[Observation, GameState]]:
    """Seat 0's view at its round's opening and after a bid each, with the states behind."""
    start = engine.new_game(Ruleset(), 2, 0, dice=[2, 3], palifico=palifico)
    opening = engine.deal(start, [MINE, (2, 2, 2)])
    moves = ["bid 1 4", "bid 2 4"] if palifico else ["bid 1 3", "bid 2 5"]
    later = opening
    for move in moves:
        later = engine.apply(later, later.to_act, engine.parse_action(move))
    return [(engine.observe(state, 0), state) for state in (opening, later)]


def _exact_chance(obs: Observation, bid: Bid) -> float:
    """The share of the unseen deals in which `bid` holds, counted by the engine."""
    unseen = obs.dice[1]
    deals = list(itertools.product(range(1, 7), repeat=unseen))
    holds = sum(
        engine.count_for((obs.my_dice, other), bid.face, obs.palifico) >= bid.count
        for other in deals
    )
    return holds / len(deals)


@pytest.mark.parametrize("palifico", [False, True])
def test_chance_true_is_the_share_of_deals_where_the_bid_holds(palifico: bool) -> None:
    for obs, _ in _views(palifico):
        for face in range(1, 7):
            for count in range(0, obs.dice_in_play + 2):
                bid = Bid(count, face)
                assert odds.chance_true(obs, bid) == pytest.approx(_exact_chance(obs, bid)), bid


def test_pacos_are_wild_outside_palifico_only() -> None:
    ordinary = (1, 1, 4, 5)
    assert odds.counting(ordinary, 4, palifico=False) == 3  # two pacos and a four
    assert odds.counting(ordinary, 4, palifico=True) == 1
    assert odds.counting(ordinary, 1, palifico=False) == 2  # pacos count only themselves
    assert odds.chance_per_die(4, palifico=False) == pytest.approx(1 / 3)
    assert odds.chance_per_die(1, palifico=False) == pytest.approx(1 / 6)
    assert odds.chance_per_die(4, palifico=True) == pytest.approx(1 / 6)


@pytest.mark.parametrize("palifico", [False, True])
def test_legal_bids_reach_the_top_when_asked_for_everything(palifico: bool) -> None:
    for obs, state in _views(palifico):
        every = [a for a in engine.legal_actions(state, 0) if isinstance(a, Bid)]
        assert odds.legal_bids(obs, extra=obs.dice_in_play) == every
        # The top of every face that may be bid is a bid too.
        faces = {bid.face for bid in every}
        assert faces and {Bid(obs.dice_in_play, face) for face in faces} <= set(every)


def test_legal_bids_give_each_face_its_floor_and_up_to_extra_above() -> None:
    for obs, _ in _views(palifico=False):
        smallest = odds.legal_bids(obs)
        assert smallest == [Bid(floor, face) for face, floor in enumerate(obs.floors, 1) if floor]
        two_more = odds.legal_bids(obs, extra=2)
        assert len(two_more) == 3 * len(smallest)
        assert all(obs.may_bid(bid) for bid in two_more)
