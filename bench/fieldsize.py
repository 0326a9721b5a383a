"""`arena bench field`: how a night of N bots starts and stops, by N, side by side.

Each size is a real `arena run` in a child process, sandboxed as a night is,
of N copies of the benchmark's instant bot. Measured: the seconds from the
command to its first finished game (every bot built, started and admitted),
the seconds from a Ctrl-C (SIGINT) to the arena's exit, the games on disk
then, whether the interrupted run is marked for `--resume`, and how many of
the processes it had started were still alive a second after it exited.
Then the night is resumed and, at its first new game, the arena is killed
outright (SIGKILL): how many of the processes it had started were still
running a second later (the warden's work, `arena.bots.run.warden`). The
resident memory of the whole tree at the first game gives the cost of a bot,
and with the machine's available memory the largest field it holds.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.referee.clock.cputime import descendants
from bench import bot


def _bot_source() -> str:
    """The bench's bot (`bench.bot`) as a script of its own, playing as `arena.kit.run`
    plays, a process per session as a submitted bot does: a sandboxed bot sees its own
    folder, never the clone's `bench/`."""
    policy, _, _ = Path(bot.__file__).read_text().partition('\nif __name__ == "__main__":')
    return policy + "\n\nfrom arena.kit import run  # noqa: E402\n\nrun(act)\n"


_GAME_WAIT = 900.0
"""Seconds a field may take to reach its first game before the bench gives up on it."""
_STOP_WAIT = 300.0


@dataclass(frozen=True, slots=True)
class FieldFigures:
    bots: int
    first_game_s: float | None
    """From the command to its first finished game; None if it never came."""
    stop_s: float | None
    """From SIGINT to the arena's exit; None if it had not exited within `_STOP_WAIT`."""
    exit_code: int | None
    games_on_disk: int
    resumable: bool
    """The run is marked interrupted, so `arena run --resume` takes it up."""
    skipped: int
    """Bots that did not play (did not connect in time, say): none, in a healthy field."""
    started_processes: int
    alive_after_1s: int
    """Processes the arena had started that outlived it by more than a second."""
    killed_processes: int
    """Processes of the resumed night when its arena was killed outright (0: never resumed)."""
    killed_alive_after_1s: int
    """Of those, still running their own code a second after the SIGKILL."""
    killed_present_after_1s: int
    """Of those, not yet taken down by the kernel a second after (killed, but still there)."""
    mb_per_bot: float
    """The tree's proportional resident memory at the first game, per bot."""

    def line(self) -> str:
        first = "never" if self.first_game_s is None else f"{self.first_game_s:6.1f} s"
        stop = "no exit" if self.stop_s is None else f"{self.stop_s:5.1f} s"
        return (
            f"{self.bots:>4} bots: first game after {first}; Ctrl-C to exit {stop} "
            f"(exit {self.exit_code}); {self.games_on_disk} games on disk"
            f"{', resumable' if self.resumable else ', NOT resumable'}; "
            f"{self.skipped} bots skipped; "
            f"{self.alive_after_1s} of {self.started_processes} processes alive 1 s after; "
            f"SIGKILLed on resume: {self.killed_alive_after_1s} of {self.killed_processes} "
            f"alive 1 s after ({self.killed_present_after_1s} not yet taken down); "
            f"{self.mb_per_bot:.0f} MB per bot"
        )

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def available_mb() -> float:
    """MemAvailable, in MB: what the machine can give more processes without swapping."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return 0.0


def largest_field(per_bot_mb: float, headroom: float = 0.8) -> int:
    """Bots this machine holds at `per_bot_mb` each, keeping a fifth of its memory free."""
    return int(available_mb() * headroom / per_bot_mb) if per_bot_mb > 0 else 0


def measure_field(bots: int, root: Path, say: Callable[[str], None]) -> FieldFigures:
    folder = root / f"bots-{bots}"
    folder.mkdir(parents=True)
    source = _bot_source()
    for i in range(bots):
        (folder / f"b{i:04d}.py").write_text(source)
    out = root / f"out-{bots}"
    command = [
        *(sys.executable, "-m", "arena.cli.main", "run", "--bots", str(folder)),
        *("--out", str(out), "--name", "field", "--table-size", str(min(6, bots))),
        *("--games", str(max(60, bots * 2)), "--connect-timeout", "120"),
    ]
    games = out / "field" / "games.jsonl"
    began = time.monotonic()
    arena = _start(command, root / f"arena-{bots}.log")
    first = _wait(lambda: _lines(games) > 0, arena, _GAME_WAIT)
    first_s = None if first is None else first - began
    if first is None:
        say(f"{bots} bots: no game within {_GAME_WAIT:.0f} s: {_tail(root / f'arena-{bots}.log')}")
    tree = _tree(arena.pid)
    memory = sum(_pss_mb(pid) for pid in tree)
    say(f"{bots} bots: first game after {first_s} s; {len(tree)} processes, {memory:.0f} MB")
    asked = time.monotonic()
    arena.send_signal(signal.SIGINT)
    try:
        code: int | None = arena.wait(_STOP_WAIT)
        stop_s: float | None = time.monotonic() - asked
    except subprocess.TimeoutExpired:
        code, stop_s = None, None
        arena.kill()
        arena.wait()
    time.sleep(1.0)
    alive = _alive(tree)
    info = _info(out / "field" / "tournament.json")
    skipped = info.get("skipped")
    resumable = info.get("status") == "interrupted"
    played = _lines(games)
    killed = _Killed(0, 0, 0)
    if resumable:
        killed = _kill_resumed(out / "field", played, root, bots, say)
    return FieldFigures(
        bots=bots,
        first_game_s=first_s,
        stop_s=stop_s,
        exit_code=code,
        games_on_disk=played,
        resumable=resumable,
        skipped=len(skipped) if isinstance(skipped, list) else 0,
        started_processes=len(tree),
        alive_after_1s=alive,
        killed_processes=killed.processes,
        killed_alive_after_1s=killed.alive,
        killed_present_after_1s=killed.present,
        mb_per_bot=memory / bots,
    )


@dataclass(frozen=True, slots=True)
class _Killed:
    processes: int
    alive: int
    present: int


def _kill_resumed(
    night: Path, played: int, root: Path, bots: int, say: Callable[[str], None]
) -> _Killed:
    """Resume `night` and SIGKILL its arena at its first new game."""
    log = root / f"arena-{bots}-resumed.log"
    command = [sys.executable, "-m", "arena.cli.main", "run", "--resume", str(night)]
    arena = _start(command, log)
    if _wait(lambda: _lines(night / "games.jsonl") > played, arena, _GAME_WAIT) is None:
        say(f"{bots} bots: the resumed night played no game: {_tail(log)}")
        arena.kill()
        arena.wait()
        return _Killed(0, 0, 0)
    tree = _tree(arena.pid)
    arena.kill()
    arena.wait()
    time.sleep(1.0)
    alive = _alive(tree)
    present = sum(1 for pid in tree if _present(pid))
    # Not to be left for the next size: wait for the kernel to take every one of them down.
    end = time.monotonic() + _STOP_WAIT
    while _alive(tree) and time.monotonic() < end:
        time.sleep(0.1)
    return _Killed(len(tree), alive, present)


def _present(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in {"Z", "X"}


def _start(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )


def _tree(root: int) -> dict[int, int | None]:
    """Every process below `root`, with its start time to tell it from a later holder of its pid."""
    return {pid: _start_time(pid) for pid in descendants(root)[1:]}


def _alive(tree: dict[int, int | None]) -> int:
    return sum(1 for pid, began_at in tree.items() if _start_time(pid) == began_at)


def _tail(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines()
    return lines[-1] if lines else "(no output)"


def _wait(
    ready: Callable[[], bool], process: subprocess.Popen[bytes], limit: float
) -> float | None:
    end = time.monotonic() + limit
    while time.monotonic() < end and process.poll() is None:
        if ready():
            return time.monotonic()
        time.sleep(0.05)
    return None


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


_EXITING = 0x4
"""PF_EXITING in a process's flags: it has been killed and is being torn down by the
kernel (its namespaces, its mounts), running none of its own code."""
_SIGKILL_BIT = 1 << (signal.SIGKILL - 1)


def _killed(pid: int) -> bool:
    """A SIGKILL is pending: the process will run none of its own code again, though the
    kernel, busy taking down hundreds of others, has not yet begun on it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    for line in status.splitlines():
        if line.startswith(("SigPnd:", "ShdPnd:")) and int(line.split()[1], 16) & _SIGKILL_BIT:
            return True
    return False


def _start_time(pid: int) -> int | None:
    """The process's start time in ticks: a pid reused by another process has another.
    None for a process gone, killed, being torn down by the kernel, or dead and waiting only
    to be reaped (a zombie, which the machine's init may take its time over)."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] in {"Z", "X"} or int(fields[6]) & _EXITING or _killed(pid):
        return None
    return int(fields[19])


def _pss_mb(pid: int) -> float:
    """The process's proportional share of resident memory: the libraries that every bot
    maps are counted once in all, not once per bot as RSS would."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _info(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _lines(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text().splitlines() if line.strip())
    except OSError:
        return 0
