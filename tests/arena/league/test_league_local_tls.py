"""A TLS league server's local bots (`--bots`) connect, sandboxed or not.

They dial the server's Unix socket, which no network reaches, rather than its
TLS port in plaintext.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import grpc
import pytest
from tls_certificates import self_signed

from arena.league.server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol._proto.perudo.v1 import admin_pb2 as apb
from arena.protocol._proto.perudo.v1 import admin_pb2_grpc as apb_grpc
from arena.referee.server import Tls
from arena.tournament.config import TournamentConfig

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_a_tls_league_server_s_local_bots_connect_and_play(tmp_path: Path, sandbox: str) -> None:
    cert, key = self_signed(tmp_path)
    bots = tmp_path / "local"
    bots.mkdir()
    for script in ("binomial_bot.py", "random_bot.py"):
        shutil.copy(SAMPLES / script, bots / script)
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp_path / "league" / "league.sqlite",
        out=tmp_path / "results",
        tls=Tls(cert.read_bytes(), key.read_bytes()),
        defaults=TournamentConfig(bots_dir=None, move_time=2.0),
    )

    async def body() -> list[dict[str, object]]:
        server = LeagueServer(config)
        await server.start()
        token = admin_token_path(config.league).read_text().strip()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}") as channel:
                admin = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
                request = apb.StartTournamentRequest(
                    games=2, jobs=1, bots_dir=str(bots), sandbox=sandbox, name="local-tls"
                )
                events = admin.StartTournament(
                    request, metadata=[("authorization", f"Bearer {token}")]
                )
                return [json.loads(e.finished_json) async for e in events if e.finished_json]
        finally:
            await server.stop()

    [finished] = asyncio.run(asyncio.wait_for(body(), 120))
    assert finished["status"] == "finished", finished
    assert finished["games"] == finished["total"] == 2
    assert finished["skipped"] == [] and finished["faults"] in ({}, []), finished
