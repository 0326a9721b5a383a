"""The pages' one log of frames: what the spectator says, encoded once for every page.

The referee's event loop tells the spectator of every bid, a thousand a
second or more, and a hundred pages may be reading. So a message is
encoded once, when it is made, and put aside as bytes (`add`, when anyone
is watching); `flush`, on the web server's tick, joins all put aside since
the last in one JSON array, one server-sent event, appended to a log that
every page reads from where it is (`read`). Pages at the same place (all
of them, unless one is slow) are handed the same bytes: the cost of a page
is a socket write a tick, never an encoding.

The log is bounded (LOG_BYTES): a page so far behind that what it missed
is gone is sent the state afresh instead, one snapshot encoded once however
many pages need it at that moment. Everything a page is sent goes through
here after the spectator has made it public, so batching cannot move a die
earlier than its round's end: it only holds a message back until the tick.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable

import orjson

from arena.records import Json

LOG_BYTES = 4 << 20
"""Encoded frames kept for the pages to read (the last few seconds of a fast tournament, the
last hour of a slow one); a page further behind is sent the whole state afresh."""


def frame(messages: list[Json]) -> bytes:
    """One server-sent event carrying `messages` in order: a JSON array on one line (JSON
    escapes every newline, so a bot's text cannot end the event early).

    orjson, not the standard library's `json`: the frames are the whole of the encoding
    the pages cost, a message or two a decision, and the standard encoder takes about 4 us
    a message (most of it writing floats), orjson a fifteenth of that."""
    return _framed([orjson.dumps(m) for m in messages])


def _framed(encoded: list[bytes]) -> bytes:
    return b"data: [" + b",".join(encoded) + b"]\n\n"


class Subscriber:
    """Where one page's stream has read to in the log."""

    __slots__ = ("cursor", "first")

    def __init__(self, first: bytes, cursor: int) -> None:
        self.first: bytes | None = first
        """The whole state, sent before anything else (and again if the page fell behind)."""
        self.cursor = cursor


class FrameLog:
    def __init__(self, state: Callable[[], Json]) -> None:
        self._state = state
        """The whole state as it is now: what a new page, or one left behind, is sent."""
        self._subscribers: set[Subscriber] = set()
        self._pending: list[bytes] = []
        """Messages put aside, each encoded as it was made: bytes, which the garbage collector
        never looks at, where a tick's worth of dicts kept until the tick would have been
        swept into its older generations (a full collection of the referee's heap costs it
        tens of milliseconds)."""
        self._frames: deque[bytes] = deque()
        self._bytes = 0
        self._logged = 0
        """Frames ever logged: the log holds the last of them."""
        self._changes = 0
        """Messages ever made, watched or not: the state's version, for its cached frame."""
        self._state_frame: tuple[int, bytes] = (-1, b"")
        self._joined: tuple[tuple[int, int], bytes] = ((0, 0), b"")

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def add(self, message: Json) -> None:
        """Put `message` aside for the next flush; with nobody watching there is nothing to
        keep (a page that comes is sent the state)."""
        self._changes += 1
        if self._subscribers:
            self._pending.append(orjson.dumps(message))

    @property
    def logged(self) -> int:
        """Frames ever logged: a page whose cursor is this has read them all."""
        return self._logged

    @property
    def last(self) -> bytes:
        """The last frame logged (b"" if none)."""
        return self._frames[-1] if self._frames else b""

    def flush(self) -> None:
        """Encode the messages put aside into one frame of the log, once for every page."""
        if not self._pending:
            return
        data = _framed(self._pending)
        self._pending = []
        self._frames.append(data)
        self._bytes += len(data)
        self._logged += 1
        while self._bytes > LOG_BYTES and len(self._frames) > 1:
            self._bytes -= len(self._frames.popleft())

    def subscribe(self) -> Subscriber:
        self.flush()  # what was put aside is in the state already: the page starts after it
        subscriber = Subscriber(self._state_now(), self._logged)
        self._subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.discard(subscriber)

    def read(self, subscriber: Subscriber) -> bytes:
        """The frames `subscriber` has not read yet, in one piece (empty if none): the same
        bytes object for every page at the same place."""
        self.flush()
        first, subscriber.first = subscriber.first, None
        behind = self._logged - subscriber.cursor
        if behind > len(self._frames):  # what it missed is gone: the state as it is now
            first, behind = self._state_now(), 0
        subscriber.cursor = self._logged
        fresh = self._since(behind)
        return first + fresh if first is not None else fresh

    def _state_now(self) -> bytes:
        """The state's frame, encoded once a version (a hundred pages that come at once, or
        fall behind together, cost one)."""
        if self._state_frame[0] != self._changes:
            self._state_frame = (self._changes, frame([self._state()]))
        return self._state_frame[1]

    def _since(self, behind: int) -> bytes:
        """The last `behind` frames, joined once for every page at the same place."""
        if not behind:
            return b""
        if behind == 1:
            return self._frames[-1]
        key = (self._logged - behind, self._logged)
        if self._joined[0] != key:
            log = self._frames
            self._joined = (key, b"".join(itertools.islice(log, len(log) - behind, None)))
        return self._joined[1]
