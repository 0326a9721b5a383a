"""`arena serve`, `arena token` and `arena admin`, as the organiser types them.

The server is a real `arena serve` process on ports the system picks (read
back from what it prints), the bots are sample kit bots in processes of their
own, and tournaments are started with `arena admin start` processes. Quick
commands (`arena token ...`, `arena admin status|stop`) run through the same
`main()` in this process, which is the CLI minus the interpreter start-up.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest
from cli_harness import (
    SAMPLE_BOTS,
    SEED,
    Cli,
    arena_command,
    assert_finished,
    clean_env,
    interrupt,
    launch_bot,
    one_line,
    start_serve,
    wait_for,
)

from arena.referee.service.auth import token_hash
from arena.store import SqliteStore


def test_token_commands_register_list_and_revoke(tmp_path: Path, cli: Cli) -> None:
    league = str(tmp_path / "league.sqlite")
    code, out, _ = cli("token", "list", "--league", league)
    assert (code, out) == (0, "")

    tokens = {}
    for name in ("alpha", "beta"):
        code, out, err = cli("token", "add", name, "--league", league)
        assert code == 0
        assert err == f"Token for {name} (shown once; only its hash is kept):\n"
        assert out.count("\n") == 1 and len(out.split()) == 1  # the bare token: `> FILE` works
        tokens[name] = out.strip()
    assert tokens["alpha"] != tokens["beta"]
    store = SqliteStore(tmp_path / "league.sqlite")
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
    store = SqliteStore(tmp_path / "league.sqlite")
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


@pytest.mark.slow
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
        """What `arena admin status` says, each bot's round trip left out (tested below)."""
        code, out, err = cli("admin", "status", *serve.admin)
        assert code == 0, err
        return re.sub(r", network round trip [0-9.]+ ms", "", out)

    def timed() -> bool:
        code, out, _ = cli("admin", "status", *serve.admin)
        return code == 0 and out.count(", network round trip ") == 3

    everyone = (
        "3 bots connected\n  alpha: 2 session(s)\n  beta: 2 session(s)\n  gamma: 2 session(s)\n"
    )
    wait_for(lambda: status() == everyone, "the three bots connect with two sessions each", 15)
    wait_for(timed, "each bot's round trip is shown once it is timed", 15)

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
    store = SqliteStore(league)
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
