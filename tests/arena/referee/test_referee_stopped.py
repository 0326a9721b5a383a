"""The referee stopped outright (SIGSTOP for 2.5 s) in the middle of play: no bot is charged.

`arena run` runs in a process of its own with three quick bots; once play has
begun it is stopped and continued, as a loaded machine, a debugger or a
terminal's Ctrl-Z would. The bots answered in time; the referee was away.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from referee_harness import bot_folder

ROOT = Path(__file__).resolve().parents[3]
STOPPED = 2.5


@pytest.mark.slow
def test_a_stopped_referee_charges_no_bot(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    began = tmp_path / "began"
    # Each bot thinks 20 ms, so that a request is nearly always out when the referee stops.
    thinking = {"BOT_MODE": "slow", "BOT_SLEEP": "0.02"}
    for name in ("alpha", "bravo"):
        bot_folder(bots, name, "kit_bot.py", thinking)
    # With no flood, it says when play begins (a file outside its folder: not sandboxed).
    bot_folder(
        bots,
        "gamma",
        "idle_flood_bot.py",
        {**thinking, "BOT_CONNECTIONS": "0", "BOT_ADDRESS_FILE": str(began)},
    )
    env = dict(os.environ)
    out = tmp_path / "results"
    command = [sys.executable, "-m", "arena.cli.main", "run", "--bots", str(bots)]
    command += ["--games", "6", "--jobs", "1", "--move-time", "0.2", "--out", str(out)]
    command += ["--name", "stopped", "--sandbox", "off"]
    arena = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not began.exists() and arena.poll() is None:
            assert time.monotonic() < deadline, "play never began"
            time.sleep(0.02)
        time.sleep(0.1)
        arena.send_signal(signal.SIGSTOP)
        time.sleep(STOPPED)
        arena.send_signal(signal.SIGCONT)
        stdout, stderr = arena.communicate(timeout=300)
    finally:
        if arena.poll() is None:
            arena.send_signal(signal.SIGCONT)
            arena.kill()
    assert arena.returncode == 0, stdout[-2000:] + stderr[-2000:]
    games = [
        json.loads(line) for line in (out / "stopped" / "games.jsonl").read_text().splitlines()
    ]
    assert len(games) >= 6
    # The stop fell inside a game (it lasted the stop at least), and no game has a fault.
    assert any(g["duration_s"] >= STOPPED for g in games), [g["duration_s"] for g in games]
    assert [g["faults"] for g in games if g["faults"]] == []
