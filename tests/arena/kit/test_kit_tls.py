"""The kit and the bridge dial a TLS referee with PERUDO_TLS and PERUDO_CA_FILE, and a bot
that dials the wrong way (plaintext to TLS, TLS to plaintext, an untrusted
certificate) is told which, at once, rather than timing out."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from referee_harness import BOTS, until
from tls_certificates import self_signed

from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, Tls


def _start(
    script: str, port: int, book: TokenBook, log: Path, **env: str
) -> subprocess.Popen[bytes]:
    name = log.stem
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")},
        "PERUDO_ADDRESS": f"127.0.0.1:{port}",
        "PERUDO_BOT_NAME": name,
        "PERUDO_TOKEN": book.issue(name),
        **env,
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, str(BOTS / f"{script}.py")],
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


async def _exit(proc: subprocess.Popen[bytes]) -> int | None:
    await until(lambda: proc.poll() is not None, 60)
    return proc.poll()


def test_the_kit_and_the_bridge_play_a_tls_referee_that_they_trust(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)

    async def main() -> None:
        book = TokenBook()
        lobby = Lobby(book)
        referee = Referee(lobby)
        port = await referee.start("127.0.0.1:0", Tls(cert.read_bytes(), key.read_bytes()))
        procs = [
            _start("kit_bot", port, book, tmp_path / "kit.log", PERUDO_CA_FILE=str(cert)),
            _start("bridged", port, book, tmp_path / "bridge.log", PERUDO_CA_FILE=str(cert)),
        ]
        try:
            assert await lobby.wait_for(["kit", "bridge"], 1, 60) == {"kit", "bridge"}
        finally:
            await referee.stop()
            for proc in procs:
                proc.kill()
                proc.wait()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("served_tls", "env", "said"),
    [
        (True, {}, "speaks TLS; this bot dialled in plaintext: set PERUDO_TLS=1"),
        (True, {"PERUDO_TLS": "1"}, "the referee's certificate is not trusted"),
        (False, {"PERUDO_TLS": "1"}, "does not speak TLS: unset PERUDO_TLS"),
    ],
    ids=["plaintext to tls", "untrusted certificate", "tls to plaintext"],
)
@pytest.mark.parametrize("script", ["kit_bot", "bridged"])
def test_a_bot_dialling_the_wrong_way_is_told_which(
    tmp_path: Path, served_tls: bool, env: dict[str, str], said: str, script: str
) -> None:
    cert, key = self_signed(tmp_path)

    async def main() -> None:
        book = TokenBook()
        referee = Referee(Lobby(book))
        tls = Tls(cert.read_bytes(), key.read_bytes()) if served_tls else None
        port = await referee.start("127.0.0.1:0", tls)
        log = tmp_path / "wrong.log"
        proc = _start(script, port, book, log, **env)
        try:
            assert await _exit(proc) == 1
        finally:
            await referee.stop()
            proc.kill()
        assert said in log.read_text(), log.read_text()
        assert "no referee answered" not in log.read_text()  # told at once, not timed out

    asyncio.run(main())
