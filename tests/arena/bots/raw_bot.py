"""A bot that speaks the wire protocol by hand (no kit), to send what the kit never would.

It records every RefereeMessage it receives, as base64 lines, to the file named
by BOT_RECORD (when set), and plays `strategy.act` except on request number
BOT_AT (counted from 1), where BOT_MODE decides:
  play         nothing special (the default)
  illegal      a bid the rules refuse
  unspecified  an Action with kind ACTION_KIND_UNSPECIFIED (and a count and face)
  dudo_count   a dudo that carries a count and a face
  halfclose    close its side of the stream (done_writing) and answer nothing
  cancel       cancel the call outright
After `halfclose` or `cancel` the process lingers BOT_LINGER seconds (default
1), alive, so that the referee can tell a disconnect from a crash.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strategy

from arena import wire
from arena._proto.perudo.v1 import referee_pb2 as pb

PLAY = "/perudo.v1.RefereeService/Play"
MODE = os.environ.get("BOT_MODE", "play")
AT = int(os.environ.get("BOT_AT", "1"))
LINGER = float(os.environ.get("BOT_LINGER", "1"))
RECORD = os.environ.get("BOT_RECORD")


def answer(request: pb.ActionRequest, number: int) -> pb.Action | None:
    obs = wire.observation_from_proto(request, ())
    if number != AT or MODE == "play":
        return wire.answer_to_proto(strategy.act(obs))
    if MODE == "illegal":
        return wire.answer_to_proto(strategy.illegal(obs))
    if MODE == "unspecified":
        return pb.Action(kind=pb.ACTION_KIND_UNSPECIFIED, count=2, face=3)
    if MODE == "dudo_count":
        return pb.Action(kind=pb.ACTION_KIND_DUDO, count=2, face=3)
    return None  # halfclose, cancel: no answer


async def main() -> int:
    hello = pb.Hello(
        name=os.environ["PERUDO_BOT_NAME"],
        token=os.environ["PERUDO_TOKEN"],
        protocol_version=wire.PROTOCOL_VERSION,
        bot_version="raw_bot",
    )
    record = open(RECORD, "a") if RECORD else None  # noqa: SIM115
    asked = 0
    async with grpc.aio.insecure_channel(os.environ["PERUDO_ADDRESS"]) as channel:
        call = channel.stream_stream(
            PLAY,
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=None,  # raw bytes: record exactly what arrived
        )()
        await call.write(pb.BotMessage(hello=hello))
        while True:
            data = await call.read()
            if data is grpc.aio.EOF:
                break
            if record is not None:
                record.write(base64.b64encode(data).decode() + "\n")
                record.flush()
            message = pb.RefereeMessage.FromString(data)
            kind = message.WhichOneof("kind")
            if kind == "goodbye":
                await call.done_writing()
                break
            if kind != "request":
                continue
            asked += 1
            action = answer(message.request, asked)
            if action is not None:
                reply = pb.ActionReply(request_id=message.request.request_id, action=action)
                await call.write(pb.BotMessage(reply=reply))
            elif MODE == "halfclose":
                await call.done_writing()
            else:
                call.cancel()
                await asyncio.sleep(LINGER)
                return 0
        code = await call.code()
    if MODE == "halfclose":
        await asyncio.sleep(LINGER)
    return 0 if code == grpc.StatusCode.OK else 2


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
