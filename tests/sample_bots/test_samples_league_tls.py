"""The Go, Java, JavaScript, Rust and C++ samples as a TLS league server's own local bots:
sandboxed, they dial its Unix socket with TLS (PERUDO_TLS, PERUDO_CA_FILE, the name
`localhost`) and play a night without a fault."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import grpc
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))  # the shared helpers

from tls_certificates import self_signed

from arena.bots.manifest import load_entry
from arena.league.admin_messages import report_from_proto
from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.referee.service.referee_server import Tls
from arena.tournament.config import TournamentConfig
from arena.tournament.report.summary import RunReport

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
OTHER_LANGUAGES = ("go_binomial", "java_grpc", "js_calza", "rust_bridge", "cpp_bridge")


async def _night(config: LeagueConfig, bots: Path) -> RunReport:
    server = LeagueServer(config)
    await server.start()
    token = admin_token_path(config.league).read_text().strip()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}") as channel:
            admin = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
            request = apb.StartTournamentRequest(
                games=6, jobs=1, bots_dir=str(bots), sandbox="auto", name="samples-tls"
            )
            metadata = [("authorization", f"Bearer {token}")]
            async for event in admin.StartTournament(request, metadata=metadata):
                assert not event.error, event.error
                if event.HasField("finished"):
                    return report_from_proto(event.finished)
    finally:
        await server.stop()
    raise AssertionError("the admin stream ended without the tournament's end")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_samples_are_a_tls_league_server_s_local_bots(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    entered = []
    for sample in OTHER_LANGUAGES:
        spec = load_entry(SAMPLES / sample)
        if spec is not None and not spec.missing_programs():
            skip = shutil.ignore_patterns("node_modules", "bin", "target", "perudov1")
            shutil.copytree(SAMPLES / sample, bots / sample, ignore=skip)
            entered.append(spec.name)
    if not entered:
        pytest.skip("none of Go, Java with Maven, Node.js, cargo or g++ is installed")
    shutil.copy(SAMPLES / "binomial_bot.py", bots / "binomial_bot.py")
    cert, key = self_signed(tmp_path)
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp_path / "league" / "league.sqlite",
        out=tmp_path / "results",
        tls=Tls(cert.read_bytes(), key.read_bytes()),
        defaults=TournamentConfig(bots_dir=None, move_time=2.0),
    )
    finished = asyncio.run(_night(config, bots))
    assert finished.status == "finished", finished
    assert finished.skipped == () and finished.faults == {}, finished
    played = {standing.name for standing in finished.table}
    assert played == {*entered, "binomial-bot"}, finished.table
    # The server started each of them itself: no link is timed, shown or credited.
    assert all(t.round_trip_ms is None for t in finished.times), finished.times
