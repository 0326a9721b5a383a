"""The Submit service on the league server's bots' port: an entrant sends its bot, and follows it.

The entrant says who it is as a remote bot does (its name and token, checked
against the league's entrants afresh each time, so a revoked token is refused
at once), and what it will send; the server answers with a refusal (a quota,
the size cap) before a byte of the archive is sent, or with the chunk size to
send it in. The upload goes to `tmp/`, within the size cap and a time limit;
then the server streams back its build's output and each check as they come,
and one verdict. See `arena.submissions.versions` for what is kept when.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

from arena.checkbot.verdict import Check
from arena.errors import ArenaError
from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.referee.service.auth import TokenBook
from arena.referee.service.peers import PeerOf, grpc_peer_of, peer_host
from arena.referee.service.referee_server import Refusal
from arena.store import StoreError
from arena.submissions.contract import FORMAT, UPLOAD_STOPPED
from arena.submissions.limits import MIB
from arena.submissions.report import End, Event, Line
from arena.submissions.request_replies import answer, refusal
from arena.submissions.requests import Desk
from arena.submissions.tarstream import IntakeError
from arena.submissions.versions import INTERRUPTED, Verdict, VersionError, Versions
from arena.text import short_name

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs
HEADER_TIMEOUT = 10.0
"""Seconds from the stream's opening to its header."""
UNKNOWN = grpc.StatusCode.UNAUTHENTICATED
"""The kind a stranger's refusal is counted under: a wrong token on the bots' port is one too."""


class UploadStoppedError(ArenaError):
    """An upload cut short by the server's own stop: not its author's fault, and no verdict
    on the bot."""


def verdict_message(verdict: Verdict) -> spb.SubmitVerdict:
    return spb.SubmitVerdict(
        accepted=verdict.accepted,
        name=verdict.name,
        version=verdict.version or 0,
        reason=verdict.reason,
        sha256=verdict.sha256,
    )


def event_message(event: Event) -> spb.SubmitReply:
    if isinstance(event, Line):
        return spb.SubmitReply(line=spb.SubmitLine(stage=event.stage, text=event.text))
    assert isinstance(event, Check)
    return spb.SubmitReply(
        check=spb.SubmitCheck(
            name=event.name,
            passed=event.passed,
            detail=event.detail,
            warning=event.warning,
            log_tail=list(event.log_tail),
        )
    )


class SubmissionService(spb_grpc.SubmissionServiceServicer):
    def __init__(self, versions: Versions, chunk_bytes: int, requests: Desk) -> None:
        """`chunk_bytes`: the most a chunk may carry, within the port's message limit;
        `requests` takes and plays requests for test games."""
        self.versions = versions
        self.requests = requests
        self.chunk_bytes = chunk_bytes
        self._tokens = TokenBook(registry=versions.store.entrants)
        self.refused: Callable[[Refusal], None] | None = None
        """Told of every call refused for its name and token (the server's log, which says
        them once a minute per address, as it says the referee's refused streams)."""
        self.peer_of: PeerOf = grpc_peer_of
        """Who a call's client is (the author behind the front door, on a league server)."""
        self.stopping = asyncio.Event()
        """Set as the server stops: the uploads in flight end at once, told why, so that no
        call is left for gRPC to cancel (and log) as it shuts down."""

    def register(self, server: grpc.aio.Server) -> None:
        spb_grpc.add_SubmissionServiceServicer_to_server(self, server)  # type: ignore[no-untyped-call]

    def _refused(self, name: str, token: str, context: Any, call: str) -> str | None:
        """Why a caller is no entrant, if it is none. A stranger's call is no submission:
        it is not judged (nor said) as one, but told to `refused`, where a flood of them
        is a count, and its name is never shown whole (it may be as long as a message)."""
        if self._tokens.check(name, token):
            return None
        if self.refused is not None:
            detail = f"{call} without an entrant's name and token"
            self.refused(Refusal(peer_host(self.peer_of(context)), name, UNKNOWN, detail))
        return (
            f"the league server knows no entrant {short_name(name)} with this token (never "
            "registered, revoked, or replaced by a new one): ask the organiser"
        )

    async def UseVersion(  # noqa: N802 (grpc's method name)
        self, request: spb.UseVersionRequest, context: Any
    ) -> spb.SubmitVerdict:
        try:
            refused = self._refused(request.name, request.token, context, "a choice of version")
            if refused is not None:
                return verdict_message(Verdict(False, request.name, reason=refused))
            return verdict_message(self.versions.choose(request.name, request.version))
        except (VersionError, StoreError) as error:
            return verdict_message(Verdict(False, request.name, reason=str(error)))

    async def RequestGames(  # noqa: N802 (grpc's method name)
        self, request: spb.GamesRequest, context: Any
    ) -> None:
        refused = self._refused(request.name, request.token, context, "a request for games")
        if refused is not None:
            await context.write(refusal(refused))
            return
        await answer(self.requests, request, context)

    async def Submit(self, request_iterator: Any, context: Any) -> None:  # noqa: N802 (grpc's method name)
        header = await self._header(context)
        if header is None:
            return
        name = header.name
        versions = self.versions
        refused, stranger = self._header_refused(header, context)
        if refused is not None:
            verdict = Verdict(False, name, reason=refused)
            if not stranger:
                verdict = versions.judged(verdict)
            await context.write(spb.SubmitReply(verdict=verdict_message(verdict)))
            return
        events: asyncio.Queue[Event] = asyncio.Queue()

        async def fill(archive: Path) -> None:
            await context.write(
                spb.SubmitReply(
                    ready=spb.SubmitReady(
                        chunk_bytes=self.chunk_bytes, max_bytes=versions.limits.max_bytes
                    )
                )
            )
            await self._receive(context, archive, header.size)

        outcome = await take(versions, name, header.size, fill, events.put_nowait)
        if isinstance(outcome, Verdict):
            with contextlib.suppress(Exception):
                await context.write(spb.SubmitReply(verdict=verdict_message(outcome)))
            return
        await self._relay(context, name, outcome, events)

    def _header_refused(self, header: spb.SubmitHeader, context: Any) -> tuple[str | None, bool]:
        """Why a submission is refused on its header alone (the entrant, the format, a quota),
        and whether for its sender being no entrant."""
        try:
            refused = self._refused(header.name, header.token, context, "a submission")
            if refused is not None:
                return refused, True
            if header.format != FORMAT:
                return f"the archive is {header.format!r}; this server takes {FORMAT!r}", False
            return self.versions.quotas.refusal(header.name, header.size), False
        except StoreError as error:
            return f"the server cannot read its league store now: {error}", False

    async def _header(self, context: Any) -> spb.SubmitHeader | None:
        try:
            async with asyncio.timeout(HEADER_TIMEOUT):
                first = await context.read()
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"no header within {HEADER_TIMEOUT:g} s"
            )
            return None
        if first is _EOF or first.WhichOneof("kind") != "header":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a SubmitHeader"
            )
            return None
        header: spb.SubmitHeader = first.header
        return header

    async def _receive(self, context: Any, archive: Path, declared: int) -> None:
        """The archive's chunks into `archive`, within the size cap and the time limit."""
        limits = self.versions.limits
        loop = asyncio.get_running_loop()
        give_up = loop.time() + limits.upload_timeout
        total = 0
        with archive.open("wb") as out:
            while True:
                try:
                    async with asyncio.timeout(give_up - loop.time()):
                        message = await self._next(context)
                except TimeoutError:
                    raise IntakeError(
                        f"the upload took longer than {limits.upload_timeout:g} s"
                    ) from None
                if message is _EOF:
                    break
                if message.WhichOneof("kind") != "chunk":
                    raise IntakeError("a second header came where the archive's bytes were due")
                chunk = message.chunk
                if len(chunk) > self.chunk_bytes:
                    raise IntakeError(f"a chunk of {len(chunk)} bytes, over {self.chunk_bytes}")
                total += len(chunk)
                if total > limits.max_bytes:
                    raise IntakeError(
                        f"the archive is over this server's cap of {limits.max_bytes / MIB:g} MiB "
                        "(--submission-max-mb)"
                    )
                if total > declared:
                    raise IntakeError(f"the archive is longer than the {declared} bytes said")
                out.write(chunk)
        if total != declared:
            raise IntakeError(f"the archive is {total} bytes, not the {declared} said: cut short")

    async def _next(self, context: Any) -> Any:
        """The next message of an upload; UploadStoppedError once the server stops."""
        reading = asyncio.ensure_future(context.read())
        stopping = asyncio.ensure_future(self.stopping.wait())
        await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not reading.done():
            reading.cancel()
            raise UploadStoppedError(UPLOAD_STOPPED)
        return reading.result()

    async def _relay(
        self, context: Any, name: str, task: asyncio.Task[Verdict], events: asyncio.Queue[Event]
    ) -> None:
        """Pass on every event until the verdict; an author who hangs up stops only this."""
        while True:
            getting = asyncio.ensure_future(events.get())
            await asyncio.wait({getting, task}, return_when=asyncio.FIRST_COMPLETED)
            if not getting.done():
                getting.cancel()
                break
            event = getting.result()
            if not isinstance(event, End):
                await context.write(event_message(event))
        while not events.empty():
            event = events.get_nowait()
            if not isinstance(event, End):
                await context.write(event_message(event))
        # A build the server's stop cut off: the author is told to send it again.
        verdict = Verdict(False, name, reason=INTERRUPTED) if task.cancelled() else task.result()
        await context.write(spb.SubmitReply(verdict=verdict_message(verdict)))


async def take(
    versions: Versions,
    name: str,
    size: int,
    fill: Callable[[Path], Awaitable[None]],
    tell: Callable[[Event], None],
) -> asyncio.Task[Verdict] | Verdict:
    """The one way in for a submission, whichever door it came by (`arena submit`, the
    author's page): its quota slot taken, its archive written by `fill`, unpacked, then kept,
    built, checked and judged in a task of its own (returned; `tell` hears its events). A
    refusal on the way is judged and returned, with nothing of it left."""
    versions.quotas.begin(name)
    versions.tell(f"{name}: a submission of {size / 1024:.1f} KiB is coming")
    staging = versions.files.staging()
    handed = False
    refused = None
    try:
        archive = staging / "archive.tar.gz"
        await fill(archive)
        unpacked = await versions.take_in(name, archive, staging)
        archive.unlink()
        task = versions.begin(name, unpacked, size, staging, tell)
        handed = True
        return task
    except UploadStoppedError:  # the server's doing, not the author's: no verdict on the bot
        versions.tell(f"{name}: its upload was cut short by the server's stop; nothing kept")
        return Verdict(False, name, reason=UPLOAD_STOPPED)
    except IntakeError as error:
        refused = str(error)
    except OSError as error:  # the server's own disk: full, say
        refused = f"the server could not take it in: {error.strerror or error}"
    finally:
        if not handed:
            versions.quotas.end(name)
            shutil.rmtree(staging, ignore_errors=True)
    # told once nothing of it is left
    return versions.judged(Verdict(False, name, reason=refused))
