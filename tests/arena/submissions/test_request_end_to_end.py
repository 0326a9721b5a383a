"""Test games on request, end to end through a real league server with the ladder on: two
submitted sample bots, a request for two games of one against the other played beside the
ladder and reported, never rated, and the daily quota refusing the next request; a league
night interrupting a request, which then costs no quota."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from submit_harness import SAMPLES, Desk

from arena.league.ladder.board import LadderBoard
from arena.league.ladder.ratings import VersionRatings
from arena.league.ladder.refit import FitJob
from arena.league.ladder.rounds import is_ladder
from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol.messages import admin as apb
from arena.protocol.messages import submission as spb
from arena.store.requests import RequestState
from arena.submissions.archive import pack
from arena.submissions.request_client import request_games
from arena.submissions.requests import RequestLimits
from arena.tournament.config import TournamentConfig
from arena.tournament.report.standings import board

WAIT_S = 180.0


@contextlib.asynccontextmanager
async def _league(tmp: Path, per_day: int) -> AsyncIterator[Desk]:
    """A league server with the ladder on, at tables of two, and a quota of `per_day`."""
    import grpc

    from arena.protocol.messages import admin_grpc as apb_grpc

    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp / "league" / "league.sqlite",
        out=tmp / "results",
        defaults=TournamentConfig(bots_dir=None, move_time=1.0),
        ladder=True,
        ladder_table_sizes=(2,),
        requests=RequestLimits(per_day=per_day),
    )
    server = LeagueServer(config)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
    stub = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
    token = admin_token_path(config.league, config.out).read_text().strip()
    try:
        yield Desk(server, tmp, [], stub, [("authorization", f"Bearer {token}")])
    finally:
        await channel.close(None)
        await server.stop()


async def _until(check: object, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():  # type: ignore[operator]
        assert loop.time() < deadline, f"no {what} within {WAIT_S:g} s"
        await asyncio.sleep(0.2)


def _ladder_games(d: Desk) -> int:
    return sum(games for tid, games in d.server.store.tournaments() if is_ladder(tid))


def _ratings(d: Desk) -> tuple[object, ...]:
    """Every rating the league shows: the ladder's board (TrueSkill), the batch fit's input
    and its fit, and `arena leaderboard`'s rows."""
    config = d.server.config
    status = d.server.ladder.status()
    look = LadderBoard(VersionRatings(config.out)).read(d.server.store, ())
    fit = FitJob(look.finished())()
    leaderboard = board(d.server.store.lines()).rows()
    return (
        status.standings,
        tuple((tid, line.game) for tid, line in d.server.store.lines() if is_ladder(tid)),
        None if fit is None else repr(fit),
        json.dumps([row.to_json() for row in leaderboard], sort_keys=True),
    )


@pytest.mark.slow
def test_a_request_is_played_beside_the_ladder_reported_and_never_rated(tmp_path: Path) -> None:
    async def body() -> None:
        async with _league(tmp_path, per_day=2) as d:
            names, tokens = [], {}
            for bot in ("random_bot.py", "binomial_bot.py"):
                name = pack(SAMPLES / bot).name
                tokens[name] = d.register(name)
                verdict = await d.send_bot(SAMPLES / bot, tokens[name])
                assert verdict.accepted, verdict
                names.append(name)
            me, other = names
            await _until(lambda: _ladder_games(d) >= 2, "ladder games")

            shown: list[spb.RequestReply] = []
            ask = spb.GamesRequest(name=me, token=tokens[me], against=[other], games=2)
            outcome = await request_games(d.address, ask, shown.append)
            assert outcome.state == "played", outcome
            assert len(outcome.games) == 2
            assert [s.opponent for s in outcome.scores] == [f"{other}@1"]
            assert outcome.scores[0].games == 2
            assert sorted(outcome.places) in ([1, 1], [1, 2], [2, 2])
            ticket = shown[0].ticket
            assert list(ticket.seats) == [f"{me}@1", f"{other}@1"] and ticket.left_today == 1
            assert [r.game.game for r in shown[1:]] == [g.game for g in outcome.games]
            for game in outcome.games:
                assert (d.server.config.out / game.replay).is_file()
            row = d.server.store.request(outcome.id)
            assert row is not None and row.state is RequestState.PLAYED

            # Never rated: the league's store holds no request game, whatever rates from it.
            held = {tid for tid, _ in d.server.store.tournaments()}
            assert all(is_ladder(tid) for tid in held), held
            assert outcome.id not in {tid for tid, _ in d.server.store.lines()}

            # The ladder played on around it, and goes on after it.
            after = _ladder_games(d)
            await _until(lambda: _ladder_games(d) > after, "ladder games after the request")

            # With the ladder stopped, another request changes no rating anywhere.
            await d.admin.Ladder(
                apb.LadderRequest(action=apb.LadderRequest.ACTION_STOP), metadata=d.metadata
            )
            before = _ratings(d)
            again = await request_games(d.address, ask, lambda reply: None)
            assert again.state == "played", again
            assert _ratings(d) == before

            # The quota (two a day) refuses the third, saying the limit and when it frees.
            refused = await request_games(d.address, ask, lambda reply: None)
            assert refused.state == "refused" and not refused.accepted
            assert "at most 2 requests for test games a day" in refused.reason
            assert "--requests-per-day" in refused.reason and "the next frees at" in refused.reason
            assert len(d.server.store.requests(me)) == 2
            listed = await d.admin.ListRequests(apb.ListRequestsRequest(), metadata=d.metadata)
            assert [(r.name, r.state, r.played) for r in listed.requests] == [(me, "played", 2)] * 2

    asyncio.run(body())


@pytest.mark.slow
def test_a_night_interrupts_a_request_which_costs_no_quota(tmp_path: Path) -> None:
    async def body() -> None:
        async with _league(tmp_path, per_day=1) as d:
            await d.admin.Ladder(
                apb.LadderRequest(action=apb.LadderRequest.ACTION_STOP), metadata=d.metadata
            )
            tokens = {}
            for bot in ("random_bot.py", "binomial_bot.py"):
                name = pack(SAMPLES / bot).name
                tokens[name] = d.register(name)
                assert (await d.send_bot(SAMPLES / bot, tokens[name])).accepted
            me, other = tokens
            ask = spb.GamesRequest(name=me, token=tokens[me], against=[other], games=12)
            shown: list[spb.RequestReply] = []
            asked = asyncio.ensure_future(request_games(d.address, ask, shown.append))
            await _until(lambda: any(r.WhichOneof("kind") == "game" for r in shown), "a game")

            night = apb.StartTournamentRequest(games=2, table_size=2, jobs=1, name="night1")
            events = [e async for e in d.admin.StartTournament(night, metadata=d.metadata)]
            assert events[-1].WhichOneof("kind") == "finished", events[-1]
            outcome = await asyncio.wait_for(asyncio.shield(asked), WAIT_S)
            assert outcome.state == "interrupted", outcome
            assert 1 <= len(outcome.games) < 12 and "ask again" in outcome.reason
            assert len(d.server.store.games_of("night1")) == 2  # the night played whole

            # It cost no quota: the one request of the day is still to be had.
            again = spb.GamesRequest(name=me, token=tokens[me], against=[other], games=2)
            played = await request_games(d.address, again, lambda reply: None)
            assert played.state == "played", played

    asyncio.run(body())
