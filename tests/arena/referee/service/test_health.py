"""grpc.health.v1 on a real referee's port: what a probe and a watcher are told, and the cap on
watches, through a real health client on 127.0.0.1."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from referee_harness import run

from arena.referee.service.auth import TokenBook
from arena.referee.service.health import NOT_SERVING, SERVICE_UNKNOWN, SERVING, Health
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import SERVICE, Referee
from arena.referee.service.side_streams import SideStreams


async def _serving(health: Health) -> tuple[Referee, grpc.aio.Channel, health_pb2_grpc.HealthStub]:
    referee = Referee(Lobby(TokenBook()))
    port = await referee.start("127.0.0.1:0", beside=[health])
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    return referee, channel, health_pb2_grpc.HealthStub(channel)


def test_a_probe_is_told_serving_then_not_serving_once_the_server_drains() -> None:
    async def body() -> None:
        health = Health([SERVICE], SideStreams())
        referee, channel, stub = await _serving(health)
        try:
            for name in ("", SERVICE):
                answer = await stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
                assert answer.status == SERVING
            with pytest.raises(grpc.aio.AioRpcError) as unknown:
                await stub.Check(health_pb2.HealthCheckRequest(service="nope.Nope"), timeout=5)
            assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
            health.drain()
            answer = await stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=5)
            assert answer.status == NOT_SERVING
        finally:
            await channel.close()
            await referee.stop()

    run(body())


def test_a_watch_sees_the_drain_and_then_ends_without_holding_up_the_stop() -> None:
    async def body() -> None:
        health = Health([SERVICE], SideStreams())
        referee, channel, stub = await _serving(health)
        try:
            watch = stub.Watch(health_pb2.HealthCheckRequest(service=SERVICE))
            unknown = stub.Watch(health_pb2.HealthCheckRequest(service="nope.Nope"))
            first = await watch.read()
            assert first.status == SERVING
            assert (await unknown.read()).status == SERVICE_UNKNOWN
            health.drain()
            second = await watch.read()
            assert second.status == NOT_SERVING
            assert await watch.code() == grpc.StatusCode.OK  # ended by the server itself
            assert await unknown.code() == grpc.StatusCode.OK
            assert health.streams.open() == 0
        finally:
            await channel.close()
            await referee.stop()

    run(body())


def test_watches_past_the_cap_are_refused_and_a_place_comes_free_when_one_ends() -> None:
    async def body() -> None:
        health = Health([SERVICE], SideStreams(per_peer=3, in_all=100))
        referee, channel, stub = await _serving(health)
        try:
            request = health_pb2.HealthCheckRequest(service=SERVICE)
            watches = [stub.Watch(request) for _ in range(3)]
            for watch in watches:
                assert (await watch.read()).status == SERVING
            extra = stub.Watch(request)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await extra.read()
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "at most 3 from ipv4:127.0.0.1" in (refused.value.details() or "")
            watches[0].cancel()
            async with asyncio.timeout(10):  # the cancel reaches the server a moment later
                while health.streams.open() >= 3:
                    await asyncio.sleep(0.01)
            again = stub.Watch(request)
            assert (await again.read()).status == SERVING
        finally:
            await channel.close()
            await referee.stop()

    run(body())
