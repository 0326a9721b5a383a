"""The `arena` command line: leaderboard, replay, and run's refusals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.ratings import rate_all
from arena.store import LeagueStore

BOTS = Path(__file__).parent / "tournament_bots"
ARENA = Path(sys.executable).parent / "arena"
NAMES = ("bold", "meek", "steady")


def arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ARENA), *args],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=cwd,
        env=dict(os.environ, COLUMNS="200"),
        check=False,
    )


@dataclass
class Night:
    out: Path
    folder: Path
    lines: list[dict[str, Any]]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    root = tmp_path_factory.mktemp("cli")
    bots = root / "bots"
    bots.mkdir()
    for name in NAMES:
        shutil.copy(BOTS / f"{name}.py", bots / f"{name}.py")
    out = root / "out"
    done = arena(
        "run",
        "--bots",
        str(bots),
        "--games",
        "6",
        "--table-size",
        "2",
        "--jobs",
        "3",
        "--force-jobs",  # more games than this machine's cores: concurrency is what is tried
        "--move-time",
        "1",
        "--out",
        str(out),
        "--name",
        "night1",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = out / "night1"
    assert f"Results: {folder}" in done.stdout
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    return Night(out, folder, lines)


def test_leaderboard_json_lists_the_bots_of_the_league(night: Night, tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    shutil.copy(night.out / "league.sqlite", league)
    store = LeagueStore(league)  # a second tournament, with a newcomer
    try:
        store.add_tournament("night2", {"id": "night2"})
        store.add_game(
            "night2",
            {"game": "g0", "index": 0, "ranking": ["zed", "meek"], "faults": [], "think_ms": {}},
        )
        expected = rate_all(store.results()).table()
    finally:
        store.close()
    done = arena("leaderboard", "--league", str(league), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(r["bot"] for r in rows) == sorted([*NAMES, "zed"])
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    games = {r["bot"]: r["games"] for r in rows}
    for name in NAMES:
        played = sum(name in line["players"] for line in night.lines)
        assert games[name] == played + (name == "meek")
    assert games["zed"] == 1
    assert [r["bot"] for r in rows] == [s.name for s in expected]
    assert [r["mu"] for r in rows] == [round(s.mu, 3) for s in expected]

    table = arena("leaderboard", "--league", str(league))
    assert table.returncode == 0, table.stderr
    assert "League: 2 tournaments, 7 games" in table.stdout
    for name in (*NAMES, "zed"):
        assert name in table.stdout


def test_leaderboard_without_a_league(tmp_path: Path) -> None:
    done = arena("leaderboard", "--league", str(tmp_path / "none.sqlite"), "--json")
    assert done.returncode == 1
    assert "no league store" in done.stderr
    assert done.stdout == ""


def _expected_story(replay: dict[str, Any]) -> tuple[list[str], int, int]:
    names = replay["players"]
    hands = []
    rounds = 0
    for event in replay["events"]:
        if "hands" in event:
            rounds += 1
            hands.extend(
                f"{names[seat]}: {' '.join(map(str, hand))}"
                for seat, hand in enumerate(event["hands"])
                if hand
            )
    actions = sum("action" in e for e in replay["events"])
    return hands, rounds, actions


@pytest.mark.parametrize("how", ["id", "tournament/id", "path"])
def test_replay_tells_the_rounds_dice_and_finish(night: Night, how: str) -> None:
    line = night.lines[0]
    game = line["game"]
    path = night.folder / "replays" / f"{game}.json"
    which = {"id": game, "tournament/id": f"night1/{game}", "path": str(path)}[how]
    done = arena("replay", which, "--results", str(night.out))
    assert done.returncode == 0, done.stderr
    replay = json.loads(path.read_text())
    hands, rounds, actions = _expected_story(replay)
    told = [x.strip() for x in done.stdout.splitlines()]
    assert told[0] == f"Game {game}: 0:{line['players'][0]}, 1:{line['players'][1]}"
    assert sum(x.startswith("Round ") for x in told) == rounds
    assert any(x.startswith("Round 1") for x in told)
    for hand in hands:
        assert hand in told
    assert sum(x.endswith(" ms)") for x in told) == actions
    assert told[-1] == "Finishing order: " + ", ".join(line["ranking"])


def test_replay_of_an_unknown_game(night: Night) -> None:
    done = arena("replay", "u999-t999-r9", "--results", str(night.out))
    assert done.returncode == 1
    assert "no replay of game 'u999-t999-r9'" in done.stderr


@pytest.mark.parametrize(
    ("seed", "message"),
    [("not-hex", "--seed must be hexadecimal"), ("abcd", "--seed needs at least 16 bytes")],
)
def test_run_refuses_a_bad_seed(tmp_path: Path, seed: str, message: str) -> None:
    done = arena("run", "--bots", str(BOTS), "--seed", seed, "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert message in done.stderr
    assert not (tmp_path / "out").exists()


def test_run_refuses_a_missing_bots_folder(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-bots"
    done = arena("run", "--bots", str(missing), "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert f"{missing} is not a folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing half-made is left behind


def test_run_refuses_bad_numbers(tmp_path: Path) -> None:
    done = arena("run", "--bots", str(BOTS), "--games", "0", "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert "--games" in done.stderr
