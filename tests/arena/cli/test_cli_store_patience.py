"""--store-patience on `arena run` and `arena admin start`: checked as the command line is
read, and carried to the run, which waits that long for a league store another process
holds locked before it stops saying so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import SEED, Cli, start_serve

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"
LIMIT_S = 300
HOLD = (
    "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); sys.stdin.readline()"
)


def test_a_patience_that_is_no_number_of_seconds_is_refused(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = cli.exits("run", "--bots", str(TOURNAMENT_BOTS), "--store-patience", "-1")
    assert code == 2
    assert "--store-patience" in err and "Traceback" not in err
    assert not (tmp_path / "results").exists()


@pytest.mark.slow  # fast: test_cli_admin_options' night a real server configures
def test_admin_start_carries_the_patience_to_the_server(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    results = tmp_path / "results"
    store = tmp_path / "league" / "league.sqlite"
    serve = start_serve(store, results, tmp_path / "serve.log", processes)
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("bold", "meek"):
        (bots / f"{name}.py").write_bytes((TOURNAMENT_BOTS / f"{name}.py").read_bytes())
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        code, out, err = cli(
            *("admin", "start", *serve.admin, "--bots", str(bots), "--name", "night"),
            *("--seed", SEED, "--games", "2", "--table-size", "2", "--jobs", "1"),
            *("--store-patience", "0.4"),
        )
    finally:
        holder.communicate("\n", timeout=LIMIT_S)
    said = out + err
    assert code != 0, said
    assert "locked by another process for 0.4 s" in said, said
    assert "Traceback" not in said
