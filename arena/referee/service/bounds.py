"""What grpc may hold for the referee's clients: the options that bound its memory.

A client, honest or not, decides how long its messages are and how many
streams it opens; grpc takes in what a stream's flow-control window allows
before the referee reads it, and the whole message, as long as it announces,
once the referee asks for it. Left to grpc's defaults (4 MiB
messages, windows widened by BDP probing, 256 streams a connection, no cap on
streams), a bot's child that kept 512 streams open with a 4 MiB Hello on each
swelled the arena to 4 GB (`arena bench flood`). So every bound is set where
grpc applies it, before it buffers:

- a message grpc takes in is at most `MESSAGE_MARGIN` times the referee's own
  limit (`ServerLimits.max_message_bytes`, 16 KiB by default, told to every bot
  in its Welcome), 32 KiB: the largest legitimate message, a Hello or a reply
  with a bid and a reason, is a few hundred bytes. One between the two limits
  is seen by the referee and faulted as a malformed message, with its reason;
  a longer one grpc refuses itself, ending the stream with RESOURCE_EXHAUSTED
  "Received message larger than max (N vs. 32768)", and the referee sees the
  bot's stream end;
- no BDP probing, frames of the HTTP/2 minimum, and a fixed window
  (`STREAM_WINDOW`): the referee's messages are small, wider windows would buy
  no speed;
- a connection carries at most as many streams as a bot may ask sessions for
  (`BOT_SESSIONS`, or the referee's cap if higher) and `SPARE_STREAMS` more: a
  bot dials one connection for all its sessions, and one asking for more than
  the referee's cap is told so by the referee, not refused by HTTP/2;
- streams open at once, from everyone together, are capped
  (`ServerLimits.max_streams`): grpc refuses one more at once with
  RESOURCE_EXHAUSTED "Concurrent RPC limit exceeded!". That cap times the
  message limit bounds the bytes in flight (`bytes_in_flight`, 128 MiB by
  default); the referee reads at most `max_unauthenticated` streams that have
  not said Hello, so a flood of them holds far less.

grpc's resource quota, which could cap its memory directly, is not reachable
from Python (its channel argument is a pointer), hence the caps above.
"""

from __future__ import annotations

MAX_MESSAGE_BYTES = 16 * 1024
"""The largest message the referee takes from a bot, by default (`--max-message-bytes`)."""

HELLO_TIMEOUT = 5.0
"""Seconds a new stream has to say Hello, by default (`--hello-timeout`)."""

MESSAGE_MARGIN = 2
"""grpc's message limit, as a multiple of the referee's own."""

STREAM_WINDOW = 8 * 1024
"""A stream's HTTP/2 flow-control window, kept fixed (BDP probing off): ample for the
referee's messages, and grpc opens it further for one it is reading."""

MAX_FRAME = 16 * 1024
"""The HTTP/2 minimum frame size, which grpc would otherwise grow with BDP probing."""

BOT_SESSIONS = 64
"""The most sessions a bot.toml may ask for: a bot opens them all on one connection
(and is refused, with the reason, past the referee's own cap)."""

SPARE_STREAMS = 8
"""Streams a connection may carry beyond one bot's sessions: a session ending while its
replacement opens."""


def grpc_message_limit(max_message_bytes: int) -> int:
    """The largest message grpc lets through to the referee."""
    return MESSAGE_MARGIN * max_message_bytes


def bytes_in_flight(max_message_bytes: int, max_streams: int) -> int:
    """What grpc may hold for the streams open at once, at most: a whole message each."""
    return max_streams * max(STREAM_WINDOW, grpc_message_limit(max_message_bytes))


def server_options(max_message_bytes: int, sessions_per_bot: int) -> list[tuple[str, int]]:
    """The grpc server options that bound what a client can make grpc buffer."""
    return [
        ("grpc.max_receive_message_length", grpc_message_limit(max_message_bytes)),
        ("grpc.http2.bdp_probe", 0),
        ("grpc.http2.lookahead_bytes", STREAM_WINDOW),
        ("grpc.http2.max_frame_size", MAX_FRAME),
        ("grpc.max_concurrent_streams", max(BOT_SESSIONS, sessions_per_bot) + SPARE_STREAMS),
    ]
