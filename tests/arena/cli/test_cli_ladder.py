"""A real `arena serve --ladder` killed with SIGKILL mid-games and started again: no game of
the ladder lost or doubled, in its journals or the league store, and `arena league check`
agrees."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_harness import SAMPLE_BOTS, arena_command, clean_env, wait_for

from arena.league.ladder.rounds import is_ladder
from arena.store import SqliteStore

BOTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}


def _events(log: Path) -> list[dict[str, Any]]:
    text = log.read_text() if log.is_file() else ""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _journaled(results: Path) -> dict[str, list[str]]:
    found = {}
    for folder in sorted(results.glob("ladder-*")):
        journal = folder / "games.jsonl"
        lines = journal.read_text().splitlines() if journal.is_file() else []
        ids = [json.loads(line)["game"] for line in lines]
        if ids:
            found[folder.name] = ids
    return found


def _stored(league: Path) -> dict[str, list[str]]:
    store = SqliteStore(league)
    try:
        rounds = [tid for tid, _ in store.tournaments() if is_ladder(tid)]
        return {tid: sorted(store.games_of(tid)) for tid in rounds if store.games_of(tid)}
    finally:
        store.close()


def _serve(
    tmp: Path, run: int, processes: list[subprocess.Popen[bytes]]
) -> tuple[subprocess.Popen[bytes], Path]:
    league, results, log = tmp / "league.sqlite", tmp / "results", tmp / f"log-{run}"
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", str(league), "--out", str(results), "--log-format", "json"]
    # Rounds kept in their folders: this is about a kill and a restart, the journals beside the
    # store (their folding into day records is tested in test_ladder_compact).
    command += ["--ladder", "--ladder-table-size", "3", "--ladder-jobs", "2"]
    command += ["--ladder-keep-rounds"]
    with log.open("wb") as out:
        serve = subprocess.Popen(
            command, env=clean_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
    processes.append(serve)

    def bots_port() -> str | None:
        assert serve.poll() is None, log.read_text()
        found = [e for e in _events(log) if e["event"] == "listening" and e["service"] == "bots"]
        return found[0]["address"] if found else None

    address = wait_for(bots_port, "arena serve says where it listens", 90)
    assert isinstance(address, str)
    for name, script in BOTS.items():
        env = clean_env(
            PERUDO_ADDRESS=address,
            PERUDO_BOT_NAME=name,
            PERUDO_TOKEN=(tmp / f"{name}.token").read_text().strip(),
            PERUDO_SESSIONS="3",
        )
        with (tmp / f"{name}-{run}.log").open("wb") as out:
            processes.append(
                subprocess.Popen(
                    [sys.executable, str(SAMPLE_BOTS / script)],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
    return serve, log


def _ladder_games(log: Path) -> int:
    return len([e for e in _events(log) if e["event"] == "ladder_game"])


@pytest.mark.slow
def test_a_ladder_killed_mid_games_and_restarted_loses_and_doubles_nothing(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    league = tmp_path / "league.sqlite"
    for name in BOTS:
        made = subprocess.run(
            [*arena_command(), "token", "add", "--league", str(league), name],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        (tmp_path / f"{name}.token").write_text(made.stdout.strip().splitlines()[-1])

    serve, log = _serve(tmp_path, 1, processes)
    wait_for(lambda: _ladder_games(log) >= 5, "five ladder games", 120)
    serve.send_signal(signal.SIGKILL)  # mid-round: its games in flight are not on record
    serve.wait(timeout=30)
    killed = _journaled(tmp_path / "results")
    assert {k: sorted(v) for k, v in killed.items()} == _stored(league)
    for process in processes[1:]:
        process.kill()
        process.wait(timeout=10)

    serve, log = _serve(tmp_path, 2, processes)
    wait_for(lambda: _ladder_games(log) >= 5, "five more ladder games", 120)
    serve.send_signal(signal.SIGTERM)  # a stop finishes the games in flight
    assert serve.wait(timeout=120) == 0, log.read_text()

    results = tmp_path / "results"
    after = _journaled(results)
    assert all(len(ids) == len(set(ids)) for ids in after.values()), after
    assert {k: sorted(v) for k, v in after.items()} == _stored(league)
    assert all(set(ids) <= set(after[tid]) for tid, ids in killed.items())
    assert sum(map(len, after.values())) >= sum(map(len, killed.values())) + 5
    checked = subprocess.run(
        [*arena_command(), "league", "check", "--league", str(league), "--results", str(results)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
