"""A real `arena serve` answers the standard gRPC services: health on both ports (SERVING, then
NOT_SERVING once a stop begins) and reflection on the bots' port."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import grpc
from cli_harness import start_serve
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.league.league_server import ADMIN_SERVICE
from arena.referee.service.referee_server import SERVICE

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _listed(port: int) -> set[str]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (answer,) = stub.ServerReflectionInfo(iter([request]), timeout=10)
        return {s.name for s in answer.list_services_response.service}


def test_serve_is_serving_then_not_serving_on_both_ports_once_stopped(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    serve = start_serve(tmp_path / "league.sqlite", tmp_path / "out", tmp_path / "log", processes)
    admin_port = int(serve.admin[1].rpartition(":")[2])
    with (
        grpc.insecure_channel(f"127.0.0.1:{serve.port}") as bots,
        grpc.insecure_channel(f"127.0.0.1:{admin_port}") as admin,
    ):
        watches = []
        for channel, service in ((bots, SERVICE), (admin, ADMIN_SERVICE)):
            stub = health_pb2_grpc.HealthStub(channel)
            for name in ("", service):
                checked = stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
                assert checked.status == SERVING
            watch = stub.Watch(health_pb2.HealthCheckRequest(service=service), timeout=60)
            assert next(watch).status == SERVING
            watches.append(watch)
        assert "perudo.v1.RefereeService" in _listed(serve.port)
        serve.process.send_signal(signal.SIGTERM)
        for watch in watches:
            assert next(watch).status == NOT_SERVING
    assert serve.process.wait(timeout=30) == 0
