"""Server reflection on the bots' port: a generic client (`grpcurl`) lists the services and
calls them without the `.proto` files.

The protocol is public, so reflection is on by default (`--no-reflection`
turns it off). It answers from a descriptor pool of its own that holds the
files of the services served here and nothing else: the process's default
pool also holds the admin service's, which is not on this port. A reflection
stream is a long one (`SideStreams`' caps), and one that asks nothing for the
Hello timeout is ended, as a bot's stream that says no Hello is: a client cannot
hold a connection open with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from arena.protocol.messages import referee as pb
from arena.referee.service.health import SERVICE as HEALTH
from arena.referee.service.side_streams import SideStreams

SERVICE: str = reflection.SERVICE_NAME

FILES = (pb.DESCRIPTOR, health_pb2.DESCRIPTOR, reflection_pb2.DESCRIPTOR)
"""The files reflection describes: the bots' service, and the two standard ones."""


def own_pool(files: Iterable[FileDescriptor]) -> descriptor_pool.DescriptorPool:
    """A descriptor pool holding `files` and what they import, and no other file."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: FileDescriptor) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    for file in files:
        add(file)
    return pool


class Reflection(reflection.aio.ReflectionServicer):  # type: ignore[misc,name-defined]  # untyped
    """The reflection service for the bots' port, its streams capped and paced."""

    def __init__(self, services: Iterable[str], streams: SideStreams, idle: float) -> None:
        names = [*services, HEALTH, SERVICE]
        super().__init__(names, pool=own_pool(FILES))
        self.names = tuple(names)
        self._streams = streams
        self._idle = idle

    def add_to(self, server: grpc.aio.Server) -> None:
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(self, server)

    async def ServerReflectionInfo(  # noqa: N802 (grpc's method name)
        self,
        request_iterator: AsyncIterable[reflection_pb2.ServerReflectionRequest],
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        async with self._streams.held(context):
            paced = self._paced(request_iterator, context)
            async for response in super().ServerReflectionInfo(paced, context):
                yield response

    async def _paced(
        self,
        requests: AsyncIterable[reflection_pb2.ServerReflectionRequest],
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    ) -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        """The stream's requests, each within `idle` seconds of the last answer."""
        iterator = aiter(requests)
        while True:
            next_one = asyncio.ensure_future(anext(iterator))
            next_one.add_done_callback(_seen)  # its end is seen even when the call is gone
            try:
                done, _ = await asyncio.wait((next_one,), timeout=self._idle)
            finally:  # idle, or the call cancelled under us: the read is not left behind
                if not next_one.done():
                    next_one.cancel()
            if not done:
                await context.abort(
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"no reflection request within {self._idle:g} s: the stream is closed",
                )
            try:
                request = next_one.result()
            except StopAsyncIteration:
                return
            yield request


def _seen(read: asyncio.Future[object]) -> None:
    """A stream's read, ended: its outcome taken, so that the end of a stream cancelled
    meanwhile (StopAsyncIteration) is not reported as an error nobody retrieved."""
    if not read.cancelled():
        read.exception()
