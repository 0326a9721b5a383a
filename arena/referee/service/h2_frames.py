"""HTTP/2 as the front door sees it: where one frame ends and the next begins.

The front door (`front_door`) times a bot's link with PING frames of its own,
which the bot's HTTP/2 library answers (RFC 9113 section 6.7) before its code
sees anything. To do that it must put a frame between two of the referee's
and take the answers out of the bot's bytes, without reading, changing or
holding anything else. So each direction is walked frame by frame, by the
9-byte header alone: a body is passed on as it comes, never gathered, but for
a PING's 8 bytes, held until whole to tell whether it is an answer to the
front door's own.

A frame goes in only between two whole frames, never before the referee's
first (its SETTINGS must open the connection) nor inside a header block (a
HEADERS frame and its CONTINUATIONs must be back to back). A bot's frame
longer than the referee's frame limit, or bytes that do not open with the
HTTP/2 preface, end the connection: the referee's HTTP/2 would refuse them
anyway, and the front door never holds more than a header's worth of them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from arena.errors import ArenaError

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
"""What every HTTP/2 client sends first (RFC 9113 section 3.4)."""

HEADER = 9
"""Bytes in a frame's header: length (24 bits), type, flags, stream id."""

HEADERS = 0x1
PUSH_PROMISE = 0x5
PING = 0x6
CONTINUATION = 0x9
ACK = 0x1
"""A PING's flag that says it answers one."""
END_HEADERS = 0x4
"""The flag that closes a header block."""

PING_BYTES = 8
"""A PING's payload: opaque data its answer echoes."""

_HEADER = struct.Struct(">BHBBL")  # length as 1 + 2 bytes, type, flags, stream id


class FrameError(ArenaError, ValueError):
    """Bytes from a bot that are not HTTP/2 the referee would take."""


def ping(payload: bytes) -> bytes:
    """A whole PING frame on the connection's stream 0, carrying `payload` (8 bytes)."""
    return _HEADER.pack(0, PING_BYTES, PING, 0, 0) + payload


class FromBot:
    """The bot's bytes, walked: passed on whole but for the answers to the front door's PINGs.

    `feed` takes what was read and gives what to pass on, and the payload of
    every PING answer in it (ACK flag, stream 0, 8 bytes) for `ours` to claim:
    a claimed one is taken out, any other (an answer to the referee's own
    PING) is passed on.
    """

    __slots__ = ("_body", "_held", "_max_frame", "_preface")

    def __init__(self, max_frame: int) -> None:
        self._max_frame = max_frame
        self._preface = len(PREFACE)
        """Bytes of the preface still to come."""
        self._held = b""
        """A frame header not yet whole, or a PING answer whose payload is not yet whole."""
        self._body = 0
        """Bytes of the current frame's body still to pass on."""

    def feed(self, data: bytes, ours: Callable[[bytes], bool]) -> bytes:
        """What of `data` to pass on; `ours(payload)` is asked of each PING answer and
        says whether it is the front door's (then taken out). Raises `FrameError` for
        bytes the referee would refuse."""
        out = bytearray()
        view = memoryview(data)
        at = 0
        if self._preface:
            take = min(self._preface, len(view))
            start = len(PREFACE) - self._preface
            if bytes(view[:take]) != PREFACE[start : start + take]:
                raise FrameError("the connection did not open with the HTTP/2 preface")
            out += view[:take]
            self._preface -= take
            at = take
        end = len(view)
        while at < end:
            if self._body:
                take = min(self._body, end - at)
                out += view[at : at + take]
                self._body -= take
                at += take
                continue
            want = HEADER - len(self._held) if len(self._held) < HEADER else 0
            if want:
                take = min(want, end - at)
                self._held += view[at : at + take]
                at += take
                if len(self._held) < HEADER:
                    break
            high, low, kind, flags, stream = _HEADER.unpack_from(self._held)
            length = high << 16 | low
            if length > self._max_frame:
                raise FrameError(
                    f"a frame of {length} bytes, over the referee's limit of {self._max_frame}"
                )
            answer = kind == PING and flags & ACK and not stream & 0x7FFF_FFFF
            if not answer or length != PING_BYTES:  # a malformed one: the referee's to refuse
                out += self._held
                self._held = b""
                self._body = length
                continue
            take = min(HEADER + PING_BYTES - len(self._held), end - at)
            self._held += view[at : at + take]
            at += take
            if len(self._held) < HEADER + PING_BYTES:
                break
            frame, self._held = self._held, b""
            if not ours(frame[HEADER:]):
                out += frame
        return bytes(out)


class FromReferee:
    """The referee's bytes, walked to know where a frame may go in (`at_boundary`)."""

    __slots__ = ("_body", "_held", "_in_block", "_started")

    def __init__(self) -> None:
        self._held = b""
        """A frame header not yet whole."""
        self._body = 0
        """Bytes of the current frame's body still to come."""
        self._in_block = False
        """Whether a header block is open (a HEADERS or PUSH_PROMISE without END_HEADERS)."""
        self._started = False
        """Whether the referee's first frame (its SETTINGS) has been passed on whole."""

    @property
    def at_boundary(self) -> bool:
        """Whether a frame may go in now: between two whole frames, after the first, outside
        a header block."""
        return self._started and not self._body and not self._held and not self._in_block

    def feed(self, data: bytes, insert: bytes = b"") -> tuple[bytes, bool]:
        """What to pass on for `data`, with `insert` put in at its first boundary (at the
        start if the walk is at one); whether it went in."""
        view = memoryview(data)
        if insert and self.at_boundary:
            self._walk(view, 0)
            return insert + data, True
        at = 0
        while at < len(view):
            at = self._step(view, at)
            if insert and self.at_boundary:
                self._walk(view, at)
                return bytes(view[:at]) + insert + bytes(view[at:]), True
        return data, False

    def _walk(self, view: memoryview, at: int) -> None:
        while at < len(view):
            at = self._step(view, at)

    def _step(self, view: memoryview, at: int) -> int:
        """Walk on from `at` to the end of the current header or body, or of `view`."""
        left = len(view) - at
        if self._body:
            take = min(self._body, left)
            self._body -= take
            if not self._body:
                self._started = True
            return at + take
        take = min(HEADER - len(self._held), left)
        self._held += view[at : at + take]
        if len(self._held) < HEADER:
            return at + take
        high, low, kind, flags, _ = _HEADER.unpack_from(self._held)
        self._held = b""
        self._body = high << 16 | low
        if kind in (HEADERS, PUSH_PROMISE):
            self._in_block = not flags & END_HEADERS
        elif kind == CONTINUATION and flags & END_HEADERS:
            self._in_block = False
        if not self._body:
            self._started = True
        return at + take
