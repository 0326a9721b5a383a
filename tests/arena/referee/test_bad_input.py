"""Nothing a bot sends crashes the referee or stalls another game.

A normal game runs while, at the same time, a seated client answers with
garbage, another floods its session with junk, and gatecrashers open streams
with every kind of bad first message.
"""

from __future__ import annotations

import asyncio
import random

import grpc
from referee_harness import Arena, hello, replay, reply, run

from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb

CALM = ("calm1", "calm2", "calm3")
ROWDY = ("vandal", "rowdy1", "rowdy2")


def junk_first_messages(token: str) -> list[bytes]:
    return [
        b"\xff\xff\xff",
        b"",
        reply(7),
        hello("vandal", "bad-token").SerializeToString(),
        hello("nobody", token).SerializeToString(),
        hello("vandal", token, version=99).SerializeToString(),
        b"\x0a" * 40_000,  # oversized
    ]


def test_abuse_on_other_streams_does_not_disturb_a_game(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(hello_timeout=1.0, goodbye_grace=3.0):  # room for the flood to end
            await live.launch("kit_bot", CALM + ROWDY[1:])
            vandal, vandal_session = await live.raw_session("vandal")
            await live.lobby.give_back(vandal_session)  # seated by the rowdy game below
            spammer, _ = await live.raw_session("spammer")

            async def vandalise() -> list[str]:
                """Answer every request with bytes that are no message at all."""
                kinds = []
                while (message := await vandal.read(20)) is not None:
                    kinds.append(message.WhichOneof("kind"))
                    if kinds[-1] == "request":
                        await vandal.send(b"\xff\xfe\xfd")
                    if kinds[-1] == "game_over":
                        break
                return kinds

            async def spam() -> tuple[grpc.StatusCode, str, list[str]]:
                rng = random.Random(2024)
                for _ in range(400):
                    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(80)))
                    try:
                        await spammer.send(junk)
                    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                        break  # the referee has had enough
                return await spammer.status()

            async def gatecrash(data: bytes | None) -> grpc.StatusCode:
                client = live.raw()
                if data is not None:
                    await client.send(data)
                else:
                    await client.call.wait_for_connection()  # and say nothing
                return (await client.status(timeout=10))[0]

            crashers = [*junk_first_messages(live.token("vandal")), None] * 3
            calm, rowdy, told, spammed, *refused = await asyncio.gather(
                live.play(CALM, game_id="calm"),
                live.play(ROWDY, game_id="rowdy"),
                vandalise(),
                spam(),
                *(gatecrash(data) for data in crashers),
            )

            assert calm.faults == []
            assert sorted(calm.order) == [0, 1, 2]
            assert replay(calm).order == calm.order

            [fault] = rowdy.faults
            assert (fault.bot, fault.fault.kind) == ("vandal", FaultKind.MALFORMED_MESSAGE)
            assert fault.fault.detail == "could not decode a BotMessage from 3 bytes"
            assert rowdy.order[-1] == 0
            assert replay(rowdy).order == rowdy.order
            assert told[-1] == "game_over"

            status, details, _ = spammed
            assert status == grpc.StatusCode.INVALID_ARGUMENT
            assert details.startswith("too many unexpected messages")

            assert grpc.StatusCode.OK not in refused
            assert "spammer" not in live.lobby.connected()
            # And the referee still takes newcomers and plays on.
            await live.raw_session("latecomer")
            again = await live.play(CALM, game_id="calm-again")
            assert again.faults == []

    run(main())


def test_a_flood_of_replies_from_a_seated_bot_does_not_stall_the_others(live: Arena) -> None:
    """A bot that answers each request with a burst of junk before its real answer."""

    async def main() -> None:
        async with live.serving(goodbye_grace=0.3):
            await live.launch("kit_bot", CALM[1:])
            flooder, session = await live.raw_session("flooder")
            await live.lobby.give_back(session)

            async def flood() -> int:
                asked = 0
                try:
                    while (message := await flooder.read(20)) is not None:
                        if message.WhichOneof("kind") != "request":
                            continue
                        asked += 1
                        request = message.request
                        # Replies to a request long answered, dropped one by one ...
                        for _ in range(15):
                            await flooder.send(reply(1))
                        # ... then an answer in time (dudo if allowed, else a smallest bid).
                        if request.dudo_allowed:
                            await flooder.send(reply(request.request_id))
                        else:
                            face = next(f for f in range(6, 0, -1) if request.min_count[f - 1])
                            count = request.min_count[face - 1]
                            action = (pb.ACTION_KIND_BID, count, face)
                            await flooder.send(reply(request.request_id, *action))
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    pass  # the referee closed the stream
                return asked

            names = ("flooder", *CALM[1:])
            flooding = asyncio.ensure_future(flood())
            record = await live.play(names, game_id="flood")
            # Fifteen strays a request pass the limit of twenty during the second
            # flood, before its answer: the session is closed and the flooder is out.
            [fault] = record.faults
            assert (fault.bot, fault.fault.kind) == ("flooder", FaultKind.MALFORMED_MESSAGE)
            assert "too many unexpected messages" in fault.fault.detail
            assert record.think_ms[0] and len(record.think_ms[0]) == 1
            assert record.order[-1] == 0
            assert replay(record).order == record.order
            assert await asyncio.wait_for(flooding, 10) == 2
            status, details, _ = await flooder.status()
            assert status == grpc.StatusCode.INVALID_ARGUMENT
            assert details.startswith("too many unexpected messages")

    run(main())
