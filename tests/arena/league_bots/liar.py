"""A bot that seems far away: it answers every Ping, but PERUDO_TEST_PONG_DELAY seconds late,
and thinks PERUDO_TEST_DELAY seconds over each decision (dudo when it may, else the least
bid). Written on the wire by hand: the kit answers Pings at once."""

from __future__ import annotations

import asyncio
import os
import sys

import grpc

from arena.protocol.messages import referee as pb

PLAY = "/perudo.v1.RefereeService/Play"
PONG_DELAY = float(os.environ.get("PERUDO_TEST_PONG_DELAY", "1"))
DELAY = float(os.environ.get("PERUDO_TEST_DELAY", "0"))


def decide(request: pb.ActionRequest) -> pb.Action:
    if request.kind == pb.REQUEST_KIND_CALZA_OFFER:
        return pb.Action(kind=pb.ACTION_KIND_PASS)
    if request.dudo_allowed:
        return pb.Action(kind=pb.ACTION_KIND_DUDO)
    face = next(f for f in range(1, 7) if request.min_count[f - 1])
    return pb.Action(kind=pb.ACTION_KIND_BID, count=request.min_count[face - 1], face=face)


async def main() -> int:
    async with grpc.aio.insecure_channel(os.environ["PERUDO_ADDRESS"]) as channel:
        call = channel.stream_stream(
            PLAY,
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )()
        writing = asyncio.Lock()  # a Pong and a reply may be ready at once: one write at a time

        async def write(message: pb.BotMessage, after: float = 0.0) -> None:
            await asyncio.sleep(after)
            async with writing:
                await call.write(message)

        pongs: set[asyncio.Task[None]] = set()
        hello = pb.Hello(
            name=os.environ["PERUDO_BOT_NAME"],
            token=os.environ["PERUDO_TOKEN"],
            protocol_version=1,
            answers_ping=True,
        )
        await call.write(pb.BotMessage(hello=hello))
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                kind = message.WhichOneof("kind")
                if kind == "ping":
                    pong = pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce))
                    task = asyncio.ensure_future(write(pong, PONG_DELAY))
                    pongs.add(task)
                    task.add_done_callback(pongs.discard)
                elif kind == "request":
                    await asyncio.sleep(DELAY)
                    action = decide(message.request)
                    reply = pb.ActionReply(request_id=message.request.request_id, action=action)
                    await write(pb.BotMessage(reply=reply))
                elif kind == "goodbye":
                    await call.done_writing()
                    break
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            print(f"liar: the stream ended: {error}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
