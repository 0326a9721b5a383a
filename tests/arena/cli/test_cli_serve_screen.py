"""A real `arena serve --ladder` with three remote sample bots: its readable screen says less
than a line per ladder round (it said a line per game, three a round, before the digest)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import SAMPLE_BOTS, arena_command, clean_env, wait_for

from arena.league.ladder.rounds import is_ladder
from arena.store import SqliteStore

BOTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}
ROUNDS = 30
STARTUP = ("Referee listening", "Admin on", "submissions:", "Register bots with")


def _rounds(league: Path) -> int:
    """Ladder rounds played whole: their three games in the league store (a finished round's
    folder is folded into its day's record)."""
    store = SqliteStore(league)
    try:
        return sum(1 for tid, games in store.tournaments() if is_ladder(tid) and games == 3)
    finally:
        store.close()


@pytest.mark.slow
def test_a_ladder_says_less_than_a_line_a_round(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    league, results, log = tmp_path / "league.sqlite", tmp_path / "results", tmp_path / "log"
    tokens = {}
    for name in BOTS:
        made = subprocess.run(
            [*arena_command(), "token", "add", "--league", str(league), name],
            env=clean_env(), capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        tokens[name] = made.stdout.strip().splitlines()[-1]
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", str(league), "--out", str(results), "--ladder"]
    with log.open("wb") as out:
        serve = subprocess.Popen(command, env=clean_env(), stdout=out, stderr=out)
    processes.append(serve)

    def port() -> str | None:
        assert serve.poll() is None, log.read_text()
        said = [line for line in log.read_text().splitlines() if "Referee listening on" in line]
        return said[0].rsplit(":", 1)[1].split()[0] if said else None

    address = f"127.0.0.1:{wait_for(port, 'arena serve says where it listens', 90)}"
    for name, script in BOTS.items():
        env = clean_env(
            PERUDO_ADDRESS=address, PERUDO_BOT_NAME=name, PERUDO_TOKEN=tokens[name],
            PERUDO_SESSIONS="3",
        )  # fmt: skip
        bot = [sys.executable, str(SAMPLE_BOTS / script)]
        processes.append(subprocess.Popen(bot, env=env, stdout=subprocess.DEVNULL))
    wait_for(lambda: _rounds(league) >= ROUNDS, f"{ROUNDS} ladder rounds", 180)
    serve.send_signal(signal.SIGTERM)  # a stop finishes the games in flight
    assert serve.wait(timeout=120) == 0, log.read_text()
    rounds = _rounds(league)
    lines = log.read_text().splitlines()
    chatter = [line for line in lines if not any(s in line for s in STARTUP)]
    assert len(chatter) < rounds, f"{len(chatter)} lines for {rounds} rounds:\n" + "\n".join(lines)
    assert any("alpha connected" in line for line in chatter)  # who came is still said
