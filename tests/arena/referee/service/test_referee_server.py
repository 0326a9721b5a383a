"""The referee's front door: who gets a session, who is refused and how, and shutdown."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import grpc
import pytest
from referee_harness import Arena, hello, reply, run, until

from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.session.session import Session

BOT = "bot"


def refusals(token: str) -> dict[str, tuple[bytes, grpc.StatusCode, str]]:
    def raw(message: pb.BotMessage) -> bytes:
        return message.SerializeToString()

    return {
        "wrong token": (
            raw(hello(BOT, token + "x")),
            grpc.StatusCode.UNAUTHENTICATED,
            "wrong token for bot 'bot'",
        ),
        "empty token": (
            raw(hello(BOT, "")),
            grpc.StatusCode.UNAUTHENTICATED,
            "wrong token for bot 'bot'",
        ),
        "unknown name": (
            raw(hello("stranger", token)),
            grpc.StatusCode.PERMISSION_DENIED,
            "no bot named 'stranger' is registered here",
        ),
        "protocol version 2": (
            raw(hello(BOT, token, version=2)),
            grpc.StatusCode.FAILED_PRECONDITION,
            "protocol version 2 is not spoken here; this referee speaks version 1",
        ),
        "protocol version 0": (
            raw(hello(BOT, token, version=0)),
            grpc.StatusCode.FAILED_PRECONDITION,
            "protocol version 0 is not spoken here",
        ),
        "a reply first": (
            reply(1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "the first message must be a Hello",
        ),
        "an empty message": (
            b"",
            grpc.StatusCode.INVALID_ARGUMENT,
            "the first message must be a Hello",
        ),
        "garbage bytes": (
            b"\xff\xff\xff\xff\xff",
            grpc.StatusCode.INVALID_ARGUMENT,
            "the first message is not a BotMessage",
        ),
        "a truncated Hello": (
            raw(hello(BOT, token))[:-3],
            grpc.StatusCode.INVALID_ARGUMENT,
            "the first message is not a BotMessage",
        ),
        "no name": (raw(hello("", token)), grpc.StatusCode.INVALID_ARGUMENT, "Hello has no name"),
        "an oversized Hello": (
            raw(pb.BotMessage(hello=pb.Hello(name=BOT, token=token, bot_version="v" * 20_000))),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "larger than max",
        ),
    }


CASES = list(refusals("t"))


@pytest.mark.parametrize("case", CASES)
def test_a_bad_hello_is_refused_with_its_status(live: Arena, case: str) -> None:
    async def main() -> None:
        async with live.serving():
            data, code, words = refusals(live.token(BOT))[case]
            client = live.raw()
            await client.send(data)
            status, details, kinds = await client.status()
            assert status == code
            assert words in details
            assert kinds == []  # no Welcome
            assert live.lobby.connected() == {}
            # The referee is unharmed: the right Hello is still welcome.
            good = live.raw()
            await good.send(hello(BOT, live.token(BOT)))
            welcome = await good.read()
            assert welcome is not None and welcome.WhichOneof("kind") == "welcome"

    run(main())


def test_a_welcome_states_the_limits(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(move_time=0.25, max_message_bytes=4096):
            client = live.raw()
            await client.send(hello(BOT, live.token(BOT)))
            message = await client.read()
            assert message is not None
            welcome = message.welcome
            assert welcome.protocol_version == 1
            assert welcome.limits.max_message_bytes == 4096
            assert welcome.limits.move_time_ms == 250
            assert len(welcome.session_id) >= 8
            await live.wait_connected([BOT])

    run(main())


def test_a_client_that_says_nothing_is_closed_after_the_hello_timeout(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(hello_timeout=0.5):
            client = live.raw()
            started = time.monotonic()
            await client.call.wait_for_connection()
            status, details, kinds = await client.status()
            waited = time.monotonic() - started
            assert status == grpc.StatusCode.DEADLINE_EXCEEDED
            assert details == "no Hello within 0.5 s of opening the stream"
            assert kinds == []
            assert 0.4 <= waited < 3

    run(main())


def test_an_oversized_message_in_a_session_ends_it(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            await client.send(reply(1, count=1) + b"\x22" + b"\x01" * 20_000)
            status, details, _ = await client.status()
            assert status == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "larger than max" in details
            assert await until(lambda: session.closed and not live.lobby.connected(), 5)

    run(main())


def test_too_many_sessions_for_one_name(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(max_sessions_per_bot=2):
            first, _ = await live.raw_session(BOT)
            await live.raw_session(BOT)
            third = live.raw()
            await third.send(hello(BOT, live.token(BOT)))
            status, details, kinds = await third.status()
            assert status == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert details == "bot 'bot' already has 2 sessions open, the limit"
            assert kinds == []
            assert live.lobby.connected() == {BOT: 2}
            # When a session ends, its place is free again.
            await first.call.done_writing()
            assert await until(lambda: live.lobby.connected() == {BOT: 1}, 5)
            await live.raw_session(BOT)
            assert live.lobby.connected() == {BOT: 2}

    run(main())


@pytest.mark.parametrize("slow_network", [False, True])
def test_a_burst_of_sessions_is_each_welcomed_within_the_cap_or_refused_before_a_welcome(
    live: Arena, monkeypatch: pytest.MonkeyPatch, slow_network: bool
) -> None:
    """Many Hellos under one name at once, well over its cap: never welcomed then refused.

    On a slow network every Hello is read before the first Welcome is written.
    """
    if slow_network:
        send = Session.send

        async def slow_welcome(
            self: Session, message: pb.RefereeMessage, timeout: float = 5
        ) -> bool:
            if message.WhichOneof("kind") == "welcome":
                await asyncio.sleep(0.05)  # other Hellos get in meanwhile
            return await send(self, message, timeout)

        monkeypatch.setattr(Session, "send", slow_welcome)
    cap, burst = 16, 64

    async def main() -> None:
        async with live.serving(max_sessions_per_bot=cap):
            clients = [live.raw() for _ in range(burst)]
            for client in clients:
                await client.call.wait_for_connection()
            await asyncio.gather(*(c.send(hello(BOT, live.token(BOT))) for c in clients))
            assert await until(lambda: live.referee.unauthenticated() == 0, 10)
            assert await until(lambda: live.lobby.connected() == {BOT: cap}, 10)
            # Every refusal has reached its client before the stop: on a busy machine one
            # still on its way would be cut short by the stop, not refused.
            refusals = burst - cap
            assert await until(lambda: sum(c.call.done() for c in clients) == refusals, 60)
            await live.referee.stop()
            outcomes = [await c.status() for c in clients]
            welcomed = [o for o in outcomes if o[2]]
            refused = [o for o in outcomes if not o[2]]
            assert len(welcomed) == cap
            assert all(kinds == ["welcome", "goodbye"] for _, _, kinds in welcomed)
            assert all(status == grpc.StatusCode.OK for status, _, _ in welcomed)
            assert refused and all(
                (status, details)
                == (
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"bot 'bot' already has {cap} sessions open, the limit",
                )
                for status, details, _ in refused
            )

    run(main())


def test_a_place_held_for_a_session_that_never_joins_is_given_back(live: Arena) -> None:
    """A session gone before its Welcome is written leaves its place to the next one."""

    async def main() -> None:
        async with live.serving(max_sessions_per_bot=1):
            for _ in range(3):
                gone = live.raw()
                await gone.send(hello(BOT, live.token(BOT)))
                await gone.close()
            assert await until(lambda: live.referee.unauthenticated() == 0, 10)
            await live.raw_session(BOT)
            assert await until(lambda: live.lobby.connected() == {BOT: 1}, 5)

    run(main())


def test_stop_with_an_idle_kit_bot_is_prompt(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(goodbye_grace=30.0):
            proc = live.spawn("kit_bot", BOT, sessions=2)
            await live.wait_connected([BOT], sessions=2)
            started = time.monotonic()
            await live.referee.stop()
            # The bot hangs up on Goodbye, so nobody waits out the (long) grace.
            assert time.monotonic() - started < 15
            assert await live.wait_exit(proc, 30) == 0
            assert live.lobby.connected() == {}

    run(main())


def test_stop_does_not_wait_for_clients_that_ignore_goodbye(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(goodbye_grace=0.5, hello_timeout=60):
            deaf, _ = await live.raw_session(BOT)  # never closes its side
            silent = live.raw()  # never says Hello
            await silent.call.wait_for_connection()
            started = time.monotonic()
            await asyncio.wait_for(live.referee.stop(), 30)
            assert time.monotonic() - started < 20  # the grace, far short of the Hello timeout
            status, _, kinds = await deaf.status()
            assert (status, kinds) == (grpc.StatusCode.OK, ["goodbye"])
            status, _, _ = await silent.status()
            assert status != grpc.StatusCode.OK

    run(main())


def test_stop_during_a_game_ends_the_game(live: Arena) -> None:
    async def main() -> None:
        names = ("slow1", "slow2")
        async with live.serving(goodbye_grace=0.5):
            for name in names:
                live.spawn("kit_bot", name, BOT_MODE="slow", BOT_SLEEP=0.05)
            await live.wait_connected(names)
            game = asyncio.ensure_future(live.play(names, move_time=60.0))
            await asyncio.sleep(0.3)
            assert not game.done()
            started = time.monotonic()
            await live.referee.stop()
            record = await asyncio.wait_for(game, 30)
            assert time.monotonic() - started < 20  # not the move time: the game ends now
            assert sorted(record.order) == [0, 1]
            # The sessions are gone, so the seat to act is out (as a disconnect, or as a
            # crash when its bot has already left after the Goodbye) and the game ends.
            assert len(record.faults) == 1
            assert record.faults[0].fault.kind in {FaultKind.DISCONNECT, FaultKind.CRASH}
            assert "goodbye: the referee is shutting down" in record.faults[0].fault.detail
            for proc in live.procs:
                assert await live.wait_exit(proc) == 0

    run(main())


def test_streams_waiting_for_their_hello_are_capped_per_peer_and_overall(live: Arena) -> None:
    """Over a cap, a stream waits its turn; it is refused only if none comes in time."""

    async def main() -> None:
        async with live.serving(hello_timeout=5):
            live.referee.limits = dataclasses.replace(
                live.limits, max_unauthenticated_per_peer=3, max_unauthenticated=100
            )
            silent = [live.raw() for _ in range(3)]
            for client in silent:
                await client.call.wait_for_connection()
            assert await until(lambda: live.referee.unauthenticated() == 3, 5)
            # One more from the same address waits: its Hello is not even read.
            waiting = live.raw()
            await waiting.send(hello(BOT, live.token(BOT)))
            answer = asyncio.ensure_future(waiting.read(timeout=10))
            await asyncio.sleep(0.5)
            assert not answer.done()
            assert live.referee.unauthenticated() == 3
            # A stream that says Hello leaves the queue: the waiting one gets its turn.
            await silent[0].send(hello(BOT, live.token(BOT)))
            assert (await silent[0].read()) is not None
            welcome = await answer
            assert welcome is not None and welcome.WhichOneof("kind") == "welcome"
            # The cap over all addresses holds the same way.
            live.referee.limits = dataclasses.replace(
                live.limits, max_unauthenticated_per_peer=100, max_unauthenticated=2
            )
            blocked = live.raw()
            await blocked.send(hello(BOT, live.token(BOT)))
            answer = asyncio.ensure_future(blocked.read(timeout=10))
            await asyncio.sleep(0.5)
            assert not answer.done()
            await silent[1].send(hello(BOT, live.token(BOT)))
            welcome = await answer
            assert welcome is not None and welcome.WhichOneof("kind") == "welcome"

    run(main())


def test_a_stream_that_never_gets_a_turn_is_refused(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(hello_timeout=0.5):
            live.referee.limits = dataclasses.replace(live.limits, max_unauthenticated=0)
            client = live.raw()
            await client.send(hello(BOT, live.token(BOT)))
            status, details, kinds = await client.status()
            assert status == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert details.startswith("too many streams waiting to say Hello")
            assert kinds == []

    run(main())
