"""Server reflection on a real referee's port, through a real reflection client: the services
listed, the bots' protocol described, nothing else of the process, and the bounds kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from referee_harness import run

from arena.referee.service import bounds
from arena.referee.service.auth import TokenBook
from arena.referee.service.health import SERVICE as HEALTH
from arena.referee.service.health import Health
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import SERVICE, Referee, ServerLimits
from arena.referee.service.reflection import SERVICE as REFLECTION
from arena.referee.service.reflection import Reflection
from arena.referee.service.side_streams import SideStreams

Request = reflection_pb2.ServerReflectionRequest


async def _ask(port: int, *requests: Request) -> list[reflection_pb2.ServerReflectionResponse]:
    async def sent() -> AsyncIterator[Request]:
        for request in requests:
            yield request

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        return [answer async for answer in stub.ServerReflectionInfo(sent(), timeout=10)]


async def _referee(limits: ServerLimits | None = None, reflect: bool = True) -> tuple[Referee, int]:
    referee = Referee(Lobby(TokenBook()), limits)
    streams = SideStreams(per_peer=2, in_all=10)
    beside: list[Health | Reflection] = [Health([SERVICE], streams)]
    if reflect:
        beside.append(Reflection([SERVICE], streams, referee.limits.hello_timeout))
    return referee, await referee.start("127.0.0.1:0", beside=beside)


def test_a_reflection_client_lists_and_describes_the_bots_service() -> None:
    async def body() -> None:
        referee, port = await _referee()
        try:
            listed, described, admin = await _ask(
                port,
                Request(list_services=""),
                Request(file_containing_symbol=SERVICE),
                Request(file_containing_symbol="perudo.v1.AdminService"),
            )
        finally:
            await referee.stop()
        names = {s.name for s in listed.list_services_response.service}
        assert names == {SERVICE, HEALTH, REFLECTION}
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in described.file_descriptor_response.file_descriptor_proto
        ]
        (referee_file,) = [f for f in files if f.package == "perudo.v1"]
        assert [s.name for s in referee_file.service] == ["RefereeService"]
        assert [m.name for m in referee_file.service[0].method] == ["Play"]
        # The admin service is in this process, not on this port: reflection does not know it.
        assert admin.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]

    run(body())


def test_without_reflection_there_is_none_to_ask() -> None:
    async def body() -> None:
        referee, port = await _referee(reflect=False)
        try:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _ask(port, Request(list_services=""))
        finally:
            await referee.stop()
        assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED

    run(body())


def test_a_reflection_stream_that_asks_nothing_is_closed_like_a_stream_without_hello() -> None:
    async def body() -> None:
        referee, port = await _referee(ServerLimits(hello_timeout=0.3))
        idle: asyncio.Event = asyncio.Event()

        async def silent() -> AsyncIterator[Request]:
            await idle.wait()  # never set: the client asks nothing
            yield Request(list_services="")

        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                call = stub.ServerReflectionInfo(silent(), timeout=20)
                with pytest.raises(grpc.aio.AioRpcError) as closed:
                    await call.read()
        finally:
            await referee.stop()
        assert closed.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "no reflection request within 0.3 s" in (closed.value.details() or "")

    run(body())


def test_reflection_keeps_the_ports_bounds_on_size_and_on_streams() -> None:
    async def body() -> None:
        referee, port = await _referee()
        limit = bounds.grpc_message_limit(referee.limits.max_message_bytes)
        try:
            with pytest.raises(grpc.aio.AioRpcError) as large:
                await _ask(port, Request(file_by_filename="x" * (limit + 1)))
            assert large.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            hold = asyncio.Event()

            async def held() -> AsyncIterator[Request]:
                yield Request(list_services="")
                await hold.wait()

            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                calls = [stub.ServerReflectionInfo(held(), timeout=20) for _ in range(2)]
                answered = [await call.read() for call in calls]  # both open and held
                assert all(a.HasField("list_services_response") for a in answered)
                with pytest.raises(grpc.aio.AioRpcError) as over:
                    await stub.ServerReflectionInfo(held(), timeout=20).read()
                assert over.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                hold.set()
        finally:
            await referee.stop()

    run(body())
