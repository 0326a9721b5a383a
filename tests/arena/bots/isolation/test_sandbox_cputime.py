"""A sandboxed bot's decisions are charged its own CPU time, not bubblewrap's.

The arena starts bubblewrap, which does no work; the bot is a descendant
that dials the referee's Unix socket, whose peer grpc cannot name. Through
the real `arena run`, a bot burning 50 ms of CPU per decision must be seen
burning it, and a bot sleeping 50 ms must be seen idle.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.isolation.sandbox import SandboxMode, decide

ARENA_TESTS = Path(__file__).resolve().parents[2]
STEADY = ARENA_TESTS / "tournament_bots" / "steady.py"
BURN_S = 0.05

BOT = """\
import time

import steady
from arena.kit import run


def act(obs):
    {wait}
    return steady.act(obs)


if __name__ == "__main__":
    run(act)
"""
SPIN = f"until = time.process_time() + {BURN_S}\n    while time.process_time() < until: pass"
SLEEP = f"time.sleep({BURN_S})"


def _bot(bots: Path, name: str, wait: str) -> None:
    folder = bots / name
    folder.mkdir()
    shutil.copy(STEADY, folder / "steady.py")
    (folder / "bot.py").write_text(BOT.format(wait=wait))
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python bot.py"\nsessions = 1\n')


@pytest.mark.slow
@pytest.mark.skipif(not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not)
def test_a_sandboxed_bots_cpu_time_per_decision_is_its_own(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    _bot(bots, "spinner", SPIN)
    _bot(bots, "sleeper", SLEEP)
    shutil.copy(STEADY, bots / "steady.py")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "arena.cli.main", "run", "--bots", str(bots)]
    command += ["--out", str(out), "--name", "cpu", "--games", "1", "--jobs", "1"]
    command += ["--move-time", "2", "--connect-timeout", "60", "--sandbox", "require"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bots are sandboxed" in done.stdout + done.stderr
    cpu: dict[str, list[float]] = {"spinner": [], "sleeper": [], "steady": []}
    for path in (out / "cpu" / "replays").glob("*.json"):
        replay = json.loads(path.read_text())
        for event in replay["events"]:
            if "action" in event:
                cpu[replay["players"][event["seat"]]].append(event["cpu_ms"])
    assert all(len(times) >= 3 for times in cpu.values()), cpu
    burn_ms = BURN_S * 1000
    spun = statistics.median(cpu["spinner"])
    # The burn, plus the kit's own work on a decision (a few ms), never bwrap's zero.
    assert burn_ms * 0.9 <= spun <= burn_ms * 1.6, cpu["spinner"]
    assert statistics.median(cpu["sleeper"]) < burn_ms * 0.2, cpu["sleeper"]
    assert statistics.median(cpu["steady"]) < burn_ms * 0.2, cpu["steady"]
