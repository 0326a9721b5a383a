"""A hostile bot that speaks HTTP/2 by hand and grants the referee a 64-byte window, never more.

It opens a Play stream, says Hello, and then reads whatever the referee
manages to send without ever sending a WINDOW_UPDATE: after the Welcome,
no request fits in what is left of the window, so the referee's write of the
first request can never complete. It acknowledges SETTINGS and PINGs, as any
live peer does, so the connection itself stays healthy. It lingers until the
referee ends the stream or the connection (or BOT_LINGER seconds pass), then
exits 0. It prints "stream reset" when the referee resets its stream, and
"goaway" when the referee ends the connection.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import time

from arena.protocol import wire
from arena.protocol.messages import referee as pb

WINDOW = int(os.environ.get("BOT_WINDOW", "64"))
LINGER = float(os.environ.get("BOT_LINGER", "60"))
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7
ACK, END_STREAM, END_HEADERS = 0x1, 0x1, 0x4
SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE = 0x2, 0x4


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes([kind, flags])
        + struct.pack(">I", stream)
        + payload
    )


def literal(name: str, value: str) -> bytes:
    """An HPACK literal header field without indexing, new name, no Huffman coding."""
    n, v = name.encode(), value.encode()
    assert len(n) < 127 and len(v) < 127
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v


def read_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def main() -> int:
    address = os.environ["PERUDO_ADDRESS"]
    if address.startswith("unix:"):  # sandboxed: the referee's socket is bound in
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address.removeprefix("unix:"))
        authority = "localhost"
    else:
        host, _, port = address.rpartition(":")
        sock = socket.create_connection((host, int(port)))
        authority = address
    settings = struct.pack(">HI", SETTINGS_ENABLE_PUSH, 0) + struct.pack(
        ">HI", SETTINGS_INITIAL_WINDOW_SIZE, WINDOW
    )
    headers = b"".join(
        literal(name, value)
        for name, value in (
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/perudo.v1.RefereeService/Play"),
            (":authority", authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        )
    )
    hello = pb.BotMessage(
        hello=pb.Hello(
            name=os.environ["PERUDO_BOT_NAME"],
            token=os.environ["PERUDO_TOKEN"],
            protocol_version=wire.PROTOCOL_VERSION,
            bot_version="stall_bot",
        )
    ).SerializeToString()
    message = b"\x00" + struct.pack(">I", len(hello)) + hello
    sock.sendall(
        PREFACE
        + frame(SETTINGS, 0, 0, settings)
        + frame(HEADERS, END_HEADERS, 1, headers)
        + frame(DATA, 0, 1, message)
    )
    sock.settimeout(LINGER)
    until = time.monotonic() + LINGER
    received = 0
    try:
        while time.monotonic() < until:
            length, kind, flags = struct.unpack(">IBB", b"\x00" + read_exact(sock, 5))
            read_exact(sock, 4)  # the stream id
            payload = read_exact(sock, length)
            if kind == SETTINGS and not flags & ACK:
                sock.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                sock.sendall(frame(PING, ACK, 0, payload))
            elif kind == DATA:
                received += length
                print(f"received {received} bytes of data", file=sys.stderr, flush=True)
            elif kind == HEADERS and flags & END_STREAM:
                print("stream ended", file=sys.stderr, flush=True)
                break
            elif kind == RST_STREAM:
                print("stream reset", file=sys.stderr, flush=True)
                break
            elif kind == GOAWAY:
                print("goaway", file=sys.stderr, flush=True)
                break
    except (EOFError, OSError):
        print("connection closed", file=sys.stderr, flush=True)
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
