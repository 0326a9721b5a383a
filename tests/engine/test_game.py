"""engine.game: starting, dealing, acting, resolving and faults."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import (
    CALZA,
    DUDO,
    Action,
    Bid,
    CalzaRule,
    DealError,
    FaultPenalty,
    GameState,
    IllegalActionError,
    NotInGameError,
    PerudoError,
    Phase,
    PlacedBid,
    RoundEnd,
    Rule,
    Ruleset,
    SetupError,
    apply,
    calza_offers,
    deal,
    fault,
    is_legal,
    legal_actions,
    new_game,
    parse_action,
    refusal,
)

RULEBOOK = Ruleset()
CALZA_ANY = Ruleset(calza=CalzaRule.ANY)


def started(
    hands: Sequence[Sequence[int]],
    *,
    opener: int = 0,
    ruleset: Ruleset = RULEBOOK,
    palifico: bool = False,
    used: Sequence[int] = (),
) -> GameState:
    """A round in progress with these hands (a seat with no dice gets an empty hand)."""
    dice = [len(hand) for hand in hands]
    state = new_game(ruleset, len(hands), opener, dice=dice, palifico=palifico, palifico_used=used)
    return deal(state, hands)


def play(state: GameState, *moves: str) -> GameState:
    """Each move taken by the seat to act."""
    for move in moves:
        state = apply(state, state.to_act, parse_action(move))
    return state


THREE = ([2, 2, 4, 1, 6], [2, 3, 3, 5, 6], [3, 4, 4, 5, 6])  # 2s with pacos: 4


# --- starting and dealing ------------------------------------------------------------


def test_new_game_gives_everyone_the_dice_per_player() -> None:
    state = new_game(Ruleset(dice_per_player=3), 4, 2)
    assert state.dice == (3, 3, 3, 3)
    assert state.phase is Phase.DEAL
    assert state.to_act == state.opener == 2
    assert state.winner is None and state.order == ()
    assert not state.palifico


@pytest.mark.parametrize(
    ("players", "opener", "dice", "used"),
    [
        (1, 0, None, ()),
        (2, 0, [5, 5, 5], ()),
        (2, 0, [6, 5], ()),
        (2, 0, [-1, 5], ()),
        (3, 0, [5, 0, 0], ()),
        (3, 1, [5, 0, 5], ()),
        (3, 3, None, ()),
        (3, -1, None, ()),
        (3, 0, None, (3,)),
    ],
)
def test_new_game_refuses_impossible_tables(
    players: int, opener: int, dice: list[int] | None, used: tuple[int, ...]
) -> None:
    with pytest.raises(SetupError):
        new_game(RULEBOOK, players, opener, dice=dice, palifico_used=used)


def test_new_game_palifico_needs_the_palifico_rule() -> None:
    off = Ruleset(palifico=False)
    assert not new_game(off, 2, 0, dice=[1, 5], palifico=True).palifico
    assert new_game(RULEBOOK, 2, 0, dice=[1, 5], palifico=True).palifico


@pytest.mark.parametrize(
    "hands",
    [
        [[1, 2, 3, 4, 5]],
        [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1]],
        [[1, 2, 3, 4], [1, 2, 3, 4, 5]],
        [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5]],
        [[1, 2, 3, 4, 7], [1, 2, 3, 4, 5]],
        [[0, 2, 3, 4, 5], [1, 2, 3, 4, 5]],
        [[True, 2, 3, 4, 5], [1, 2, 3, 4, 5]],
        [[1.0, 2, 3, 4, 5], [1, 2, 3, 4, 5]],
    ],
)
def test_deal_refuses_hands_that_do_not_fit(hands: list[list[int]]) -> None:
    with pytest.raises(DealError):
        deal(new_game(RULEBOOK, 2, 0), hands)


def test_deal_only_between_rounds() -> None:
    state = started([[1, 2], [3, 4]])
    with pytest.raises(DealError):
        deal(state, [[1, 2], [3, 4]])


def test_deal_starts_the_round_with_the_opener() -> None:
    state = started(THREE, opener=2)
    assert state.phase is Phase.BIDDING
    assert state.to_act == 2
    assert state.hands == tuple(tuple(h) for h in THREE)
    assert state.standing is None


# --- refusals name the broken rule -----------------------------------------------------


def _over() -> GameState:
    return play(started([[2], [3]], used=(0, 1)), "bid 2 2", "dudo")


REFUSALS: list[tuple[str, GameState, int, Action, Rule]] = [
    ("opening on pacos", started(THREE), 0, Bid(2, 1), Rule.OPENING_ON_PACOS),
    ("same bid", play(started(THREE), "bid 3 4"), 1, Bid(3, 4), Rule.BID_TOO_LOW),
    ("lower face same count", play(started(THREE), "bid 3 4"), 1, Bid(3, 3), Rule.BID_TOO_LOW),
    ("too few pacos", play(started(THREE), "bid 5 4"), 1, Bid(2, 1), Rule.BID_TOO_LOW),
    (
        "lower face when not allowed",
        play(started(THREE, ruleset=Ruleset(lower_face_with_higher_count=False)), "bid 3 4"),
        1,
        Bid(4, 3),
        Rule.FACE_LOWER,
    ),
    (
        "palifico face fixed",
        play(started([[4], [1, 2, 3], [5, 6]], palifico=True, used=(0,)), "bid 1 4"),
        1,
        Bid(2, 5),
        Rule.PALIFICO_FACE_FIXED,
    ),
    ("face 7", started(THREE), 0, Bid(2, 7), Rule.FACE_RANGE),
    ("count 0", started(THREE), 0, Bid(0, 3), Rule.COUNT_RANGE),
    ("count above dice in play", started(THREE), 0, Bid(16, 3), Rule.COUNT_RANGE),
    ("bid out of turn", started(THREE), 1, Bid(2, 3), Rule.NOT_YOUR_TURN),
    ("dudo out of turn", play(started(THREE), "bid 2 3"), 2, DUDO, Rule.NOT_YOUR_TURN),
    ("dudo with no bid", started(THREE), 0, DUDO, Rule.NO_STANDING_BID),
    ("calza with no bid", started(THREE), 0, CALZA, Rule.NO_STANDING_BID),
    (
        "calza on own bid",
        play(started(THREE, ruleset=CALZA_ANY), "bid 2 3"),
        0,
        CALZA,
        Rule.CALZA_OWN_BID,
    ),
    (
        "calza off",
        play(started(THREE, ruleset=Ruleset(calza=CalzaRule.OFF)), "bid 2 3"),
        1,
        CALZA,
        Rule.CALZA_OFF,
    ),
    ("calza out of turn", play(started(THREE), "bid 2 3"), 2, CALZA, Rule.CALZA_OUT_OF_TURN),
    ("seat that is out", started([[2, 3], [], [4]]), 1, Bid(1, 2), Rule.NOT_IN_GAME),
    ("seat past the table", started(THREE), 3, DUDO, Rule.NOT_IN_GAME),
    ("before the deal", new_game(RULEBOOK, 2, 0), 0, Bid(1, 2), Rule.NO_ROUND),
    ("after the game", _over(), 1, Bid(1, 2), Rule.GAME_OVER),
]


@pytest.mark.parametrize(
    ("state", "seat", "action", "rule"),
    [r[1:] for r in REFUSALS],
    ids=[r[0] for r in REFUSALS],
)
def test_illegal_actions_carry_the_broken_rule(
    state: GameState, seat: int, action: Action, rule: Rule
) -> None:
    with pytest.raises(IllegalActionError) as caught:
        apply(state, seat, action)
    assert caught.value.rule is rule
    assert rule.value in str(caught.value)
    assert not is_legal(state, seat, action)
    error = refusal(state, seat, action)
    assert error is not None and error.rule is rule
    assert action not in set(legal_actions(state, seat))


def test_calza_on_own_bid_is_refused_under_turn_too() -> None:
    state = play(started(THREE), "bid 2 3")
    assert not is_legal(state, 0, CALZA)


def test_illegal_action_error_is_a_perudo_error() -> None:
    assert issubclass(IllegalActionError, PerudoError)


# --- legal actions ---------------------------------------------------------------------


def test_an_opener_may_bid_any_count_on_any_face_but_pacos() -> None:
    state = started([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
    expected = {Bid(c, f) for c in range(1, 11) for f in range(2, 7)}
    assert set(legal_actions(state)) == expected
    assert set(legal_actions(state, 1)) == set()


def test_at_the_top_bid_only_dudo_and_calza_remain() -> None:
    # After four pacos out of four dice: pacos need 5, other faces 2*4+1 = 9.
    state = play(started([[2, 3], [4, 5]]), "bid 4 6", "bid 4 1")
    assert set(legal_actions(state)) == {DUDO, CALZA}
    off = started([[2, 3], [4, 5]], ruleset=Ruleset(calza=CalzaRule.OFF))
    assert list(legal_actions(play(off, "bid 4 6", "bid 4 1"))) == [DUDO]


def test_nothing_is_legal_between_rounds() -> None:
    assert list(legal_actions(new_game(RULEBOOK, 3, 0))) == []


# --- resolution ------------------------------------------------------------------------


def test_a_bid_passes_the_turn_left_skipping_seats_that_are_out() -> None:
    state = started([[2, 3], [], [4], [5, 6]], opener=2)
    state = play(state, "bid 1 4")
    assert state.to_act == 3
    assert state.bids == (PlacedBid(2, Bid(1, 4)),)
    assert play(state, "bid 2 4").to_act == 0
    assert play(state, "bid 2 4", "bid 3 4").to_act == 2


def test_dudo_on_a_true_bid_costs_the_caller_and_shows_the_dice() -> None:
    before = play(started(THREE), "bid 4 2")  # 2s with pacos: 2 + 1 + 1 = 4
    after = apply(before, 1, DUDO)
    assert after.dice == (5, 4, 5)
    assert after.to_act == 1 and after.phase is Phase.DEAL
    assert after.round == before.round + 1
    assert after.hands == ((), (), ()) and after.bids == ()
    outcome = after.last_outcome
    assert outcome is not None
    assert outcome.end is RoundEnd.DUDO
    assert outcome.caller == 1
    assert outcome.standing == PlacedBid(0, Bid(4, 2))
    assert outcome.counted == 4
    assert outcome.hands == before.hands
    assert (outcome.changed_seat, outcome.dice_change) == (1, -1)


def test_dudo_on_a_false_bid_costs_the_bidder() -> None:
    after = play(started(THREE), "bid 5 2", "dudo")
    assert after.dice == (4, 5, 5)
    assert after.to_act == 0


@pytest.mark.parametrize(
    ("bid", "caller_dice", "dice_after", "change"),
    [
        ("bid 4 2", 4, 5, 1),  # exact: regain
        ("bid 4 2", 5, 5, 0),  # exact on a full hand: nothing
        ("bid 3 2", 4, 3, -1),  # wrong: lose
        ("bid 5 2", 5, 4, -1),
    ],
)
def test_calza_resolution(bid: str, caller_dice: int, dice_after: int, change: int) -> None:
    hands = ([2, 2, 4, 1, 6], [3, 3, 5, 6, 6][:caller_dice], [2, 4, 4, 5, 6])
    after = play(started(hands), bid, "calza")
    assert after.dice == (5, dice_after, 5)
    assert after.to_act == 1
    outcome = after.last_outcome
    assert outcome is not None and outcome.end is RoundEnd.CALZA
    assert (outcome.counted, outcome.dice_change) == (4, change)


def test_calza_any_out_of_turn() -> None:
    state = play(started(THREE, ruleset=CALZA_ANY), "bid 4 2")
    assert state.to_act == 1
    assert is_legal(state, 2, CALZA)
    assert CALZA in set(legal_actions(state, 2))
    after = apply(state, 2, CALZA)
    assert after.dice == (5, 5, 5) and after.to_act == 2


def test_losing_the_last_die_passes_the_opening_left() -> None:
    after = play(started([[3], [4, 4], [5, 5]], used=(0,)), "bid 2 3", "dudo")
    assert after.dice == (0, 2, 2)
    assert after.out == (0,)
    assert after.to_act == 1


def test_the_game_ends_with_the_winner_and_the_order() -> None:
    over = _over()  # 2s: 1 of 2 bid; seat 0 loses its last die
    assert over.is_over
    assert over.winner == 1
    assert over.order == (1, 0)
    assert over.to_act == 1


# --- palifico --------------------------------------------------------------------------


def test_a_drop_to_one_makes_the_next_round_palifico_once() -> None:
    after = play(started([[3, 3], [4, 5, 6]]), "bid 5 3", "dudo")
    assert after.dice == (1, 3) and after.palifico and after.to_act == 0
    assert after.palifico_used == frozenset({0})
    again = play(started([[3, 3], [4, 5, 6]], used=(0,)), "bid 5 3", "dudo")
    assert not again.palifico


def test_a_palifico_round_opens_on_pacos_and_counts_pacos_alone() -> None:
    state = started([[1], [1, 1, 5]], palifico=True, used=(0,))
    assert Bid(1, 1) in set(legal_actions(state))
    after = play(state, "bid 2 5", "dudo")  # 5s alone: 1 (wild would be 4)
    assert after.last_outcome is not None and after.last_outcome.counted == 1
    assert after.dice == (0, 3)
    assert not after.palifico


# --- faults ----------------------------------------------------------------------------


def test_fault_mid_round_eliminates_and_replays_with_a_new_round_number() -> None:
    state = play(started(THREE), "bid 2 3")
    after = fault(state, 2)
    assert after.dice == (5, 5, 0) and after.out == (2,)
    assert after.phase is Phase.DEAL and after.to_act == 0
    assert after.round == state.round + 1
    outcome = after.last_outcome
    assert outcome is not None and outcome.end is RoundEnd.FAULT
    assert outcome.hands == ((), (), ())  # the abandoned round shows nobody's dice
    assert (outcome.changed_seat, outcome.dice_change) == (2, -5)


def test_fault_lose_die_costs_one_die_and_the_offender_opens() -> None:
    ruleset = Ruleset(fault_penalty=FaultPenalty.LOSE_DIE)
    after = fault(play(started(THREE, ruleset=ruleset), "bid 2 3"), 2)
    assert after.dice == (5, 5, 4)
    assert after.to_act == 2


@pytest.mark.parametrize("seat", [1, 3, -1])
def test_fault_needs_a_seat_in_the_game(seat: int) -> None:
    with pytest.raises(NotInGameError, match="not in the game"):
        fault(started([[2, 3], [], [4]]), seat)


def test_no_fault_after_the_game() -> None:
    with pytest.raises(NotInGameError, match="game is over"):
        fault(_over(), 1)


# --- calza offers ----------------------------------------------------------------------


def test_calza_offers_go_left_of_the_bidder_skipping_the_bidder_and_the_player_to_act() -> None:
    five = [[2]] * 5
    state = play(started(five, opener=1, ruleset=CALZA_ANY), "bid 1 2")
    assert state.to_act == 2
    assert calza_offers(state) == (3, 4, 0)
    with_out = play(started([[2], [2], [2], [2], []], opener=1, ruleset=CALZA_ANY), "bid 1 2")
    assert calza_offers(with_out) == (3, 0)


def test_no_calza_offers_outside_calza_any_or_without_a_bid() -> None:
    assert calza_offers(play(started(THREE), "bid 2 3")) == ()
    assert calza_offers(started(THREE, ruleset=CALZA_ANY)) == ()
    assert calza_offers(new_game(CALZA_ANY, 3, 0)) == ()


def test_states_are_immutable_values() -> None:
    state = started(THREE)
    after = play(state, "bid 2 3")
    assert state.bids == () and state.to_act == 0
    assert after != state
    assert play(started(THREE), "bid 2 3") == after
