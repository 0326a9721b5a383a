"""What one request comes to: the bot's reply, or the fault that replaces it.

Kept apart from the session so the match runner, which only reads replies,
needs nothing of the stream that carries them.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

from google.protobuf import text_format

from arena.protocol import wire
from arena.protocol.faults import Fault, FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.clock.deadline import bot_time, is_late
from arena.text import printable
from engine import MalformedActionError

_request_ids = itertools.count(1)

REASON_CHARS = 300
"""The most of an `ActionReply.reason` a fault record keeps: enough for a parse error and the
line it was about, not a log."""


def bot_reason(text: str) -> str:
    """A reply's `reason`, fit for a one-line record: runs of white space (line breaks too)
    become one space, every other character that is not printable is shown as its escape
    (`arena.text`: the record goes to a person's screen), and it is cut to `REASON_CHARS`."""
    flat = " ".join(text.split())
    shown = printable(flat)
    if len(shown) <= REASON_CHARS:
        return shown
    return printable(flat, REASON_CHARS - 1) + "\u2026"


def next_request_id() -> int:
    """Request ids are unique across the referee, so a reply can never match another request."""
    return next(_request_ids)


@dataclass(frozen=True, slots=True)
class Arrival:
    """What reached a pending request instead of a reply: the fault that replaces it.

    A reply itself reaches the request as its `pb.BotMessage`: no object is
    built around the message on the path every decision takes.
    """

    kind: FaultKind
    problem: str
    at: float


@dataclass(slots=True)
class Reply:
    """What became of one request: an answer, or the fault that replaced it.

    A value, never changed once its maker hands it on (change one with
    `dataclasses.replace`), but not a frozen dataclass: one is built for every
    decision, and a frozen one sets each of its eleven fields through
    `object.__setattr__`, the largest single cost the referee added to a
    decision since it had five.
    """

    answer: wire.Answer | None
    fault: Fault | None
    elapsed: float
    """From the request's being written to the reply's being read, on the referee's clock."""
    action: pb.Action | None = None
    """The action as the bot sent it."""
    request_id: int = 0
    """The request answered, so that a fault found later (an illegal action) names it."""
    referee_lag: float = 0.0
    """Seconds of `elapsed` in which the referee itself was held up: never charged to the bot."""
    wall: float = 0.0
    """From starting to write the request to reading the reply: `elapsed`, and the
    referee's own queueing before the request was out."""
    cpu: float | None = None
    """CPU seconds the bot's process used meanwhile, where the platform tells (`cputime`)."""
    cpu_wait: float | None = None
    """Seconds it was runnable but waiting for a CPU meanwhile: the machine's load."""
    reason: str = ""
    """What the bot said of its reply (`ActionReply.reason`, through `bot_reason`)."""
    late: asyncio.Future[str] | None = None
    """For a timeout: resolved, should the reply come after all, with how late it was
    ("it replied 0.42 s after the 0.20 s limit")."""
    credit: float = 0.0
    """Seconds of `elapsed` that were the bot's link's, not its thinking: its measured round
    trip, within the tournament's lag allowance (`deadline.network_credit`)."""
    round_trip: float | None = None
    """The session's measured round trip when it was asked; None where it was never measured
    (a bot that does not answer pings)."""

    def explained(self, detail: str) -> str:
        """A fault's `detail` with the bot's own reason after it, when it gave one: through
        the bridge, that reason is the only place the real mistake is named."""
        return f"{detail} (the bot says: {self.reason})" if self.reason else detail

    @property
    def sent(self) -> str:
        """The action as text, for fault records (rendered only when asked: it is slow)."""
        if self.action is None:
            return ""
        return text_format.MessageToString(self.action, as_one_line=True)


def reply_of(
    message: pb.BotMessage,
    request_id: int,
    elapsed: float,
    lag: float,
    wall: float,
    limit: float,
    credit: float = 0.0,
) -> Reply:
    """A bot's reply to a request, read `elapsed` seconds after it was written: its answer,
    or the fault it comes to.

    Late by the referee's clock, less the `lag` in which the referee itself
    was held up and the `credit` for the bot's link, it is a timeout (the loop
    was slow to notice; the bot was not on time); an action that is no action
    is a malformed message. The session records the credit on the reply.
    """
    reply = message.reply
    action = reply.action
    reason = bot_reason(reply.reason) if reply.reason else ""
    charged = bot_time(elapsed, lag, credit)
    if is_late(charged, limit):
        detail = (
            f"reply after {charged * 1000:.0f} ms, {(charged - limit) * 1000:.0f} ms "
            f"over the {limit * 1000:.0f} ms limit"
        )
        if credit:
            detail += f" (its link's {credit * 1000:.0f} ms not counted)"
        shown = Reply(None, None, elapsed, action, request_id, reason=reason)
        fault = Fault(FaultKind.TIMEOUT, shown.explained(detail), shown.sent, request_id)
        return Reply(None, fault, elapsed, request_id=request_id, referee_lag=lag, wall=wall)
    try:
        answer = wire.answer_from_proto(action)
    except MalformedActionError as error:
        bad = Reply(None, None, elapsed, action, request_id, reason=reason)
        fault = Fault(FaultKind.MALFORMED_MESSAGE, bad.explained(str(error)), bad.sent, request_id)
        return Reply(
            None, fault, elapsed, request_id=request_id, referee_lag=lag, wall=wall, reason=reason
        )
    # Every field in order, none by keyword: a decision's reply is built here, and keywords
    # take a dataclass's __init__ twice as long.
    return Reply(answer, None, elapsed, action, request_id, lag, wall, None, None, reason)
