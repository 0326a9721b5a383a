"""The bot side of the protocol: dial, say hello, answer requests, go home.

One channel, several `Play` streams (sessions) on it. Each session gets a
`Handler` of its own that turns requests into actions: `PolicyHandler` for a
Python function, or the JSON-lines bridge for a program in any language.

Every session says in its Hello that it answers pings, and answers each at
once, before anything else it reads, for a referee that still sends them (an
older one timed the link by them). A league server times the link beneath
the kit now, by HTTP/2 PINGs that gRPC answers itself. The handler sees
neither.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import grpc

from arena.kit.clock import DecisionClock, TimedObservation
from arena.kit.dialing import diagnose
from arena.kit.errors import NoRefereeError, RefusedError, SessionLostError
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from arena.protocol.messages import referee_grpc as pb_grpc
from engine import RoundOutcome, Ruleset

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs

Policy = Callable[[TimedObservation], wire.Answer]
"""A function of the game's view and its clock; one of an `engine.Observation` alone fits too."""
GameOverHook = Callable[[pb.GameOver], None]

UNIX_SERVER_NAME = "localhost"
"""The name a certificate is checked against on a Unix socket."""

_REFUSALS = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.INVALID_ARGUMENT,
}


@dataclass(frozen=True, slots=True)
class Connection:
    address: str
    name: str
    token: str
    sessions: int = 1
    connect_timeout: float = 15.0
    bot_version: str = ""
    tls: bool = False
    """Dial with TLS (a league server on the network)."""
    ca_file: str | None = None
    """A CA certificate to trust instead of the system's (a self-signed server)."""

    def channel(self) -> grpc.aio.Channel:
        if not self.tls:
            return grpc.aio.insecure_channel(self.address)
        roots = Path(self.ca_file).read_bytes() if self.ca_file else None
        # A Unix socket's server is `localhost`, as grpc-go and grpc-js name it; Python's
        # gRPC would name it by its path, which no certificate is made out to.
        unix = self.address.startswith(("unix:", "unix-abstract:"))
        options = [("grpc.default_authority", UNIX_SERVER_NAME)] if unix else []
        return grpc.aio.secure_channel(
            self.address, grpc.ssl_channel_credentials(roots), options=options
        )


class Handler(Protocol):
    """Answers the requests of one session."""

    async def open(self) -> None:
        """Get ready before the session says hello (start a program, say)."""
        ...

    async def request(self, request: pb.ActionRequest) -> pb.Action | pb.ActionReply:
        """The action; or a whole reply, to give a `reason` with it (the session sets its id)."""
        ...

    async def game_over(self, message: pb.GameOver) -> None: ...

    async def close(self) -> None: ...


@dataclass(slots=True)
class _Game:
    """What a handler keeps of a game in progress: its ruleset, read from the first
    request (a game's never changes), and the rounds told so far."""

    ruleset: Ruleset
    history: tuple[RoundOutcome, ...] = ()


class PolicyHandler:
    """A Python policy; remembers each game's rounds so it sees the whole history."""

    def __init__(self, policy: Policy, on_game_over: GameOverHook | None = None) -> None:
        self._policy = policy
        self._on_game_over = on_game_over
        self._games: dict[str, _Game] = {}

    async def open(self) -> None:
        return None

    async def request(self, request: pb.ActionRequest) -> pb.Action:
        clock = DecisionClock.of(request, time.monotonic())
        game = self._games.get(request.game_id)
        if game is None:
            game = self._games[request.game_id] = _Game(wire.ruleset_from_proto(request.ruleset))
        if request.results:
            game.history += tuple([wire.outcome_from_proto(r) for r in request.results])
        view = wire.view_from_proto(
            TimedObservation, request, game.history, game.ruleset, clock=clock
        )
        return wire.answer_to_proto(self._policy(view))

    async def game_over(self, message: pb.GameOver) -> None:
        self._games.pop(message.game_id, None)
        if message.HasField("fault"):
            print(
                f"fault in game {message.game_id}: {pb.FaultKind.Name(message.fault.kind)}: "
                f"{message.fault.detail}",
                file=sys.stderr,
            )
        if self._on_game_over is not None:
            self._on_game_over(message)

    async def close(self) -> None:
        return None


async def _session(channel: grpc.aio.Channel, conn: Connection, handler: Handler) -> None:
    await handler.open()
    stub = pb_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play()
    hello = pb.Hello(
        name=conn.name,
        token=conn.token,
        protocol_version=wire.PROTOCOL_VERSION,
        bot_version=conn.bot_version,
        answers_ping=True,
    )
    await call.write(pb.BotMessage(hello=hello))
    try:
        while True:
            message = await call.read()
            if message is _EOF:
                raise SessionLostError(
                    f"the referee ended the session without a Goodbye ({(await call.code()).name})"
                )
            kind = message.WhichOneof("kind")
            if kind == "request":
                answer = await handler.request(message.request)
                # Filled in place: building an ActionReply to copy into a BotMessage copies twice.
                out = pb.BotMessage()
                reply = out.reply
                if isinstance(answer, pb.ActionReply):
                    reply.CopyFrom(answer)
                else:
                    reply.action.CopyFrom(answer)
                reply.request_id = message.request.request_id
                if not await _answer(call, out, conn.name):
                    return
            elif kind == "ping":
                pong = pb.BotMessage()
                pong.pong.nonce = message.ping.nonce
                if not await _answer(call, pong, conn.name):
                    return
            elif kind == "game_over":
                await handler.game_over(message.game_over)
            elif kind == "goodbye":
                await call.done_writing()
                return
    except grpc.aio.AioRpcError as error:
        if error.code() in _REFUSALS:
            raise RefusedError(f"{error.code().name}: {error.details()}") from None
        raise SessionLostError(
            f"the session ended without a Goodbye: {error.code().name}: {error.details()}"
        ) from None
    finally:
        await handler.close()


async def _answer(
    call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.RefereeMessage],
    message: pb.BotMessage,
    name: str,
) -> bool:
    """Write a reply or a Pong; False when the session is over (the referee ended the
    stream while the bot was thinking, past the grace it gives after a Goodbye, say)."""
    try:
        await call.write(message)
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
        # A refusal still says why; grpc reports anything else as INTERNAL.
        code = await call.code()
        if code in _REFUSALS:
            raise RefusedError(f"{code.name}: {await call.details()}") from None
        print(f"{name}: the session ended while answering ({code.name})", file=sys.stderr)
        return False
    return True


async def _ready(channel: grpc.aio.Channel, conn: Connection) -> None:
    """Wait until the channel is ready; each time it fails, find out whether it ever can be.

    A bot dialling a TLS port in plaintext (or the reverse, or distrusting the
    certificate) is told so at once, rather than after its whole timeout.
    """
    state = channel.get_state(try_to_connect=True)
    while state is not grpc.ChannelConnectivity.READY:
        if state is grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            why = await asyncio.to_thread(diagnose, conn.address, conn.tls, conn.ca_file)
            if why is not None:
                raise NoRefereeError(why)
        await channel.wait_for_state_change(state)
        state = channel.get_state(try_to_connect=True)


async def serve_sessions(conn: Connection, make_handler: Callable[[], Handler]) -> None:
    """Open `conn.sessions` sessions, each with a handler of its own, until the referee is done."""
    async with conn.channel() as channel:
        try:
            async with asyncio.timeout(conn.connect_timeout):
                await _ready(channel, conn)
        except TimeoutError:
            raise NoRefereeError(
                f"no referee answered at {conn.address} within {conn.connect_timeout:.0f} s"
            ) from None
        # Every session plays to its own end; then the first failure, if any, is the answer.
        ends = await asyncio.gather(
            *(_session(channel, conn, make_handler()) for _ in range(conn.sessions)),
            return_exceptions=True,
        )
        for end in ends:
            if isinstance(end, BaseException):
                raise end


async def serve(conn: Connection, policy: Policy, on_game_over: GameOverHook | None = None) -> None:
    """Play a Python policy in every session."""
    await serve_sessions(conn, lambda: PolicyHandler(policy, on_game_over))
