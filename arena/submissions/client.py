"""`arena submit`'s side of the wire: send the archive, follow what the server says, one verdict.

The server is dialled as a remote bot dials it (TLS, and a CA file for a
self-signed server, as the kit's `Connection` has them); a refused handshake
or a port speaking the other protocol is told in words (`arena.kit.dialing`).
The archive is sent only once the server has taken the header, in the chunks
it asked for; the server may refuse it part way (its size cap, say), and its
verdict is read all the same. Whatever goes wrong ends in a verdict too, so
the author always reads one line that says what happened.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from arena.kit.client import Connection
from arena.kit.dialing import diagnose
from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.submissions.archive import Packed
from arena.submissions.contract import FORMAT, UPLOAD_STOPPED
from arena.submissions.versions import INTERRUPTED, Verdict

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs
CONNECT_TIMEOUT = 15.0
FIRST_LOOK = 2.0
"""Seconds a channel may take to be ready before why not is looked into."""
CUT_OFF = (
    "the connection to the league server ended before its verdict (the server stopped, or "
    "the network failed): send it again once the server answers (files it already accepted "
    "are not built again)"
)
CUT_CODES = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}
"""How a stream the server (or the network) ended under way fails."""


def interrupted(verdict: Verdict) -> bool:
    """Whether the submission was ended by the server's stop or a lost connection, not judged:
    the same files sent again are judged."""
    return not verdict.accepted and verdict.reason in {INTERRUPTED, UPLOAD_STOPPED, CUT_OFF}


@dataclass(frozen=True, slots=True)
class Server:
    address: str
    tls: bool = False
    ca_file: str | None = None

    def channel(self) -> grpc.aio.Channel:
        return Connection(self.address, "", "", tls=self.tls, ca_file=self.ca_file).channel()

    def failure(self, name: str, error: grpc.aio.AioRpcError) -> Verdict:
        """A call that failed, as a verdict: why the server could not be reached, in words."""
        told = None
        if error.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}:
            told = diagnose(self.address, self.tls, self.ca_file)
        why = (
            told
            or f"the league server at {self.address} said {error.code().name}: {error.details()}"
        )
        return Verdict(False, name, reason=why)


async def why_unready(server: Server, channel: grpc.aio.Channel) -> str | None:
    """Why the server cannot be talked to, or None once the channel is ready. A channel not
    ready at once is looked into (TLS spoken to a plaintext port, say), rather than waited
    for in silence."""
    ready = asyncio.ensure_future(channel.channel_ready())
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FIRST_LOOK):
                await asyncio.shield(ready)
        if ready.done():
            return None
        told = await asyncio.to_thread(diagnose, server.address, server.tls, server.ca_file)
        if told is not None:
            return told
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT - FIRST_LOOK):
                await ready
        except TimeoutError:
            return f"no league server answered at {server.address} within {CONNECT_TIMEOUT:g} s"
        return None
    finally:
        ready.cancel()


def _verdict(message: spb.SubmitVerdict) -> Verdict:
    return Verdict(
        message.accepted, message.name, message.version or None, message.reason, message.sha256
    )


async def submit(
    server: Server, token: str, packed: Packed, show: Callable[[spb.SubmitReply], None]
) -> Verdict:
    """Send `packed` as `packed.name`'s; `show` is given each line and check as it comes."""
    async with server.channel() as channel:
        unready = await why_unready(server, channel)
        if unready is not None:
            return Verdict(False, packed.name, reason=unready)
        stub = spb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Submit()
        try:
            return await _follow(call, token, packed, show)
        except grpc.aio.AioRpcError as error:
            return server.failure(packed.name, error)


async def _follow(
    call: Any, token: str, packed: Packed, show: Callable[[spb.SubmitReply], None]
) -> Verdict:
    header = spb.SubmitHeader(name=packed.name, token=token, size=len(packed.data), format=FORMAT)
    await call.write(spb.SubmitRequest(header=header))
    first = await call.read()
    if first is _EOF:
        return Verdict(False, packed.name, reason="the server closed the stream at once")
    if first.WhichOneof("kind") == "verdict":
        return _verdict(first.verdict)
    sending = asyncio.ensure_future(_send(call, packed.data, first.ready.chunk_bytes))
    try:
        while (reply := await call.read()) is not _EOF:
            if reply.WhichOneof("kind") == "verdict":
                return _verdict(reply.verdict)
            show(reply)
    except grpc.aio.AioRpcError as error:
        if error.code() in CUT_CODES:  # taken in, then cut off: no verdict on the bot
            return Verdict(False, packed.name, reason=CUT_OFF)
        raise
    finally:
        sending.cancel()
        with contextlib.suppress(BaseException):
            await sending
    return Verdict(False, packed.name, reason="the server ended the stream without a verdict")


async def _send(call: Any, data: bytes, chunk_bytes: int) -> None:
    """The archive in chunks; a server that stopped taking it (a refusal) is not an error
    here: its verdict says why."""
    size = max(1, chunk_bytes)
    with contextlib.suppress(grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
        for at in range(0, len(data), size):
            await call.write(spb.SubmitRequest(chunk=data[at : at + size]))
        await call.done_writing()


async def use_version(server: Server, name: str, token: str, version: int) -> Verdict:
    """Ask the server to play `version` of `name` from now on."""
    async with server.channel() as channel:
        stub = spb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        request = spb.UseVersionRequest(name=name, token=token, version=version)
        try:
            reply = await stub.UseVersion(request, timeout=CONNECT_TIMEOUT, wait_for_ready=True)
        except grpc.aio.AioRpcError as error:
            return server.failure(name, error)
        return _verdict(reply)
