"""Builds and checks, a few at a time, each in a worker process of its own.

At most `builds_at_once` workers run at once, from all authors (a semaphore);
a submission that waits for a slot is told so. The worker
(`arena.submissions.worker`) says what it does in JSON lines, passed on here
as they come; this process only reads them, so the league server's event
loop, which plays the games in flight, does no building or checking of its
own. A worker that is cancelled (the server stopping) is killed with its whole
tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.limits import ResourceLimits
from arena.checkbot.verdict import Check
from arena.submissions.report import End, Event, Line, decode

READ_LIMIT = 1024 * 1024
"""The longest line read from a worker (its lines are cut far shorter)."""
SCRATCH = "perudo-submit-"
"""The start of a worker's scratch folder's name, then the server's process id."""


def sweep_scratch() -> None:
    """Remove the scratch folders of servers that died without cleaning up (SIGKILL)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH}*"):
        pid = folder.name.removeprefix(SCRATCH).partition("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class BuildSettings:
    """What the organiser gives each submission's build and check."""

    limits: ResourceLimits = field(default_factory=ResourceLimits)
    network: BuildNetwork = BuildNetwork.ISOLATED
    move_time: float = 1.0
    connect_timeout: float = 20.0


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    failure: str
    checks: tuple[Check, ...]


class Pipeline:
    def __init__(self, settings: BuildSettings, builds_at_once: int) -> None:
        self.settings = settings
        self._slots = asyncio.Semaphore(builds_at_once)
        self._waiting = 0

    async def run(self, bot: Path, logs: Path, tell: Callable[[Event], None]) -> Outcome:
        """Build and check the bot at `bot` (its logs into `logs`), each event told as it
        comes."""
        if self._slots.locked():
            tell(Line("note", f"waiting for a build slot ({self._waiting + 1} waiting)"))
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        # The worker's temporary files: in the system's, since the check's Unix socket is made
        # there and a socket's path may be no longer than 107 bytes.
        scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-"))
        try:
            return await self._work(bot, logs, scratch, tell)
        finally:
            self._slots.release()
            shutil.rmtree(scratch, ignore_errors=True)

    async def _work(
        self, bot: Path, logs: Path, scratch: Path, tell: Callable[[Event], None]
    ) -> Outcome:
        s = self.settings
        errors = scratch / "worker.err"
        with errors.open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "arena.submissions.worker",
                f"--bot={bot}",
                f"--build-log={logs / 'build.log'}",
                f"--check-log={logs / 'check.log'}",
                f"--parent={os.getpid()}",
                f"--memory-mb={s.limits.memory_mb}",
                f"--cpu-s={s.limits.cpu_s}",
                f"--build-timeout={s.limits.build_timeout}",
                f"--build-network={s.network.value}",
                f"--move-time={s.move_time}",
                f"--connect-timeout={s.connect_timeout}",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                env={**os.environ, "TMPDIR": str(scratch)},
                start_new_session=True,
                limit=READ_LIMIT,
            )
        checks: list[Check] = []
        end: End | None = None
        try:
            assert process.stdout is not None
            while line := await process.stdout.readline():
                event = decode(line)
                if isinstance(event, End):
                    end = event
                    continue
                if isinstance(event, Check):
                    checks.append(event)
                if event is not None:
                    tell(event)
            await process.wait()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # however it ended: nothing left behind
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if end is None:
            said = errors.read_text(errors="replace").strip().splitlines()
            why = said[-1] if said else f"it exited with code {process.returncode}"
            return Outcome(False, f"the build and check could not run: {why}", tuple(checks))
        return Outcome(end.passed, end.failure, tuple(checks))
