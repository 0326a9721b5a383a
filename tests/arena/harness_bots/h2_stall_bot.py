"""A bot that plays at random over HTTP/2 spoken by hand, and can stop reading its stream.

It grants the referee a 64-byte window on its Play stream and gives back
each byte it reads, so it plays like any bot, only through a narrow window.
Once armed (the file named by ARMED exists), it answers its STALL_TURN-th
turn and then gives back nothing more: the referee's next request cannot be
written, and the bot commits a stall, a fault no bot using a gRPC library
can commit on purpose. It acknowledges SETTINGS and PINGs throughout, as a
live peer does, and exits 0 when the referee ends its stream or connection.

Each of its marks is printed to stderr: STARTING as it starts,
TURN on each of its turns. A test names the bot and the marks by replacing
the placeholders below in a copy of this file.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import struct
import sys

from arena.protocol import wire
from arena.protocol.messages import referee as pb
from engine import CALZA, DUDO, Bid, Observation, RoundOutcome, Ruleset

ARMED = "ARMED-PLACEHOLDER"
STARTING = "STARTING-PLACEHOLDER"
TURN = "TURN-PLACEHOLDER"
STALL_TURN = 1
WINDOW = 64
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 6, 7, 8
ACK, END_STREAM, END_HEADERS, PADDED = 0x1, 0x1, 0x4, 0x8
SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE = 0x2, 0x4
STREAM = 1
rng = random.Random(os.urandom(16))


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
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v


def read_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def act(obs: Observation) -> pb.Action:
    """The random sample's choice: always legal, read off the observation's floors."""
    if not obs.my_turn:
        return wire.answer_to_proto(wire.PASS)
    if obs.can_dudo and rng.random() < 1 / 3:
        return wire.answer_to_proto(DUDO)
    bids = [
        Bid(min(floor + rng.randint(0, 1), obs.dice_in_play), face)
        for face, floor in enumerate(obs.floors, start=1)
        if floor
    ]
    if not bids:
        return wire.answer_to_proto(DUDO if obs.can_dudo else CALZA)
    return wire.answer_to_proto(rng.choice(bids))


class Player:
    """What the bot keeps of its games: each one's ruleset and the rounds told so far."""

    def __init__(self) -> None:
        self.games: dict[str, tuple[Ruleset, tuple[RoundOutcome, ...]]] = {}
        self.turns = 0

    def answer(self, request: pb.ActionRequest) -> pb.BotMessage:
        ruleset, history = self.games.get(request.game_id, (None, ()))
        if ruleset is None:
            ruleset = wire.ruleset_from_proto(request.ruleset)
        history += tuple(wire.outcome_from_proto(r) for r in request.results)
        self.games[request.game_id] = (ruleset, history)
        obs = wire.observation_from_proto(request, history, ruleset)
        if obs.my_turn:
            print(TURN, file=sys.stderr, flush=True)
            if os.path.exists(ARMED):
                self.turns += 1
        out = pb.BotMessage()
        out.reply.action.CopyFrom(act(obs))
        out.reply.request_id = request.request_id
        return out

    @property
    def stalling(self) -> bool:
        return self.turns >= STALL_TURN


def message(out: pb.BotMessage) -> bytes:
    body = out.SerializeToString()
    return frame(DATA, 0, STREAM, b"\x00" + struct.pack(">I", len(body)) + body)


def dial() -> socket.socket:
    """The connection, with the Play stream opened and the Hello sent."""
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
            bot_version="h2_stall_bot",
            answers_ping=True,
        )
    )
    sock.sendall(
        PREFACE
        + frame(SETTINGS, 0, 0, settings)
        + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 30))  # the connection's: wide open
        + frame(HEADERS, END_HEADERS, STREAM, headers)
        + message(hello)
    )
    return sock


def answer(sock: socket.socket, player: Player, received: pb.RefereeMessage) -> None:
    """Whatever the referee's message calls for: an action, a Pong, the stream's end."""
    which = received.WhichOneof("kind")
    if which == "request":
        sock.sendall(message(player.answer(received.request)))
    elif which == "ping":
        pong = pb.BotMessage()
        pong.pong.nonce = received.ping.nonce
        sock.sendall(message(pong))
    elif which == "game_over":
        player.games.pop(received.game_over.game_id, None)
    elif which == "goodbye":
        sock.sendall(frame(DATA, END_STREAM, STREAM))


def play(sock: socket.socket) -> None:
    """Read frames until the referee ends the stream or the connection."""
    player = Player()
    pending = b""
    while True:
        length, kind, flags = struct.unpack(">IBB", b"\x00" + read_exact(sock, 5))
        stream = struct.unpack(">I", read_exact(sock, 4))[0] & 0x7FFFFFFF
        payload = read_exact(sock, length)
        if kind == SETTINGS and not flags & ACK:
            sock.sendall(frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            sock.sendall(frame(PING, ACK, 0, payload))
        elif kind == DATA and stream == STREAM and not player.stalling:
            if length:  # each byte read is given back: the window stays open
                sock.sendall(frame(WINDOW_UPDATE, 0, STREAM, struct.pack(">I", length)))
            if flags & PADDED:
                payload = payload[1 : len(payload) - payload[0]]
            pending += payload
            while len(pending) >= 5 and len(pending) >= 5 + int.from_bytes(pending[1:5]):
                size = int.from_bytes(pending[1:5])
                answer(sock, player, pb.RefereeMessage.FromString(pending[5 : 5 + size]))
                pending = pending[5 + size :]
        elif (kind == HEADERS and flags & END_STREAM) or kind in (RST_STREAM, GOAWAY):
            return


def main() -> int:
    print(STARTING, file=sys.stderr, flush=True)
    with contextlib.closing(dial()) as sock, contextlib.suppress(EOFError, OSError):
        play(sock)  # until the referee ends it, or closes the connection
    return 0


if __name__ == "__main__":
    sys.exit(main())
