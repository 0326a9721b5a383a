"""A league server in process with its page: remote kit bots play, and /metrics, fetched over
real HTTP and read with Prometheus's own parser, counts the games, decisions and sessions that
the tournament's records and the lobby say; the server's events tell the same games."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

import grpc
from league_harness import SEED, League, Tournament, eventually, run
from prometheus_client.parser import text_string_to_metric_families

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.screen import Kind, ScreenEvent
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.referee.service.auth import new_token, token_hash
from arena.tournament.config import TournamentConfig
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer


def _scrape(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url + "metrics", timeout=30) as response:
        text = response.read().decode()
    return {
        sample.name + "".join(f"|{v}" for _, v in sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_the_metrics_page_counts_a_real_tournament(tmp_path: Path) -> None:
    async def body() -> None:
        told: list[ScreenEvent] = []
        config = LeagueConfig(
            listen="127.0.0.1:0",
            admin_listen="127.0.0.1:0",
            league=tmp_path / "league.sqlite",
            out=tmp_path / "results",
            defaults=TournamentConfig(bots_dir=None, move_time=1.0),
        )
        server = LeagueServer(config, told.append)
        token = await server.start()
        page = WebServer(Spectator(), "127.0.0.1:0", server.metrics)
        url = await page.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
        admin = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
        assert admin_token_path(config.league, config.out).read_text().strip() == token
        league = League(server, tmp_path, admin, [("authorization", f"Bearer {token}")])
        try:
            tokens = {}
            for name in ("alpha", "beta"):
                tokens[name] = new_token()
                server.store.set_entrant(name, token_hash(tokens[name]))
                league.launch(name, tokens[name], sessions=2)
            await league.wait_connected({"alpha": 2, "beta": 2})
            before = await asyncio.to_thread(_scrape, url)
            assert before["perudo_arena_sessions|idle"] == 4
            assert before["perudo_arena_sessions|playing"] == 0
            assert before["perudo_arena_games_total"] == 0
            played = await Tournament.follow(
                league.admin.StartTournament(
                    apb.StartTournamentRequest(seed=bytes.fromhex(SEED), games=4, name="night"),
                    metadata=league.metadata,
                )
            )
            lines = played.lines()
            after = await asyncio.to_thread(_scrape, url)
            for bot in league.bots:
                bot.process.kill()
            await eventually(lambda: not server.lobby.connected(), "the bots are gone")
            gone = await asyncio.to_thread(_scrape, url)
        finally:
            for bot in league.bots:
                bot.process.kill()
                bot.process.wait(timeout=10)
            await channel.close(None)
            await page.stop()
            await server.stop()
        assert after["perudo_arena_games_total"] == len(lines) == 4
        assert after["perudo_arena_decisions_total"] == sum(x["decisions"] for x in lines)
        assert after["perudo_arena_games_in_flight"] == 0
        assert sum(v for k, v in after.items() if k.startswith("perudo_arena_faults_total")) == 0
        assert after["perudo_arena_referee_lateness_seconds_count"] > 0
        assert after["process_resident_memory_bytes"] > 0
        assert gone["perudo_arena_sessions|idle"] == 0
        kinds = [event.kind for event in told]
        assert kinds.count(Kind.GAME_START) == kinds.count(Kind.GAME_END) == 4
        assert Kind.TOURNAMENT_START in kinds and Kind.TOURNAMENT_END in kinds
        assert {e.fields["bot"] for e in told if e.kind is Kind.CONNECT} == {"alpha", "beta"}
        assert {e.fields["bot"] for e in told if e.kind is Kind.DISCONNECT} == {"alpha", "beta"}
        assert kinds[-2:] == [Kind.STOPPING, Kind.STOPPED]

    run(body)
