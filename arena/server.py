"""The referee's gRPC face: admit sessions, hand them to the lobby, close them.

The servicer is thin. Messages arrive as raw bytes and are decoded by the
session, so a garbled message becomes a typed fault instead of a torn-down
call; grpc enforces the message size limit before anything is decoded.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf.message import DecodeError

from arena import wire
from arena._proto.perudo.v1 import referee_pb2 as pb
from arena.auth import token_hash
from arena.lobby import Lobby, RefusalError
from arena.session import Session

SERVICE = "perudo.v1.RefereeService"

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs


@dataclass(frozen=True, slots=True)
class ServerLimits:
    max_message_bytes: int = 16 * 1024
    hello_timeout: float = 5.0
    goodbye_grace: float = 2.0
    move_time: float = 1.0


@dataclass(frozen=True, slots=True)
class Tls:
    certificate: bytes
    private_key: bytes


class Referee:
    """A gRPC server that admits bot sessions into a lobby."""

    def __init__(self, lobby: Lobby, limits: ServerLimits | None = None) -> None:
        self.lobby = lobby
        self.limits = limits or ServerLimits()
        self._server: grpc.aio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.unix_socket: Path | None = None
        """Where local bots dial too (sandboxed bots have no network): see `arena.sandbox`."""

    async def start(
        self, address: str = "127.0.0.1:0", tls: Tls | None = None, unix_socket: Path | None = None
    ) -> int:
        """Start listening, also on `unix_socket` if given; return the port (useful with port 0)."""
        limit = self.limits.max_message_bytes
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", limit),
                # Two referees on one port would split the bots between them: fail instead.
                ("grpc.so_reuseport", 0),
                ("grpc.max_concurrent_streams", 256),
                ("grpc.keepalive_permit_without_calls", 0),
                ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
                ("grpc.http2.max_ping_strikes", 3),
                ("grpc.max_connection_idle_ms", 10 * 60 * 1000),
            ]
        )
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    self._play,
                    request_deserializer=None,
                    response_serializer=wire.encode,
                )
            },
        )
        server.add_generic_rpc_handlers((handler,))
        if tls is None:
            port = server.add_insecure_port(address)
        else:
            creds = grpc.ssl_server_credentials([(tls.private_key, tls.certificate)])
            port = server.add_secure_port(address, creds)
        if port == 0:
            raise OSError(f"could not listen on {address}")
        if unix_socket is not None and server.add_insecure_port(f"unix:{unix_socket}") == 0:
            raise OSError(f"could not listen on unix:{unix_socket}")
        await server.start()
        self.unix_socket = unix_socket
        self._server = server
        return port

    async def stop(self, reason: str = "the referee is shutting down") -> None:
        """Say goodbye to every session, then stop the server."""
        await asyncio.gather(*(self.goodbye(s, reason) for s in self.lobby.all_sessions()))
        if self._server is not None:
            await self._server.stop(grace=self.limits.goodbye_grace)
            self._server = None

    async def goodbye(self, session: Session, reason: str) -> None:
        await session.send(pb.RefereeMessage(goodbye=pb.Goodbye(reason=reason)))
        session.close(f"goodbye: {reason}")

    async def _play(self, _requests: object, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        first = asyncio.ensure_future(context.read())
        done, _ = await asyncio.wait((first,), timeout=self.limits.hello_timeout)
        if not done:
            first.cancel()
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {self.limits.hello_timeout:g} s of opening the stream",
            )
        data = first.result()
        if data is _EOF:
            return
        hello = self._hello(data)
        if isinstance(hello, RefusalError):
            await context.abort(hello.code, hello.detail)
            return
        try:
            self.lobby.admit(hello.name, hello.token)
        except RefusalError as refusal:
            await context.abort(refusal.code, refusal.detail)
            return
        session = Session(
            hello.name, uuid.uuid4().hex[:12], context, self.lobby.crash_probes.get(hello.name)
        )
        session.token_hash = token_hash(hello.token)
        welcome = pb.Welcome(
            session_id=session.session_id,
            protocol_version=wire.PROTOCOL_VERSION,
            limits=pb.Limits(
                max_message_bytes=self.limits.max_message_bytes,
                move_time_ms=round(self.limits.move_time * 1000),
            ),
        )
        if not await session.send(pb.RefereeMessage(welcome=welcome)):
            return
        try:
            await self.lobby.add(session)
        except RefusalError as refusal:
            await context.abort(refusal.code, refusal.detail)
            return
        try:
            await self._serve(session, context)
        finally:
            await self.lobby.remove(session)
            session.close(session.close_reason or "the stream ended")
        if session.abort_status is not None:
            await context.abort(*session.abort_status)

    def _hello(self, data: bytes) -> pb.Hello | RefusalError:
        try:
            message = pb.BotMessage.FromString(data)
        except DecodeError:
            return RefusalError(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message is not a BotMessage"
            )
        if message.WhichOneof("kind") != "hello":
            return RefusalError(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a Hello"
            )
        hello = message.hello
        if hello.protocol_version != wire.PROTOCOL_VERSION:
            return RefusalError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version} is not spoken here; "
                f"this referee speaks version {wire.PROTOCOL_VERSION}",
            )
        if not hello.name:
            return RefusalError(grpc.StatusCode.INVALID_ARGUMENT, "Hello has no name")
        return hello

    async def _serve(self, session: Session, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        """Feed the session until the bot hangs up or the referee closes it."""

        async def read_all() -> None:
            while True:
                data = await context.read()
                if data is _EOF:
                    session.close("the bot closed the stream")
                    return
                session.on_data(data)

        reader = asyncio.ensure_future(read_all())
        closed = asyncio.ensure_future(session.wait_closed())
        try:
            await asyncio.wait((reader, closed), return_when=asyncio.FIRST_COMPLETED)
            if not reader.done():
                # Closed by the referee: give a polite bot a moment to hang up.
                await asyncio.wait((reader,), timeout=self.limits.goodbye_grace)
        except asyncio.CancelledError:
            session.close("the call was cancelled")
            raise
        finally:
            for task in (reader, closed):
                if not task.done():
                    task.cancel()
            if reader.done() and not reader.cancelled() and reader.exception() is not None:
                session.close(f"the stream broke: {reader.exception()}")
