"""`arena run --until-confident`: it stops once the order is known, plays the whole budget
when it never is, finishes the rotation groups it began, and resumes like any run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from referee_harness import bot_folder

ARENA = Path(sys.executable).parent / "arena"
SEED = "00112233445566778899aabbccddeeff"


def _bots(folder: Path, strong: int, weak: int) -> Path:
    folder.mkdir()
    for i in range(strong):
        bot_folder(folder, f"strong{i}", "kit_bot.py", {})
    for i in range(weak):
        (folder / f"weak{i}").mkdir()
        shutil.copy(Path(__file__).with_name("dudo_bot.py"), folder / f"weak{i}")
        (folder / f"weak{i}" / "bot.toml").write_text(
            f'name = "weak{i}"\nrun = "python dudo_bot.py"\n'
        )
    return folder


def _args(bots: Path, out: Path, games: int, size: int) -> list[str]:
    return [
        "run",
        "--bots",
        str(bots),
        "--games",
        str(games),
        "--table-size",
        str(size),
        "--jobs",
        "2",
        "--move-time",
        "5",
        "--connect-timeout",
        "60",
        "--out",
        str(out),
        "--name",
        "night",
        "--seed",
        SEED,
        "--until-confident",
    ]


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ARENA), *args], capture_output=True, text=True, timeout=300, check=False
    )


def _games(folder: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]


def _groups(games: list[dict[str, object]]) -> Counter[str]:
    return Counter(str(g["game"]).rsplit("-", 1)[0] for g in games)


@pytest.mark.slow
def test_it_stops_early_on_clearly_separated_bots(tmp_path: Path) -> None:
    bots = _bots(tmp_path / "bots", strong=1, weak=1)
    done = _arena(*_args(bots, tmp_path / "out", 200, 2))
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "out" / "night"
    info = json.loads((folder / "tournament.json").read_text())
    games = _games(folder)
    assert info["status"] == "finished" and info["seed"]
    outcome = info["until_confident_outcome"]
    assert outcome["outcome"] == "separated" and outcome["unseparated"] == []
    assert outcome["games"] == len(games) < 200
    assert set(_groups(games).values()) == {2}  # whole rotation groups only
    assert len(info["unplayed"]) == 200 - len(games)
    assert "Stopped early" in done.stdout and " ranks " in done.stdout
    assert (folder / "cross.json").exists()
    assert _arena("verify", str(folder)).returncode == 0


@pytest.mark.slow
def test_it_plays_the_whole_budget_on_identical_bots(tmp_path: Path) -> None:
    bots = _bots(tmp_path / "bots", strong=3, weak=0)
    done = _arena(*_args(bots, tmp_path / "out", 45, 3))
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "out" / "night"
    info = json.loads((folder / "tournament.json").read_text())
    assert info["status"] == "finished"
    assert info["until_confident_outcome"]["outcome"] == "budget"
    assert info["until_confident_outcome"]["unseparated"]
    assert len(_games(folder)) == 45 and "unplayed" not in info
    assert "Budget spent" in done.stdout and "Not yet separated" in done.stdout


@pytest.mark.slow
def test_a_killed_run_resumes_without_losing_or_repeating_a_game(tmp_path: Path) -> None:
    bots = _bots(tmp_path / "bots", strong=3, weak=0)
    out = tmp_path / "out"
    folder = out / "night"
    with (tmp_path / "log").open("wb") as log:
        run = subprocess.Popen(
            [str(ARENA), *_args(bots, out, 45, 3)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            path = folder / "games.jsonl"
            if path.exists() and len(path.read_text().splitlines()) >= 10:
                break
            time.sleep(0.01)
        assert run.poll() is None, "the run ended before it could be killed"
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    killed_at = len(_games(folder))
    assert killed_at < 45
    done = _arena("run", "--resume", str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    games = _games(folder)
    assert len(games) == 45 and len({g["game"] for g in games}) == 45
    assert json.loads((folder / "tournament.json").read_text())["status"] == "finished"
