"""One bot session: a Play stream, and at most one request in flight on it.

The referee never cancels a pending stream read to enforce a deadline (in
grpc.aio that kills the whole call). A reader task owns the stream's reads;
`ask` writes a request and times the wait for its reply, measured on the
monotonic clock from sending to receiving. A reply that comes late, or
answers a request that was not sent, is dropped by its request id; a bot
that keeps sending such replies has its session closed.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from google.protobuf import text_format
from google.protobuf.message import DecodeError

from arena import wire
from arena._proto.perudo.v1 import referee_pb2 as pb
from arena.faults import Fault, FaultKind
from engine import MalformedActionError

MAX_STRAY_MESSAGES = 20
"""Unexpected messages tolerated on one session before it is closed."""

_request_ids = itertools.count(1)

_Arrival = tuple[pb.BotMessage | None, str, float]
"""What reached a pending request: the message (None if it could not be used), a problem, when."""


def next_request_id() -> int:
    """Request ids are unique across the referee, so a reply can never match another request."""
    return next(_request_ids)


@dataclass(frozen=True, slots=True)
class Reply:
    """What became of one request: an answer, or the fault that replaced it."""

    answer: wire.Answer | None
    fault: Fault | None
    elapsed: float
    action: pb.Action | None = None
    """The action as the bot sent it."""
    request_id: int = 0
    """The request answered, so that a fault found later (an illegal action) names it."""

    @property
    def sent(self) -> str:
        """The action as text, for fault records (rendered only when asked: it is slow)."""
        if self.action is None:
            return ""
        return text_format.MessageToString(self.action, as_one_line=True)


class Session:
    """A bot's stream, as the match runner sees it."""

    def __init__(
        self,
        name: str,
        session_id: str,
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
        crashed: Callable[[], bool] | None = None,
    ) -> None:
        self.name = name
        self.session_id = session_id
        self._context = context
        self._crashed = crashed
        self._pending: tuple[int, asyncio.Future[_Arrival | None]] | None = None
        self._loop = asyncio.get_running_loop()
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._write_lock = asyncio.Lock()
        self._closed = asyncio.Event()
        self.close_reason = ""
        self.abort_status: tuple[grpc.StatusCode, str] | None = None
        self.token_hash = ""
        """The hash of the token it was admitted with: a new token for the name ends it."""
        self._stray = 0

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def peer_crashed(self) -> bool:
        return self._crashed is not None and self._crashed()

    async def send(self, message: pb.RefereeMessage | bytes) -> bool:
        """Write one message (bytes: already encoded); False when the stream is gone."""
        if self.closed:
            return False
        try:
            async with self._write_lock:
                await self._context.write(message)
        except Exception as error:  # any write failure means the stream is unusable
            self.close(f"the stream failed on write: {error}")
            return False
        return True

    async def ask(self, request: bytes, request_id: int, timeout: float) -> Reply:
        """Send an encoded request and wait for its reply, or for the fault that replaces it."""
        if self.closed:
            return Reply(None, Fault(FaultKind.DISCONNECT, self.close_reason, "", request_id), 0.0)
        loop = self._loop
        future: asyncio.Future[_Arrival | None] = loop.create_future()
        self._pending = (request_id, future)
        started = loop.time()
        self._arm(started + timeout)
        try:
            if not await self.send(request):
                return Reply(
                    None, Fault(FaultKind.DISCONNECT, self.close_reason, "", request_id), 0.0
                )
            arrival = await future
        finally:
            self._pending = None
        if arrival is None:
            detail = f"no reply within {timeout * 1000:.0f} ms"
            return Reply(None, Fault(FaultKind.TIMEOUT, detail, "", request_id), timeout)
        received, problem, at = arrival
        elapsed = at - started
        if received is None:
            kind = (
                FaultKind.DISCONNECT
                if not problem.startswith("malformed:")
                else FaultKind.MALFORMED_MESSAGE
            )
            return Reply(
                None, Fault(kind, problem.removeprefix("malformed: "), "", request_id), elapsed
            )
        action = received.reply.action
        if elapsed > timeout:  # the loop was slow to notice; the bot was not on time
            detail = f"reply after {elapsed * 1000:.0f} ms, over the {timeout * 1000:.0f} ms limit"
            late = Reply(None, None, elapsed, action, request_id)
            return Reply(None, Fault(FaultKind.TIMEOUT, detail, late.sent, request_id), elapsed)
        try:
            answer = wire.answer_from_proto(action)
        except MalformedActionError as error:
            bad = Reply(None, None, elapsed, action, request_id)
            fault = Fault(FaultKind.MALFORMED_MESSAGE, str(error), bad.sent, request_id)
            return Reply(None, fault, elapsed)
        return Reply(answer, None, elapsed, action, request_id)

    def _arm(self, deadline: float) -> None:
        """Make sure the deadline timer fires by `deadline`.

        One timer per session, re-armed only when it fires early. A timer
        scheduled and cancelled for every request would leave a cancelled
        entry in the loop's heap for a whole time limit: thousands of them at
        a time, each pushed and popped at a cost.
        """
        self._deadline = deadline
        timer = self._timer
        if timer is not None and timer.when() <= deadline:
            return
        if timer is not None:
            timer.cancel()
        self._timer = self._loop.call_at(deadline, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        pending = self._pending
        if pending is None or pending[1].done():
            return
        if self._loop.time() < self._deadline:  # set for an earlier request
            self._timer = self._loop.call_at(self._deadline, self._on_timer)
            return
        pending[1].set_result(None)

    def on_data(self, data: bytes) -> None:
        """Route one raw message from the bot (called by the reader)."""
        at = self._loop.time()
        try:
            message = pb.BotMessage.FromString(data)
        except DecodeError:
            self._resolve_or_stray(
                None, f"malformed: could not decode a BotMessage from {len(data)} bytes", at
            )
            return
        kind = message.WhichOneof("kind")
        if kind != "reply":
            what = "a second Hello" if kind == "hello" else "a message with no kind set"
            self._resolve_or_stray(None, f"malformed: expected an ActionReply, got {what}", at)
            return
        pending = self._pending
        if pending is not None and not pending[1].done():
            if message.reply.request_id == pending[0]:
                pending[1].set_result((message, "", at))
                return
            if message.reply.request_id > pending[0]:  # not a late answer to an old request
                problem = (
                    f"malformed: the reply names request {message.reply.request_id}, "
                    f"but the request awaiting an answer is {pending[0]}"
                )
                pending[1].set_result((None, problem, at))
                return
        self._stray_message(
            f"reply to request {message.reply.request_id}, which is not awaiting an answer"
        )

    def _resolve_or_stray(self, message: pb.BotMessage | None, problem: str, at: float) -> None:
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_result((message, problem, at))
        else:
            self._stray_message(problem.removeprefix("malformed: "))

    def _stray_message(self, what: str) -> None:
        self._stray += 1
        if self._stray > MAX_STRAY_MESSAGES:
            self.abort_status = (
                grpc.StatusCode.INVALID_ARGUMENT,
                f"too many unexpected messages (last: {what})",
            )
            self.close(self.abort_status[1])

    def close(self, reason: str) -> None:
        """Mark the session gone; a request in flight fails as a disconnect."""
        if self._closed.is_set():
            return
        self.close_reason = reason
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_result((None, reason, self._loop.time()))
