"""The bridge's JSON carries every bid of each round ended, and the time control."""

from __future__ import annotations

import json

import engine
from arena.kit.bridge import to_json
from arena.protocol import wire
from arena.protocol.messages import referee as pb


def test_a_bridge_request_lists_each_ended_rounds_bids_and_the_bank() -> None:
    dice = engine.HmacDice(b"bridge" * 6, "bids")
    state = engine.new_game(engine.Ruleset(), 2, 0)
    while not state.history:  # three bids on threes, then dudo
        if state.phase is engine.Phase.DEAL:
            state = engine.deal(state, engine.roll_hands(state, dice))
            continue
        view = engine.observe(state, state.to_act)
        action = engine.DUDO if len(state.bids) == 3 else engine.Bid(view.floors[2], 3)
        state = engine.apply(state, state.to_act, action)
    state = engine.deal(state, engine.roll_hands(state, dice))
    builder = wire.RequestBuilder(
        "g", ["a", "b"], wire.ruleset_to_proto(engine.Ruleset()), 200, 2000
    )
    message = builder.build(
        engine.observe(state, state.to_act),
        request_id=1,
        offer=False,
        history=state.history,
        told=0,
        bank_left_ms=1500,
    )
    data = json.loads(to_json("request", pb.RefereeMessage.FromString(message).request))
    [result] = data["results"]
    bids = [(b["seat"], b["count"], b["face"]) for b in result["bids"]]
    assert bids == [(p.seat, p.bid.count, p.bid.face) for p in state.history[0].bids]
    assert len(bids) == 3 and bids[-1] == (result["bid"]["seat"], result["bid"]["count"], 3)
    assert data["time_control"] == {"move_time_ms": 200, "bank_ms": 2000, "increment_ms": 0}
    assert (data["time_left_ms"], data["bank_left_ms"]) == (1700, 1500)
