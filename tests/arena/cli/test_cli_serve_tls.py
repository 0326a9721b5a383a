"""`arena serve --tls-cert --tls-key --tls-ca`: the local bots `arena admin start --bots`
starts, sandboxed where the machine allows, connect with TLS and play a night."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_harness import SEED, arena_command, clean_env, one_line, read_info, read_lines, start_serve
from tls_certificates import ca_signed

SAMPLE_BOTS = Path(__file__).parents[3] / "sample_bots"
TOLD_BOT = Path(__file__).parents[1] / "league_bots" / "tls_told.py"


@pytest.mark.slow
def test_a_ca_signed_servers_local_bots_dial_with_tls_and_play(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    ca, cert, key = ca_signed(tmp_path)
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    tls = ("--tls-cert", str(cert), "--tls-key", str(key), "--tls-ca", str(ca))
    serve = start_serve(league, results, tmp_path / "serve.log", processes, *tls)
    said = one_line(serve.log.read_text())
    assert "local bots (--bots) dial the Unix socket with TLS, trusting" in said, said
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(SAMPLE_BOTS / "binomial_bot.py", bots / "binomial_bot.py")
    shutil.copy(TOLD_BOT, bots / "tls_told.py")
    done = subprocess.run(
        [
            *arena_command(),
            *("admin", "start", *serve.admin, "--bots", str(bots), "--name", "night"),
            *("--seed", SEED, "--games", "2", "--jobs", "1", "--move-time", "5"),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed = one_line(done.stdout)
    assert "local bots dial the referee's Unix socket with TLS" in printed
    folder = results / "night"
    assert read_info(folder)["status"] == "finished"
    lines = read_lines(folder)
    assert len(lines) == 2 and all(not line["faults"] for line in lines)
    log = (folder / "logs" / "tls-told.log").read_text()
    assert '"tls": "1"' in log and '"ca_readable": true' in log, log
