"""One running bot: started limited and confined, its output drained, stopped with all it started.

Each bot runs in a process group of its own (and a cgroup of its own where
the machine allows), so stopping it stops whatever it started too. Its
stdout and stderr are drained continuously into a capped log
(`arena.bots.run.logdrain`), counted as they are written (`arena.bots.run.outpipe`),
and it gets an environment built from an allow-list, never the arena's own
(`arena.bots.isolation.environment`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from arena.bots.isolation.cgroups import BotGroup
from arena.bots.isolation.environment import bot_environment
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.manifest import BotSpec, resolve_command
from arena.bots.run.logdrain import LogDrain
from arena.bots.run.outpipe import OutputCount, start_counted
from arena.bots.run.spawn import bot_group, launch_command, signal_group
from arena.bots.run.warden import Warden

REAPED_S = 10.0
"""The longest wait for a process seen to have exited to be reaped: generous, as a busy
machine is slow to run the loop's child watcher."""


class BotProcess:
    """One running bot."""

    def __init__(
        self,
        spec: BotSpec,
        process: asyncio.subprocess.Process,
        drain: asyncio.Task[None],
        group: BotGroup | None = None,
        sandboxed: bool = False,
        log: LogDrain | None = None,
        written: OutputCount | None = None,
    ) -> None:
        self.spec = spec
        self.process = process
        self._drain = drain
        self._log = log
        self._written = written
        self._group = group
        self._sandboxed = sandboxed

    @classmethod
    async def start(
        cls,
        spec: BotSpec,
        env: dict[str, str],
        log: Path,
        limits: ResourceLimits,
        confinement: Confinement | None = None,
    ) -> BotProcess:
        confinement = confinement or Confinement()
        group = bot_group(spec, limits, confinement)
        log.parent.mkdir(parents=True, exist_ok=True)
        try:
            process, written = await start_counted(
                *launch_command(spec, resolve_command(spec.run), limits, confinement, group, None),
                cwd=spec.workdir,
                env=bot_environment(env, confinement.sandbox.active, confinement.strict),
                stdin=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError:
            if group is not None:
                group.remove()
            raise
        Warden.watch(process.pid)
        assert process.stdout is not None
        keeper = LogDrain(log, limits.log_bytes)
        keeper.open()  # its offsets are known from the start
        drain = asyncio.ensure_future(keeper.run(process.stdout))
        return cls(spec, process, drain, group, confinement.sandbox.active, keeper, written)

    def log_offset(self) -> int | None:
        """Where the bot's log ends once all it has written so far is in: exact now, however
        far behind the drain is. None if its log is not being kept."""
        if self._log is None or self._written is None:
            return None
        return self._log.offset(self._written.sent())

    @property
    def log(self) -> Path | None:
        """Where its output is kept, if it is."""
        return None if self._log is None else self._log.log

    @property
    def output_lost(self) -> str | None:
        """Why some of the bot's output is not in its log (it could not be written), if so."""
        return None if self._log is None else self._log.lost

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not _is_zombie(self.process.pid)

    async def exit_status(self) -> int | None:
        """The exit status of a process seen to have exited (`alive` is False). A zombie is
        seen before asyncio has reaped it, which a busy machine may take a while to do: the
        status is waited for, up to `REAPED_S`, so that the fault can name it."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(REAPED_S):
                await self.process.wait()
        return self.process.returncode

    async def stop(self, grace: float = 3.0) -> int | None:
        """Wait up to `grace` for a clean exit, then end the whole process group."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await self.process.wait()
        if self.process.returncode is None:
            self._terminate()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await self.process.wait()
        # The leader may be gone while its children live on: always sweep the group.
        signal_group(self.process.pid, signal.SIGKILL)
        if self._group is not None:
            self._group.kill()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await self.process.wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await self._drain
        if self._group is not None:
            self._group.remove()
        if self.process.returncode is not None:
            Warden.release(self.process.pid)
        return self.process.returncode

    def end_now(self) -> None:
        """SIGKILL the bot's whole tree at once, with no exit of its own: a bot's interpreter
        takes a tenth of a second of CPU to exit, and hundreds of them exiting together took
        the referee's CPU for tens of seconds. `stop` then only reaps what is left."""
        signal_group(self.process.pid, signal.SIGKILL)
        if self._group is not None:
            for pid in self._group.pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def _terminate(self) -> None:
        """SIGTERM, so that the bot may end cleanly.

        bwrap passes no signal on, and ends its sandbox at once when it gets
        one; so a sandboxed bot's processes are told through its cgroup,
        leaving out bwrap and the sandbox's init (bwrap's child).
        """
        if not (self._sandboxed and self._group is not None):
            signal_group(self.process.pid, signal.SIGTERM)
            return
        bwrap = self.process.pid
        for pid in self._group.pids() - {bwrap}:
            if _parent(pid) != bwrap:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)


def _parent(pid: int) -> int | None:
    try:
        return int(_read(f"/proc/{pid}/stat").rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _read(path: str) -> str:
    """A file of /proc, read through a plain string, not a `Path`, which interns each part
    for good: a server that starts bots all day would keep every pid it ever asked after."""
    with open(path) as file:
        return file.read()


def _is_zombie(pid: int) -> bool:
    """Whether `pid` has exited but not been reaped; asyncio learns of exits a moment late."""
    try:
        stat = _read(f"/proc/{pid}/stat")
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in {"Z", "X"}
