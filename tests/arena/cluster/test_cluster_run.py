"""`arena run --cluster` on a real two-node Ray cluster on loopback, with real bot processes.

The same seed and deterministic bots make the same games wherever they are
played: a night spread over two hosts, a night whose host dies mid-run, a
night whose hosts keep only two bots running each, and a night whose
coordinator is killed and resumed on the cluster all end with the games and
standings of the same night on one machine. A night stopped with Ctrl-C (or
SIGTERM) finishes the games in flight on its hosts and says how to resume.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray", reason="the cluster extra is not installed")

from ray_harness import RayCluster, command_line, process_tree, ray_env, still_running, wait_until
from tournament_harness import ARENA, copy_bots, finish, lines_of

from arena.store import SqliteStore
from arena.tournament.results.folder import TournamentFolder

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


def arena(log: Path, *args: str) -> subprocess.Popen[bytes]:
    """`arena ARGS` in a session of its own, as the organiser starts it, its output in `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        return subprocess.Popen(
            [str(ARENA), *args],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**ray_env(), "COLUMNS": "400"},
            start_new_session=True,
        )


def run(out: Path, bots: Path, name: str, *flags: str) -> subprocess.Popen[bytes]:
    return arena(
        out / f"{name}.log",
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


def host_processes(text: str) -> dict[str, int]:
    """Each host's actor process, by the pid its host said when it opened."""
    found = re.findall(r"(host\d+@[\d.]+): on \S+ \(pid (\d+)\)", text.replace("\n", ""))
    return {name: int(pid) for name, pid in found}


def stopped_while_playing(
    cluster: RayCluster, tmp_path: Path, name: str, sig: signal.Signals
) -> tuple[int, int, dict[str, int], dict[int, int]]:
    """A cluster night sent `sig` once two games are on record: its exit status, the games
    on record when it was sent, its hosts' processes, and every process below them then."""
    bots = copy_bots(tmp_path / "bots", delay=0.03)  # a night long enough to stop into
    process = run(tmp_path, bots, name, "--cluster", cluster.address, "--jobs", "1")
    folder = tmp_path / name
    try:
        wait_until(lambda: (folder / "games.jsonl").exists() and len(lines_of(folder)) >= 2, 120)
        seen = len(lines_of(folder))
        hosts = host_processes((tmp_path / f"{name}.log").read_text())
        below: dict[int, int] = {}
        for pid in hosts.values():
            below |= process_tree(pid)
        bot_processes = [p for p in below if str(bots) in command_line(p)]
        os.killpg(process.pid, sig)
        code = finish(process, tmp_path / f"{name}.log", timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert len(hosts) >= 2, hosts
    assert bot_processes, "no bot was running below the hosts"
    return code, seen, hosts, below


def info_of(folder: Path) -> dict[str, Any]:
    info: dict[str, Any] = json.loads((folder / "tournament.json").read_text())
    return info


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_first_ctrl_c_or_sigterm_finishes_the_games_in_flight_on_the_hosts(
    cluster: RayCluster, tmp_path: Path, sig: signal.Signals
) -> None:
    """SIGTERM (a service stopped) too, which Ray takes for itself as the run joins it."""
    code, seen, hosts, below = stopped_while_playing(cluster, tmp_path, "stopped", sig)
    text = (tmp_path / "stopped.log").read_text()
    folder = tmp_path / "stopped"
    assert code == 130, text[-3000:]
    assert info_of(folder)["status"] == "interrupted"
    assert info_of(folder)["seed"] is None  # secret until the night is over
    lines = lines_of(folder)
    # Each host had a game in flight when the file showed `seen` lines (--jobs 1 a host):
    # both were finished and recorded, not abandoned, and none was begun after.
    assert seen + len(hosts) <= len(lines) < GAMES
    assert all(not g["faults"] for g in lines), "a game in flight was cut short"
    assert {p.stem for p in (folder / "replays").glob("*.json")} == {g["game"] for g in lines}
    said = " ".join(text.split())
    assert "Traceback" not in said and "SIGTERM received" not in said, said[-3000:]
    assert f"Interrupted after {len(lines)} of {GAMES} games" in said, said[-3000:]
    assert f"arena run --resume {folder} --cluster {cluster.address}" in said, said[-3000:]
    # Each host closed stops its bots; its actor is killed after, which Ray does in its time.
    wait_until(lambda: not still_running(below), 30)


def test_a_coordinator_killed_mid_run_is_resumed_on_the_cluster(
    cluster: RayCluster, one_machine: Path, tmp_path: Path
) -> None:
    code, _, _, below = stopped_while_playing(cluster, tmp_path, "killed", signal.SIGKILL)
    folder = tmp_path / "killed"
    log = tmp_path / "killed.log"
    assert code == -signal.SIGKILL
    assert info_of(folder)["status"] == "running"  # as a crash leaves it
    before = len(lines_of(folder))
    assert before < GAMES
    copy_bots(tmp_path / "bots")  # the rest at full speed: the same moves, without the wait
    resumed = arena(log, "run", "--resume", str(folder), "--cluster", cluster.address)
    assert finish(resumed, log, timeout=180) == 0, log.read_text()[-3000:]
    # Ray ended the killed driver's hosts, and their bots went with them.
    assert still_running(below) == [], "a host or bot of the killed run is still running"
    # Only the resume closed its hosts and said what they played: the rest, on the cluster.
    assert sum(per_host(log.read_text()).values()) == GAMES - before
    info = info_of(folder)
    assert info["status"] == "finished"
    schedule = TournamentFolder(folder).schedule(TournamentFolder(folder).info())
    ids = [g["game"] for g in lines_of(folder)]
    assert len(ids) == len(set(ids)) and set(ids) == {g.game_id for g in schedule}
    assert games(folder) == games(one_machine)
    assert standings(folder) == standings(one_machine)
    store = SqliteStore(Path(info["league"]))
    try:  # the league has each game once too
        assert sorted(line.game for _, line in store.lines([info["id"]])) == sorted(ids)
    finally:
        store.close()
