"""The referee's gRPC face: admit sessions, hand them to the lobby, close them.

The servicer is thin. Messages arrive as raw bytes and are decoded by the
session, so a garbled message becomes a typed fault instead of a torn-down
call. The message size limit is the referee's own: grpc lets through messages
up to twice as long (see `bounds`) so that a reply a little too long is seen,
and faulted as a malformed message, instead of ending the stream as if the bot
had hung up; past that, grpc refuses it unread, with its own reason.

Nobody can exhaust the referee's descriptors or its memory: streams still
waiting for their Hello are capped per peer and overall, connections are
capped below the open-files limit with headroom kept for the results, idle
ones are closed, and what grpc may buffer for them is bounded (`bounds`).
"""

from __future__ import annotations

import asyncio
import resource
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf.message import DecodeError

from arena.errors import ArenaError
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.clock import cputime
from arena.referee.clock.loop_lag import LoopLag
from arena.referee.service import bounds
from arena.referee.service.auth import token_hash
from arena.referee.service.front_door import LOOPBACK, FrontDoor, tls_context
from arena.referee.service.lobby import Lobby, RefusalError
from arena.referee.service.peers import peer_host
from arena.referee.service.side_streams import Beside
from arena.referee.session.session import Session

SERVICE = "perudo.v1.RefereeService"

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs

QUIET = 0.1
"""Seconds without a message that tell a refused bot has stopped sending."""

DESCRIPTOR_HEADROOM = 128
"""Open files kept free of connections: results, logs and bot pipes need them."""


class ListenError(ArenaError, OSError):
    """A server could not listen on the address it was given (in use, or not this host's)."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    max_message_bytes: int = bounds.MAX_MESSAGE_BYTES
    hello_timeout: float = bounds.HELLO_TIMEOUT
    goodbye_grace: float = 2.0
    move_time: float = 1.0
    max_unauthenticated: int = 256
    """Streams waiting for their Hello, from everyone together; more wait their turn."""
    max_unauthenticated_per_peer: int = 64
    """Streams waiting for their Hello, from one address; more wait their turn."""
    idle_connection: float = 30.0
    """Seconds a connection with no stream open is kept."""
    max_streams: int = 4096
    """Streams open at once, sessions and all, from everyone: grpc refuses one more
    (the global budget for bytes in flight, see `bounds`)."""


def max_connections(headroom: int = DESCRIPTOR_HEADROOM) -> int:
    """Connections the referee accepts: the open-files limit less the headroom."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(16, soft - headroom)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A stream refused before it became a session, and why (what its client was told)."""

    peer: str
    """The client's address, without its port ("ipv4:203.0.113.7")."""
    name: str
    """The name its Hello gave, as sent ("" when it said no Hello)."""
    code: grpc.StatusCode
    detail: str


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
        self.unix_socket: Path | None = None
        self.tls = False
        """Whether the TCP port speaks TLS (local bots then dial the Unix socket: Confinement)."""
        self.unix_tls = False
        """Whether the Unix socket speaks it too (see `arena.league.local_tls`)."""
        self._opening: set[Session] = set()
        """Sessions admitted but not yet in the lobby (whose processes are taken all the same)."""
        """Where local bots dial too (sandboxed bots have no network): see
        `arena.bots.isolation.sandbox`."""
        self.lag = LoopLag()
        """The referee's own lateness, which no bot is charged for."""
        self._unauthenticated: Counter[str] = Counter()
        self._room = asyncio.Condition()
        """Told whenever a stream stops waiting for its Hello: room for one more."""
        self.refused: Callable[[Refusal], None] | None = None
        """Told of every stream refused before it became a session (the server's log)."""
        self.front_door: FrontDoor | None = None
        """The relay remote bots come in by, which times their links (`start`'s `front_door`)."""

    async def start(
        self,
        address: str = "127.0.0.1:0",
        tls: Tls | None = None,
        unix_socket: Path | None = None,
        unix_tls: bool = False,
        beside: Sequence[Beside] = (),
        services: Sequence[Callable[[grpc.aio.Server], None]] = (),
        front_door: bool = False,
    ) -> int:
        """Start listening, also on `unix_socket` if given (with `tls` too when `unix_tls`),
        answering the services `beside` too (health, reflection); return the port (useful
        with port 0). `services` add theirs to the same server (a league server's
        submissions), within the same bounds. With `front_door`, bots dialling `address`
        come in through the relay that times their links (`front_door`), which ends their
        TLS; gRPC itself then listens on loopback alone."""
        limits = self.limits
        server = grpc.aio.server(
            maximum_concurrent_rpcs=limits.max_streams,
            options=[
                *bounds.server_options(limits.max_message_bytes, self.lobby.max_sessions_per_bot),
                # Two referees on one port would split the bots between them: fail instead.
                ("grpc.so_reuseport", 0),
                ("grpc.keepalive_permit_without_calls", 0),
                ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
                ("grpc.http2.max_ping_strikes", 3),
                ("grpc.max_connection_idle_ms", round(limits.idle_connection * 1000)),
                ("grpc.max_allowed_incoming_connections", max_connections()),
                ("grpc.server_handshake_timeout_ms", round(limits.hello_timeout * 1000)),
            ],
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
        for service in beside:
            service.add_to(server)
        for add in services:
            add(server)
        creds = None
        if tls is not None:
            creds = grpc.ssl_server_credentials([(tls.private_key, tls.certificate)])
        if front_door:
            port = server.add_insecure_port(f"{LOOPBACK}:0")
        elif creds is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, creds)
        if port == 0:
            raise ListenError(f"could not listen on {address}")
        if unix_socket is not None:
            where = f"unix:{unix_socket}"
            if creds is not None and unix_tls:
                bound = server.add_secure_port(where, creds)
            else:
                bound = server.add_insecure_port(where)
            if bound == 0:
                raise ListenError(f"could not listen on {where}")
        await server.start()
        if front_door:
            try:
                port = await self._open_front_door(address, port, tls)
            except ListenError:
                await server.stop(None)
                raise
        self.unix_socket = unix_socket
        self.tls = tls is not None
        self.unix_tls = self.tls and unix_tls
        self._server = server
        self.lag.start()
        return port

    async def _open_front_door(self, address: str, upstream: int, tls: Tls | None) -> int:
        """The relay on `address`, to gRPC's loopback port `upstream`; its port."""
        host, _, port = address.rpartition(":")
        host = host.strip("[]") or "::"
        door = FrontDoor(
            upstream,
            # Each relayed connection holds two descriptors here beside gRPC's own.
            max_connections() // 3,
            self.limits.hello_timeout,
            None if tls is None else tls_context(tls.certificate, tls.private_key),
        )
        try:
            bound = await door.start(host, int(port))
        except (OSError, ValueError) as error:
            raise ListenError(f"could not listen on {address}: {error}") from None
        self.front_door = door
        return bound

    def peer(self, context: grpc.aio.ServicerContext) -> str:  # type: ignore[type-arg]
        """A call's client, as gRPC names it ("ipv4:203.0.113.7:5000"): for one that came
        through the front door, the bot's address, not the relay's."""
        peer: str = context.peer()
        passage = None if self.front_door is None else self.front_door.passage(peer)
        return peer if passage is None else passage.peer

    def unauthenticated(self) -> int:
        """Streams open that have not said Hello yet."""
        return self._unauthenticated.total()

    async def stop(self, reason: str = "the referee is shutting down") -> None:
        """Say goodbye to every session, then stop the server."""
        await asyncio.gather(*(self.goodbye(s, reason) for s in self.lobby.all_sessions()))
        if self._server is not None:
            await self._server.stop(grace=self.limits.goodbye_grace)
            self._server = None
        if self.front_door is not None:
            await self.front_door.stop()
            self.front_door = None
        await self.lag.stop()

    async def goodbye(self, session: Session, reason: str) -> None:
        """Tell a session the referee is done with it; a bot taking no data is not waited for."""
        goodbye = pb.RefereeMessage(goodbye=pb.Goodbye(reason=reason))
        # Said before it is written: a bot told goodbye may end its stream before the write
        # is seen to complete here, and that end is the goodbye's, not a disconnect of its own.
        session.leaving = f"goodbye: {reason}"
        await session.send(goodbye, timeout=self.limits.goodbye_grace)
        session.close(session.leaving)

    async def _play(self, _requests: object, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        data = await self._first_message(context)
        if not isinstance(data, bytes):  # EOF: the stream ended before a word
            return
        hello = self._hello(data)
        if isinstance(hello, RefusalError):
            await self._refuse(context, "", hello.code, hello.detail)
            return
        try:
            self.lobby.admit(hello.name, hello.token)
        except RefusalError as refusal:
            await self._refuse(context, hello.name, refusal.code, refusal.detail)
            return
        session = Session(
            hello.name,
            uuid.uuid4().hex[:12],
            context,
            self.lobby.crash_probes.get(hello.name),
            self.lag,
        )
        passage = None if self.front_door is None else self.front_door.passage(context.peer())
        if passage is not None and not session.started_here:  # a bot of ours has no link
            session.link = passage.round_trip
        try:
            session.token_hash = token_hash(hello.token)
            self._find_cpu(session, self.peer(context))
            joined = await self._welcome(session)
        finally:
            self._opening.discard(session)
            if not self.lobby.has(session):  # its place is still held: never joined
                self.lobby.release(session.name)
        if not joined:
            return
        try:
            await self._serve(session, context)
        finally:
            await self.lobby.remove(session)
            session.close(session.close_reason or "the stream ended")

    def _find_cpu(self, session: Session, peer: str) -> None:
        """Which process's CPU time to sample for the session (see `cputime`).

        The sessions being opened count as taken too: two of a bot's sessions
        opening at once never share one of its processes.
        """
        root = self.lobby.process_ids.get(session.name)
        if root is None:
            return
        taken = {
            s.cpu_pid
            for s in (*self.lobby.all_sessions(), *self._opening)
            if s.name == session.name and s.cpu_pid is not None
        }
        holder = cputime.process_holding(root, peer, taken)
        session.measure_cpu(root if holder is None else holder, tree=holder is None)
        self._opening.add(session)

    async def _welcome(self, session: Session) -> bool:
        """Welcome the session and add it to the lobby, in the place its admission held;
        False if it is not there to play."""
        welcome = pb.Welcome(
            session_id=session.session_id,
            protocol_version=wire.PROTOCOL_VERSION,
            limits=pb.Limits(
                max_message_bytes=self.limits.max_message_bytes,
                move_time_ms=round(self.limits.move_time * 1000),
            ),
        )
        welcomed = await session.send(
            pb.RefereeMessage(welcome=welcome), timeout=self.limits.hello_timeout
        )
        if not welcomed:
            return False
        await self.lobby.add(session)
        return True

    async def _first_message(self, context: grpc.aio.ServicerContext) -> bytes | object:  # type: ignore[type-arg]
        """The stream's first message, within the Hello timeout and the caps on waiting streams.

        A stream over a cap waits its turn (reading nothing) rather than being
        refused at once: local bots all come from one address, in a burst at the
        start. Refused only if no turn comes within the Hello timeout.
        """
        peer = peer_host(self.peer(context))
        limits = self.limits
        waiting = self._unauthenticated
        loop = asyncio.get_running_loop()
        give_up = loop.time() + limits.hello_timeout

        def room() -> bool:
            return (
                waiting[peer] < limits.max_unauthenticated_per_peer
                and waiting.total() < limits.max_unauthenticated
            )

        if not room():
            async with self._room:
                try:
                    async with asyncio.timeout(limits.hello_timeout):
                        await self._room.wait_for(room)
                except TimeoutError:
                    await self._refuse(
                        context,
                        "",
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"too many streams waiting to say Hello (at most "
                        f"{limits.max_unauthenticated_per_peer} from {peer}, "
                        f"{limits.max_unauthenticated} in all) for {limits.hello_timeout:g} s: "
                        "say Hello on the streams already open first",
                    )
        waiting[peer] += 1
        try:
            first = asyncio.ensure_future(context.read())
            done, _ = await asyncio.wait((first,), timeout=max(0.0, give_up - loop.time()))
        finally:
            waiting[peer] -= 1
            if waiting[peer] <= 0:
                del waiting[peer]
            async with self._room:
                self._room.notify_all()
        if not done:
            first.cancel()
            await self._refuse(
                context,
                "",
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {limits.hello_timeout:g} s of opening the stream",
            )
        data: bytes | object = first.result()
        return data

    async def _refuse(
        self,
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
        name: str,
        code: grpc.StatusCode,
        detail: str,
    ) -> None:
        """End the stream with `code` and `detail`, told to `refused` first."""
        if self.refused is not None:
            self.refused(Refusal(peer_host(self.peer(context)), name, code, detail))
        await context.abort(code, detail)

    def _hello(self, data: bytes) -> pb.Hello | RefusalError:
        limit = self.limits.max_message_bytes
        if len(data) > limit:
            return RefusalError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"Received message larger than max ({len(data)} vs. {limit}): "
                "the Hello is too large",
            )
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

    async def _quiet(self, session: Session, reader: asyncio.Future[None]) -> None:
        """Wait (discarding what comes) until the bot pauses, or the goodbye grace runs out."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.limits.goodbye_grace
        while not reader.done() and loop.time() < give_up:
            heard = session.last_data
            await asyncio.wait((reader,), timeout=QUIET)
            if session.last_data == heard:
                return

    async def _serve(self, session: Session, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        """Feed the session until the bot hangs up or the referee closes it."""
        limit = self.limits.max_message_bytes

        async def read_all() -> None:
            while True:
                data = await context.read()
                if data is _EOF:
                    session.close(session.leaving or "the bot closed the stream")
                    return
                if len(data) > limit:
                    session.refuse(
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"Received message larger than max ({len(data)} vs. {limit}): "
                        "a message too large",
                        FaultKind.MALFORMED_MESSAGE,
                    )
                    return
                session.on_data(data)

        reader = asyncio.ensure_future(read_all())
        closed = asyncio.ensure_future(session.wait_closed())
        try:
            await asyncio.wait((reader, closed), return_when=asyncio.FIRST_COMPLETED)
            if session.abort_status is not None:
                # Refused for what it sent: say so once it stops sending (a client
                # whose write is cut short reads INTERNAL from its own library instead),
                # while the read is still pending (cancelling it would end the call as INTERNAL).
                await self._quiet(session, reader)
                await context.abort(*session.abort_status)
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
