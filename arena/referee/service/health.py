"""gRPC health checking (`grpc.health.v1.Health`): SERVING while sessions are taken, NOT_SERVING
while the server drains on a stop.

A load balancer, a supervisor, `grpc_health_probe` or `grpcurl` asks this
standard service rather than anything of the bots' protocol. Every service the
server names, and the server as a whole (the empty name), share one status:
the league server takes sessions or it does not. A Watch is told the status at
once and again when the server drains, and then ends, so that an open Watch
never holds up the stop (a watcher reconnects as the standard says, and finds
the port closed or a new server); a Watch is a long stream, counted under
`SideStreams`' caps. The status is served by our own servicer, not the
package's, whose Watch stays open until the server is torn down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.referee.service.side_streams import SideStreams

SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
SERVICE_UNKNOWN = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN


class Health(health_pb2_grpc.HealthServicer):  # type: ignore[misc]  # the package has no types
    """One server's health: its services' names, and whether it takes sessions."""

    def __init__(self, services: Iterable[str], streams: SideStreams) -> None:
        self.services = frozenset({"", *services})
        """The names a Check answers for; "" is the server as a whole."""
        self.streams = streams
        """Its Watch streams' count and caps (shared with reflection on the same port)."""
        self._draining = asyncio.Event()

    @property
    def serving(self) -> bool:
        return not self._draining.is_set()

    def add_to(self, server: grpc.aio.Server) -> None:
        health_pb2_grpc.add_HealthServicer_to_server(self, server)

    def drain(self) -> None:
        """From now on NOT_SERVING, for good: the server is stopping."""
        self._draining.set()

    def _status(self, service: str) -> health_pb2.HealthCheckResponse.ServingStatus.ValueType:
        if service not in self.services:
            return SERVICE_UNKNOWN
        return SERVING if self.serving else NOT_SERVING

    async def Check(  # noqa: N802 (grpc's method name)
        self,
        request: health_pb2.HealthCheckRequest,
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    ) -> health_pb2.HealthCheckResponse:
        if request.service not in self.services:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no service named {request.service!r} here"
            )
        return health_pb2.HealthCheckResponse(status=self._status(request.service))

    async def Watch(  # noqa: N802 (grpc's method name)
        self,
        request: health_pb2.HealthCheckRequest,
        context: grpc.aio.ServicerContext,  # type: ignore[type-arg]
    ) -> None:
        async with self.streams.held(context):
            status = self._status(request.service)
            await context.write(health_pb2.HealthCheckResponse(status=status))
            if status == SERVING:
                await self._draining.wait()
                await context.write(health_pb2.HealthCheckResponse(status=NOT_SERVING))
            elif status == SERVICE_UNKNOWN:  # kept open as the standard says, until the stop
                await self._draining.wait()
