"""The league server's bots' port with reflection off (`arena serve --no-reflection`): a
reflection client finds none, and the health service is still there."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from league_harness import run

from arena.league.league_server import LeagueConfig, LeagueServer


async def _listed(port: int) -> set[str]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        call = stub.ServerReflectionInfo(iter([request]), timeout=10)
        return {s.name async for answer in call for s in answer.list_services_response.service}


@pytest.mark.parametrize("reflection", [True, False])
def test_reflection_is_on_unless_turned_off(tmp_path: Path, reflection: bool) -> None:
    async def body() -> None:
        config = LeagueConfig(
            listen="127.0.0.1:0",
            admin_listen="127.0.0.1:0",
            league=tmp_path / "league.sqlite",
            out=tmp_path / "out",
            reflection=reflection,
        )
        server = LeagueServer(config)
        await server.start()
        try:
            if reflection:
                assert "perudo.v1.RefereeService" in await _listed(server.port)
            else:
                with pytest.raises(grpc.aio.AioRpcError) as none:
                    await _listed(server.port)
                assert none.value.code() == grpc.StatusCode.UNIMPLEMENTED
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                checked = await stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
                assert checked.status == health_pb2.HealthCheckResponse.SERVING
        finally:
            await server.stop()

    run(body)
