"""What the league server tells its operator: one event a line, for a person or for machines.

Every line `arena serve` writes as it runs is an event of a kind (a bot
connects, a stream is refused and why, a game starts or ends, a fault, the
stop), made in one place and written by one writer: the readable screen, a
line with the time of day, or with `--log-format json` one JSON object a
line, with the time (UTC, RFC 3339), the kind, the readable message and the
event's fields, for a log shipper. Whatever a bot wrote (its name in a refused
Hello, a fault's detail) is made printable (`arena.text`) in either form, and
the JSON is ASCII, so a line can neither break the log into two nor carry an
escape sequence to whoever reads it decoded.
"""

from __future__ import annotations

import datetime
import enum
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from arena.text import printable

_VERDICT = re.compile(r": (accepted as version \d+ of |rejected: )")
"""How a verdict reads (`arena.submissions.versions.Verdict.line`, after the entrant's name)."""

Field = str | int | float | bool | None | Sequence[str]
"""What an event's field holds: JSON's plain values, or a list of names."""


class Kind(enum.StrEnum):
    LISTENING = "listening"
    CONNECT = "connect"
    DISCONNECT = "disconnect"
    REFUSE = "refuse"
    TOURNAMENT_START = "tournament_start"
    GAME_START = "game_start"
    GAME_END = "game_end"
    LADDER_GAME = "ladder_game"
    FAULT = "fault"
    SUBMISSION = "submission"
    """A bot sent, waiting, judged, or left half done by a killed server."""
    TOURNAMENT_END = "tournament_end"
    NOTE = "note"
    SUMMARY = "summary"
    """What the last minute held back, in one line (`arena.league.digest`)."""
    STOPPING = "stopping"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class ScreenEvent:
    kind: Kind
    text: str
    """The line a person reads (made printable as it is written)."""
    fields: Mapping[str, Field] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    def screen_line(self) -> str:
        """The line with its time of day; a submission's verdict framed, so that an organiser
        waiting for it finds it among the ladder's lines."""
        stamp = time.strftime("%H:%M:%S", time.localtime(self.at))
        text = printable(self.text)
        if self.kind is Kind.SUBMISSION and _VERDICT.search(self.text):
            return f"{stamp} ==== VERDICT {text} ===="
        return f"{stamp} {text}"

    def json_line(self) -> str:
        moment = datetime.datetime.fromtimestamp(self.at, datetime.UTC)
        data: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "event": self.kind.value,
            "message": printable(self.text),
        }
        for key, value in self.fields.items():
            data.setdefault(key, _printable(value))
        return json.dumps(data, ensure_ascii=True)


def _printable(value: Field) -> object:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, int | float | bool) or value is None:
        return value
    return [printable(item) for item in value]


Screen = Callable[[ScreenEvent], None]
"""Where the server's events go (a writer below, or a test's list)."""


def note(text: str) -> ScreenEvent:
    """A line that is no event of its own kind (the live page's address, say)."""
    return ScreenEvent(Kind.NOTE, text)


class LineWriter:
    """Writes each event as one line to `out`, whole, whichever thread tells it (a TLS
    handshake's advice comes from a thread of its own)."""

    def __init__(self, out: TextIO, as_json: bool) -> None:
        self._out = out
        self._as_json = as_json
        self._lock = threading.Lock()

    def __call__(self, event: ScreenEvent) -> None:
        line = event.json_line() if self._as_json else event.screen_line()
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()
