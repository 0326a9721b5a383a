"""engine.determinize: the full state behind a view, and hands sampled for it."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from engine_support import Game, games, property_settings
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    DUDO,
    Bid,
    DealError,
    GameState,
    Opener,
    Ruleset,
    apply,
    deal,
    determinize,
    fault,
    legal_actions,
    new_game,
    observe,
    parse_action,
    sample_hands,
)

# The 0.999 quantile of the chi-square distribution with 5 degrees of freedom.
CHI2_5DF_P001 = 20.515


@given(games(), st.integers(0, 2**32 - 1))
@property_settings(100)
def test_a_view_and_the_true_hands_give_back_the_true_state(game: Game, pick: int) -> None:
    states = game.states
    sample = random.Random(pick).sample(states, min(12, len(states)))
    for state in [*sample, game.start, game.final]:
        for seat in range(state.players):
            assert determinize(observe(state, seat), state.hands) == state, seat


@given(games(), st.integers(0, 2**32 - 1))
@property_settings(60)
def test_sampled_hands_fit_the_view_and_play_on(game: Game, pick: int) -> None:
    rng = random.Random(pick)
    for state in rng.sample(game.states, min(8, len(game.states))):
        for seat in range(state.players):
            view = observe(state, seat)
            guess = determinize(view, sample_hands(view, rng))
            # The seat cannot tell the guess from the truth...
            assert observe(guess, seat) == view
            for other in range(state.players):
                assert legal_actions(guess, other) == legal_actions(state, other)
            # ...and the game plays on from it: the same bid shows it the same.
            bid = next((a for a in legal_actions(guess) if isinstance(a, Bid)), None)
            if bid is not None:
                after = apply(guess, guess.to_act, bid)
                assert observe(after, seat) == observe(apply(state, state.to_act, bid), seat)


def _scripted() -> list[GameState]:
    """Seat 0 drops to one, regains a die by calza and drops to one again.

    With `palifico_once` only the first drop gives a palifico round: a state
    rebuilt from a view must remember the first, or play on from it would
    make the second palifico too.
    """
    rules = Ruleset(dice_per_player=2, opener=Opener.SEAT0)
    states = [new_game(rules, 3, 0)]

    def step(*moves: str, roll: list[list[int]] | None = None) -> None:
        state = states[-1] if roll is None else deal(states[-1], roll)
        for move in moves:
            state = apply(state, state.to_act, parse_action(move))
            states.append(state)

    step("bid 4 6", "dudo", roll=[[2, 3], [4, 5], [6, 6]])  # seat 0 drops to one
    step("bid 1 3", "bid 2 3", "bid 3 3", "calza", roll=[[3], [3, 3], [5, 6]])  # and regains
    step("bid 4 6", roll=[[2, 2], [4, 5], [6, 6]])
    return states


def test_the_palifico_history_is_read_off_the_rounds() -> None:
    states = _scripted()
    before_dudo = states[-1]
    assert before_dudo.palifico_used == {0} and before_dudo.dice == (2, 2, 2)
    view = observe(before_dudo, 1)
    rebuilt = determinize(view, before_dudo.hands)
    assert rebuilt.palifico_used == {0}
    after = apply(rebuilt, 1, DUDO)  # seat 0 drops to one again
    assert after.dice == (1, 2, 2) and not after.palifico
    assert after == apply(before_dudo, 1, DUDO)


def test_seats_out_are_read_off_the_rounds_in_the_order_they_went() -> None:
    state = deal(
        new_game(Ruleset(), 4, 0, dice=[3, 0, 2, 4]), [[1, 2, 3], [], [4, 5], [6, 6, 6, 6]]
    )
    state = fault(fault(state, 2), 0)
    assert state.out == (1, 2, 0) and state.is_over
    assert determinize(observe(state, 3), state.hands).out == (1, 2, 0)


def _mid_round() -> GameState:
    return apply(deal(new_game(Ruleset(), 3, 0), [[1, 2, 3, 4, 5]] * 3), 0, parse_action("bid 3 4"))


@pytest.mark.parametrize(
    ("hands", "why"),
    [
        ([[1, 2, 3, 4, 5]] * 2, "one hand per seat"),
        ([[1, 2, 3, 4, 5], [1, 2, 3, 4], [1, 2, 3, 4, 5]], "holds 5 dice but was dealt 4"),
        ([[1, 2, 3, 4, 5], [1, 2, 3, 4, 7], [1, 2, 3, 4, 5]], "not a face"),
        ([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1], [1, 2, 3, 4, 5]], "own hand"),
    ],
)
def test_hands_that_do_not_fit_the_view_are_refused(hands: list[list[int]], why: str) -> None:
    with pytest.raises(DealError, match=why):
        determinize(observe(_mid_round(), 1), hands)


def test_between_rounds_nobody_holds_dice() -> None:
    state = new_game(Ruleset(), 3, 0)
    view = observe(state, 2)
    assert determinize(view, [[], [], []]) == state
    with pytest.raises(DealError, match="nobody holds dice"):
        determinize(view, [[1, 2, 3, 4, 5]] * 3)
    assert sample_hands(view, random.Random(1)) == ((), (), ())


def test_sampled_dice_are_uniform_and_keep_the_own_hand() -> None:
    view = observe(_mid_round(), 1)
    rng = random.Random(7)
    faces: Counter[int] = Counter()
    for _ in range(600):
        hands = sample_hands(view, rng)
        assert hands[1] == view.my_dice
        assert [len(hand) for hand in hands] == list(view.dice)
        faces.update(hands[0] + hands[2])
    expected = sum(faces.values()) / 6
    chi2 = sum((faces[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi2 < CHI2_5DF_P001, faces
    # Fresh draws: the other seats' dice are not the same every time.
    assert len({sample_hands(view, rng)[0] for _ in range(20)}) > 1


def test_a_view_from_no_seat_at_the_table_is_refused() -> None:
    view = observe(_mid_round(), 1)
    with pytest.raises(DealError, match="not at the table"):
        determinize(replace(view, seat=3), [[1, 2, 3, 4, 5]] * 3)
