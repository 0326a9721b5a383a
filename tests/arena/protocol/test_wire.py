"""The one conversion between protobuf and engine values: every round trip is exact."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from engine import (
    CalzaRule,
    FaultPenalty,
    MalformedActionError,
    Opener,
    PalificoFaceChange,
    Ruleset,
    Side,
)

rulesets = st.builds(
    Ruleset,
    dice_per_player=st.integers(1, 6),
    opener=st.sampled_from(Opener),
    lower_face_with_higher_count=st.booleans(),
    calza=st.sampled_from(CalzaRule),
    palifico=st.booleans(),
    palifico_once=st.booleans(),
    palifico_face_change=st.sampled_from(PalificoFaceChange),
    palifico_min_players=st.integers(2, 7),
    open_on_pacos=st.booleans(),
    opener_after_elimination=st.sampled_from(Side),
    calza_max_dice=st.none() | st.integers(1, 7),
    fault_penalty=st.sampled_from(FaultPenalty),
)


@given(rulesets)
def test_rulesets_survive_the_wire(ruleset: Ruleset) -> None:
    sent = wire.ruleset_to_proto(ruleset)
    assert wire.ruleset_from_proto(pb.Ruleset.FromString(sent.SerializeToString())) == ruleset
    # Bots written before palifico_face_change still read the old bool right where it can say it.
    assert sent.palifico_one_die_may_change_face == (
        ruleset.palifico_face_change is PalificoFaceChange.ALL
    )


@pytest.mark.parametrize("old_bool", [True, False])
def test_a_ruleset_from_before_the_variant_fields_reads_as_the_rulebook(old_bool: bool) -> None:
    old = pb.Ruleset(
        dice_per_player=5,
        opener=pb.OPENER_ROLLOFF,
        lower_face_with_higher_count=True,
        calza=pb.CALZA_RULE_TURN,
        palifico=True,
        palifico_once=True,
        palifico_one_die_may_change_face=old_bool,
        fault_penalty=pb.FAULT_PENALTY_ELIMINATE,
    )
    face_change = PalificoFaceChange.ALL if old_bool else PalificoFaceChange.NONE
    assert wire.ruleset_from_proto(old) == Ruleset(palifico_face_change=face_change)


def test_fault_kinds_survive_the_wire_and_an_unknown_one_is_none() -> None:
    for kind in FaultKind:
        assert wire.fault_kind_from_proto(wire.fault_kind_to_proto(kind)) is kind
    assert wire.fault_kind_from_proto(pb.FAULT_KIND_UNSPECIFIED) is None
    assert wire.fault_kind_from_proto(99) is None


@pytest.mark.parametrize(
    "answer", [engine.Bid(3, 4), engine.Bid(1, 1), engine.DUDO, engine.CALZA, wire.PASS]
)
def test_answers_survive_the_wire(answer: wire.Answer) -> None:
    assert wire.answer_from_proto(wire.answer_to_proto(answer)) == answer


@pytest.mark.parametrize(
    "action",
    [
        pb.Action(),
        pb.Action(kind=pb.ACTION_KIND_DUDO, count=2),
        pb.Action(kind=pb.ACTION_KIND_CALZA, face=3),
        pb.Action(kind=pb.ACTION_KIND_PASS, count=1, face=1),
        pb.Action(kind=99),
    ],
)
def test_actions_that_are_not_answers_are_malformed(action: pb.Action) -> None:
    with pytest.raises(MalformedActionError):
        wire.answer_from_proto(action)


def _random_position(seed: int, ruleset: Ruleset, players: int) -> engine.GameState:
    """A state reached by random legal play, with some rounds already ended."""
    rng = random.Random(seed)
    dice = engine.HmacDice(seed.to_bytes(16, "big"), "wire")
    state = engine.new_game(ruleset, players, 0)
    for _ in range(rng.randrange(1, 40)):
        if state.is_over:
            break
        if state.phase is engine.Phase.DEAL:
            state = engine.deal(state, engine.roll_hands(state, dice))
            continue
        state = engine.apply(state, state.to_act, rng.choice(list(engine.legal_actions(state))))
    if state.phase is engine.Phase.DEAL:
        state = engine.deal(state, engine.roll_hands(state, dice))
    return state


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), rulesets, st.integers(2, 6))
def test_a_bot_rebuilds_exactly_the_view_the_referee_sent(
    seed: int, ruleset: Ruleset, players: int
) -> None:
    state = _random_position(seed, ruleset, players)
    if state.is_over:
        return
    names = [f"p{i}" for i in range(players)]
    builder = wire.RequestBuilder("g", names, wire.ruleset_to_proto(ruleset), 900)
    seats = [(state.to_act, False)] + [(s, True) for s in engine.calza_offers(state)]
    for seat, offer in seats:
        view = engine.observe(state, seat)
        message = builder.build(view, request_id=7, offer=offer, history=state.history, told=0)
        parsed = pb.RefereeMessage.FromString(message)
        assert parsed.WhichOneof("kind") == "request"
        # Re-encoded by protobuf itself: nothing in the pieces was lost or doubled.
        assert pb.RefereeMessage.FromString(parsed.SerializeToString()) == parsed
        received = parsed.request
        assert (received.request_id, received.game_id, list(received.players)) == (7, "g", names)
        assert wire.ruleset_from_proto(received.ruleset) == ruleset
        assert received.time_left_ms == 900
        history = tuple(wire.outcome_from_proto(r) for r in received.results)
        assert history == state.history
        assert wire.observation_from_proto(received, history) == view
        assert received.dice_in_play == state.dice_in_play
        assert received.kind == (pb.REQUEST_KIND_CALZA_OFFER if offer else pb.REQUEST_KIND_TURN)


def test_news_are_only_the_rounds_after_told() -> None:
    positions = (_random_position(seed, Ruleset(), 3) for seed in range(200))
    state = next(p for p in positions if len(p.history) >= 2 and not p.is_over)
    builder = wire.RequestBuilder("g", ["a", "b", "c"], wire.ruleset_to_proto(Ruleset()), 900)
    view = engine.observe(state, state.to_act)
    message = builder.build(view, request_id=1, offer=False, history=state.history, told=1)
    request = pb.RefereeMessage.FromString(message).request
    assert [r.round for r in request.results] == [o.round for o in state.history[1:]]


def test_a_long_request_keeps_all_its_news() -> None:
    """Many rounds of news make a request longer than a one-byte length can say."""
    positions = (_random_position(seed, Ruleset(), 6) for seed in range(400))
    state = next(p for p in positions if len(p.history) >= 6 and not p.is_over)
    names = [f"player-{i}" for i in range(6)]
    builder = wire.RequestBuilder("long", names, wire.ruleset_to_proto(Ruleset()), 900)
    view = engine.observe(state, state.to_act)
    message = builder.build(view, request_id=3, offer=False, history=state.history, told=0)
    assert len(message) > 300
    request = pb.RefereeMessage.FromString(message).request
    assert tuple(wire.outcome_from_proto(r) for r in request.results) == state.history
    assert wire.observation_from_proto(request, state.history) == view


@pytest.mark.parametrize("length", [1, 127, 128, 300, 16383, 16384, 2**21 - 1, 2**21])
def test_a_request_length_is_encoded_as_protobuf_encodes_one(length: int) -> None:
    """Every size class of the length prefix, against protobuf's own (a field's tag, then it)."""
    encoded = pb.Hello(name="x" * length).SerializeToString()
    assert encoded[1 : len(encoded) - length] == wire._varint(length)


@pytest.mark.parametrize("seed", range(5))
def test_one_builder_gives_every_request_of_a_game_its_own_bids(seed: int) -> None:
    """A builder keeps the round's bids encoded between requests: never a stale one."""
    rng = random.Random(seed)
    dice = engine.HmacDice(seed.to_bytes(16, "big"), "whole")
    ruleset = Ruleset(calza=CalzaRule.ANY)
    state = engine.new_game(ruleset, 4, 0)
    builder = wire.RequestBuilder("g", ["a", "b", "c", "d"], wire.ruleset_to_proto(ruleset), 900)
    while not state.is_over:
        if state.phase is engine.Phase.DEAL:
            state = engine.deal(state, engine.roll_hands(state, dice))
            continue
        seats = [(state.to_act, False)] + [(s, True) for s in engine.calza_offers(state)]
        for seat, offer in seats:
            view = engine.observe(state, seat)
            message = builder.build(view, request_id=1, offer=offer, history=state.history, told=0)
            request = pb.RefereeMessage.FromString(message).request
            assert wire.observation_from_proto(request, state.history) == view
        state = engine.apply(state, state.to_act, rng.choice(list(engine.legal_actions(state))))
