"""The gzipped stream: pieces compressed once, valid in every page's stream whenever it came."""

from __future__ import annotations

import asyncio
import socket
import zlib
from pathlib import Path

import pytest
from test_web_server import chunked_events
from test_web_spectator import open_table

from arena.records import Decision
from arena.web import web_server as serving
from arena.web.gzip_stream import HEADER, accepts_gzip, deflated
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer


def test_pieces_compressed_apart_are_one_gzip_stream() -> None:
    pieces = [b"data: [1]\n\n", b"data: [" + b"2," * 500 + b"3]\n\n", b": keepalive\n\n"]
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    # Each piece decodes after any other: what came before is never referred to.
    stream = HEADER + b"".join(deflated(p) for p in pieces[::-1] + pieces)
    assert inflater.decompress(stream) == b"".join(pieces[::-1] + pieces)
    assert len(deflated(pieces[1])) < len(pieces[1]) / 10


@pytest.mark.parametrize(
    ("header", "wanted"),
    [
        ("gzip, deflate, br, zstd", True),
        ("deflate, gzip;q=1.0", True),
        ("*", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
    ],
)
def test_which_requests_take_gzip(header: str, wanted: bool) -> None:
    assert accepts_gzip(header) is wanted


async def _open(host: str, port: int, gzip: bool) -> socket.socket:
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    await loop.sock_connect(sock, (host, port))
    accept = b"Accept-Encoding: gzip, deflate\r\n" if gzip else b""
    await loop.sock_sendall(sock, b"GET /events HTTP/1.1\r\nHost: x\r\n" + accept + b"\r\n")
    return sock


async def _read_to_end(sock: socket.socket) -> bytes:
    loop, raw = asyncio.get_running_loop(), bytearray()
    while data := await asyncio.wait_for(loop.sock_recv(sock, 1 << 16), 20):
        raw += data
    sock.close()
    return bytes(raw)


def _inflated(raw: bytes) -> bytes:
    """A chunked, gzipped response's body, inflated (its trailer never comes: see the module)."""
    head, body = raw.split(b"\r\n\r\n", 1)
    assert b"content-encoding: gzip" in head.lower()
    data = b""
    while body:
        size, _, body = body.partition(b"\r\n")
        if int(size, 16) == 0:
            break
        data, body = data + body[: int(size, 16)], body[int(size, 16) + 2 :]
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data)


def test_gzipped_pages_that_came_at_different_times_read_what_a_plain_page_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serving, "TICK_S", (0.01, 0.01))

    async def go() -> list[list[dict[str, object]]]:
        spectator = Spectator()
        tell = open_table(spectator, tmp_path)
        server = WebServer(spectator)
        await server.start()
        early_gzip = await _open(server.host, server.port, gzip=True)
        early_plain = await _open(server.host, server.port, gzip=False)
        reads = [asyncio.ensure_future(_read_to_end(s)) for s in (early_gzip, early_plain)]
        while spectator.watchers < 2:
            await asyncio.sleep(0.01)
        for i in range(40):  # several ticks' worth, each tick's piece shared by the pages
            tell(Decision(i % 3, f"bid {i + 1} 2", 5.0))
            if i == 20:  # a page that comes in the middle, after pieces it never had
                late = await _open(server.host, server.port, gzip=True)
                reads.append(asyncio.ensure_future(_read_to_end(late)))
                while spectator.watchers < 3:
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        await server.stop()
        gzip_early, plain, gzip_late = await asyncio.gather(*reads)
        plain_body = plain.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
        assert b"content-encoding" not in plain_body.lower()
        return [
            chunked_events(b"x\r\n\r\n" + _chunk_again(_inflated(gzip_early))),
            chunked_events(plain),
            chunked_events(b"x\r\n\r\n" + _chunk_again(_inflated(gzip_late))),
        ]

    early, plain, late = asyncio.run(asyncio.wait_for(go(), 30))
    bids = [m["event"]["action"] for m in early if m["kind"] == "table"]  # type: ignore[index]
    assert bids == [f"bid {i + 1} 2" for i in range(40)]
    assert early == plain
    assert late[0]["kind"] == "state"
    late_bids = [m["event"]["action"] for m in late if m["kind"] == "table"]  # type: ignore[index]
    seen = [e["action"] for e in late[0]["tables"][0] if e["kind"] == "act"]  # type: ignore[index]
    assert seen + late_bids == bids  # the state, then every later bid: nothing lost or doubled


def _chunk_again(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n0\r\n\r\n" % (len(data), data)
