"""The server's log read as it grows: each event once, a line half written kept for its
end, and what is no event passed over (and told, when the process fell over); and the
server's process, which dies with the soak."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bench.soak_server import DIES_WITH_THE_SOAK, EventLog


def _event(kind: str, **fields: object) -> str:
    return json.dumps({"time": "2025-01-02T03:04:05.250Z", "event": kind, "message": "", **fields})


def test_each_event_is_read_once_and_a_half_written_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "serve.log"
    listening = _event("listening", service="bots", address="127.0.0.1:5")
    game = _event("ladder_game", round="ladder-000000", game="g1")
    path.write_text(listening + "\nnot an event\n" + game[:20])
    log = EventLog(path)
    (first,) = log.events()
    assert (first.kind, first.fields["address"]) == ("listening", "127.0.0.1:5")
    assert first.at == 1735787045.25
    assert log.events() == []
    with path.open("a") as out:
        out.write(game[20:] + "\nTraceback: it fell over\n")
    (second,) = log.events()
    assert (second.kind, second.fields["game"]) == ("ladder_game", "g1")
    assert log.events() == []
    assert log.tail() == "Traceback: it fell over"


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state in {"Z", "X"}


def test_the_server_s_process_dies_with_the_soak_and_starts_not_without_it() -> None:
    # A stand-in for the soak starts a stand-in for the server as the soak does, says its
    # pid, and is killed with SIGKILL: the server's process goes with it.
    server = "import os, time; print(os.getpid(), flush=True); time.sleep(600)"
    soak = (
        "import os, subprocess, sys, time; "
        f"subprocess.Popen([sys.executable, '-c', {DIES_WITH_THE_SOAK!r}, str(os.getpid()), "
        f"'-c', {server!r}]); time.sleep(600)"
    )
    stand_in = subprocess.Popen([sys.executable, "-c", soak], stdout=subprocess.PIPE)
    assert stand_in.stdout is not None
    child = int(stand_in.stdout.readline())
    assert not _gone(child)
    stand_in.kill()
    stand_in.wait(timeout=60)
    deadline = time.monotonic() + 60
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)
    # Told a parent that is not its own (the soak gone before it began): it ends at once.
    late = subprocess.run(
        [sys.executable, "-c", DIES_WITH_THE_SOAK, "1", "-c", "print('ran')"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (late.returncode, late.stdout) == (1, "")
