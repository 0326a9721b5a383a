"""`arena ab` end to end: the real command, the real referee, real bot processes; read
back from the results folder.

The bots are the deterministic test bots of tournament_bots/ (their choices depend only on
what they see: no memory, as the field must have), so a pair's outcome depends on the
seed alone, and a test killed and resumed can be compared pair by pair with one that ran
through. The hypotheses are set so that no verdict can come within the budget: every pair
of the schedule is played, and each must be on record exactly once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from tournament_harness import arena_process, finish

from arena.records import Deal
from arena.tournament.results.folder import read_replay

pytestmark = pytest.mark.slow

BOTS = Path(__file__).resolve().parents[1] / "tournament_bots"
ARENA = Path(sys.executable).parent / "arena"
SEED = "5eed" * 16
PAIRS = 12
NEW, OLD = "bold", "timid"
FIELD = ("meek", "steady")


def _bots(root: Path, delay: float = 0.0) -> tuple[Path, Path, Path]:
    """NEW and OLD as scripts of their own, and the field's folder; `delay` slows each move."""
    knob = 'float(os.environ.get("PERUDO_TEST_DELAY", "0"))'
    (root / "field").mkdir(parents=True)
    (root / "contenders").mkdir()

    def copy(source: str, dest: Path) -> Path:
        text = (BOTS / f"{source}.py").read_text()
        assert knob in text
        dest.write_text(text.replace(knob, repr(delay)))
        return dest

    for name in FIELD:
        copy(name, root / "field" / f"{name}.py")
    new = copy("bold", root / "contenders" / f"{NEW}.py")
    old = copy("meek", root / "contenders" / f"{OLD}.py")  # meek's twin, under its own name
    return new, old, root / "field"


def _ab_args(root: Path, name: str) -> list[str]:
    new, old, field = _bots(root, delay=0.004 if name == "killed" else 0.0)
    return [
        "ab", str(new), str(old), "--bots", str(field),
        "--pairs", str(PAIRS), "--table-size", "3", "--jobs", "2", "--move-time", "5",
        "--connect-timeout", "60", "--seed", SEED, "--out", str(root / "out"), "--name", name,
        # Bounds near +-7 that 12 pairs cannot reach: the budget is played out.
        "--elo1", "5", "--alpha", "0.002", "--beta", "0.001",
    ]  # fmt: skip


def _lines(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "games.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines(keepends=True) if line.endswith("\n")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ab")
    log = root / "arena.log"
    process = arena_process(*_ab_args(root, "through"), log=log)
    assert finish(process, log, timeout=180) == 0, log.read_text()[-3000:]
    return root / "out" / "through"


def test_a_test_runs_to_its_budget_and_says_so(reference: Path) -> None:
    said = json.loads((reference / "ab.json").read_text())
    assert said["pairs"] == PAIRS == said["better"] + said["equal"] + said["worse"]
    assert said["verdict"] == "undecided"
    assert said["line"].startswith(f"budget reached: {PAIRS} of {PAIRS} pairs")
    info = json.loads((reference / "tournament.json").read_text())
    assert info["status"] == "finished" and info["seed"] == SEED
    assert info["ab"]["new"] == NEW and info["ab"]["old"] == OLD
    assert sorted(info["entrants"]) == sorted([NEW, OLD, *FIELD])
    verified = subprocess.run(
        [str(ARENA), "verify", str(reference)], capture_output=True, text=True, check=False
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    again = subprocess.run(
        [str(ARENA), "ab", "--resume", str(reference)], capture_output=True, text=True, check=False
    )
    assert again.returncode == 0 and f"has finished: {said['line']}" in again.stdout


def test_the_pairs_share_dice_seat_and_opponents_and_no_contender_meets_a_deal_twice(
    reference: Path,
) -> None:
    lines = _lines(reference)
    assert len(lines) == 2 * PAIRS == len({x["game"] for x in lines})
    replays = [read_replay(reference / "replays" / f"{x['game']}.json") for x in lines]
    by_deal = defaultdict(list)
    for replay in replays:
        by_deal[replay.deal_key].append(replay)
    assert len(by_deal) == PAIRS
    for key, pair in by_deal.items():
        assert len(pair) == 2, f"deal {key} was played {len(pair)} times"
        new, old = sorted(pair, key=lambda r: NEW not in r.players)
        assert NEW in new.players and OLD not in new.players
        assert OLD in old.players and NEW not in old.players
        seat = new.players.index(NEW)
        assert old.players.index(OLD) == seat, f"deal {key}: NEW and OLD sat apart"
        others = [p for i, p in enumerate(new.players) if i != seat]
        assert others == [p for i, p in enumerate(old.players) if i != seat]
        first_new = next(e for e in new.events if isinstance(e, Deal))
        first_old = next(e for e in old.events if isinstance(e, Deal))
        assert first_new == first_old, f"deal {key}: round 1 was dealt differently"
    for bot in (NEW, OLD):
        keys = [r.deal_key for r in replays if bot in r.players]
        assert len(keys) == len(set(keys)) == PAIRS, f"{bot} met a deal twice"
    for bot in FIELD:  # the field meets its deals twice, once with each of them
        keys = [r.deal_key for r in replays if bot in r.players]
        assert all(keys.count(k) == 2 for k in keys)


def test_a_killed_test_resumes_without_losing_or_repeating_a_pair(
    reference: Path, tmp_path: Path
) -> None:
    log = tmp_path / "arena.log"
    folder = tmp_path / "out" / "killed"
    process = arena_process(*_ab_args(tmp_path, "killed"), log=log)
    try:
        deadline = time.monotonic() + 120
        while not (folder / "games.jsonl").exists() or len(_lines(folder)) < 5:
            assert process.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "no games were played"
            time.sleep(0.01)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    before = _lines(folder)
    assert 5 <= len(before) < 2 * PAIRS
    assert json.loads((folder / "tournament.json").read_text())["status"] == "running"

    resumed = arena_process("ab", "--resume", str(folder), log=log)
    assert finish(resumed, log, timeout=180) == 0, log.read_text()[-3000:]
    after = _lines(folder)
    assert after[: len(before)] == before, "a game on record before the kill was lost"
    assert len(after) == 2 * PAIRS == len({x["game"] for x in after})
    said = json.loads((folder / "ab.json").read_text())
    through = json.loads((reference / "ab.json").read_text())
    assert said["pairs"] == PAIRS
    for key in ("better", "equal", "worse", "llr_new", "llr_old"):
        assert said[key] == pytest.approx(through[key]), key
    ranked = {x["game"]: x["ranking"] for x in _lines(reference)}
    assert {x["game"]: x["ranking"] for x in after} == ranked
