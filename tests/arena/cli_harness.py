"""`arena serve` and `arena admin` as real processes, and the CLI's `main()` in process."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from league_harness import league
from rich.console import Console

from arena.cli.admin import night_request
from arena.cli.main import _parser, main
from arena.league.league_server import admin_token_path
from arena.tournament.config import TournamentConfig
from arena.tournament.schedule.round_robin import build

SAMPLE_BOTS = Path(__file__).parents[2] / "sample_bots"
SEED = "c0ffee" * 11 + "00"


def arena_command() -> list[str]:
    script = Path(sys.executable).with_name("arena")
    return [str(script)] if script.exists() else [sys.executable, "-m", "arena.cli.main"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")}
    return {**env, **extra}


def wait_for(check: Callable[[], object], what: str, seconds: float = 10.0) -> object:
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


class Cli:
    """Runs `arena ...` in this process and returns (exit code, stdout, stderr)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def exits(self, *args: str) -> tuple[int, str, str]:
        """As a call, with argparse's refusals (SystemExit) returned as their exit code."""
        self.capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
        out, err = self.capsys.readouterr()
        return code, out, err


def one_line(text: str) -> str:
    return " ".join(text.split())


@dataclasses.dataclass
class Serve:
    """A running `arena serve`, with what an organiser needs to talk to it."""

    process: subprocess.Popen[bytes]
    log: Path
    port: int
    admin: list[str]
    """The flags that point `arena admin` at it."""


def start_serve(
    league: Path,
    results: Path,
    log: Path,
    processes: list[subprocess.Popen[bytes]],
    *extra: str,
) -> Serve:
    """`arena serve` on free ports, with `extra` flags (TLS, say)."""
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", str(league), "--out", str(results), "--reconnect-grace", "2", *extra]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=clean_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
    processes.append(process)

    def printed_ports() -> tuple[int, int] | None:
        text = log.read_text()
        bots = re.search(r"Referee listening on 127\.0\.0\.1:(\d+)", text)
        admin = re.search(r"Admin on 127\.0\.0\.1:(\d+); token in (.+)", text)
        if bots and admin:
            assert admin[2].strip() == str(admin_token_path(league))
            return int(bots[1]), int(admin[1])
        assert process.poll() is None, text
        return None

    # A generous limit: it ends at once on the event, or on the process ending.
    ports = wait_for(printed_ports, "arena serve prints its ports", 90)
    assert isinstance(ports, tuple)
    admin = ["--admin", f"127.0.0.1:{ports[1]}", "--league", str(league)]
    return Serve(process, log, ports[0], admin)


def launch_bot(
    script: Path,
    name: str,
    token: str,
    port: int,
    log: Path,
    processes: list[subprocess.Popen[bytes]],
) -> subprocess.Popen[bytes]:
    env = clean_env(
        PERUDO_ADDRESS=f"127.0.0.1:{port}",
        PERUDO_BOT_NAME=name,
        PERUDO_TOKEN=token,
        PERUDO_SESSIONS="2",
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(script)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    processes.append(process)
    return process


def read_lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]


def read_info(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "tournament.json").read_text())  # type: ignore[no-any-return]


def assert_finished(folder: Path, printed: str) -> None:
    """Every scheduled game once, no faults, the seed revealed; and `arena admin` said so."""
    assert "Tournament night with 3 bots: alpha, beta, gamma" in printed
    assert f"Results: {folder} (finished)" in one_line(printed)
    assert "Leaderboard (6 games)" in printed
    lines = read_lines(folder)
    schedule = build(["alpha", "beta", "gamma"], 3, 6, bytes.fromhex(SEED))
    assert sorted(x["game"] for x in lines) == sorted(g.game_id for g in schedule)
    assert all(not x["faults"] for x in lines)
    info = read_info(folder)
    assert (info["status"], info["seed"], info["dropped"]) == ("finished", SEED, [])


def interrupt(
    start: list[str],
    folder: Path,
    log_path: Path,
    processes: list[subprocess.Popen[bytes]],
    status: Callable[[], str],
) -> int:
    """Start a long tournament with `arena admin start`, Ctrl-C it; return the games played."""
    with log_path.open("w") as log:
        stopped = subprocess.Popen(
            [*start, "--games", "300", "--name", folder.name],
            env=clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    processes.append(stopped)
    wait_for(lambda: "/300 games," in log_path.read_text(), "the tournament plays", 20)
    assert re.search(rf"Tournament {folder.name}: \d+/300 games", status())
    stopped.send_signal(signal.SIGINT)
    assert stopped.wait(timeout=20) == 130, log_path.read_text()
    output = one_line(log_path.read_text())
    assert "asking the server to stop after the games in flight" in output
    assert f"Results: {folder} (interrupted)" in output
    info = read_info(folder)
    assert (info["status"], info["seed"]) == ("interrupted", None)
    played = len(read_lines(folder))
    assert 1 <= played < 300
    return played


def night_config(tmp_path: Path, *flags: str) -> tuple[TournamentConfig, str]:
    """The config a real league server (in this process, on 127.0.0.1) makes its night of
    from the request `arena admin start FLAGS` makes, as the command makes it; and what the
    command printed meanwhile. The fast way to a night's options, without a night."""
    token = tmp_path / "admin.token"
    token.write_text("x\n")
    parsed = _parser().parse_args(["admin", "start", "--token-file", str(token), *flags])
    screen = io.StringIO()
    request = night_request(parsed, Console(file=screen, width=400))

    async def configured() -> TournamentConfig:
        async with league(tmp_path / "server") as lg:
            return lg.server.night_config(request)

    return asyncio.run(configured()), screen.getvalue()
