"""The streams a server's standard services may hold open beside the bots' sessions.

A health Watch stays open until the server drains, and a reflection stream for
as long as its client keeps asking: neither says Hello, so neither is counted
by the referee's caps on streams waiting for one (`ServerLimits`). Left
uncapped, a client could hold thousands of them, each keeping its connection
open past the idle limit and taking a place among the streams grpc allows in
all (`ServerLimits.max_streams`) that a bot's session needs. So they have caps
of their own, per peer address and in all, far below those, and one over a cap
is refused at once with RESOURCE_EXHAUSTED and the reason.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from typing import Protocol

import grpc

from arena.referee.service.peers import PeerOf, grpc_peer_of, peer_host

PER_PEER = 16
"""Standard-service streams one address may hold open at once: a load balancer watches
a few services, grpcurl opens one stream at a time."""

IN_ALL = 128
"""Standard-service streams open at once from everyone."""


class Beside(Protocol):
    """A service a server answers beside its own (health checking, reflection)."""

    def add_to(self, server: grpc.aio.Server) -> None: ...


class SideStreams:
    """The count of standard-service streams open, per peer and in all, under their caps."""

    def __init__(self, per_peer: int = PER_PEER, in_all: int = IN_ALL) -> None:
        self.per_peer = per_peer
        self.in_all = in_all
        self._open: Counter[str] = Counter()
        self.peer_of: PeerOf = grpc_peer_of
        """Who a stream's client is (the bot behind the front door, for a league server)."""

    def open(self) -> int:
        return self._open.total()

    @contextlib.asynccontextmanager
    async def held(self, context: grpc.aio.ServicerContext) -> AsyncIterator[None]:  # type: ignore[type-arg]
        """A place for the stream for as long as the block runs; refused over a cap."""
        peer = peer_host(self.peer_of(context))
        if self._open[peer] >= self.per_peer or self._open.total() >= self.in_all:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many health or reflection streams open (at most {self.per_peer} from "
                f"{peer}, {self.in_all} in all): close one first",
            )
        self._open[peer] += 1
        try:
            yield
        finally:
            self._open[peer] -= 1
            if self._open[peer] <= 0:
                del self._open[peer]
