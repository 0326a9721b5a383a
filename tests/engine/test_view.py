"""engine.view: what one seat may know."""

from __future__ import annotations

from dataclasses import fields, replace

from engine import (
    Bid,
    CalzaRule,
    GameState,
    Ruleset,
    apply,
    deal,
    is_legal,
    new_game,
    observe,
    parse_action,
)

HANDS = ((2, 2, 4, 1, 6), (3, 3, 5, 6, 6), (1, 4, 4, 5, 6))


RULEBOOK = Ruleset()


def round_in_progress(ruleset: Ruleset, *moves: str) -> GameState:
    state = deal(new_game(ruleset, 3, 0), HANDS)
    for move in moves:
        state = apply(state, state.to_act, parse_action(move))
    return state


def test_a_seat_sees_its_own_dice_and_everyones_counts() -> None:
    state = round_in_progress(RULEBOOK, "bid 3 4")
    view = observe(state, 1)
    assert view.seat == 1
    assert view.my_dice == HANDS[1]
    assert view.dice == (5, 5, 5) and view.dice_in_play == 15
    assert view.standing == Bid(3, 4)
    assert view.to_act == 1
    assert view.round == 1 and not view.palifico
    assert view.history == ()


def test_no_field_of_a_view_holds_another_seats_hand() -> None:
    state = round_in_progress(RULEBOOK, "bid 3 4")
    view = observe(state, 1)
    others = {HANDS[0], HANDS[2]}
    for field in fields(view):
        assert getattr(view, field.name) not in others, field.name
    # Other seats' dice can change without this seat's view changing.
    shuffled = replace(state, hands=((6, 6, 6, 6, 6), HANDS[1], (1, 1, 1, 1, 1)))
    assert observe(shuffled, 1) == view
    assert observe(shuffled, 0) != observe(state, 0)


def test_only_the_seat_to_act_gets_floors_and_dudo() -> None:
    state = round_in_progress(RULEBOOK, "bid 3 4")
    acting, waiting = observe(state, 1), observe(state, 2)
    assert acting.floors == (2, 4, 4, 4, 3, 3)
    assert acting.can_dudo and acting.can_calza
    assert waiting.floors == (0, 0, 0, 0, 0, 0)
    assert not waiting.can_dudo and not waiting.can_calza


def test_can_calza_out_of_turn_only_under_calza_any() -> None:
    state = round_in_progress(Ruleset(calza=CalzaRule.ANY), "bid 3 4")
    assert observe(state, 2).can_calza
    assert not observe(state, 0).can_calza  # the bidder


def test_may_bid_agrees_with_the_game() -> None:
    for moves in [(), ("bid 3 4",), ("bid 3 4", "bid 2 1"), ("bid 14 6",)]:
        state = round_in_progress(RULEBOOK, *moves)
        for seat in range(3):
            view = observe(state, seat)
            for count in range(17):
                for face in range(8):
                    bid = Bid(count, face)
                    assert view.may_bid(bid) == is_legal(state, seat, bid), (moves, seat, bid)


def test_after_a_round_the_history_shows_the_revealed_dice() -> None:
    state = round_in_progress(RULEBOOK, "bid 3 4", "dudo")  # 4s with pacos: 5 >= 3
    view = observe(state, 0)
    assert view.my_dice == ()
    assert view.dice == (5, 4, 5)
    assert len(view.history) == 1
    outcome = view.history[0]
    assert outcome.hands == HANDS
    assert outcome.counted == 5
    assert view.floors == (0, 0, 0, 0, 0, 0)
