"""A league server SIGKILLed in the middle of a submission's build: its next start keeps every
accepted version whole, keeps nothing of the one it was building, and leaves no build behind."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest
from cli_harness import SAMPLE_BOTS, Cli, arena_command, clean_env, start_serve, wait_for

from arena.store import open_store
from arena.store.submissions import SubmissionState
from arena.submissions.folder import SubmissionsFolder
from arena.tournament.versions import tree_sha256

MARK = "perudo-kill-test-build"
"""The build script's name, in its shell's command line: the build's processes found by it."""


def _token(cli: Cli, league: Path, name: str, tmp: Path) -> Path:
    code, out, _ = cli("token", "add", name, "--league", str(league))
    assert code == 0
    path = tmp / f"{name}.token"
    path.write_text(out.strip().splitlines()[-1] + "\n")
    return path


def _running(mark: str) -> list[int]:
    """Processes whose command line holds `mark` (read from /proc, never signalled here)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
def test_a_server_killed_mid_build_keeps_every_accepted_version(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league = tmp_path / "league.sqlite"
    token = _token(cli, league, "slowpoke", tmp_path)
    serve = start_serve(league, tmp_path / "results", tmp_path / "serve.log", processes)
    first = tmp_path / "first"
    first.mkdir()
    (first / "bot.toml").write_text('name = "slowpoke"\nrun = "python bot.py"\n')
    (first / "bot.py").write_bytes((SAMPLE_BOTS / "random_bot.py").read_bytes())
    server = f"127.0.0.1:{serve.port}"
    code, out, _ = cli("submit", str(first), "--server", server, "--token-file", str(token))
    assert code == 0
    assert out.strip().splitlines()[-1] == "accepted as version 1 of slowpoke", out

    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.toml").write_text(
        f'name = "slowpoke"\nrun = "python bot.py"\nbuild = "sh {MARK}.sh"\n'
    )
    (slow / "bot.py").write_bytes((SAMPLE_BOTS / "random_bot.py").read_bytes())
    (slow / f"{MARK}.sh").write_text("echo building\nsleep 600\necho slept\n")
    log = tmp_path / "submit.log"
    with log.open("wb") as output:
        submitting = subprocess.Popen(
            [*arena_command(), "submit", str(slow), "--server", server, "--token-file", str(token)],
            env=clean_env(),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    processes.append(submitting)
    wait_for(lambda: "build | building" in log.read_text(), "the build is under way", 120)
    wait_for(lambda: _running(MARK), "the build's sleep is running", 30)
    os.kill(serve.process.pid, signal.SIGKILL)
    serve.process.wait(timeout=10)
    submitting.wait(timeout=60)
    said = log.read_text().strip().splitlines()
    assert submitting.returncode == 1 and said[-1].startswith("interrupted: "), said
    # The server's death takes its worker, the build's sandbox and the build with it.
    wait_for(lambda: not _running(MARK), "the build dies with the server", 30)

    again = start_serve(league, tmp_path / "results", tmp_path / "serve2.log", processes)
    wait_for(lambda: "was interrupted" in again.log.read_text(), "the start says so", 30)
    store = open_store(league)
    try:
        rows = store.submissions("slowpoke")
        states = sorted(r.state for r in rows)
        assert states == [SubmissionState.ACCEPTED, SubmissionState.INTERRUPTED]
        kept = next(r for r in rows if r.state is SubmissionState.ACCEPTED)
    finally:
        store.close()
    files = SubmissionsFolder(tmp_path / "submissions")
    assert [p.name for p in files.versions.iterdir()] == [kept.sha256]
    assert tree_sha256(files.source(kept.sha256)) == kept.sha256
    assert list(files.tmp.iterdir()) == []
    assert not list(Path(tempfile.gettempdir()).glob(f"perudo-submit-{serve.process.pid}-*"))
    # The author sends again, and the next version is 2: nothing was half kept as one.
    (slow / f"{MARK}.sh").write_text("echo quick\n")
    _, out, _ = cli(
        "submit", str(slow), "--server", f"127.0.0.1:{again.port}", "--token-file", str(token)
    )
    assert out.strip().splitlines()[-1] == "accepted as version 2 of slowpoke", out
