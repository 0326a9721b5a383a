"""A link, timed by pings: what an answer may and may not make of it, and what is credited.

First the measurement alone (`RoundTrip`, by hand), then through a real referee
and its front door: hand-driven streams and kit bots that dial the referee
direct and through a delaying proxy. Every safety property of the credit is
here, in the default suite: none without a link timed by the front door, none
for a bot the arena started, never more than the allowance.
"""

from __future__ import annotations

import asyncio

import pytest
from lag_proxy import LagProxy
from referee_harness import SEED, Arena, RawClient, reply, request, run, until

from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.records import Decision
from arena.referee.clock.deadline import TimeControl, network_credit
from arena.referee.clock.round_trip import PING_INTERVAL, WARM_UP, WINDOW, RoundTrip
from arena.referee.match import GameSpec, Match
from arena.referee.session.reply import Reply, next_request_id
from arena.referee.session.session import Session
from engine import Ruleset

ALLOWANCE = 0.25


def test_no_estimate_before_an_answer_and_none_from_an_answer_with_another_nonce() -> None:
    trip = RoundTrip()
    assert trip.estimate is None and trip.due(0.0)
    nonce = trip.start(10.0)
    assert nonce != 0 and not trip.due(20.0)  # one PING out at a time
    assert not trip.answered(nonce ^ 1, 10.1)
    assert not trip.answered(0, 10.1)  # an answer that echoes no nonce
    assert trip.estimate is None
    assert trip.answered(nonce, 10.2)
    assert trip.estimate == pytest.approx(0.2)
    assert not trip.answered(nonce, 10.3)  # the same answer again times nothing


def test_the_estimate_is_the_least_of_the_recent_window() -> None:
    trip = RoundTrip()
    at = 0.0
    for took in (0.3, 0.1, 0.5):  # one quick answer among slow ones: the link is the quick one
        at += PING_INTERVAL
        trip.answered(trip.start(at), at + took)
    assert trip.estimate == pytest.approx(0.1)
    for _ in range(WINDOW):  # the link got slower: the old quick one leaves the window
        at += PING_INTERVAL
        trip.answered(trip.start(at), at + 0.4)
    assert trip.estimate == pytest.approx(0.4)


def test_a_ping_is_due_at_once_while_warming_up_then_only_an_interval_after_the_last() -> None:
    trip = RoundTrip()
    at = 100.0
    for _ in range(WARM_UP):
        assert trip.warming and trip.due(at)
        trip.answered(trip.start(at), at + 0.01)
        at += 0.01
    assert not trip.warming
    assert not trip.due(at + PING_INTERVAL / 2)
    assert trip.due(at + PING_INTERVAL)


def _timed(seconds: float) -> RoundTrip:
    """A link timed at `seconds`, by hand."""
    trip = RoundTrip()
    trip.answered(trip.start(0.0), seconds)
    return trip


async def _answered(client: RawClient, session: Session, rid: int, allowance: float) -> Reply:
    """Ask `rid` and answer it at once."""
    asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0, allowance))
    message = await client.read()
    assert message is not None and message.request.request_id == rid, message
    await client.send(reply(rid))
    return await asking


def test_no_credit_without_a_link_timed_at_the_front_door(live: Arena) -> None:
    """A remote bot that did not come through the front door has no link timed: however it
    answers, nothing is credited."""

    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session("direct")
            assert session.link is None and not session.started_here
            answered = await _answered(client, session, next_request_id(), ALLOWANCE)
            assert answered.fault is None and answered.credit == 0.0
            assert answered.round_trip is None

    run(main())


def test_the_credit_is_the_link_within_the_allowance(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(front_door=True):
            client, session = await live.raw_session("near")
            assert session.link is not None
            assert await until(lambda: not session.link.warming, 10)  # type: ignore[union-attr]
            near = await _answered(client, session, next_request_id(), ALLOWANCE)
            assert near.credit == network_credit(near.round_trip, ALLOWANCE) < 0.05
            session.link = _timed(0.04)
            assert (await _answered(client, session, next_request_id(), ALLOWANCE)).credit == 0.04
            session.link = _timed(0.5)  # farther than the allowance
            far = await _answered(client, session, next_request_id(), ALLOWANCE)
            assert far.credit == ALLOWANCE and far.round_trip == 0.5
            assert (await _answered(client, session, next_request_id(), 0.0)).credit == 0.0

    run(main())


def test_a_link_longer_than_the_allowance_moves_the_deadline_by_the_allowance(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(front_door=True):
            _, session = await live.raw_session("far")
            session.link = _timed(0.5)
            rid = next_request_id()
            # 0.2 s to think, and 0.1 s for its link at most: no reply is a timeout after 0.3 s.
            asked = await session.ask(request(rid), rid, 0.2, 0.1)
            assert asked.fault is not None and asked.fault.kind is FaultKind.TIMEOUT
            assert asked.credit == 0.1
            assert asked.elapsed >= 0.3
            assert asked.fault.detail == "no reply within 200 ms (and 100 ms more for its link)"

    run(main())


def test_the_referee_sends_no_ping_and_a_pong_unasked_for_is_a_stray(live: Arena) -> None:
    """The protocol's Ping is answered by the bot's code, so the referee times nothing by
    it: a bot whose Hello says it answers them gets none, and a Pong is a stray message."""

    async def main() -> None:
        async with live.serving(front_door=True):
            client = live.raw()
            hello = pb.Hello(name="pongs", token=live.token("pongs"), protocol_version=1)
            hello.answers_ping = True
            await client.send(pb.BotMessage(hello=hello))
            welcome = await client.read()
            assert welcome is not None and welcome.WhichOneof("kind") == "welcome"
            await live.wait_connected(["pongs"])
            [session] = await live.borrow(["pongs"])
            await client.send(pb.BotMessage(pong=pb.Pong(nonce=1)))
            for _ in range(3):  # the message after each reply is the next request, no Ping
                answered = await _answered(client, session, next_request_id(), ALLOWANCE)
                assert answered.fault is None
            assert not session.closed and session._stray == 1

    run(main())


def test_a_kit_bot_far_away_is_credited_its_link_and_a_near_one_next_to_nothing(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(front_door=True), LagProxy(live.port, 0.05) as proxy:
            live.spawn("kit_bot", "far", address=proxy.address, remote=True)
            live.spawn("kit_bot", "near", remote=True)
            await live.wait_connected(["far", "near"])
            seats = await live.borrow(["far", "near"])
            far_link, near_link = (seat.link for seat in seats)
            assert far_link is not None and near_link is not None
            assert await until(lambda: not far_link.warming and not near_link.warming, 20)
            assert far_link.estimate is not None and far_link.estimate >= 0.1  # 50 ms each way
            spec = GameSpec("far-game", ("far", "near"), "far-game", Ruleset())
            try:
                record = await Match(spec, seats, SEED, TimeControl(2.0, lag_allowance=0.25)).play()
            finally:
                for seat in seats:
                    await live.lobby.give_back(seat)
            assert record.round_trips[0] is not None and record.round_trips[0] >= 0.1
            assert record.round_trips[1] is not None and record.round_trips[1] < 0.1
            decisions = [e for e in record.events if isinstance(e, Decision)]
            far_credits = [d.credit_ms for d in decisions if d.seat == 0]
            assert far_credits and all(c is not None and 100 <= c <= 250 for c in far_credits)
            near_credits = [d.credit_ms or 0.0 for d in decisions if d.seat == 1]
            assert all(c < 100 for c in near_credits)
            print(
                f"far: link {record.round_trips[0] * 1000:.1f} ms, own times (ms) "
                f"{sorted(d.ms for d in decisions if d.seat == 0)}; near: link "
                f"{record.round_trips[1] * 1000:.3f} ms"
            )

    run(main())


def test_a_bot_behind_the_bridge_has_its_link_timed_without_its_program(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(front_door=True):
            live.spawn("bridged", "bridged", sessions=2, remote=True)
            await live.wait_connected(["bridged"], sessions=2)
            sessions = live.lobby.all_sessions()

            links = [s.link for s in sessions]
            assert len(links) == 2 and all(link is not None for link in links)

            def warmed() -> bool:  # every PING of the warm-up answered, on both sessions
                return not any(link is None or link.warming for link in links)

            assert await until(warmed, 20), live.log("bridged")

    run(main())


def test_a_bot_the_arena_started_is_never_credited_a_link_however_long(live: Arena) -> None:
    """A league server credited every session its measured round trip, its own sandboxed
    bots on its Unix socket too: one answering Pings late gained up to the allowance on every
    decision. A bot the arena started has no link to credit, even one that dials the front
    door through a proxy that makes its link long."""

    async def main() -> None:
        async with live.serving(front_door=True), LagProxy(live.port, 0.05) as proxy:
            live.spawn("kit_bot", "local", address=proxy.address)  # started here, far
            live.spawn("kit_bot", "other")
            await live.wait_connected(["local", "other"])
            seats = await live.borrow(["local", "other"])
            assert all(seat.started_here for seat in seats)
            assert seats[0].link is None  # not timed, not shown, not recorded
            spec = GameSpec("local-game", ("local", "other"), "local-game", Ruleset())
            try:
                record = await Match(spec, seats, SEED, TimeControl(2.0, lag_allowance=0.25)).play()
            finally:
                for seat in seats:
                    await live.lobby.give_back(seat)
            decisions = [e for e in record.events if isinstance(e, Decision)]
            assert decisions and all(d.credit_ms is None for d in decisions)
            assert record.round_trips == [None, None]
            # Its link's time (50 ms each way) is its own: in the wall time, nothing credited.
            # (`ms` alone leaves out the referee's own hold-ups, which on a busy machine can
            # take more of a decision than the link.)
            wall = [d.ms + (d.referee_ms or 0.0) for d in decisions if d.seat == 0]
            assert all(ms >= 50 for ms in wall), wall

    run(main())
