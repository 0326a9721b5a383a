"""engine.legal: the legal actions as a collection that agrees with `is_legal`."""

from __future__ import annotations

import random

import pytest
from engine_support import Game, candidate_actions, games, property_settings
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    CALZA,
    DUDO,
    Bid,
    CalzaRule,
    GameState,
    LegalActions,
    Ruleset,
    apply,
    deal,
    is_legal,
    legal_actions,
    new_game,
    parse_action,
)

HANDS = [[1, 2, 3, 4, 5], [2, 2, 3, 6, 6], [1, 4, 4, 5, 6]]


def _state(ruleset: Ruleset, *moves: str) -> GameState:
    state = deal(new_game(ruleset, 3, 0), HANDS)
    for move in moves:
        state = apply(state, state.to_act, parse_action(move))
    return state


def _check_sequence(actions: LegalActions) -> None:
    listed = list(actions)
    assert len(actions) == len(listed)
    assert [actions[i] for i in range(len(actions))] == listed
    assert [actions[i] for i in range(-len(actions), 0)] == listed
    assert list(actions[1:4]) == listed[1:4] and list(actions[::-2]) == listed[::-2]
    assert list(reversed(actions)) == listed[::-1]
    for bad in (len(actions), -len(actions) - 1):
        with pytest.raises(IndexError):
            actions[bad]
    if listed:
        assert actions.index(listed[-1]) == len(listed) - 1


@given(games(), st.integers(0, 2**32 - 1))
@property_settings(60)
def test_indexing_and_length_agree_with_iteration(game: Game, pick: int) -> None:
    states = game.states
    for state in random.Random(pick).sample(states, min(5, len(states))):
        for seat in range(-1, state.players + 1):
            _check_sequence(legal_actions(state, seat))


def test_the_opening_lists_every_bid_but_pacos_up_to_the_dice_in_play() -> None:
    actions = legal_actions(_state(Ruleset()))
    assert len(actions) == 5 * 15  # faces 2..6, counts 1..15
    assert actions[0] == Bid(1, 2) and actions[-1] == Bid(15, 6)
    assert Bid(15, 6) in actions and Bid(16, 6) not in actions and Bid(1, 1) not in actions
    assert DUDO not in actions and CALZA not in actions
    _check_sequence(actions)


def test_dudo_and_calza_come_first_and_agree_with_is_legal() -> None:
    state = _state(Ruleset(calza=CalzaRule.ANY), "bid 3 4")
    assert legal_actions(state)[:2] == (DUDO, CALZA)
    out_of_turn = legal_actions(state, 2)
    assert list(out_of_turn) == [CALZA] and is_legal(state, 2, CALZA)
    assert list(legal_actions(state, 0)) == []  # nobody calls calza on their own bid
    for seat in range(3):
        for action in candidate_actions(state):
            assert (action in legal_actions(state, seat)) == is_legal(state, seat, action)


def test_things_that_are_not_actions_are_not_in_it() -> None:
    actions = legal_actions(_state(Ruleset(), "bid 3 4"))
    for junk in ("dudo", None, 3, (3, 4), Bid(3, 9), Bid(3, 0)):
        assert junk not in actions


def test_equal_moments_give_equal_collections() -> None:
    first, second = _state(Ruleset(), "bid 3 4"), _state(Ruleset(), "bid 3 4")
    assert legal_actions(first) == legal_actions(second)
    assert hash(legal_actions(first)) == hash(legal_actions(second))
    assert legal_actions(first) != legal_actions(_state(Ruleset(), "bid 3 5"))
    # Nothing to do is nothing to do, whatever the dice in play.
    assert legal_actions(first, 2) == legal_actions(new_game(Ruleset(), 2, 0))
    assert "bid 4 4" in repr(legal_actions(first))
