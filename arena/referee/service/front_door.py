"""The front door: remote bots' connections, relayed to the referee, their links timed by HTTP/2.

A bot far away is credited its link on every decision (`deadline.network_credit`),
so the link must be timed in a way the bot cannot lengthen. The protocol's own
Ping is answered by the bot's code, which may answer it late and seem far
away; the kernel's TCP estimate misses any delay above TCP. An HTTP/2 PING is
answered by the bot's gRPC library itself, whatever its code does (RFC 9113
section 6.7: "receivers of a PING frame ... MUST send a PING frame with the ACK
flag set"), but grpcio neither sends PINGs nor times them for Python.

So a league server's TCP port is this relay's, in the referee's own event
loop: each connection is accepted here (its TLS ended here, with the
referee's key and certificate and ALPN "h2", when the referee has TLS) and
relayed, byte for byte, to the gRPC server listening on loopback. On the way
the relay walks the frames (`h2_frames`): it puts a PING of its own between two
of the referee's frames, with 8 random bytes that the answer must echo, and
takes that answer out of the bot's bytes when it comes, timed from the PING's
write to the answer's read (`RoundTrip`, the least of the recent ones). No
answer can come before its PING has arrived, so no measurement is shorter
than the link; one the bot's own machinery holds up is longer, and outvoted.

The referee knows which connection a session came by from its loopback peer
(`context.peer()`, the relay's own end): `passage` gives the relay's
connection, with the bot's true address (what caps and refusals count) and
its link. Bytes that are not HTTP/2 the referee would take (no preface, a
frame over the referee's frame limit) end the connection at once; what the
relay holds for one connection is bounded by its transports' buffers.

Each side's bytes are passed on in the callback that reads them (asyncio
protocols: a stream's read took a loop turn, and instant-bot games through
the relay ran at half their direct pace; they lose about a quarter now, and
a decision 0.12 ms at the median, `arena bench timing --front-door`).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import tempfile
from collections.abc import Callable
from pathlib import Path

from arena.referee.clock.round_trip import PING_INTERVAL, RoundTrip
from arena.referee.service import bounds
from arena.referee.service.h2_frames import FrameError, FromBot, FromReferee, ping

GRACE = 2.0
"""Seconds a side that ended is given for the other's last bytes."""

LOOPBACK = "127.0.0.1"


def tls_context(certificate: bytes, private_key: bytes) -> ssl.SSLContext:
    """A server's TLS that speaks HTTP/2 (ALPN "h2", which gRPC clients require), with the
    referee's key and certificate (PEM)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["h2"])
    with tempfile.TemporaryDirectory(prefix="arena-tls-") as private:  # mode 0700
        cert, key = Path(private) / "cert.pem", Path(private) / "key.pem"
        cert.write_bytes(certificate)
        key.touch(mode=0o600)
        key.write_bytes(private_key)
        context.load_cert_chain(cert, key)
    return context


def grpc_peer(address: tuple[str, int] | tuple[str, int, int, int]) -> str:
    """A socket's peer as gRPC names one ("ipv4:203.0.113.7:5000", "ipv6:[2001:db8::1]:5000"),
    an IPv4 address mapped into IPv6 as the IPv4 one."""
    host, port = address[0], address[1]
    if host.startswith("::ffff:") and "." in host:
        host = host.removeprefix("::ffff:")
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


class Passage:
    """One bot connection through the front door: where it comes from, and its link."""

    def __init__(
        self,
        peer: str,
        loop: asyncio.AbstractEventLoop,
        to_bot: Callable[[bytes], None],
    ) -> None:
        self.peer = peer
        """The bot's address as gRPC would name it ("ipv4:203.0.113.7:5000")."""
        self.round_trip = RoundTrip()
        """The link, timed by the relay's PINGs."""
        self._loop = loop
        self._to_bot = to_bot
        self._from_bot = FromBot(bounds.MAX_FRAME)
        self._from_referee = FromReferee()
        self._wanted = True
        """Whether a PING is to go in at the next boundary of the referee's frames."""
        self._timer: asyncio.TimerHandle | None = None

    def bot_bytes(self, data: bytes) -> bytes:
        """What of the bot's `data` to pass on to the referee (`FrameError` to end it)."""
        return self._from_bot.feed(data, self._answer)

    def referee_bytes(self, data: bytes) -> bytes:
        """What of the referee's `data` to pass on to the bot, a PING put in if one is wanted."""
        if not self._wanted:
            out, _ = self._from_referee.feed(data)
            return out
        out, put = self._from_referee.feed(data, self._frame())
        self._wanted = not put
        return out

    def tick(self) -> None:
        """A PING, if one is due: written now if the referee's frames are at a boundary, else
        put in at the next; the next tick an interval later."""
        self._timer = self._loop.call_later(PING_INTERVAL, self.tick)
        if self.round_trip.due(self._loop.time()):
            self._want()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _want(self) -> None:
        self._wanted = True
        if self._from_referee.at_boundary:
            self._to_bot(self._frame())
            self._wanted = False

    def _frame(self) -> bytes:
        """A PING frame whose write begins now (`RoundTrip.start`): one not written after all
        is never answered, and the next one starts afresh."""
        nonce = self.round_trip.start(self._loop.time())
        return ping(nonce.to_bytes(8, "big"))

    def _answer(self, payload: bytes) -> bool:
        """Whether a PING answer is to the relay's own PING in flight (it then times it);
        while the link warms up, the next PING goes at once."""
        if not self.round_trip.answered(int.from_bytes(payload, "big"), self._loop.time()):
            return False
        if self.round_trip.warming:
            self._want()
        return True


class FrontDoor:
    """Listens for bots on the referee's TCP address; relays each to `upstream` on loopback."""

    def __init__(
        self,
        upstream: int,
        max_connections: int,
        handshake_timeout: float,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.upstream = upstream
        self.tls = tls is not None
        self._max = max_connections
        self._handshake_timeout = handshake_timeout
        self._tls = tls
        self._server: asyncio.Server | None = None
        self.passages: dict[int, Passage] = {}
        """By the relay's loopback port toward the referee: the peer gRPC names."""
        self.relays: set[_Relay] = set()

    async def start(self, host: str, port: int) -> int:
        """Listen on `host` and `port` (0: any); the port. "::" listens for IPv4 too, as
        gRPC's "[::]" does. Raises OSError if it cannot."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP named, or asyncio leaves Nagle on for the connections it accepts: a
        # message then waited for the ACK of the last one, delayed up to 40 ms by its reader.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            loop = asyncio.get_running_loop()
            self._server = await loop.create_server(
                lambda: _FromBot(_Relay(self, loop)),
                sock=sock,
                ssl=self._tls,
                ssl_handshake_timeout=self._handshake_timeout if self._tls else None,
                backlog=1024,
            )
        except BaseException:
            sock.close()
            raise
        bound: int = sock.getsockname()[1]
        return bound

    def passage(self, peer: str) -> Passage | None:
        """The relayed connection a session whose gRPC peer is `peer` came by; None for one
        that did not come through the front door."""
        host, _, port = peer.rpartition(":")
        if host != f"ipv4:{LOOPBACK}" or not port.isdigit():
            return None
        return self.passages.get(int(port))

    def connections(self) -> int:
        return len(self.relays)

    def full(self) -> bool:
        return len(self.relays) >= self._max

    async def stop(self) -> None:
        """Stop listening and cut every connection still relayed."""
        if self._server is not None:
            self._server.close()
        for relay in list(self.relays):
            relay.end(at_once=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None


class _Relay:
    """One bot's connection and its own to the referee, each side's bytes passed to the other.

    The referee's side is opened once the bot's is accepted (the bot's reads
    wait till then). Each side's writes backing up stop the other's reads
    (flow control end to end: the relay holds at most its transports' buffers).
    A bot that hangs up has the referee told (its HTTP/2 then ends too, within
    `GRACE`); a referee that hangs up ends the bot's connection once what it said
    is written; a bot that sends what the referee would refuse is cut off at once.
    """

    def __init__(self, door: FrontDoor, loop: asyncio.AbstractEventLoop) -> None:
        self._door = door
        self._loop = loop
        self._bot: asyncio.Transport | None = None
        self._referee: asyncio.Transport | None = None
        self._passage: Passage | None = None
        self._local = 0
        """The relay's port toward the referee (`FrontDoor.passages`' key)."""
        self._connecting: asyncio.Task[None] | None = None
        self._ended = False

    def bot_made(self, transport: asyncio.Transport) -> None:
        self._bot = transport
        if self._door.full():
            transport.abort()
            self._ended = True
            return
        self._door.relays.add(self)
        transport.pause_reading()
        self._connecting = self._loop.create_task(self._connect())

    async def _connect(self) -> None:
        try:
            await self._loop.create_connection(
                lambda: _FromReferee(self), LOOPBACK, self._door.upstream
            )
        except OSError:
            self.end(at_once=True)

    def referee_made(self, transport: asyncio.Transport) -> None:
        bot = self._bot
        if self._ended or bot is None:
            transport.abort()
            return
        self._referee = transport
        self._local = transport.get_extra_info("sockname")[1]
        passage = Passage(grpc_peer(bot.get_extra_info("peername")), self._loop, bot.write)
        self._passage = passage
        self._door.passages[self._local] = passage
        passage.tick()
        bot.resume_reading()

    def from_bot(self, data: bytes) -> None:
        if self._ended or self._passage is None or self._referee is None:
            return
        try:
            out = self._passage.bot_bytes(data)
        except FrameError:
            self.end()  # nothing more of it read, nothing of it passed on
            return
        if out:
            self._referee.write(out)

    def from_referee(self, data: bytes) -> None:
        if not self._ended and self._passage is not None and self._bot is not None:
            self._bot.write(self._passage.referee_bytes(data))

    def bot_eof(self) -> bool:
        """The bot is done sending: the referee is told, and given `GRACE` for its last words.
        Whether the bot's side stays open for them (a TLS one cannot)."""
        referee = self._referee
        if referee is not None and referee.can_write_eof():
            referee.write_eof()
        self._loop.call_later(GRACE, self.end)
        return not self._door.tls

    def bot_backed_up(self, held: bool) -> None:
        """Writes to the bot backed up (or drained): stop (or resume) reading the referee."""
        _hold(self._referee, held)

    def referee_backed_up(self, held: bool) -> None:
        """Writes to the referee backed up (or drained): stop (or resume) reading the bot."""
        _hold(self._bot, held)

    def end(self, at_once: bool = False) -> None:
        """Close both sides, once what is written to each is sent (within `GRACE`), or
        `at_once`."""
        if self._connecting is not None and not self._connecting.done():
            self._connecting.cancel()
        if self._ended:
            return
        self._ended = True
        self._door.relays.discard(self)
        if self._passage is not None:
            self._passage.stop()
            self._door.passages.pop(self._local, None)
        for side in (self._bot, self._referee):
            if side is None:
                continue
            side.pause_reading()
            if at_once:
                side.abort()
            else:
                side.close()
                self._loop.call_later(GRACE, side.abort)


def _hold(side: asyncio.Transport | None, held: bool) -> None:
    if side is None or side.is_closing():
        return
    if held:
        side.pause_reading()
    else:
        side.resume_reading()


class _FromBot(asyncio.Protocol):
    """The bot's connection, as asyncio tells of it."""

    def __init__(self, relay: _Relay) -> None:
        self._relay = relay

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._relay.bot_made(transport)

    def data_received(self, data: bytes) -> None:
        self._relay.from_bot(data)

    def eof_received(self) -> bool:
        return self._relay.bot_eof()

    def connection_lost(self, exc: Exception | None) -> None:
        self._relay.end()

    def pause_writing(self) -> None:
        self._relay.bot_backed_up(True)

    def resume_writing(self) -> None:
        self._relay.bot_backed_up(False)


class _FromReferee(asyncio.Protocol):
    """The relay's connection to the referee, as asyncio tells of it."""

    def __init__(self, relay: _Relay) -> None:
        self._relay = relay

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._relay.referee_made(transport)

    def data_received(self, data: bytes) -> None:
        self._relay.from_referee(data)

    def eof_received(self) -> bool:
        self._relay.end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._relay.end()

    def pause_writing(self) -> None:
        self._relay.referee_backed_up(True)

    def resume_writing(self) -> None:
        self._relay.referee_backed_up(False)
