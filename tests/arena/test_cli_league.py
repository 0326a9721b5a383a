"""`arena serve`, `arena token` and `arena admin`, as the organiser types them.

The server is a real `arena serve` process on ports the system picks (read
back from what it prints), the bots are sample kit bots in processes of their
own, and tournaments are started with `arena admin start` processes. Quick
commands (`arena token ...`, `arena admin status|stop`) run through the same
`main()` in this process, which is the CLI minus the interpreter start-up.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.league.server import admin_token_path
from arena.league.store import LeagueStore
from arena.referee.auth import token_hash
from arena.tournament.schedule import build

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


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("PERUDO_ADMIN_TOKEN", raising=False)
    return Cli(capsys)


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Every process a test starts; whatever is still running at the end is killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
    for process in started:
        process.wait(timeout=10)


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_token_commands_register_list_and_revoke(tmp_path: Path, cli: Cli) -> None:
    league = str(tmp_path / "league.sqlite")
    code, out, _ = cli("token", "list", "--league", league)
    assert (code, out) == (0, "")

    tokens = {}
    for name in ("alpha", "beta"):
        code, out, _ = cli("token", "add", name, "--league", league)
        assert code == 0
        lines = out.strip().splitlines()
        assert lines[0] == f"Token for {name} (shown once; only its hash is kept):"
        tokens[name] = lines[-1]
    assert tokens["alpha"] != tokens["beta"]
    store = LeagueStore(tmp_path / "league.sqlite")
    try:
        assert store.entrants() == {n: token_hash(t) for n, t in tokens.items()}
        assert tokens["alpha"] not in (tmp_path / "league.sqlite").read_bytes().decode("latin-1")
    finally:
        store.close()
    assert cli("token", "list", "--league", league)[1] == "alpha\nbeta\n"

    code, out, _ = cli("token", "revoke", "alpha", "--league", league)
    assert code == 0
    assert "Revoked alpha" in out
    assert cli("token", "list", "--league", league)[1] == "beta\n"

    # Adding a name again gives it a fresh token, and takes it off the revoked list.
    code, out, _ = cli("token", "add", "alpha", "--league", league)
    assert code == 0
    fresh = out.strip().splitlines()[-1]
    assert fresh != tokens["alpha"]
    assert cli("token", "list", "--league", league)[1] == "alpha\nbeta\n"
    store = LeagueStore(tmp_path / "league.sqlite")
    try:
        assert store.entrants()["alpha"] == token_hash(fresh)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["token", "add", "no spaces allowed"], "'no spaces allowed' is not a usable bot name"),
        (["token", "add"], "arena token add needs a bot name"),
        (["token", "revoke", "ghost"], "no entrant named 'ghost'"),
        (["serve", "--tls-cert", "cert.pem"], "TLS needs both --tls-cert and --tls-key"),
        (["admin", "status"], "no admin token"),
    ],
)
def test_cli_mistakes_are_explained(
    tmp_path: Path, cli: Cli, args: list[str], message: str
) -> None:
    code, out, err = cli(*args, "--league", str(tmp_path / "league.sqlite"))
    assert code == 1
    assert message in one_line(err), err
    assert out == ""


def test_serve_on_a_busy_port_says_so(tmp_path: Path, cli: Cli) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = f"127.0.0.1:{busy.getsockname()[1]}"
        for listen, admin in ((taken, "127.0.0.1:0"), ("127.0.0.1:0", taken)):
            code, _, err = cli(
                "serve",
                *("--listen", listen, "--admin", admin),
                *("--league", str(tmp_path / "league.sqlite"), "--out", str(tmp_path)),
            )
            assert code == 1
            assert f"cannot start the league server: could not listen on {taken}" in one_line(err)
            assert "Traceback" not in err


@dataclasses.dataclass
class Serve:
    """A running `arena serve`, with what an organiser needs to talk to it."""

    process: subprocess.Popen[bytes]
    log: Path
    port: int
    admin: list[str]
    """The flags that point `arena admin` at it."""


def start_serve(
    league: Path, results: Path, log: Path, processes: list[subprocess.Popen[bytes]]
) -> Serve:
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", str(league), "--out", str(results), "--reconnect-grace", "2"]
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

    ports = wait_for(printed_ports, "arena serve prints its ports", 15)
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


def test_a_league_night_from_the_terminal(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league = tmp_path / "league" / "league.sqlite"
    results = tmp_path / "results"
    tokens = {}
    for name in ("alpha", "beta", "gamma"):
        code, out, _ = cli("token", "add", name, "--league", str(league))
        assert code == 0
        tokens[name] = out.strip().splitlines()[-1]
    serve = start_serve(league, results, tmp_path / "serve.log", processes)
    # Nobody is connected yet: nothing to play, and nothing left behind to stop a retry.
    code, _, err = cli("admin", "start", *serve.admin, "--games", "6", "--name", "night")
    assert code == 1
    assert "FAILED_PRECONDITION: fewer than two bots can play (none connected)" in one_line(err)
    scripts = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "bluffer_bot.py"}
    bots = {
        name: launch_bot(
            SAMPLE_BOTS / script,
            name,
            tokens[name],
            serve.port,
            tmp_path / f"{name}.log",
            processes,
        )
        for name, script in scripts.items()
    }

    # The admin token is checked; a wrong one is refused with the server's reason.
    wrong = tmp_path / "wrong.token"
    wrong.write_text("not-the-admin-token\n")
    code, _, err = cli("admin", "status", *serve.admin, "--token-file", str(wrong))
    assert code == 1
    assert "the league server said UNAUTHENTICATED: wrong or missing admin token" in one_line(err)

    def status() -> str:
        code, out, err = cli("admin", "status", *serve.admin)
        assert code == 0, err
        return out

    everyone = (
        "3 bots connected\n  alpha: 2 session(s)\n  beta: 2 session(s)\n  gamma: 2 session(s)\n"
    )
    wait_for(lambda: status() == everyone, "the three bots connect with two sessions each", 15)

    # A tournament started from a second terminal (the same name again), followed to its end.
    start = [*arena_command(), "admin", "start", *serve.admin, "--jobs", "2", "--move-time", "2"]
    start += ["--seed", SEED]
    night = subprocess.run(
        [*start, "--games", "6", "--name", "night"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=40,
        check=False,
    )
    assert night.returncode == 0, night.stdout + night.stderr
    assert_finished(results / "night", night.stdout)
    assert cli("admin", "stop", *serve.admin)[:2] == (0, "No tournament is running.\n")

    # A second one on the same server, stopped with Ctrl-C in the admin terminal.
    played = interrupt(start, results / "stopped", tmp_path / "stopped.log", processes, status)
    assert "Tournament" not in status()
    store = LeagueStore(league)
    try:
        assert store.tournaments() == [("night", 6), ("stopped", played)]
    finally:
        store.close()

    # Revoking a name from the terminal closes its sessions; the others stay.
    assert cli("token", "revoke", "alpha", "--league", str(league))[0] == 0
    assert bots["alpha"].wait(timeout=8) == 0
    rest = "2 bots connected\n  beta: 2 session(s)\n  gamma: 2 session(s)\n"
    wait_for(lambda: status() == rest, "alpha is gone, the others stay", 5)

    # Ctrl-C stops the server, which says goodbye to the bots still connected.
    serve.process.send_signal(signal.SIGINT)
    assert serve.process.wait(timeout=15) == 0, serve.log.read_text()
    assert "Stopping: finishing the games in flight." in serve.log.read_text()
    for name in ("beta", "gamma"):
        assert bots[name].wait(timeout=10) == 0, (tmp_path / f"{name}.log").read_text()
