"""A TLS league server's local bots (`--bots`) connect with TLS, sandboxed or not.

Every local bot dials the server's Unix socket (a sandboxed one has no other
way in), which speaks TLS with the server's certificate; the bots are given
PERUDO_TLS=1 and PERUDO_CA_FILE, bound into the sandbox. A certificate not
made out to `localhost`, the name clients verify on a Unix socket, keeps the
socket in plaintext, and the server says why.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from tls_certificates import self_signed

from arena.league.admin_messages import report_from_proto
from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.local_tls import LocalTls
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.referee.service.referee_server import Tls
from arena.tournament.config import TournamentConfig
from arena.tournament.report.summary import RunReport

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"
TOLD_BOT = Path(__file__).resolve().parents[1] / "league_bots" / "tls_told.py"


def _local_bots(tmp_path: Path) -> Path:
    bots = tmp_path / "local"
    bots.mkdir()
    shutil.copy(SAMPLES / "binomial_bot.py", bots / "binomial_bot.py")
    shutil.copy(TOLD_BOT, bots / "tls_told.py")
    return bots


def _speaks_tls(path: Path, ca: Path) -> bool:
    """Whether the Unix socket at `path` completes a TLS handshake as `localhost`, trusting `ca`."""
    context = ssl.create_default_context(cafile=str(ca))
    with socket.socket(socket.AF_UNIX) as raw:
        raw.settimeout(10)
        raw.connect(str(path))
        try:
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                tls.do_handshake()
        except ssl.SSLError:
            return False
    return True


@dataclass
class Night:
    finished: RunReport
    notes: list[str]
    """What the tournament said as it started."""
    local_tls: LocalTls | None
    """What the server decided for its local bots."""
    spoke_tls: bool | None
    """Whether the Unix socket completed a TLS handshake trusting the probe's CA."""


async def _tournament(config: LeagueConfig, bots: Path, sandbox: str, probe: Path | None) -> Night:
    server = LeagueServer(config)
    await server.start()
    token = admin_token_path(config.league).read_text().strip()
    socket_path = server.referee.unix_socket
    assert socket_path is not None
    spoke = None if probe is None else await asyncio.to_thread(_speaks_tls, socket_path, probe)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}") as channel:
            admin = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
            request = apb.StartTournamentRequest(
                games=2, jobs=1, bots_dir=str(bots), sandbox=sandbox, name="local-tls"
            )
            events = admin.StartTournament(request, metadata=[("authorization", f"Bearer {token}")])
            notes: list[str] = []
            async for event in events:
                if event.note:
                    notes.append(event.note)
                if event.error:
                    raise AssertionError(event.error)
                if event.HasField("finished"):
                    report = report_from_proto(event.finished)
                    return Night(report, notes, server.local_tls, spoke)
    finally:
        await server.stop()
    raise AssertionError("the admin stream ended without the tournament's end")


def _told(folder: Path) -> dict[str, Any]:
    log = (folder / "logs" / "tls-told.log").read_text()
    [line] = [x for x in log.splitlines() if x.startswith("TOLD ")]
    return json.loads(line.removeprefix("TOLD "))  # type: ignore[no-any-return]


def _config(tmp_path: Path, cert: Path, key: Path) -> LeagueConfig:
    return LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp_path / "league" / "league.sqlite",
        out=tmp_path / "results",
        tls=Tls(cert.read_bytes(), key.read_bytes()),
        defaults=TournamentConfig(bots_dir=None, move_time=2.0),
    )


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_a_tls_league_server_s_local_bots_connect_with_tls_and_play(
    tmp_path: Path, sandbox: str
) -> None:
    cert, key = self_signed(tmp_path)
    config = _config(tmp_path, cert, key)
    run = _tournament(config, _local_bots(tmp_path), sandbox, probe=cert)
    night = asyncio.run(asyncio.wait_for(run, 120))
    finished, notes = night.finished, night.notes
    assert night.spoke_tls is True  # the socket the local bots dial speaks TLS
    assert finished.status == "finished", finished
    assert finished.games == finished.total == 2
    assert finished.skipped == () and finished.faults == {}, finished
    assert "local bots dial the referee's Unix socket with TLS" in notes
    told = _told(finished.folder)
    assert told["tls"] == "1" and told["ca_readable"], told
    assert told["address"].startswith("unix:")
    sandboxed = any(n.startswith("bots are sandboxed") for n in notes)
    assert (told["ca_file"] == "/run/perudo/ca.pem") == sandboxed, (told, notes)


def test_a_certificate_not_made_out_to_localhost_keeps_the_socket_plaintext_and_says_why(
    tmp_path: Path,
) -> None:
    cert, key = self_signed(tmp_path, names="DNS:league.example.org", common="league.example.org")
    config = _config(tmp_path, cert, key)
    run = _tournament(config, _local_bots(tmp_path), "off", probe=None)
    night = asyncio.run(asyncio.wait_for(run, 120))
    finished = night.finished
    assert finished.status == "finished", finished
    assert finished.skipped == (), finished
    plaintext = "local bots dial the referee's Unix socket in plaintext, which no network reaches"
    assert plaintext in night.notes
    assert night.local_tls is not None and night.local_tls.ca_file is None
    assert "not made out to localhost" in night.local_tls.describe()
    told = _told(finished.folder)
    assert (told["tls"], told["ca_file"]) == ("", ""), told
