"""The person's client: what it shows, and every wrong line asked again, never sent."""

from __future__ import annotations

import asyncio

import pytest

import engine
from arena.checkbot.positions import Probe, probes
from arena.kit.errors import InputEndedError
from arena.kit.human import LEFT, HumanHandler, describe_request, describe_round_end, say_bid
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
    # The rule's own reason, not only that the bid is not legal.
    assert refusals[3].startswith("Not that: bid 1 1: an ordinary round may not open on pacos;")
    assert any(line.startswith("  Your dice: ") for line in shown)
    assert any("No bids yet: you open the round." in line for line in shown)


def test_a_calza_offer_takes_calza_or_pass_only() -> None:
    action, shown = _answer("calza offer out of turn", ["bid 5 5", "dudo", "pass"])
    assert action.kind == pb.ACTION_KIND_PASS
    assert sum(line.startswith("Not that: on a calza offer") for line in shown) == 2
    assert any(line.startswith("Calza offer: ") for line in shown)


def test_input_that_ends_mid_game_is_said() -> None:
    typed = iter(["what?"])
    shown: list[str] = []

    async def read() -> str:
        return next(typed, "")

    [probe] = [p for p in probes() if p.name == "opening"]
    with pytest.raises(InputEndedError):
        asyncio.run(HumanHandler(read, shown.append).request(_request(probe)))
    assert shown[-1] == LEFT  # said to the person as it happens: they left the table


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
    assert "The bid was four 5s by alice; 3 counted." in told[1]
    assert any(line.endswith("alice: 5 1 2") for line in told)
    assert any(line.endswith("you: 6 6") for line in told)
    assert not any("carol:" in line for line in told)  # out of the round: no dice
    assert told[-1] == "  alice loses a die."


def test_bids_and_dice_read_as_they_are_said() -> None:
    assert say_bid(1, 5) == "one 5"
    assert say_bid(2, 1) == "two 1s"
    assert say_bid(14, 6) == "fourteen 6s"
    assert say_bid(21, 3) == "twenty-one 3s"
    assert say_bid(30, 2) == "thirty 2s"
    [probe] = [p for p in probes() if p.name == "last die of the table"]
    told = describe_request(_request(probe))
    counts = [line for line in told if line.strip().startswith(("bot", "you")) and ": " in line]
    assert counts and all(line.endswith(("1 die", "1 die  <- you")) for line in counts), told
    assert not any("1 dice" in line for line in told)
    assert any(" x " not in line and "Bids so far: " in line for line in told), told


def _round_of_bids(me: int) -> pb.RoundResult:
    """Round 2: you (seat 1) bid two 3s, then carol and alice raised, and you called dudo."""
    return pb.RoundResult(
        round=2,
        end=pb.ROUND_END_DUDO,
        caller_seat=me,
        bid=pb.Bid(seat=0, count=4, face=3),
        counted=3,
        hands=[pb.Hand(dice=[3, 1]), pb.Hand(dice=[2, 3]), pb.Hand(dice=[6])],
        changed_seat=0,
        dice_change=-1,
        bids=[
            pb.Bid(seat=0, count=1, face=3),
            pb.Bid(seat=1, count=2, face=3),
            pb.Bid(seat=2, count=3, face=3),
            pb.Bid(seat=0, count=4, face=3),
        ],
    )


def test_a_round_end_shows_the_bids_made_after_the_persons_turn() -> None:
    players = ["alice", "you", "carol"]
    told = describe_round_end(_round_of_bids(1), players, me=1, seen=2)
    assert "  After your turn: carol three 3s, alice four 3s." in told
    assert not any("one 3" in line for line in told)  # seen already: not told again
    unseen = describe_round_end(_round_of_bids(1), players, me=1)  # shown nothing of it
    assert "  The bids: alice one 3, you two 3s, carol three 3s, alice four 3s." in unseen


def test_the_handler_remembers_what_the_person_saw_of_a_round() -> None:
    [probe] = [p for p in probes() if p.name == "opening"]
    request = _request(probe)
    typed = iter(["bid 2 3"])
    shown: list[str] = []

    async def read() -> str:
        return next(typed, "")

    async def play() -> None:
        handler = HumanHandler(read, shown.append)
        await handler.request(request)  # the person opens: one bid seen, their own
        result = _round_of_bids(probe.seat)
        del result.bids[:]
        result.bids.extend(
            [pb.Bid(seat=probe.seat, count=2, face=3), pb.Bid(seat=0, count=3, face=3)]
        )
        result.round = request.round
        result.caller_seat = 1
        await handler.game_over(
            pb.GameOver(
                game_id=request.game_id, seat=probe.seat, players=request.players,
                order=[0, 1, 2], results=[result],
            )
        )  # fmt: skip

    asyncio.run(play())
    assert f"  After your turn: {request.players[0]} three 3s." in shown
