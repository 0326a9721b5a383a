"""engine.bidding: the raising table of the rule book (docs/rules.md) as floors, and counting."""

from __future__ import annotations

import pytest
from engine_support import count_dice, is_raise, property_settings, rulesets
from hypothesis import given
from hypothesis import strategies as st

from engine import Bid, Rule, Ruleset, count_for
from engine.bidding import floors, refuse_bid

RULEBOOK = Ruleset()
MANY = 40  # dice in play: large enough that no floor is capped


def paco_floor(standing: Bid) -> int:
    return floors(RULEBOOK, standing, False, False, MANY)[0]


# The rule book's worked examples.
@pytest.mark.parametrize(
    ("standing", "smallest_paco_bid"),
    [
        (Bid(11, 4), 6),
        (Bid(7, 5), 4),
        *((Bid(4, face), 2) for face in range(2, 7)),
        *((Bid(5, face), 3) for face in range(2, 7)),
        *((Bid(7, face), 4) for face in range(2, 7)),
        *((Bid(8, face), 4) for face in range(2, 7)),
    ],
)
def test_smallest_paco_bid_after_a_face(standing: Bid, smallest_paco_bid: int) -> None:
    assert paco_floor(standing) == smallest_paco_bid
    below = refuse_bid(RULEBOOK, standing, False, False, MANY, Bid(smallest_paco_bid - 1, 1))
    assert below is not None and below.rule is Rule.BID_TOO_LOW
    assert refuse_bid(RULEBOOK, standing, False, False, MANY, Bid(smallest_paco_bid, 1)) is None


def test_after_three_pacos_another_face_needs_seven() -> None:
    assert floors(RULEBOOK, Bid(3, 1), False, False, MANY) == (4, 7, 7, 7, 7, 7)
    error = refuse_bid(RULEBOOK, Bid(3, 1), False, False, MANY, Bid(6, 6))
    assert error is not None and error.rule is Rule.BID_TOO_LOW


def test_opening_floors() -> None:
    assert floors(RULEBOOK, None, False, False, 10) == (0, 1, 1, 1, 1, 1)
    assert floors(RULEBOOK, None, True, False, 10) == (1, 1, 1, 1, 1, 1)


def test_face_to_face_floors() -> None:
    # After five 3s: pacos from ceil(5/2) = 3, 2s and 3s need six, 4s..6s may stay at five.
    assert floors(RULEBOOK, Bid(5, 3), False, False, MANY) == (3, 6, 6, 5, 5, 5)
    no_lower = Ruleset(lower_face_with_higher_count=False)
    assert floors(no_lower, Bid(5, 3), False, False, MANY) == (3, 0, 6, 5, 5, 5)


def test_floors_drop_faces_above_the_dice_in_play() -> None:
    assert floors(RULEBOOK, Bid(5, 3), False, False, 5) == (3, 0, 0, 5, 5, 5)
    assert floors(RULEBOOK, Bid(5, 6), False, False, 5) == (3, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("face_free", "expected"),
    [
        (False, (0, 0, 0, 3, 0, 0)),
        # Same count needs a higher face; pacos rank lowest.
        (True, (3, 3, 3, 3, 2, 2)),
    ],
)
def test_palifico_floors_after_two_4s(face_free: bool, expected: tuple[int, ...]) -> None:
    assert floors(RULEBOOK, Bid(2, 4), True, face_free, MANY) == expected


def test_the_face_is_never_free_outside_palifico() -> None:
    assert floors(RULEBOOK, Bid(2, 4), False, True, MANY) == floors(
        RULEBOOK, Bid(2, 4), False, False, MANY
    )


def test_open_on_pacos_lets_an_ordinary_round_open_on_any_face() -> None:
    assert floors(Ruleset(open_on_pacos=True), None, False, False, 10) == (1,) * 6
    assert refuse_bid(Ruleset(open_on_pacos=True), None, False, False, 10, Bid(2, 1)) is None
    # What follows an opening on pacos is the usual paco table.
    assert floors(Ruleset(open_on_pacos=True), Bid(2, 1), False, False, MANY) == (3, 5, 5, 5, 5, 5)


@pytest.mark.parametrize(
    ("ruleset", "standing", "palifico", "bid", "rule"),
    [
        (RULEBOOK, None, False, Bid(3, 0), Rule.FACE_RANGE),
        (RULEBOOK, None, False, Bid(3, 7), Rule.FACE_RANGE),
        (RULEBOOK, None, False, Bid(0, 3), Rule.COUNT_RANGE),
        (RULEBOOK, None, False, Bid(11, 3), Rule.COUNT_RANGE),
        (RULEBOOK, None, False, Bid(2, 1), Rule.OPENING_ON_PACOS),
        (RULEBOOK, Bid(3, 4), False, Bid(3, 4), Rule.BID_TOO_LOW),
        (RULEBOOK, Bid(3, 4), False, Bid(3, 2), Rule.BID_TOO_LOW),
        (Ruleset(lower_face_with_higher_count=False), Bid(3, 4), False, Bid(4, 2), Rule.FACE_LOWER),
        (RULEBOOK, Bid(3, 4), True, Bid(4, 5), Rule.PALIFICO_FACE_FIXED),
        (RULEBOOK, Bid(3, 4), True, Bid(3, 4), Rule.BID_TOO_LOW),
    ],
)
def test_refuse_bid_names_the_broken_rule(
    ruleset: Ruleset, standing: Bid | None, palifico: bool, bid: Bid, rule: Rule
) -> None:
    error = refuse_bid(ruleset, standing, palifico, False, 10, bid)
    assert error is not None
    assert error.rule is rule


def test_count_for_pacos_are_wild_only_in_ordinary_rounds() -> None:
    hands = ((1, 2, 2, 5), (1, 3), ())
    assert count_for(hands, 2, palifico=False) == 4
    assert count_for(hands, 2, palifico=True) == 2
    assert count_for(hands, 1, palifico=False) == 2
    assert count_for(hands, 6, palifico=False) == 2
    assert count_for(hands, 6, palifico=True) == 0


standing_bids = st.none() | st.builds(Bid, st.integers(1, 30), st.integers(1, 6))


@given(
    rulesets,
    standing_bids,
    st.booleans(),
    st.booleans(),
    st.integers(2, 30),
)
@property_settings(300)
def test_floors_are_the_smallest_raise_of_the_rules_table(
    ruleset: Ruleset, standing: Bid | None, palifico: bool, face_free: bool, in_play: int
) -> None:
    result = floors(ruleset, standing, palifico, face_free, in_play)
    for face in range(1, 7):
        raises = [
            c
            for c in range(1, in_play + 1)
            if is_raise(
                ruleset,
                standing,
                Bid(c, face),
                palifico=palifico,
                face_free=face_free,
                dice_in_play=in_play,
            )
        ]
        assert result[face - 1] == (raises[0] if raises else 0)
        # Every count from the floor up to the dice in play is a raise.
        assert raises == (list(range(raises[0], in_play + 1)) if raises else [])


@given(
    st.lists(st.lists(st.integers(1, 6), max_size=5), min_size=2, max_size=6),
    st.integers(1, 6),
    st.booleans(),
)
@property_settings(200)
def test_count_for_matches_the_counting_rule(
    hands: list[list[int]], face: int, palifico: bool
) -> None:
    table = tuple(tuple(hand) for hand in hands)
    assert count_for(table, face, palifico) == count_dice(table, face, palifico)
