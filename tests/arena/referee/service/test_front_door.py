"""The front door: remote bots relayed to the referee, their links timed by HTTP/2 PINGs.

Real gRPC on loopback and real bot processes: a kit bot through a delaying
proxy is credited its link; a bot that answers the protocol's Pings late is
credited its true link (none to speak of on loopback), not what its Pongs
say; bytes that are not HTTP/2, or a frame past the referee's limit, are cut
off, and the referee serves the next bot as before.
"""

from __future__ import annotations

import asyncio
import struct
import time
from pathlib import Path

import grpc
import pytest
from lag_proxy import LagProxy
from referee_harness import PLAY, SEED, Arena, hello, run, until
from tls_certificates import self_signed

from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.records import Decision
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameSpec, Match
from arena.referee.service.auth import TokenBook
from arena.referee.service.front_door import grpc_peer
from arena.referee.service.h2_frames import PREFACE
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, Refusal, Tls
from engine import Opener, Ruleset

ALLOWANCE = 0.25


def test_a_far_bot_is_credited_its_link_and_a_bot_answering_pongs_late_its_true_one(
    live: Arena,
) -> None:
    """Through the front door, a bot that writes its Pongs 0.4 s late (near, seeming far)
    is credited what its link takes on loopback, not the 0.4 s its Pongs say (the allowance
    before), while an honest bot 50 ms each way is credited its 100 ms."""

    async def main() -> None:
        async with live.serving(front_door=True), LagProxy(live.port, 0.05) as proxy:
            live.spawn("raw_bot", "liar", remote=True, BOT_PONG_AFTER=0.4)
            live.spawn("kit_bot", "far", address=proxy.address, remote=True)
            await live.wait_connected(["liar", "far"])
            seats = await live.borrow(["liar", "far"])
            liar, far = seats
            assert liar.link is not None and far.link is not None
            assert await until(lambda: not liar.link.warming and not far.link.warming, 20)  # type: ignore[union-attr]
            spec = GameSpec("liar-game", ("liar", "far"), "liar-game", Ruleset())
            try:
                record = await Match(
                    spec, seats, SEED, TimeControl(2.0, lag_allowance=ALLOWANCE)
                ).play()
            finally:
                for seat in seats:
                    await live.lobby.give_back(seat)
            decisions = [e for e in record.events if isinstance(e, Decision)]
            liar_credits = [d.credit_ms or 0.0 for d in decisions if d.seat == 0]
            far_credits = [d.credit_ms or 0.0 for d in decisions if d.seat == 1]
            assert liar_credits and max(liar_credits) < 50.0, liar_credits
            assert far_credits and all(100.0 <= c < 200.0 for c in far_credits), far_credits
            assert record.round_trips[0] is not None and record.round_trips[0] < 0.05
            print(f"liar credited at most {max(liar_credits):.3f} ms; far {far_credits[:3]} ...")

    run(main())


def test_a_refused_stream_is_counted_by_the_bots_address_not_the_relays() -> None:
    """Behind the front door every call comes from the relay on 127.0.0.1: a refusal (and the
    caps per address) must name the bot's own address, here IPv6's loopback."""

    async def main() -> None:
        refused: list[Refusal] = []
        referee = Referee(Lobby(TokenBook()))
        referee.refused = refused.append
        port = await referee.start("[::]:0", front_door=True)
        try:
            async with grpc.aio.insecure_channel(f"ipv6:[::1]:{port}") as channel:
                call = channel.stream_stream(PLAY, request_serializer=None)()
                await call.write(hello("nobody", "no-token").SerializeToString())
                with pytest.raises(grpc.aio.AioRpcError):
                    await call.read()
            assert [r.peer for r in refused] == ["ipv6:[::1]"], refused
        finally:
            await referee.stop()

    run(main())


def test_a_peer_is_named_as_grpc_names_it() -> None:
    assert grpc_peer(("203.0.113.7", 5000)) == "ipv4:203.0.113.7:5000"
    assert grpc_peer(("2001:db8::1", 5000, 0, 0)) == "ipv6:[2001:db8::1]:5000"
    assert grpc_peer(("::ffff:203.0.113.7", 5000, 0, 0)) == "ipv4:203.0.113.7:5000"


async def _cut_off(port: int, data: bytes) -> bytes:
    """What the front door says to a client that sends `data`, until it closes the
    connection (within 5 s, or the test fails)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    heard = b""
    async with asyncio.timeout(5):
        while chunk := await reader.read(65536):
            heard += chunk
    writer.close()
    return heard


def test_bytes_that_are_not_http2_are_cut_off_and_the_next_bot_plays(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(front_door=True):
            door = live.referee.front_door
            assert door is not None
            await _cut_off(live.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 100)
            assert await until(lambda: door.connections() == 0, 5)
            live.spawn("kit_bot", "after", remote=True)
            await live.wait_connected(["after"])

    run(main())


def test_a_frame_over_the_referees_limit_is_cut_off_unforwarded(live: Arena) -> None:
    """A frame header that announces 16 MiB: the relay holds nothing of it and ends the
    connection, without waiting for its body."""

    async def main() -> None:
        async with live.serving(front_door=True):
            door = live.referee.front_door
            assert door is not None
            huge = struct.pack(">BHBBL", 0xFF, 0xFFFF, 0x0, 0x0, 1) + b"x" * 1000
            settings = struct.pack(">BHBBL", 0, 0, 0x4, 0, 0)
            await _cut_off(live.port, PREFACE + settings + huge)
            assert await until(lambda: door.connections() == 0, 5)
            live.spawn("kit_bot", "after", remote=True)
            await live.wait_connected(["after"])

    run(main())


def test_a_bot_dialling_tls_is_relayed_and_timed_and_one_speaking_plain_text_cut_off(
    tmp_path: Path,
) -> None:
    """The front door ends TLS with the referee's key and certificate, ALPN "h2" (which a
    gRPC client requires), and relays what is inside."""
    cert, key = self_signed(tmp_path)

    async def main() -> None:
        book = TokenBook()
        referee = Referee(Lobby(book))
        port = await referee.start(
            "127.0.0.1:0", Tls(cert.read_bytes(), key.read_bytes()), front_door=True
        )
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        try:
            async with grpc.aio.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
                call = channel.stream_stream(
                    PLAY,
                    request_serializer=None,
                    response_deserializer=pb.RefereeMessage.FromString,
                )()
                await call.write(hello("secure", book.issue("secure")).SerializeToString())
                welcome = await call.read()
                assert welcome.WhichOneof("kind") == "welcome"
                [session] = referee.lobby.all_sessions()
                link = session.link
                assert link is not None
                assert await until(lambda: not link.warming, 10)
                assert link.estimate is not None and link.estimate < 0.05
                call.cancel()
                door = referee.front_door
                assert door is not None and door.connections() == 1
                await _cut_off(port, PREFACE + b"\x00" * 9)  # plain HTTP/2 on a TLS port
                assert await until(lambda: door.connections() <= 1, 10)
        finally:
            await referee.stop()

    run(main())


def test_a_local_bot_through_the_front_door_has_its_own_process_timed(live: Arena) -> None:
    """The referee finds the process answering a session by the bot's end of its connection:
    through the front door that is the relay's client, not the relay's own socket."""

    async def main() -> None:
        async with live.serving(front_door=True):
            proc = live.spawn("kit_bot", "local")
            await live.wait_connected(["local"])
            [session] = await live.borrow(["local"])
            assert session.started_here
            meter = session._cpu  # found by its connection, not its whole tree sampled
            assert meter is not None and meter.pid == proc.pid and not meter.tree
            await live.lobby.give_back(session)

    run(main())


def test_a_bot_that_shuts_its_window_behind_the_front_door_is_faulted_for_a_stall(
    live: Arena,
) -> None:
    """The relay passes HTTP/2 flow control through untouched: a bot that stops opening its
    window stalls the referee's write as it would direct, and costs the game one limit."""

    async def main() -> None:
        async with live.serving(move_time=0.5, goodbye_grace=0.5, front_door=True):
            live.spawn("stall_bot", "rogue")
            await live.launch("kit_bot", ("steady", "sure"))
            await live.wait_connected(["rogue"])
            started = time.monotonic()
            ruleset = Ruleset(opener=Opener.SEAT0)
            record = await asyncio.wait_for(live.play(("rogue", "steady", "sure"), ruleset), 20)
            assert [(f.bot, f.fault.kind) for f in record.faults] == [("rogue", FaultKind.STALL)]
            assert "accepted no data" in record.faults[0].fault.detail
            assert sorted(record.order) == [0, 1, 2]
            assert time.monotonic() - started < 10
            assert await until(lambda: "rogue" not in live.lobby.connected(), 5)

    run(main())
