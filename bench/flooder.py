"""A hostile client for `arena bench flood`: Hello streams with huge first messages.

    python -m bench.flooder --target unix:/path/referee.sock --target 127.0.0.1:PORT
        [--connections 32] [--streams 16] [--message-bytes 4194304] [--seconds 30]

What a bot's child could do to the referee it can reach: open many HTTP/2
connections, on each as many Play streams as the server lets it, and send on
every stream a first message of megabytes (a Hello whose free-text field is
padded), opening a new stream as soon as one is ended, until its time is up;
then it stops by itself. It is a separate process so that its own buffers are
never counted as the referee's. At the end it prints one JSON line: streams
opened, and how each ended (status and details, counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter

import grpc

from arena.protocol.messages import referee as pb

PLAY = "/perudo.v1.RefereeService/Play"


def _payload(size: int, name: str) -> bytes:
    """A Hello of `size` bytes (or a little more when tiny), well formed but for its size;
    none at all for 0 (streams that say nothing)."""
    if size == 0:
        return b""
    pad = size
    while True:
        hello = pb.Hello(name=name, token="x" * 32, protocol_version=1, bot_version="v" * pad)
        data = pb.BotMessage(hello=hello).SerializeToString()
        if len(data) <= size or pad == 0:
            return data
        pad = max(0, pad - (len(data) - size))


async def _stream(channel: grpc.aio.Channel, payload: bytes, ended: Counter[str]) -> None:
    play = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)
    call = play()  # type: ignore[call-arg]  # the stubs miss that the iterator is optional
    try:
        if payload:
            await call.write(payload)
        while await call.read() is not grpc.aio.EOF:  # type: ignore[attr-defined]
            pass
        code, details = await call.code(), await call.details()
    except grpc.aio.AioRpcError as error:
        code, details = error.code(), error.details() or ""
    except asyncio.CancelledError:
        call.cancel()
        raise
    ended[f"{code.name}: {(details or '')[:120]}"] += 1


async def _connection(
    target: str, streams: int, payload: bytes, ended: Counter[str], opened: list[int]
) -> None:
    # A subchannel pool of its own: every channel is a connection of its own.
    options = [("grpc.use_local_subchannel_pool", 1), ("grpc.max_send_message_length", -1)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:

        async def keep_one_open() -> None:
            while True:
                opened[0] += 1
                await _stream(channel, payload, ended)

        await asyncio.gather(*(keep_one_open() for _ in range(streams)))


async def flood(
    targets: list[str], connections: int, streams: int, size: int, seconds: float
) -> dict[str, object]:
    payload = _payload(size, "flood")
    ended: Counter[str] = Counter()
    opened = [0]
    tasks = [
        asyncio.ensure_future(
            _connection(targets[i % len(targets)], streams, payload, ended, opened)
        )
        for i in range(connections)
    ]
    await asyncio.wait(tasks, timeout=seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"streams_opened": opened[0], "message_bytes": len(payload), "ended": dict(ended)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", required=True)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--streams", type=int, default=16, help="streams kept open per connection")
    parser.add_argument("--message-bytes", type=int, default=4 * 1024 * 1024 - 1024)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    result = asyncio.run(
        flood(args.target, args.connections, args.streams, args.message_bytes, args.seconds)
    )
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
