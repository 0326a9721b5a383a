"""Bot processes: start them limited and confined, drain their output, stop them all.

Each bot runs in a process group of its own (and a cgroup of its own where
the machine allows), so stopping it stops whatever it started too. Its
stdout and stderr are drained continuously into a log file that stops
growing at a cap (a pipe nobody reads would block the bot and turn into
timeouts). It gets an environment built from an allow-list, never the
arena's own: the organiser's variables may hold secrets.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.cgroups import BotGroup, CgroupRoot
from arena.bots.manifest import BotSpec, resolve_command
from arena.bots.sandbox import SOCKET_INSIDE, Jail, Sandbox
from arena.bots.toolcache import BuildTools, build_tools
from arena.errors import ArenaError


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """The organiser's caps; a bot's manifest may ask for less, never for more."""

    memory_mb: int = 8192
    """Address space (and, in a cgroup, memory in use): Node.js and Go reserve gigabytes."""
    cpu_s: int = 6 * 3600
    nproc: int = 512
    nofile: int = 1024
    log_bytes: int = 1024 * 1024
    scratch_mb: int = 64
    """The bot's writable /tmp in the sandbox; without it, the largest file it may write."""
    build_timeout: float = 900.0
    build_scratch_mb: int = 1024

    def memory_for(self, spec: BotSpec) -> int:
        return min(spec.memory_mb or self.memory_mb, self.memory_mb)

    def build_time_for(self, spec: BotSpec) -> float:
        return min(spec.build_timeout, self.build_timeout)

    def describe(self, cgroups: tuple[str, ...], sandboxed: bool) -> str:
        memory = "cgroup and address space" if "memory" in cgroups else "address space only"
        rlimit = (
            "RLIMIT_NPROC, not enforced for root"
            if os.geteuid() == 0
            else "RLIMIT_NPROC, over all of this user's processes"
        )
        procs = "cgroup" if "pids" in cgroups else rlimit
        disk = (
            f"scratch /tmp {self.scratch_mb} MiB"
            if sandboxed
            else f"files up to {self.scratch_mb} MiB each, anywhere it may write"
        )
        return (
            f"limits per bot: memory {self.memory_mb} MiB ({memory}), "
            f"processes {self.nproc} ({procs}), CPU {self.cpu_s} s, "
            f"open files {self.nofile}, {disk}"
        )


@dataclass(frozen=True, slots=True)
class Confinement:
    """How this run keeps its bot processes apart: the sandbox, the cgroups, the socket."""

    sandbox: Sandbox = field(default_factory=lambda: Sandbox(None, "--sandbox off"))
    cgroups: CgroupRoot | None = None
    socket: Path | None = None
    """The referee's Unix socket on the host, which sandboxed bots dial."""

    def address(self, port: int) -> str:
        if self.sandbox.active and self.socket is not None:
            return f"unix:{SOCKET_INSIDE}"
        return f"127.0.0.1:{port}"

    def describe(self, limits: ResourceLimits) -> list[str]:
        cgroups = self.cgroups.controllers if self.cgroups is not None else ()
        return [self.sandbox.describe(), limits.describe(cgroups, self.sandbox.active)]


DESCRIPTOR_HEADROOM = 128
"""Files the referee keeps for itself: the league store, replays, logs, grpc's own."""


class DescriptorError(ArenaError):
    """The planned bots need more open files than the arena may have."""


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to the hard one; return it.

    Each bot costs the referee a pipe, a log, a child watcher and a socket per
    session: the usual soft limit of 1,024 is reached at a few hundred bots.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def check_descriptors(bots: list[BotSpec], jobs: int) -> None:
    """Refuse, before any bot starts, a field that would run the referee out of files."""
    need = DESCRIPTOR_HEADROOM + sum(3 + min(b.sessions or jobs, jobs) for b in bots)
    have = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if need > have:
        raise DescriptorError(
            f"{len(bots)} bots at up to {jobs} sessions each need about {need} open files, "
            f"but this process may have {have}: raise the limit (ulimit -n {need}, "
            "as root or in limits.conf) or run fewer bots or a lower --jobs"
        )


def arena_variables(address: str, name: str, token: str, sessions: int) -> dict[str, str]:
    """What the arena tells every bot it starts (the guide's contract): where to dial,
    who it is, its token and how many sessions to open."""
    return {
        "PERUDO_ADDRESS": address,
        "PERUDO_BOT_NAME": name,
        "PERUDO_TOKEN": token,
        "PERUDO_SESSIONS": str(sessions),
    }


def last_line(log: Path, width: int = 200) -> str:
    """The last thing a bot wrote to its log, cut to `width`: why it failed, more often than not."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return lines[-1][:width] if lines else "(no output)"


def bot_environment(extra: dict[str, str], sandboxed: bool) -> dict[str, str]:
    """The environment of a bot: what the guide lists, and nothing of the arena's own."""
    python_dir = str(Path(sys.executable).parent)
    env = {
        "PATH": python_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp" if sandboxed else os.environ.get("HOME", "/tmp"),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env


class _LogDrain:
    """Copies a bot's output into its capped log, and never lets the log stop the bot.

    A bot whose pipe is not read blocks on its next write: so when the log
    cannot be written (a full disk under --out), the drain goes on reading
    and discards, and says once what was lost (`lost`), in the log if it can.
    """

    def __init__(self, log: Path, cap: int) -> None:
        self.log = log
        self.cap = cap
        self.lost: str | None = None

    async def run(self, stream: asyncio.StreamReader) -> None:
        written = dropped = 0
        try:
            out = self.log.open("ab")
        except OSError as error:
            self._give_up(error, 0)
            await self._discard(stream)
            return
        with contextlib.suppress(OSError), out:  # closing may flush into a full disk
            while chunk := await stream.read(65536):
                room = self.cap - written
                if room > 0:
                    try:
                        out.write(chunk[:room])
                        out.flush()
                    except OSError as error:
                        self._give_up(error, os.fstat(out.fileno()).st_size)
                        await self._discard(stream)
                        return
                    written += min(room, len(chunk))
                dropped += max(0, len(chunk) - max(room, 0))
            if dropped:
                out.write(
                    f"\n[log capped at {self.cap} bytes: {dropped} more bytes dropped]\n".encode()
                )

    def _give_up(self, error: OSError, kept: int) -> None:
        self.lost = (
            f"its output after {kept} bytes was not kept in {self.log} "
            f"({error.strerror or error}): the rest was discarded"
        )
        with contextlib.suppress(OSError), self.log.open("ab") as out:
            out.write(f"\n[{self.lost}]\n".encode())

    @staticmethod
    async def _discard(stream: asyncio.StreamReader) -> None:
        while await stream.read(65536):
            pass


def _home(spec: BotSpec) -> Path:
    """What of the bot's files the sandbox shows: its folder, or a script alone."""
    return spec.path.resolve()


def _launch(
    spec: BotSpec,
    command: list[str],
    limits: ResourceLimits,
    confinement: Confinement,
    group: BotGroup | None,
    build: BuildTools | None,
) -> list[str]:
    """The launcher's command line, then bwrap's (when sandboxed), then the bot's."""
    launcher = [
        sys.executable,
        "-m",
        "arena.bots.launcher",
        f"--memory-mb={limits.memory_for(spec)}",
        f"--cpu-s={limits.cpu_s}",
        f"--nproc={limits.nproc}",
        f"--nofile={limits.nofile}",
    ]
    if build is None:
        launcher.append(f"--fsize-mb={limits.scratch_mb}")
    for path in group.paths if group is not None else ():
        launcher.append(f"--cgroup={path}")
    bwrap = confinement.sandbox.bwrap
    if bwrap is None:
        return [*launcher, "--supervise", "--", *command]
    jail = Jail(
        home=_home(spec),
        workdir=spec.workdir.resolve(),
        scratch_mb=limits.scratch_mb if build is None else limits.build_scratch_mb,
        writable=build is not None,
        socket=confinement.socket if build is None else None,
        programs=spec.requires,
        caches=build.writable if build is not None else (),
        readonly=build.readonly if build is not None else (),
    )
    return [*launcher, "--", *jail.command(bwrap, command)]


class BotProcess:
    """One running bot."""

    def __init__(
        self,
        spec: BotSpec,
        process: asyncio.subprocess.Process,
        drain: asyncio.Task[None],
        group: BotGroup | None = None,
        sandboxed: bool = False,
        log: _LogDrain | None = None,
    ) -> None:
        self.spec = spec
        self.process = process
        self._drain = drain
        self._log = log
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
        group = _group(spec, limits, confinement)
        log.parent.mkdir(parents=True, exist_ok=True)
        try:
            process = await asyncio.create_subprocess_exec(
                *_launch(spec, resolve_command(spec.run), limits, confinement, group, None),
                cwd=spec.workdir,
                env=bot_environment(env, confinement.sandbox.active),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError:
            if group is not None:
                group.remove()
            raise
        assert process.stdout is not None
        keeper = _LogDrain(log, limits.log_bytes)
        drain = asyncio.ensure_future(keeper.run(process.stdout))
        return cls(spec, process, drain, group, confinement.sandbox.active, keeper)

    @property
    def output_lost(self) -> str | None:
        """Why some of the bot's output is not in its log (it could not be written), if so."""
        return None if self._log is None else self._log.lost

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not _is_zombie(self.process.pid)

    async def stop(self, grace: float = 3.0) -> int | None:
        """Wait up to `grace` for a clean exit, then end the whole process group."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), grace)
        if self.process.returncode is None:
            self._terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 2.0)
        # The leader may be gone while its children live on: always sweep the group.
        _signal_group(self.process.pid, signal.SIGKILL)
        if self._group is not None:
            self._group.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain, 2.0)
        if self._group is not None:
            self._group.remove()
        return self.process.returncode

    def _terminate(self) -> None:
        """SIGTERM, so that the bot may end cleanly.

        bwrap passes no signal on, and ends its sandbox at once when it gets
        one; so a sandboxed bot's processes are told through its cgroup,
        leaving out bwrap and the sandbox's init (bwrap's child).
        """
        if not (self._sandboxed and self._group is not None):
            _signal_group(self.process.pid, signal.SIGTERM)
            return
        bwrap = self.process.pid
        for pid in self._group.pids() - {bwrap}:
            if _parent(pid) != bwrap:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _group(spec: BotSpec, limits: ResourceLimits, confinement: Confinement) -> BotGroup | None:
    if confinement.cgroups is None:
        return None
    return confinement.cgroups.group(spec.name, limits.memory_for(spec), limits.nproc)


async def _end_tree(process: asyncio.subprocess.Process, group: BotGroup | None) -> None:
    """End whatever is left of a process tree: the launcher first, so that it sweeps the
    descendants that left the process group, then the group, then the cgroup."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 2.0)
    _signal_group(process.pid, signal.SIGKILL)
    if group is not None:
        group.kill()
    await process.wait()


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


async def run_build(
    spec: BotSpec,
    extra: dict[str, str],
    log: Path,
    limits: ResourceLimits | None = None,
    confinement: Confinement | None = None,
) -> str | None:
    """Run the bot's build command; None on success, else why it failed.

    The build is confined like the bot (see `arena.bots.sandbox` for what differs),
    limited in time by the organiser's cap, and its whole process tree is
    killed when it ends, however it ends: a sleeper it leaves behind does not
    outlive it.
    """
    if spec.build is None:
        return None
    limits = limits or ResourceLimits()
    confinement = confinement or Confinement()
    timeout = limits.build_time_for(spec)
    tools = await asyncio.to_thread(build_tools, confinement.sandbox.active)
    env = bot_environment({**tools.env, **extra}, confinement.sandbox.active)
    group = _group(spec, limits, confinement)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        with log.open("wb") as out:
            try:
                process = await asyncio.create_subprocess_exec(
                    *_launch(spec, resolve_command(spec.build), limits, confinement, group, tools),
                    cwd=spec.workdir,
                    env=env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=out,
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as error:
                return f"the build command cannot start: {error}"
            try:
                code = await asyncio.wait_for(process.wait(), timeout)
            except TimeoutError:
                code = None
            finally:
                await _end_tree(process, group)
    finally:
        if group is not None:
            group.remove()
    if code is None:
        return f"the build took longer than {timeout:.0f} s"
    if code != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        return f"the build failed with exit code {code}: {tail[0][:200]}"
    return None
