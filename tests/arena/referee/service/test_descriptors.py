"""An idle-connection flood cannot take the referee's descriptors: every finished game is kept.

The referee runs as `arena run` in a process of its own, its open-files limit
lowered to 256 (soft and hard, so nothing can raise it), while 1,200 plain
TCP connections that never say a word are opened to it during play, from
this process (a bot could open no more than its own limit).
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from referee_harness import bot_folder

ROOT = Path(__file__).resolve().parents[4]
LIMIT = 256
FLOOD = 1200


def _lower_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


@pytest.mark.slow
def test_an_idle_connection_flood_loses_no_game(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    address_file = tmp_path / "address"
    for name in ("alpha", "bravo"):
        bot_folder(bots, name, "kit_bot.py", {})
    flood = {"BOT_CONNECTIONS": "0", "BOT_SLEEP": "0.02", "BOT_ADDRESS_FILE": str(address_file)}
    bot_folder(bots, "flood", "idle_flood_bot.py", flood)
    env = dict(os.environ)
    out = tmp_path / "results"
    command = [sys.executable, "-m", "arena.cli.main", "run", "--bots", str(bots)]
    command += ["--games", "30", "--jobs", "1", "--move-time", "2", "--out", str(out)]
    # Not sandboxed: the flood comes from this test, which must learn the referee's TCP address.
    command += ["--name", "flooded", "--sandbox", "off"]
    arena = subprocess.Popen(
        command,
        preexec_fn=_lower_limit,  # noqa: PLW1509  # the test's own process: no threads to fear
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    held: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists() and arena.poll() is None:
            assert time.monotonic() < deadline, "play never began"
            time.sleep(0.05)
        host, _, port = address_file.read_text().rpartition(":")
        refused = 0
        for _ in range(FLOOD):
            try:
                held.append(socket.create_connection((host, int(port)), timeout=1))
            except OSError:
                refused += 1
        stdout, stderr = arena.communicate(timeout=300)
    finally:
        for connection in held:
            connection.close()
        if arena.poll() is None:
            arena.kill()
    assert arena.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert "Traceback" not in stderr, stderr
    folder = out / "flooded"
    info = json.loads((folder / "tournament.json").read_text())
    assert info["status"] == "finished"
    games = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    assert len(games) == len({g["game"] for g in games}) >= 30
    assert all(not g["faults"] for g in games), [g["faults"] for g in games if g["faults"]]
    assert held or refused  # the flood happened


RESERVE_SCRIPT = """
import os, resource, sys
from arena.referee.service.descriptors import DescriptorReserve
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
reserve = DescriptorReserve()
hog = []
try:
    while True:
        hog.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
def write():
    with open(sys.argv[1], "w") as out:
        out.write("kept")
reserve.run(write)
for fd in hog:
    os.close(fd)
print(open(sys.argv[1]).read() == "kept")
"""


def test_a_write_at_the_open_files_limit_uses_the_reserve(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RESERVE_SCRIPT, str(tmp_path / "game.json")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
