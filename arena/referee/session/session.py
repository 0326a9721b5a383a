"""One bot session: a Play stream, and at most one request in flight on it.

The referee never cancels a pending stream read to enforce a deadline (in
grpc.aio that kills the whole call). A reader task owns the stream's reads;
`ask` starts writing a request and times the wait for its reply from that
moment, so the deadline covers the write too: a bot that stops accepting data
(a flow-control window never reopened) cannot hold a game, it is faulted for
a stall when the deadline passes with the request still unwritten, and its
session is closed. Time in which the referee's own event loop was held up
(`LoopLag`) is never counted against a bot.

A reply that comes late to a request that already timed out is expected and
dropped, once its lateness is told (`Reply.late`, so that the timeout's
record can say by how much the bot missed); one that answers a request never
sent, or answers a request twice, is unexpected, and a bot that keeps sending
those has its session closed (INVALID_ARGUMENT, a malformed-message fault).

A bot that came in through the front door (`front_door`) has its link timed
there (`link`), by HTTP/2 PINGs its gRPC library answers; a tournament that
allows it credits that time to each decision (`deadline.network_credit`). A bot
the arena started itself (`started_here`) is on this machine, with no link to
credit, whichever way it dialled; and one that came in any other way has no
link timed, and none credited.
"""

from __future__ import annotations

import asyncio
import math

import grpc
from google.protobuf.message import DecodeError

from arena.protocol.faults import Fault, FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.clock import cputime
from arena.referee.clock.deadline import clock_start, due, network_credit, reply_clock_start
from arena.referee.clock.loop_lag import LoopLag
from arena.referee.clock.round_trip import RoundTrip
from arena.referee.session.exits import ExitProbe, describe_exit
from arena.referee.session.late_replies import LateReplies
from arena.referee.session.reply import Arrival, Reply, reply_of
from arena.referee.session.write_turn import WriteTurn

MAX_STRAY_MESSAGES = 20
"""Unexpected messages tolerated on one session before it is closed."""

CRASH_WAIT = 3.0
"""Seconds to wait for a bot's process to end after its stream did, to tell a crash. A
crashed process is reaped within milliseconds on an idle machine, but on one loaded ten
deep a second was seen to pass first and a crash was told as a mere disconnect; only a bot
that hangs up and lives on waits the whole of it."""

WRITE_TIMEOUT = 5.0
"""Seconds a message other than a request (a Welcome, a GameOver) may take to be written."""


class Session:
    """A bot's stream, as the match runner sees it."""

    def __init__(
        self,
        name: str,
        session_id: str,
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
        exit_probe: ExitProbe | None = None,
        lag: LoopLag | None = None,
    ) -> None:
        self.name = name
        self.session_id = session_id
        self._context = context
        self._exit_probe = exit_probe
        self._lag = lag or LoopLag()
        self._pending: tuple[int, asyncio.Future[pb.BotMessage | Arrival | None]] | None = None
        """The request in flight: its id, and what reaches it (its reply, a fault, or None
        when its time is up)."""
        self._arrived = 0.0
        """When the reply that reached the request in flight was read (loop time)."""
        self._loop = asyncio.get_running_loop()
        self._started = 0.0
        """When the request in flight began to be written (loop time)."""
        self._sent_at = 0.0
        """When it was written: the bot's clock starts here (0 until then)."""
        self._limit = 0.0
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._asker: asyncio.Task[object] | None = None
        """The task writing the request in flight, while it writes (a stall interrupts it)."""
        self._write_interrupted = False
        self._turn = WriteTurn(self._loop)
        """One write at a time on the stream (a Goodbye may come during a request)."""
        self._closed = asyncio.Event()
        self.close_reason = ""
        self.close_kind = FaultKind.DISCONNECT
        """What a request on the closed session is: a disconnect unless the referee knows better."""
        self.leaving = ""
        """Why the referee is ending the session, once it has begun to (its Goodbye is on the
        way): the reason a stream the bot then ends is closed with."""
        self.abort_status: tuple[grpc.StatusCode, str] | None = None
        self.token_hash = ""
        """The hash of the token it was admitted with: a new token for the name ends it."""
        self._cpu: cputime.Meter | None = None
        self._stray = 0
        self.last_data = 0.0
        """When the bot's last message was read (loop time)."""
        self._late = LateReplies(self._loop, self._lag)
        self.link: RoundTrip | None = None
        """The link of a bot that came in through the front door, timed by HTTP/2 PINGs its
        gRPC library answers (`front_door`): the only link ever credited, and never one of
        a bot the arena started (`started_here`), which has none."""

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def request_written(self) -> float:
        """When the last request was written whole (loop time; 0 until one is)."""
        return self._sent_at

    @property
    def reply_read(self) -> float:
        """When the last reply that reached a request in flight was read (loop time)."""
        return self._arrived

    @property
    def started_here(self) -> bool:
        """Whether the arena started this bot's process itself (it holds its exit status):
        a local bot, on this machine's socket, whose link is never credited."""
        return self._exit_probe is not None

    @property
    def cpu_pid(self) -> int | None:
        """The process answering on this session, whose CPU time is sampled around each decision."""
        return None if self._cpu is None else self._cpu.pid

    def measure_cpu(self, pid: int, tree: bool) -> None:
        """Sample `pid`'s CPU time around each decision; with `tree`, its descendants' too
        (when which of them answers is not known)."""
        if self._cpu is not None:
            self._cpu.close()
        self._cpu = cputime.Meter(pid, tree)

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def crashed(self) -> str | None:
        """How the bot's process ended, if it crashed (a signal or a non-zero exit); else None.

        Its stream ends a moment before the process can be reaped, so the
        probe waits a little for the exit status; a process that lives on,
        or exits 0, merely disconnected.
        """
        if self._exit_probe is None:
            return None
        status = await self._exit_probe(CRASH_WAIT)
        if status is None or status == 0:
            return None
        return describe_exit(status)

    async def send(
        self, message: pb.RefereeMessage | bytes, timeout: float = WRITE_TIMEOUT
    ) -> bool:
        """Write one message (bytes: already encoded); False when the stream is gone.

        A write still unfinished after `timeout` means the bot has stopped
        accepting data: the session is closed as stalled. The write is done
        inline and a timer interrupts it (no task and no wait per message).
        """
        if self.closed:
            return False
        task = asyncio.current_task(self._loop)
        assert task is not None  # a coroutine of the referee's, run as a task
        stalled = False

        def stall() -> None:
            nonlocal stalled
            stalled = True
            task.cancel()

        timer = self._loop.call_later(timeout, stall)
        try:
            await self._turn.write(self._context, message)
        except asyncio.CancelledError:
            if not stalled or task.uncancel() > 0:
                raise
            self.close(
                f"the bot accepted no data for {timeout * 1000:.0f} ms "
                "(a message stayed unwritten)",
                FaultKind.STALL,
            )
            return False
        except Exception as error:  # any write failure means the stream is unusable
            self.close(f"the stream failed on write: {error}")
            return False
        finally:
            timer.cancel()
        return True

    def _closed_fault(self, request_id: int) -> Reply:
        return Reply(None, Fault(self.close_kind, self.close_reason, "", request_id), 0.0)

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        """Send an encoded request and wait for its reply, or for the fault that replaces it;
        up to `allowance` seconds of the link's measured round trip are the link's, not the
        bot's (`deadline.network_credit`).

        One coroutine does it all, with no task and no helper coroutine: each
        would cost every decision a frame or a loop turn. The request is
        written inline; a stall or a close interrupts a write that does not
        finish by cancelling this task, the cancellation is taken back here,
        and the request's future tells what happened.
        """
        if self._closed.is_set():
            return self._closed_fault(request_id)
        meter = self._cpu
        before = None if meter is None else meter.sample()
        loop = self._loop
        future: asyncio.Future[pb.BotMessage | Arrival | None] = loop.create_future()
        self._pending = (request_id, future)
        self._started = started = loop.time()
        self._sent_at = 0.0
        round_trip = None if self.link is None else self.link.estimate  # as it stood when asked
        credit = (
            network_credit(round_trip, allowance) if allowance and not self.started_here else 0.0
        )
        self._limit = timeout + credit
        deadline = started + timeout + credit
        timer = self._timer
        if timer is not None and timer.when() <= deadline:  # `_arm`'s usual case, inline
            self._deadline = deadline
        else:
            self._arm(deadline)
        task = asyncio.current_task(loop)
        self._asker = task
        self._write_interrupted = False
        try:
            try:
                await self._turn.write(self._context, request)
                self._sent_at = loop.time()
            except asyncio.CancelledError:
                if not self._write_interrupted or task is None or task.uncancel() > 0:
                    raise
            except Exception as error:  # any write failure means the stream is unusable
                self.close(f"the stream failed on write: {error}")
            finally:
                self._asker = None
            arrival = await future
        finally:
            self._pending = None
        reply = self._reply(arrival, request_id, timeout, credit)
        # Made just now and no one else's yet: filled in, not copied (`dataclasses.replace`
        # took longer than reading the reply did).
        reply.credit, reply.round_trip = credit, round_trip
        if meter is None or before is None:
            return reply
        after = meter.sample()
        if after is None:
            return reply
        reply.cpu = after.on_cpu - before.on_cpu
        reply.cpu_wait = after.waiting - before.waiting
        return reply

    def _reply(
        self,
        arrival: pb.BotMessage | Arrival | None,
        request_id: int,
        timeout: float,
        credit: float,
    ) -> Reply:
        """What reached the request in flight (None: its time ran out), as its reply, with
        `credit` seconds of it the link's."""
        started = self._started
        if arrival is None:
            now = self._loop.time()
            sent = clock_start(started, self._sent_at, writing=False)
            detail = f"no reply within {timeout * 1000:.0f} ms"
            if credit:
                detail += f" (and {credit * 1000:.0f} ms more for its link)"
            return Reply(
                None,
                Fault(FaultKind.TIMEOUT, detail, "", request_id),
                now - sent,
                request_id=request_id,
                referee_lag=self._lag.between(sent, now),
                wall=now - started,
                late=self._late.expect(request_id, sent, timeout, credit),
            )
        at = arrival.at if isinstance(arrival, Arrival) else self._arrived
        sent = reply_clock_start(self._sent_at, at)
        lag = self._lag.between(sent, at)
        if isinstance(arrival, Arrival):
            fault = Fault(arrival.kind, arrival.problem, "", request_id)
            return Reply(
                None, fault, at - sent, request_id=request_id, referee_lag=lag, wall=at - started
            )
        reply = reply_of(arrival, request_id, at - sent, lag, at - started, timeout, credit)
        if reply.fault is not None and reply.fault.kind is FaultKind.TIMEOUT:
            self._late.expect(request_id, sent, timeout, credit)  # a second copy is no stray
        return reply

    def cut_stalled_write(self, grace: float) -> None:
        """On a stop: a request still unwritten `grace` seconds from now is a stall at once.

        Its deadline may be far off (a long move time); a stop must not wait it out.
        """
        if self._asker is None:
            return
        started = self._started

        def check() -> None:
            if self._asker is not None and self._started == started:
                self.close(
                    "the bot accepted no data: the request could not be written "
                    "(its flow-control window stayed shut) by the time the arena stopped",
                    FaultKind.STALL,
                )

        self._loop.call_later(grace, check)

    def _interrupt_write(self) -> None:
        if self._asker is not None and not self._write_interrupted:
            self._write_interrupted = True
            self._asker.cancel()

    def _arm(self, deadline: float) -> None:
        """Make sure the deadline timer fires by `deadline`.

        One timer per session, re-armed only when it fires early. A timer
        scheduled and cancelled for every request would leave a cancelled
        entry in the loop's heap for a whole time limit: thousands of them at
        a time, each pushed and popped at a cost. An infinite deadline (timeouts
        off, for a debugger) arms nothing: a timer set earlier finds it not due.
        """
        self._deadline = deadline
        if math.isinf(deadline):
            return
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
        now = self._loop.time()
        if now < self._deadline:  # set for an earlier request
            self._arm(self._deadline)
            return
        # The bot's clock starts once the request is written (until then the limit is
        # the write's); the referee's own lateness is not the bot's: the limit grows by it.
        stuck = self._asker is not None
        base = clock_start(self._started, self._sent_at, stuck)
        extended = due(base, self._limit, self._lag.between(base, now))
        if now < extended:
            self._arm(extended)
            return
        if stuck:
            self.close(
                f"the bot accepted no data for {self._limit * 1000:.0f} ms: "
                "the request could not be written (its flow-control window stayed shut)",
                FaultKind.STALL,
            )
            return
        pending[1].set_result(None)

    def on_data(self, data: bytes) -> None:
        """Route one raw message from the bot (called by the reader)."""
        self.last_data = at = self._loop.time()
        try:
            message = pb.BotMessage.FromString(data)
        except DecodeError:
            self._resolve_or_stray(f"could not decode a BotMessage from {len(data)} bytes", at)
            return
        kind = message.WhichOneof("kind")
        if kind != "reply":
            if kind == "pong":  # the answer to a Ping, which the referee no longer sends
                self._stray_message(f"a Pong (nonce {message.pong.nonce}) to no Ping")
                return
            what = "a second Hello" if kind == "hello" else "a message with no kind set"
            self._resolve_or_stray(f"expected an ActionReply, got {what}", at)
            return
        rid = message.reply.request_id
        pending = self._pending
        if pending is not None and not pending[1].done():
            if rid == pending[0]:
                self._arrived = at
                pending[1].set_result(message)
                return
            if rid > pending[0]:  # not a late answer to an old request
                problem = (
                    f"the reply names request {rid}, "
                    f"but the request awaiting an answer is {pending[0]}"
                )
                pending[1].set_result(Arrival(FaultKind.MALFORMED_MESSAGE, problem, at))
                return
        if self._late.arrived(rid, at):  # late for a request already faulted: expected, once
            return
        self._stray_message(f"reply to request {rid}, which is not awaiting an answer")

    def _resolve_or_stray(self, problem: str, at: float) -> None:
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_result(Arrival(FaultKind.MALFORMED_MESSAGE, problem, at))
        else:
            self._stray_message(problem)

    def _stray_message(self, what: str) -> None:
        self._stray += 1
        if self._stray > MAX_STRAY_MESSAGES:
            self.refuse(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"too many unexpected messages (last: {what})",
                FaultKind.MALFORMED_MESSAGE,
            )

    def refuse(self, code: grpc.StatusCode, detail: str, kind: FaultKind) -> None:
        """Close the session for what the bot sent; its stream ends with `code`."""
        if self.closed:
            return
        self.abort_status = (code, detail)
        self.close(detail, kind)

    def close(self, reason: str, kind: FaultKind = FaultKind.DISCONNECT) -> None:
        """Mark the session gone; a request in flight fails as `kind` (a disconnect by default)."""
        if self._closed.is_set():
            return
        self.close_reason = reason
        self.close_kind = kind
        if self._cpu is not None:
            self._cpu.close()
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending = self._pending
        if pending is not None and not pending[1].done():
            pending[1].set_result(Arrival(kind, reason, self._loop.time()))
        self._interrupt_write()
