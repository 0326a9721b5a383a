"""A plaintext client on a TLS league server's port: the bot is told so in words.

The bot (the kit) exits at once saying the server speaks TLS, and `arena serve`
shows none of gRPC's handshake lines. (It said once what the client must do
while gRPC ended the TLS; the front door that ends it now does not yet.)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from referee_harness import BOTS
from tls_certificates import self_signed

from arena.league.handshakes import advice

PLAINTEXT_LINE = (
    "I1201 10:39:08.386153   15047 ssl_transport_security.cc:2563] Handshake failed with error "
    "SSL_ERROR_SSL: error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER: "
    "Invalid certificate verification context"
)


def test_grpc_s_handshake_lines_are_told_apart() -> None:
    plaintext = advice(PLAINTEXT_LINE)
    assert plaintext is not None and plaintext[0] == "plaintext"
    assert "PERUDO_TLS=1" in plaintext[1]
    other = advice(PLAINTEXT_LINE.replace("WRONG_VERSION_NUMBER: Invalid", "SSLV3_ALERT: bad"))
    assert other is not None and other[0] == "handshake"
    assert advice("Traceback (most recent call last):") is None


def _wait(check: object, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_plaintext_client_on_a_tls_port_is_told_and_the_server_stays_quiet(
    tmp_path: Path,
) -> None:
    cert, key = self_signed(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")}
    serve_log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "arena.cli.main", "serve", "--listen", "127.0.0.1:0"]
    command += ["--admin", "127.0.0.1:0", "--league", str(tmp_path / "league.sqlite")]
    command += ["--out", str(tmp_path / "results"), "--tls-cert", str(cert), "--tls-key", str(key)]
    with serve_log.open("wb") as out:
        serve = subprocess.Popen(command, env=env, stdout=out, stderr=out)
    try:
        _wait(lambda: "Referee listening" in serve_log.read_text(), "arena serve starts")
        port = re.search(r"Referee listening on 127\.0\.0\.1:(\d+)", serve_log.read_text())
        assert port is not None
        bots = []
        for n in range(2):  # two of them: the second is counted, not said again
            log = tmp_path / f"bot{n}.log"
            with log.open("wb") as out:
                bots.append(
                    subprocess.Popen(
                        [sys.executable, str(BOTS / "kit_bot.py")],
                        env={
                            **env,
                            "PERUDO_ADDRESS": f"127.0.0.1:{port[1]}",
                            "PERUDO_BOT_NAME": "plain",
                            "PERUDO_TOKEN": "whatever",
                        },
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            assert bots[-1].wait(60) == 1
            assert "speaks TLS; this bot dialled in plaintext" in log.read_text()
    finally:
        serve.send_signal(signal.SIGINT)
        serve.wait(30)
    said = serve_log.read_text()
    # The TLS is now ended by the referee's front door, in Python, whose failed handshakes
    # asyncio keeps to itself: the server no longer says a plaintext dial in words (the bot
    # does, above), and none of gRPC's handshake lines reaches the organiser's screen.
    assert "Handshake failed" not in said, said
    assert "Traceback" not in said, said
