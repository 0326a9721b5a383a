"""The tournament tests' shared parts: the deterministic bots, their copies, the files read back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from arena.records import GameLine
from arena.referee.clock.deadline import TimeControl
from arena.tournament.info import TournamentInfo
from arena.tournament.plan import RunPlan
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress

BOTS = Path(__file__).parent / "tournament_bots"
GOOD = ("bold", "meek", "steady")
ARENA = Path(sys.executable).parent / "arena"


class Quiet:
    """An Observer that is told everything and keeps nothing."""

    def note(self, text: str) -> None:
        pass

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        pass

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        pass


@dataclass
class Recorder:
    """An Observer that keeps everything it is told."""

    notes: list[str] = field(default_factory=list)
    starts: list[tuple[Path, list[str], Progress]] = field(default_factory=list)
    finished: list[tuple[GameLine, Progress]] = field(default_factory=list)
    builds: list[tuple[str, bool]] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def building(self, name: str, running: bool) -> None:
        self.builds.append((name, running))

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.starts.append((folder, entrants, progress))

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        assert sorted(s.name for s in table) == self.starts[-1][1]
        self.finished.append((line, progress))

    def note_about(self, name: str) -> str:
        found = [n for n in self.notes if n.startswith(f"{name}:")]
        assert len(found) == 1, f"expected one note about {name}: {self.notes}"
        return found[0]


def copy_bots(dest: Path, names: tuple[str, ...] = GOOD, delay: float = 0.0) -> Path:
    """Copies of the test bots; `delay` is written into them, as a bot's environment holds
    only what the arena gives every bot (no PERUDO_TEST_DELAY of ours)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        text = (BOTS / f"{name}.py").read_text()
        knob = 'float(os.environ.get("PERUDO_TEST_DELAY", "0"))'
        assert knob in text
        (dest / f"{name}.py").write_text(text.replace(knob, repr(delay)))
    return dest


def lines_of(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "games.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines(keepends=True) if line.endswith("\n")]


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in {"Z", "X"}


def wait_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    """The pids still alive after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(_gone(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if not _gone(p)]


def children_of(pid: int) -> list[int]:
    """The processes `pid` started, but its warden (`arena.bots.run.warden`), which is no bot."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid and not _is_warden(entry):
                found.append(int(entry.name))
    return found


def _is_warden(process: Path) -> bool:
    try:
        return b"arena.bots.run.warden" in (process / "cmdline").read_bytes()
    except OSError:
        return False


def minimal_info(
    tid: str, entrants: tuple[str, ...] | None = None, **planned: Any
) -> TournamentInfo:
    """A tournament.json with only what a folder needs: for tests of the folder itself;
    `planned` sets fields of its plan (`bots_dir=...`, `ab=...`)."""
    least = {"league": "league.sqlite", "ruleset": engine.Ruleset(), "games": 6, "jobs": 1}
    plan = RunPlan(**(least | {"time": TimeControl(0.5)} | planned))
    return TournamentInfo(tid, 0.0, plan, "00" * 32, entrants=entrants)


def arena_process(*args: str, log: Path) -> subprocess.Popen[bytes]:
    """`arena ARGS` as the organiser starts it, in a session of its own, its output in `log`."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(ARENA), *args], stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def finish(process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> int:
    """The arena's exit status, once it ends; killed, and the test failed, past `timeout`."""
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise AssertionError(f"arena did not finish: {log.read_text()[-2000:]}") from None
