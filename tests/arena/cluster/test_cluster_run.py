"""`arena run --cluster` on a real two-node Ray cluster on loopback, with real bot processes.

The same seed and deterministic bots make the same games wherever they are
played: a night spread over two hosts, a night whose host dies mid-run, and a
night whose hosts keep only two bots running each all end with the games and
standings of the same night on one machine.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray", reason="the cluster extra is not installed")

from ray_harness import RayCluster, ray_env, wait_until
from tournament_harness import ARENA, copy_bots, finish, lines_of

pytestmark = pytest.mark.slow

SEED = "5eed" * 8
GAMES = 12


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayCluster]:
    """A head (host_a, 127.0.0.2) and a second node (host_b, 127.0.0.3), stopped however
    the tests end."""
    temp = Path(tempfile.mkdtemp(prefix="ray-"))  # short: Ray's socket paths live under it
    ray = RayCluster(temp)
    try:
        ray.start_head()
        ray.add_node("127.0.0.3", "host_b")
        yield ray
    finally:
        ray.stop()
        shutil.rmtree(temp, ignore_errors=True)


def run(out: Path, bots: Path, name: str, *flags: str) -> subprocess.Popen[bytes]:
    log = out / f"{name}.log"
    out.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        return subprocess.Popen(
            [
                str(ARENA),
                "run",
                "--bots",
                str(bots),
                "--out",
                str(out),
                "--name",
                name,
                "--seed",
                SEED,
                "--games",
                str(GAMES),
                *flags,
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**ray_env(), "COLUMNS": "400"},
            start_new_session=True,
        )


def played(out: Path, bots: Path, name: str, *flags: str) -> str:
    """Run a night to its end; what it printed."""
    process = run(out, bots, name, *flags)
    log = out / f"{name}.log"
    assert finish(process, log, timeout=180) == 0, log.read_text()[-3000:]
    return log.read_text()


def games(folder: Path) -> list[tuple[Any, ...]]:
    return sorted(
        (
            g["game"],
            tuple(g["players"]),
            g["deal_key"],
            tuple(g["ranking"]),
            json.dumps(g["faults"]),
        )
        for g in lines_of(folder)
    )


def standings(folder: Path) -> list[tuple[Any, ...]]:
    board = json.loads((folder / "leaderboard.json").read_text())
    return [(r["bot"], r["mu"], r["sigma"], r["wins"], r["faults"]) for r in board]


def per_host(text: str) -> dict[str, int]:
    found = re.search(r"cluster: (\d+) games on \d+ hosts \(([^)]*)\)", text)
    assert found, text[-3000:]
    return {name: int(n) for name, n in re.findall(r"(host\d+@[\d.]+): (\d+)", found.group(2))}


@pytest.fixture(scope="module")
def one_machine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The night on this machine alone, the one every cluster night must equal."""
    root = tmp_path_factory.mktemp("alone")
    played(root / "results", copy_bots(root / "bots"), "alone", "--jobs", "2")
    return root / "results" / "alone"


def test_a_night_on_two_hosts_equals_the_night_on_one(
    cluster: RayCluster, one_machine: Path, tmp_path: Path
) -> None:
    bots = copy_bots(tmp_path / "bots")
    text = played(tmp_path, bots, "spread", "--cluster", cluster.address, "--jobs", "1")
    hosts = per_host(text)
    assert len(hosts) >= 2 and all(n > 0 for n in hosts.values()), hosts
    assert sum(hosts.values()) == GAMES
    assert games(tmp_path / "spread") == games(one_machine)
    assert standings(tmp_path / "spread") == standings(one_machine)
    ids = [g["game"] for g in lines_of(tmp_path / "spread")]
    assert len(ids) == len(set(ids)) == GAMES


def test_a_host_past_its_bot_budget_stops_the_least_recently_used(
    cluster: RayCluster, tmp_path: Path
) -> None:
    bots = copy_bots(tmp_path / "bots")
    shutil.copy(bots / "steady.py", bots / "level.py")  # a fourth deterministic bot
    text = played(
        tmp_path,
        bots,
        "budget",
        "--cluster",
        cluster.address,
        "--jobs",
        "1",
        "--table-size",
        "2",
        "--max-bots-per-host",
        "2",
        "--ship-bots",  # and the folder sent by Ray, not read at its path
    )
    shipped = re.findall(r"bots from (.+?), logs in", text.replace("\n", ""))
    assert shipped and all(Path(f) != bots for f in shipped), "the hosts read the folder here"
    lines = lines_of(tmp_path / "budget")
    assert len({g["game"] for g in lines}) == len(lines) == GAMES
    assert all(not g["faults"] for g in lines), "a bot stopped for the budget was not back"
    starts = re.search(r"(\d+) bot starts, (\d+) of them restarts", text)
    assert starts, text[-3000:]
    # Four bots through two places per host: some must come back after being stopped.
    assert int(starts.group(2)) > 0
    assert int(starts.group(1)) > 4


def test_a_node_killed_mid_run_loses_no_game_and_repeats_none(
    cluster: RayCluster, one_machine: Path, tmp_path: Path
) -> None:
    cluster.add_node("127.0.0.4", "host_c")
    bots = copy_bots(tmp_path / "bots", delay=0.03)  # a night long enough to kill into
    process = run(tmp_path, bots, "killed", "--cluster", cluster.address, "--jobs", "1")
    log = tmp_path / "killed.log"
    games_file = tmp_path / "killed" / "games.jsonl"

    def begun_on_every_host() -> bool:
        return games_file.exists() and len(lines_of(tmp_path / "killed")) >= 2

    wait_until(begun_on_every_host, 120)
    killed = cluster.kill_node("127.0.0.4")
    assert killed
    assert finish(process, log, timeout=180) == 0, log.read_text()[-3000:]
    text = log.read_text()
    assert re.search(r"host\d+@127\.0\.0\.4 died", text), text[-3000:]
    assert "played again" in text
    ids = [g["game"] for g in lines_of(tmp_path / "killed")]
    assert len(ids) == len(set(ids)) == GAMES
    assert games(tmp_path / "killed") == games(one_machine)
    assert standings(tmp_path / "killed") == standings(one_machine)
