"""`arena request`'s side of the wire: ask for test games, follow them, one outcome.

Whatever goes wrong (a refusal, a server that cannot be reached, a stream cut short) ends
in an outcome that says so, so the author always reads what happened. A caller that stops
waiting (`--no-wait`, or Ctrl-C) leaves the request to play on the server.
"""

from __future__ import annotations

from collections.abc import Callable

import grpc

from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.submissions.client import Server, why_unready


def _failed(reason: str, uid: str = "") -> spb.RequestOutcome:
    return spb.RequestOutcome(accepted=bool(uid), id=uid, state="failed", reason=reason)


async def request_games(
    server: Server,
    request: spb.GamesRequest,
    show: Callable[[spb.RequestReply], None],
    wait: bool = True,
) -> spb.RequestOutcome:
    """Send `request`; `show` is given the ticket and each game as it comes. Without `wait`,
    the outcome is the ticket's: taken (state "queued"), or refused."""
    uid = ""
    async with server.channel() as channel:
        unready = await why_unready(server, channel)
        if unready is not None:
            return _failed(unready)
        stub = spb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        call = stub.RequestGames(request)
        try:
            async for reply in call:
                kind = reply.WhichOneof("kind")
                if kind == "outcome":
                    outcome: spb.RequestOutcome = reply.outcome
                    return outcome
                show(reply)
                if kind == "ticket":
                    uid = reply.ticket.id
                    if not wait:
                        call.cancel()
                        return spb.RequestOutcome(accepted=True, id=uid, state="queued")
        except grpc.aio.AioRpcError as error:
            return _failed(server.failure(request.name, error).reason, uid)
    return _failed("the server ended the call without an outcome", uid)
