"""A stranger at the submissions' port: a flood of calls without a valid token, each with a
name as long as a message may carry, leaves a few lines in the server's log, not megabytes,
and the log says how many there were."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from arena.league.league_server import LeagueConfig, LeagueServer
from arena.league.narrator import Refusals
from arena.league.screen import Kind, ScreenEvent
from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.referee.service.auth import new_token, token_hash
from arena.text import NAME_CHARS

CALLS = 300
NAME = "m" * 30_000
LOG_BOUND = 4096
"""Bytes the whole flood may add to the log: a line or two, each name cut."""


async def _refused_submit(stub: spb_grpc.SubmissionServiceStub, name: str) -> spb.SubmitVerdict:
    header = spb.SubmitHeader(name=name, token="not-a-token", size=100, format="tar.gz")
    call = stub.Submit(iter([spb.SubmitRequest(header=header)]))
    replies = [reply async for reply in call]
    assert replies[-1].WhichOneof("kind") == "verdict", replies
    return replies[-1].verdict


def _logged(events: list[ScreenEvent]) -> int:
    return sum(len(e.text.encode()) + len(repr(e.fields).encode()) for e in events)


def test_a_flood_of_refused_submissions_is_counted_not_written_out(tmp_path: Path) -> None:
    async def body() -> None:
        events: list[ScreenEvent] = []
        config = LeagueConfig(
            listen="127.0.0.1:0",
            admin_listen="127.0.0.1:0",
            league=tmp_path / "league.sqlite",
            out=tmp_path / "results",
        )
        server = LeagueServer(config, events.append)
        await server.start()
        server.store.set_entrant("zoe", token_hash(new_token()))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        stub = spb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        try:
            before = len(events)
            for _ in range(CALLS // 10):
                verdicts = await asyncio.gather(*(_refused_submit(stub, NAME) for _ in range(10)))
                assert not any(v.accepted for v in verdicts)
            assert "knows no entrant 'mmm" in verdicts[0].reason
            assert len(verdicts[0].reason) < 400  # the name is cut in the answer too
            told = events[before:]
            assert _logged(told) < LOG_BOUND, [e.text[:200] for e in told]
            refusals = [e for e in told if e.kind is Kind.REFUSE]
            assert len(refusals) == 1 and not [e for e in told if e.kind is Kind.SUBMISSION]
            assert f"'{'m' * NAME_CHARS}...' (30000 characters)" in refusals[0].text
            assert refusals[0].fields["peer"] == "ipv4:127.0.0.1"

            # A stranger's choice of version is counted with them, not written out.
            chosen = await stub.UseVersion(spb.UseVersionRequest(name=NAME, token="x", version=1))
            assert not chosen.accepted and len(events) == before + len(told)
            # So is a stranger's request for test games, answered with a refusal alone.
            ask = spb.GamesRequest(name=NAME, token="x", against=["zoe"], games=2)
            replies = [reply async for reply in stub.RequestGames(ask)]
            (reply,) = replies
            assert (
                reply.outcome.state == "refused" and "knows no entrant 'mmm" in reply.outcome.reason
            )
            assert len(events) == before + len(told) and server.store.requests() == []

            # A minute later (as far as the count knows), the next refusal says the rest.
            counter = server.referee.refused
            assert isinstance(counter, Refusals)
            counter.every_s = 0.0
            await _refused_submit(stub, "zoe")
            last = events[-1]
            # The flood's other 299 calls, the choice of version and the request for games.
            assert last.kind is Kind.REFUSE and last.fields["repeats"] == CALLS + 1, last
            assert f"({CALLS + 1} more like it since it was last said)" in last.text
            assert _logged(events[before:]) < LOG_BOUND
        finally:
            await channel.close(None)
            await server.stop()

    asyncio.run(body())
