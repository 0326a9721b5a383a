"""What grpc may hold for the referee's clients: the bounds are set where grpc applies them."""

from __future__ import annotations

import asyncio

import grpc
from referee_harness import Arena, run, until

from arena.protocol.messages import referee as pb
from arena.referee.service import bounds
from arena.referee.service.referee_server import ServerLimits
from arena.referee.session.reply import REASON_CHARS

BOT = "bot"


def test_a_hello_past_grpcs_limit_is_refused_by_grpc_with_the_reason(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            limit = bounds.grpc_message_limit(live.limits.max_message_bytes)
            padded = pb.Hello(name=BOT, token=live.token(BOT), bot_version="v" * 200_000)
            client = live.raw()
            await client.send(pb.BotMessage(hello=padded))
            status, details, kinds = await client.status()
            assert status == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "Received message larger than max (2000" in details
            assert details.endswith(f" vs. {limit})")
            assert kinds == []
            # The referee is unharmed: the right Hello is still welcome.
            await live.raw_session(BOT)

    run(main())


def test_streams_past_the_cap_are_refused_at_once_and_a_session_still_joins(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(max_streams=4, hello_timeout=10):
            silent = [live.raw() for _ in range(4)]
            for client in silent:
                await client.call.wait_for_connection()
            assert await until(lambda: live.referee.unauthenticated() == 4, 10)
            extra = live.raw()
            with_reason = await extra.status()
            assert with_reason[:2] == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "Concurrent RPC limit exceeded!",
            )
            for client in silent:
                await client.close()
            await until(lambda: live.referee.unauthenticated() == 0, 10)
            await asyncio.sleep(0.1)  # the closed streams leave grpc's count too
            await live.raw_session(BOT)

    run(main())


def test_the_bounds_cover_a_bot_with_the_most_sessions() -> None:
    options = dict(bounds.server_options(16 * 1024, sessions_per_bot=8))
    assert options["grpc.max_concurrent_streams"] > bounds.BOT_SESSIONS
    assert options["grpc.max_receive_message_length"] == 32 * 1024
    assert options["grpc.http2.bdp_probe"] == 0
    wide = dict(bounds.server_options(16 * 1024, sessions_per_bot=200))
    assert wide["grpc.max_concurrent_streams"] > 200


def test_the_largest_legitimate_messages_are_far_under_the_limits() -> None:
    """A Hello as the kit sends it at the longest name, and a bid at the widest numbers with
    the longest reason the referee keeps (in four-byte characters): about 1.2 KiB."""
    hello = pb.Hello(name="n" * 40, token="t" * 32, protocol_version=1, bot_version="n" * 40)
    bid = pb.Action(kind=pb.ACTION_KIND_BID, count=2**32 - 1, face=6)
    reply = pb.ActionReply(request_id=2**64 - 1, action=bid, reason="\U0001f600" * REASON_CHARS)
    largest = max(
        len(pb.BotMessage(hello=hello).SerializeToString()),
        len(pb.BotMessage(reply=reply).SerializeToString()),
    )
    limit = ServerLimits().max_message_bytes
    print(f"largest legitimate message {largest} bytes; the referee's limit {limit}")
    assert 8 * largest < limit < bounds.grpc_message_limit(limit)
