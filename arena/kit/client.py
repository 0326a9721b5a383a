"""The bot side of the protocol: dial, say hello, answer requests, go home.

One channel, several `Play` streams (sessions) on it, each answering its
requests in order. A game's rounds are remembered per session so that the
bot sees the whole public history of its game, not only what is new.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from arena import wire
from arena._proto.perudo.v1 import referee_pb2 as pb
from arena._proto.perudo.v1 import referee_pb2_grpc as pb_grpc
from engine import Observation, RoundOutcome

Policy = Callable[[Observation], wire.Answer]
GameOverHook = Callable[[pb.GameOver], None]

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs


@dataclass(frozen=True, slots=True)
class Connection:
    address: str
    name: str
    token: str
    sessions: int = 1
    connect_timeout: float = 15.0
    bot_version: str = ""


class RefusedError(Exception):
    """The referee refused the session (wrong token, unknown name, bad version)."""


class _Session:
    def __init__(self, policy: Policy, on_game_over: GameOverHook | None) -> None:
        self._policy = policy
        self._on_game_over = on_game_over
        self._history: dict[str, tuple[RoundOutcome, ...]] = {}

    def answer(self, request: pb.ActionRequest) -> pb.BotMessage:
        known = self._history.get(request.game_id, ())
        if request.results:
            known += tuple(wire.outcome_from_proto(r) for r in request.results)
            self._history[request.game_id] = known
        obs = wire.observation_from_proto(request, known)
        action = wire.answer_to_proto(self._policy(obs))
        return pb.BotMessage(reply=pb.ActionReply(request_id=request.request_id, action=action))

    def game_over(self, message: pb.GameOver) -> None:
        self._history.pop(message.game_id, None)
        if message.HasField("fault"):
            print(
                f"fault in game {message.game_id}: {pb.FaultKind.Name(message.fault.kind)}: "
                f"{message.fault.detail}",
                file=sys.stderr,
            )
        if self._on_game_over is not None:
            self._on_game_over(message)


async def _play(
    channel: grpc.aio.Channel, conn: Connection, policy: Policy, on_game_over: GameOverHook | None
) -> None:
    stub = pb_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play()
    hello = pb.Hello(
        name=conn.name,
        token=conn.token,
        protocol_version=wire.PROTOCOL_VERSION,
        bot_version=conn.bot_version,
    )
    await call.write(pb.BotMessage(hello=hello))
    session = _Session(policy, on_game_over)
    try:
        while True:
            message = await call.read()
            if message is _EOF:
                return
            kind = message.WhichOneof("kind")
            if kind == "request":
                await call.write(session.answer(message.request))
            elif kind == "game_over":
                session.game_over(message.game_over)
            elif kind == "goodbye":
                await call.done_writing()
                return
    except grpc.aio.AioRpcError as error:
        if error.code() in {
            grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.FAILED_PRECONDITION,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        }:
            raise RefusedError(f"{error.code().name}: {error.details()}") from None
        if error.code() in {grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE}:
            return  # the referee went away: nothing more to play
        raise


async def serve(conn: Connection, policy: Policy, on_game_over: GameOverHook | None = None) -> None:
    """Play every game the referee sends over `conn.sessions` sessions, then return."""
    async with grpc.aio.insecure_channel(conn.address) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), conn.connect_timeout)
        except TimeoutError:
            raise ConnectionError(
                f"no referee answered at {conn.address} within {conn.connect_timeout:.0f} s"
            ) from None
        await asyncio.gather(
            *(_play(channel, conn, policy, on_game_over) for _ in range(conn.sessions))
        )
