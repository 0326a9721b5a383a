"""Bot processes: start them limited, drain their output, stop them all.

Each bot runs in a process group of its own, so stopping it stops whatever it
started too. Its stdout and stderr are drained continuously into a log file
that stops growing at a cap (a pipe nobody reads would block the bot and
turn into timeouts).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.manifest import BotSpec, resolve_command


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    memory_mb: int = 8192
    """Address space, not memory in use: Node.js and Go reserve gigabytes they never touch."""
    cpu_s: int = 6 * 3600
    nproc: int = 512
    nofile: int = 1024
    log_bytes: int = 1024 * 1024


def bot_environment(extra: dict[str, str]) -> dict[str, str]:
    """The environment for builds and bots: this interpreter's folder first on PATH."""
    env = dict(os.environ)
    python_dir = str(Path(sys.executable).parent)
    env["PATH"] = python_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


async def _drain(stream: asyncio.StreamReader, log: Path, cap: int) -> None:
    written = dropped = 0
    with log.open("ab") as out:
        while chunk := await stream.read(65536):
            room = cap - written
            if room > 0:
                out.write(chunk[:room])
                out.flush()
                written += min(room, len(chunk))
            dropped += max(0, len(chunk) - max(room, 0))
        if dropped:
            out.write(f"\n[log capped at {cap} bytes: {dropped} more bytes dropped]\n".encode())


class BotProcess:
    """One running bot."""

    def __init__(
        self, spec: BotSpec, process: asyncio.subprocess.Process, drain: asyncio.Task[None]
    ) -> None:
        self.spec = spec
        self.process = process
        self._drain = drain

    @classmethod
    async def start(
        cls, spec: BotSpec, env: dict[str, str], log: Path, limits: ResourceLimits
    ) -> BotProcess:
        memory = spec.memory_mb or limits.memory_mb
        launcher = [
            sys.executable,
            "-m",
            "arena.launcher",
            f"--memory-mb={memory}",
            f"--cpu-s={limits.cpu_s}",
            f"--nproc={limits.nproc}",
            f"--nofile={limits.nofile}",
            "--",
        ]
        log.parent.mkdir(parents=True, exist_ok=True)
        process = await asyncio.create_subprocess_exec(
            *launcher,
            *resolve_command(spec.run),
            cwd=spec.workdir,
            env=bot_environment(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        assert process.stdout is not None
        drain = asyncio.ensure_future(_drain(process.stdout, log, limits.log_bytes))
        return cls(spec, process, drain)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not _is_zombie(self.process.pid)

    async def stop(self, grace: float = 3.0) -> int | None:
        """Wait up to `grace` for a clean exit, then end the whole process group."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), grace)
        if self.process.returncode is None:
            _signal_group(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 2.0)
        # The leader may be gone while its children live on: always sweep the group.
        _signal_group(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain, 2.0)
        return self.process.returncode


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _is_zombie(pid: int) -> bool:
    """Whether `pid` has exited but not been reaped; asyncio learns of exits a moment late."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in {"Z", "X"}


async def run_build(spec: BotSpec, env: dict[str, str], log: Path) -> str | None:
    """Run the bot's build command; None on success, else why it failed."""
    if spec.build is None:
        return None
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        try:
            process = await asyncio.create_subprocess_exec(
                *resolve_command(spec.build),
                cwd=spec.workdir,
                env=bot_environment(env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            return f"the build command cannot start: {error}"
        try:
            code = await asyncio.wait_for(process.wait(), spec.build_timeout)
        except TimeoutError:
            _signal_group(process.pid, signal.SIGKILL)
            await process.wait()
            return f"the build took longer than {spec.build_timeout:.0f} s"
    if code != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        return f"the build failed with exit code {code}: {tail[0][:200]}"
    return None
