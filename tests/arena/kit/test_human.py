"""The person's client: what it shows, and every wrong line asked again, never sent."""

from __future__ import annotations

import asyncio

import pytest

import engine
from arena.checkbot.positions import Probe, probes
from arena.kit.errors import InputEndedError
from arena.kit.human import HumanHandler, describe_round_end
from arena.protocol import wire
from arena.protocol.messages import referee as pb


def _request(probe: Probe) -> pb.ActionRequest:
    players = tuple(f"bot{s}" if s != probe.seat else "you" for s in range(probe.state.players))
    data = wire.encode_request(
        engine.observe(probe.state, probe.seat),
        request_id=7,
        offer=probe.offer,
        game_id="g1",
        players=players,
        ruleset=wire.ruleset_to_proto(probe.state.ruleset),
        news=(),
        time_left_ms=1000,
    )
    return pb.RefereeMessage.FromString(data).request


def _answer(probe_name: str, lines: list[str]) -> tuple[pb.Action, list[str]]:
    [probe] = [p for p in probes() if p.name == probe_name]
    typed = iter(lines)
    shown: list[str] = []

    async def read() -> str:
        return next(typed, "")

    handler = HumanHandler(read, shown.append)
    return asyncio.run(handler.request(_request(probe))), shown


def test_an_opening_is_asked_again_until_it_is_legal() -> None:
    action, shown = _answer("opening", ["what?", "dudo", "pass", "bid 1 1", "bid 2 3"])
    assert (action.kind, action.count, action.face) == (pb.ACTION_KIND_BID, 2, 3)
    refusals = [line for line in shown if line.startswith("Not that: ")]
    assert len(refusals) == 4, shown
    assert "type bid COUNT FACE" in refusals[0]
    assert "dudo is not allowed now" in refusals[1]
    assert "pass answers only a calza offer" in refusals[2]
    assert "bid 1 1 is not a legal bid now" in refusals[3]
    assert any(line.startswith("  Your dice: ") for line in shown)
    assert any("No bids yet: you open the round." in line for line in shown)


def test_a_calza_offer_takes_calza_or_pass_only() -> None:
    action, shown = _answer("calza offer out of turn", ["bid 5 5", "dudo", "pass"])
    assert action.kind == pb.ACTION_KIND_PASS
    assert sum(line.startswith("Not that: on a calza offer") for line in shown) == 2
    assert any(line.startswith("Calza offer: ") for line in shown)


def test_input_that_ends_mid_game_is_said() -> None:
    with pytest.raises(InputEndedError):
        _answer("opening", ["what?"])


def test_a_round_end_reveals_every_hand() -> None:
    result = pb.RoundResult(
        round=3,
        end=pb.ROUND_END_DUDO,
        caller_seat=1,
        bid=pb.Bid(seat=0, count=4, face=5),
        counted=3,
        hands=[pb.Hand(dice=[5, 1, 2]), pb.Hand(dice=[6, 6]), pb.Hand()],
        changed_seat=0,
        dice_change=-1,
    )
    told = describe_round_end(result, ["alice", "you", "carol"], me=1)
    assert told[0] == "Round 3 ends by dudo (you)."
    assert "The bid was 4 x 5s by alice; 3 counted." in told[1]
    assert any(line.endswith("alice: 5 1 2") for line in told)
    assert any(line.endswith("you: 6 6") for line in told)
    assert not any("carol:" in line for line in told)  # out of the round: no dice
    assert told[-1] == "  alice loses a die."
