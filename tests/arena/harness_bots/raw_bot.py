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
  oversize     a reply of about BOT_SIZE bytes (default 1 MiB, 16 KiB to 2 MiB), over the
               message size limit
  twice        (from request BOT_AT on) answer every request twice
  flood        send BOT_FLOOD replies to requests never sent, without waiting
After `halfclose` or `cancel` the process lingers BOT_LINGER seconds (default
1), alive, so that the referee can tell a disconnect from a crash; with
BOT_LINGER=0 it exits 0 at once, without waiting for the call to end. When
the call ends it prints its status to stderr ("status OK").

With BOT_PONG_AFTER set (seconds), its Hello says it answers Pings, and it answers each
one that many seconds late, from a task of its own while it goes on answering requests at
once: a bot near the referee that seems far away, to be credited a link it does not have.

BOT_SLEEPS lists seconds to sleep before answering requests 1, 2, ... (comma
separated, e.g. "0.6,0,3"; requests past the list are answered at once), to
spend a controlled share of a time limit.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import sys
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strategy

from arena.protocol import wire
from arena.protocol.messages import referee as pb

PLAY = "/perudo.v1.RefereeService/Play"
MODE = os.environ.get("BOT_MODE", "play")
AT = int(os.environ.get("BOT_AT", "1"))
LINGER = float(os.environ.get("BOT_LINGER", "1"))
RECORD = os.environ.get("BOT_RECORD")
FLOOD = int(os.environ.get("BOT_FLOOD", "500"))
SIZE = int(os.environ.get("BOT_SIZE", str(1024 * 1024)))
SLEEPS = [float(s) for s in os.environ.get("BOT_SLEEPS", "").split(",") if s]
PONG_AFTER = float(os.environ["BOT_PONG_AFTER"]) if "BOT_PONG_AFTER" in os.environ else None


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
    if MODE == "twice":
        return wire.answer_to_proto(strategy.act(obs))
    return None  # halfclose, cancel, oversize, flood: no answer of the usual kind


def huge_reply(request_id: int) -> pb.BotMessage:
    """A dudo for `request_id` carrying BOT_SIZE bytes in a field unknown to the referee."""
    reply = pb.BotMessage(
        reply=pb.ActionReply(request_id=request_id, action=pb.Action(kind=pb.ACTION_KIND_DUDO))
    ).SerializeToString()
    size = SIZE  # three bytes of varint below: 2**14 to 2**21
    varint = bytes([(size >> s & 0x7F) | (0x80 if size >> (s + 7) else 0) for s in (0, 7, 14)])
    return pb.BotMessage.FromString(reply + b"\x7a" + varint + b"x" * size)  # field 15, bytes


def hello() -> pb.Hello:
    return pb.Hello(
        name=os.environ["PERUDO_BOT_NAME"],
        token=os.environ["PERUDO_TOKEN"],
        protocol_version=wire.PROTOCOL_VERSION,
        bot_version="raw_bot",
        answers_ping=PONG_AFTER is not None,
    )


class LatePongs:
    """With BOT_PONG_AFTER: each Pong written that long after its Ping, from a task of its
    own, and the replies written through `write`, so that one write runs at a time."""

    def __init__(self, call: grpc.aio.StreamStreamCall[pb.BotMessage, bytes]) -> None:
        self.call = call
        self._writing = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def pinged(self, message: pb.RefereeMessage) -> bool:
        """Whether `message` is a Ping, answered (later) by a Pong if BOT_PONG_AFTER is set."""
        if not message.HasField("ping"):
            return False
        if PONG_AFTER is not None:
            task = asyncio.ensure_future(self._pong(message.ping.nonce, PONG_AFTER))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return True

    async def write(self, message: pb.BotMessage) -> None:
        async with self._writing:
            await self.call.write(message)

    async def _pong(self, nonce: int, after: float) -> None:
        await asyncio.sleep(after)
        with contextlib.suppress(
            grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError
        ):  # the call ended meanwhile: its status is read in `main`
            await self.write(pb.BotMessage(pong=pb.Pong(nonce=nonce)))


async def main() -> int:
    record = open(RECORD, "a") if RECORD else None  # noqa: SIM115
    asked = 0
    async with grpc.aio.insecure_channel(os.environ["PERUDO_ADDRESS"]) as channel:
        call = channel.stream_stream(
            PLAY,
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=None,  # raw bytes: record exactly what arrived
        )()
        await call.write(pb.BotMessage(hello=hello()))
        late = LatePongs(call)
        try:
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
                if late.pinged(message) or kind != "request":
                    continue
                asked += 1
                if asked <= len(SLEEPS):
                    await asyncio.sleep(SLEEPS[asked - 1])
                action = answer(message.request, asked)
                rid = message.request.request_id
                if action is not None:
                    reply = pb.ActionReply(request_id=rid, action=action)
                    await late.write(pb.BotMessage(reply=reply))
                    if MODE == "twice" and asked >= AT:
                        await call.write(pb.BotMessage(reply=reply))
                elif MODE == "oversize":
                    await call.write(huge_reply(rid))
                elif MODE == "flood":
                    for _ in range(FLOOD):
                        bogus = pb.ActionReply(request_id=0, action=pb.Action(kind=1))
                        await call.write(pb.BotMessage(reply=bogus))
                elif MODE == "halfclose":
                    await call.done_writing()
                    if LINGER == 0:
                        os._exit(0)  # a clean exit, at once
                else:
                    call.cancel()
                    await asyncio.sleep(LINGER)
                    return 0
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass  # the call ended with a status: read it below
        code = await call.code()
        details = await call.details()
        print(f"status {code.name}: {details}", file=sys.stderr, flush=True)
    if MODE == "halfclose":
        await asyncio.sleep(LINGER)
    return 0 if code == grpc.StatusCode.OK else 2


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
