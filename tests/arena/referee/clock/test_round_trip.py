"""A session's link, timed by Pings: what a Pong may and may not make of it.

First the measurement alone (`RoundTrip`, by hand), then through a real referee:
a hand-driven stream that answers Pings as the test says, and kit bots that
dial the referee direct and through a delaying proxy. Every safety property
of the credit is here, in the default suite: none without a Pong timed, none
for a Pong with another nonce, never more than the allowance.
"""

from __future__ import annotations

import asyncio

import pytest
from lag_proxy import LagProxy
from referee_harness import SEED, Arena, RawClient, reply, request, run, until

import arena.referee.clock.round_trip
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.records import Decision
from arena.referee.clock.deadline import TimeControl, network_credit
from arena.referee.clock.round_trip import PING_INTERVAL, WARM_UP, WINDOW, Pinger, RoundTrip
from arena.referee.match import GameSpec, Match
from arena.referee.session.reply import Reply, next_request_id
from arena.referee.session.session import Session
from engine import Ruleset

ALLOWANCE = 0.25


def test_no_estimate_before_a_pong_and_none_from_a_pong_with_another_nonce() -> None:
    trip = RoundTrip()
    assert trip.estimate is None and trip.due(0.0)
    nonce = trip.start(10.0)
    assert nonce != 0 and not trip.due(20.0)  # one Ping out at a time
    assert not trip.answered(nonce ^ 1, 10.1)
    assert not trip.answered(0, 10.1)  # a Pong that sets no nonce
    assert trip.estimate is None
    assert trip.answered(nonce, 10.2)
    assert trip.estimate == pytest.approx(0.2)
    assert not trip.answered(nonce, 10.3)  # the same Pong again times nothing


def test_the_estimate_is_the_least_of_the_recent_window() -> None:
    trip = RoundTrip()
    at = 0.0
    for took in (0.3, 0.1, 0.5):  # one quick Pong among slow ones: the link is the quick one
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


def test_the_warm_up_goes_on_when_a_pong_is_read_before_its_pings_write_has_ended() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        written: list[int] = []
        write_ended = asyncio.Event()

        async def send(message: pb.RefereeMessage) -> bool:
            written.append(message.ping.nonce)
            if len(written) == 2:  # the second Ping's write is slow to end
                await write_ended.wait()
            return True

        pinger = Pinger(loop, send, lambda: False)
        pinger.answers = True
        assert await pinger.ping()
        pinger.pong(written[-1], loop.time())  # the first Pong: the second Ping, on a task
        while len(written) < 2:
            await asyncio.sleep(0)
        pinger.pong(written[-1], loop.time())  # its Pong, read while its write has not ended
        write_ended.set()
        answered = 2
        for _ in range(100):  # each later Ping answered as soon as it is written
            await asyncio.sleep(0)
            if len(written) > answered:
                pinger.pong(written[-1], loop.time())
                answered += 1
        assert not pinger.round_trip.warming, f"{len(written)} Pings written"
        pinger.stop()

    asyncio.run(main())


async def _pinged_session(live: Arena, name: str) -> tuple[RawClient, Session, int]:
    """A hand-driven stream whose Hello says it answers Pings, its session borrowed, and
    the nonce of the Ping that came after its Welcome (not yet answered)."""
    client = live.raw()
    hello = pb.Hello(name=name, token=live.token(name), protocol_version=1, answers_ping=True)
    await client.send(pb.BotMessage(hello=hello))
    welcome = await client.read()
    assert welcome is not None and welcome.WhichOneof("kind") == "welcome"
    ping = await client.read()
    assert ping is not None and ping.WhichOneof("kind") == "ping"
    await live.wait_connected([name])
    [session] = await live.borrow([name])
    return client, session, ping.ping.nonce


def _pong(nonce: int) -> pb.BotMessage:
    return pb.BotMessage(pong=pb.Pong(nonce=nonce))


async def _answered(client: RawClient, session: Session, rid: int, allowance: float) -> Reply:
    """Ask `rid` and answer it at once; a Ping read first is left unanswered."""
    asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0, allowance))
    while (message := await client.read()) is not None and message.HasField("ping"):
        pass
    assert message is not None and message.request.request_id == rid
    await client.send(reply(rid))
    return await asking


def test_no_credit_without_a_timed_pong_and_none_for_a_pong_with_another_nonce(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving():
            client, session, nonce = await _pinged_session(live, "near")
            await client.send(_pong(nonce + 1))  # read before the reply below: ignored
            first = await _answered(client, session, next_request_id(), ALLOWANCE)
            assert first.fault is None and first.credit == 0.0
            assert session.pinger.round_trip.estimate is None and not session.closed
            await client.send(_pong(nonce))
            assert await until(lambda: session.pinger.round_trip.estimate is not None, 10)
            second = await _answered(client, session, next_request_id(), ALLOWANCE)
            expected = network_credit(session.pinger.round_trip.estimate, ALLOWANCE)
            assert second.credit == expected <= ALLOWANCE
            third = await _answered(client, session, next_request_id(), 0.0)
            assert third.credit == 0.0  # no allowance, no credit

    run(main())


def test_a_bot_that_delays_its_pongs_gains_no_more_than_the_allowance(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session, nonce = await _pinged_session(live, "liar")
            await asyncio.sleep(0.5)  # seeming half a second away
            await client.send(_pong(nonce))
            assert await until(lambda: session.pinger.round_trip.estimate is not None, 10)
            assert session.pinger.round_trip.estimate >= 0.5  # type: ignore[operator]
            rid = next_request_id()
            # 0.2 s to think, and 0.1 s for its link at most: no reply is a timeout after 0.3 s.
            asked = await session.ask(request(rid), rid, 0.2, 0.1)
            assert asked.fault is not None and asked.fault.kind is FaultKind.TIMEOUT
            assert asked.credit == 0.1
            assert asked.elapsed >= 0.3
            assert asked.fault.detail == "no reply within 200 ms (and 100 ms more for its link)"

    run(main())


def test_a_session_warms_up_with_pings_back_to_back_before_its_first_game(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving():
            client, session, nonce = await _pinged_session(live, "idle")
            for _ in range(WARM_UP - 1):  # each Pong brings the next Ping, with no game
                await client.send(_pong(nonce))
                ping = await client.read()
                assert ping is not None and ping.HasField("ping") and ping.ping.nonce != nonce
                nonce = ping.ping.nonce
            await client.send(_pong(nonce))
            assert await until(lambda: not session.pinger.round_trip.warming, 10)
            rid = next_request_id()  # warmed up: the next message is the request, no Ping
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0))
            message = await client.read()
            assert message is not None and message.request.request_id == rid
            await client.send(reply(rid))
            assert (await asking).fault is None

    run(main())


def test_a_bot_that_says_nothing_of_pings_is_never_pinged_nor_credited(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session("plain")
            for _ in range(3):  # the message after each reply is the next request, no Ping
                rid = next_request_id()
                asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0, ALLOWANCE))
                message = await client.read()
                assert message is not None and message.request.request_id == rid
                await client.send(reply(rid))
                answered = await asking
                assert answered.credit == 0.0
            assert session.pinger.round_trip.estimate is None
            await client.send(_pong(1))  # unasked for: a stray, ignored
            await _answered(client, session, next_request_id(), ALLOWANCE)
            assert session.pinger.round_trip.estimate is None and not session.closed

    run(main())


def test_no_ping_is_written_while_a_request_awaits_its_reply(
    live: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        arena.referee.clock.round_trip, "PING_INTERVAL", 0.0
    )  # a Ping whenever free

    async def main() -> None:
        async with live.serving():
            client, session, nonce = await _pinged_session(live, "busy")
            await client.send(_pong(nonce))
            pings: list[bool] = []

            async def spy(message: pb.RefereeMessage) -> bool:
                assert message.HasField("ping")
                pings.append(session._pending is None)  # the property itself
                return await session.send(message)

            session.pinger._send = spy  # what the pinger writes its Pings through
            for _ in range(8):
                rid = next_request_id()
                asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0))
                while (message := await client.read()) is not None:
                    if message.WhichOneof("kind") == "ping":
                        await client.send(_pong(message.ping.nonce))
                        continue
                    assert message.request.request_id == rid
                    await asyncio.sleep(0.01)  # thinking, while no Ping may come
                    await client.send(reply(rid))
                    break
                assert (await asking).fault is None
            assert len(pings) >= 4 and all(pings), pings

    run(main())


def test_a_kit_bot_far_away_is_credited_its_link_and_a_near_one_next_to_nothing(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(), LagProxy(live.port, 0.05) as proxy:
            live.spawn("kit_bot", "far", address=proxy.address, remote=True)
            live.spawn("kit_bot", "near", remote=True)
            await live.wait_connected(["far", "near"])
            seats = await live.borrow(["far", "near"])
            far, near = seats
            assert await until(lambda: far.pinger.round_trip.estimate is not None, 20)
            assert await until(lambda: near.pinger.round_trip.estimate is not None, 20)
            assert far.pinger.round_trip.estimate >= 0.1  # type: ignore[operator]  # 50 ms each way
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


def test_a_bot_behind_the_bridge_answers_pings_without_its_program(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            live.spawn("bridged", "bridged", sessions=2)
            await live.wait_connected(["bridged"], sessions=2)
            sessions = live.lobby.all_sessions()

            def warmed() -> bool:  # every Ping of the warm-up answered, on both sessions
                return not any(s.pinger.round_trip.warming for s in sessions)

            assert await until(warmed, 20), live.log("bridged")
            assert all(s.pinger.round_trip.estimate is not None for s in sessions)

    run(main())


def test_a_bot_the_arena_started_is_never_credited_a_link_however_slow_its_pongs(
    live: Arena,
) -> None:
    """A league server credited every session its measured round trip, its own sandboxed
    bots on its Unix socket too: one answering Pings late gained up to the allowance on every
    decision. A bot the arena started has no link to credit, whatever its pings say."""

    async def main() -> None:
        async with live.serving(), LagProxy(live.port, 0.05) as proxy:
            live.spawn("kit_bot", "local", address=proxy.address)  # started here, pongs late
            live.spawn("kit_bot", "other")
            await live.wait_connected(["local", "other"])
            seats = await live.borrow(["local", "other"])
            assert all(seat.started_here for seat in seats)
            assert await until(lambda: seats[0].pinger.round_trip.estimate is not None, 20)
            assert seats[0].pinger.round_trip.estimate >= 0.1  # type: ignore[operator]
            spec = GameSpec("local-game", ("local", "other"), "local-game", Ruleset())
            try:
                record = await Match(spec, seats, SEED, TimeControl(2.0, lag_allowance=0.25)).play()
            finally:
                for seat in seats:
                    await live.lobby.give_back(seat)
            decisions = [e for e in record.events if isinstance(e, Decision)]
            assert decisions and all(d.credit_ms is None for d in decisions)
            own = [d.ms for d in decisions if d.seat == 0]
            assert all(ms >= 50 for ms in own), own  # its link's time (50 ms each way) is its own

    run(main())


def test_a_remote_bot_answering_pings_late_gains_the_allowance_at_most_a_decision(
    live: Arena,
) -> None:
    """A remote bot's link is timed by Pongs its own code writes: one that writes them late
    seems far away, and is credited the allowance on a decision, never more, while an honest
    far bot in the same game is credited its whole link on every decision, however long the
    game (a cap per game charged it its link once the cap was spent)."""

    async def main() -> None:
        async with live.serving(), LagProxy(live.port, 0.05) as proxy:
            live.spawn("raw_bot", "liar", remote=True, BOT_PONG_AFTER=0.4)  # near, seems far
            live.spawn("kit_bot", "far", address=proxy.address, remote=True)  # 50 ms each way
            await live.wait_connected(["liar", "far"])
            seats = await live.borrow(["liar", "far"])
            liar, far = seats
            assert not liar.started_here and not far.started_here
            assert await until(lambda: liar.pinger.round_trip.estimate is not None, 20)
            assert await until(lambda: far.pinger.round_trip.estimate is not None, 20)
            assert liar.pinger.round_trip.estimate >= 0.4  # type: ignore[operator]
            spec = GameSpec("liar-game", ("liar", "far"), "liar-game", Ruleset())
            try:
                record = await Match(
                    spec, seats, SEED, TimeControl(2.0, lag_allowance=ALLOWANCE)
                ).play()
            finally:
                for seat in seats:
                    await live.lobby.give_back(seat)
            decisions = [e for e in record.events if isinstance(e, Decision)]
            liar_credits = [d.credit_ms or 0.0 for d in decisions if d.seat == 0]
            assert liar_credits and max(liar_credits) <= ALLOWANCE * 1000 + 0.01, liar_credits
            far_credits = [d.credit_ms or 0.0 for d in decisions if d.seat == 1]
            assert far_credits and all(c >= 100.0 - 0.01 for c in far_credits), far_credits

    run(main())
