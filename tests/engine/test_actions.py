"""engine.actions: action values and their text form."""

from __future__ import annotations

from typing import Any

import pytest
from engine_support import property_settings
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    CALZA,
    DUDO,
    Action,
    Bid,
    Calza,
    Dudo,
    MalformedActionError,
    PerudoError,
    parse_action,
)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("bid 3 4", Bid(3, 4)),
        ("dudo", DUDO),
        ("calza", CALZA),
        ("  BID   12\t6 ", Bid(12, 6)),
        ("Dudo", Dudo()),
        ("CALZA\n", Calza()),
        # Well-formed but illegal values are still actions; the game refuses them.
        ("bid 0 7", Bid(0, 7)),
    ],
)
def test_parse_action_accepts_the_text_form(text: str, action: Action) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "   ",
        "bid",
        "bid 3",
        "bid 3 4 5",
        "bid three 4",
        "bid 3 four",
        "bid 3.5 4",
        "raise 3 4",
        "dudo now",
        "calza!",
        "3 4",
        None,
        34,
        ["bid", 3, 4],
    ],
)
def test_parse_action_refuses_garbage(garbage: Any) -> None:
    with pytest.raises(MalformedActionError):
        parse_action(garbage)


def test_malformed_action_error_is_a_value_error_and_a_perudo_error() -> None:
    assert issubclass(MalformedActionError, ValueError)
    assert issubclass(MalformedActionError, PerudoError)


def test_text_form() -> None:
    assert str(Bid(3, 4)) == "bid 3 4"
    assert str(DUDO) == "dudo"
    assert str(CALZA) == "calza"


actions = st.one_of(
    st.builds(Bid, st.integers(0, 99), st.integers(0, 9)),
    st.just(DUDO),
    st.just(CALZA),
)


@given(actions)
@property_settings(100)
def test_text_form_round_trips(action: Action) -> None:
    assert parse_action(str(action)) == action


def test_bids_have_no_order_of_their_own() -> None:
    # In an ordinary round two pacos raise three sixes, and three sixes do not raise two
    # pacos (that takes five): an order of the values, by count, would say the opposite.
    with pytest.raises(TypeError):
        _ = Bid(2, 1) < Bid(3, 6)  # type: ignore[operator]
    with pytest.raises(TypeError):
        sorted([Bid(3, 6), Bid(2, 1)])  # type: ignore[type-var]
    assert Bid(2, 1) == Bid(2, 1) and len({Bid(2, 1), Bid(2, 1), Bid(3, 6)}) == 2
