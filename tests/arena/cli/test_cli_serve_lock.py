"""A second `arena serve` on a league already served: refused in one line with the first's
address, and the first's admin token, store and service left as they were (SQLite, and
PostgreSQL from another folder)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_harness import Cli, arena_command, clean_env, start_serve, wait_for

from arena.league.league_server import admin_token_path

LIMIT_S = 90


def _second(league: Path | str, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
            "--league", str(league), "--out", str(out),
        ],
        env=clean_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=LIMIT_S, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_second_serve_on_the_same_sqlite_league_is_refused(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league, results = tmp_path / "league.sqlite", tmp_path / "results"
    first = start_serve(league, results, tmp_path / "serve.log", processes)
    token = admin_token_path(league).read_text()
    second = _second(league, tmp_path / "elsewhere")  # the same store, another --out
    assert second.returncode == 1, second.stdout + second.stderr
    said = " ".join(second.stderr.split())
    assert f"bots 127.0.0.1:{first.port}" in said and "Traceback" not in said
    assert "Referee listening" not in second.stdout
    assert admin_token_path(league).read_text() == token
    code, _, err = cli("admin", "status", *first.admin)  # the first is administered still
    assert code == 0, err
    assert first.process.poll() is None


@pytest.mark.slow
def test_a_second_serve_on_the_same_postgres_store_is_refused(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]], postgres_url: str
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    log = tmp_path / "serve.log"
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", postgres_url, "--out", str(one)]
    with log.open("wb") as output:
        first = subprocess.Popen(command, env=clean_env(), stdout=output, stderr=output)
    processes.append(first)

    wait_for(lambda: "Admin on" in log.read_text(), "the first server listens", LIMIT_S)
    token = (one / "admin.token").read_text()
    second = _second(postgres_url, two)  # another folder: only the database is shared
    assert second.returncode == 1, second.stdout + second.stderr
    said = " ".join(second.stderr.split())
    assert "another league server is running on the league store" in said, said
    assert "arena serve bots 127.0.0.1:" in said and "s3cret" not in said
    assert not (two / "admin.token").exists()
    assert (one / "admin.token").read_text() == token
    assert first.poll() is None
