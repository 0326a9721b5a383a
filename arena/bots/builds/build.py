"""A bot's build: confined like the bot, limited in time, its whole tree ended with it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from arena.bots.builds import buildstamp
from arena.bots.builds.error_line import error_line
from arena.bots.builds.toolcache import build_tools
from arena.bots.isolation.cgroups import BotGroup
from arena.bots.isolation.environment import bot_environment
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.manifest import BotSpec, ManifestError, resolve_command
from arena.bots.run.logdrain import LogDrain
from arena.bots.run.spawn import bot_group, launch_command, signal_group
from arena.bots.run.warden import Warden

DROP_PACE = 16 * 1024 * 1024
"""Bytes a second of a build's output read past its log's cap, only to be dropped: a
build printing more is held up on its own pipe (see `arena.bots.run.logdrain`)."""


async def _end_tree(process: asyncio.subprocess.Process, group: BotGroup | None) -> None:
    """End whatever is left of a process tree: the launcher first, so that it sweeps the
    descendants that left the process group, then the group, then the cgroup."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await process.wait()
    signal_group(process.pid, signal.SIGKILL)
    if group is not None:
        group.kill()
    await process.wait()


DISK_LOOK = 0.2
"""Seconds between two looks at the free space of a build's disks: a build writing a
GB a second takes 200 MB past the floor at most, which the floor leaves room for."""


async def _disk_guard(paths: list[Path], floor_mb: int) -> str:
    """Why the build must stop, once a disk it writes has less than `floor_mb` free."""
    floor = floor_mb * 1024 * 1024
    while True:
        for path in paths:
            try:
                disk = os.statvfs(path)
            except OSError:
                continue  # a cache not made yet: its disk is looked at once it is
            if disk.f_bavail * disk.f_frsize < floor:
                return f"the disk of {path}, which it writes, has less than {floor_mb} MiB free"
        await asyncio.sleep(DISK_LOOK)


def _what_broke(log: Path, drain: LogDrain) -> str:
    """The line of a failed build's output that says what broke (`arena.bots.builds.error_line`),
    read from its log, which is capped; else the last line it wrote, kept or not."""
    try:
        kept = log.read_text(errors="replace").splitlines()
    except OSError:
        kept = []
    return error_line(kept) or drain.last_line()


async def run_build(
    spec: BotSpec,
    extra: dict[str, str],
    log: Path,
    limits: ResourceLimits | None = None,
    confinement: Confinement | None = None,
) -> str | None:
    """Run the bot's build command; None on success, else why it failed.

    A success is remembered (`arena.bots.builds.buildstamp`), so that callers can skip
    the next build of an unchanged bot.

    The build is confined like the bot (see `arena.bots.isolation.sandbox` for what differs),
    limited in time by the organiser's cap, and its whole process tree is
    killed when it ends, however it ends: a sleeper it leaves behind does not
    outlive it. Its output is drained into `log` capped as a bot's is
    (`arena.bots.run.logdrain`): a build may print gigabytes in its time.
    """
    if spec.build is None:
        return None
    buildstamp.forget(spec)
    limits = limits or ResourceLimits()
    confinement = confinement or Confinement()
    timeout = limits.build_time_for(spec)
    tools = await asyncio.to_thread(build_tools, confinement.sandbox.active)
    env = bot_environment({**tools.env, **extra}, confinement.sandbox.active, confinement.strict)
    group = bot_group(spec, limits, confinement)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"")  # this build's output alone, however often the night is resumed
    drain = LogDrain(log, limits.log_bytes, pace=DROP_PACE)
    try:
        try:
            process = await asyncio.create_subprocess_exec(
                *launch_command(
                    spec, resolve_command(spec.build), limits, confinement, group, tools
                ),
                cwd=spec.workdir,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            return f"the build command cannot start: {error}"
        Warden.watch(process.pid)
        assert process.stdout is not None
        draining = asyncio.ensure_future(drain.run(process.stdout))
        disks = [spec.path, *(cache for cache, _ in tools.writable)]
        waiting = asyncio.ensure_future(process.wait())
        guard = asyncio.ensure_future(_disk_guard(disks, limits.build_disk_floor_mb))
        try:
            await asyncio.wait({waiting, guard}, timeout=timeout, return_when="FIRST_COMPLETED")
            code = waiting.result() if waiting.done() else None
            full = guard.result() if guard.done() else None
        finally:
            guard.cancel()
            await _end_tree(process, group)
            await waiting  # done with the tree
            Warden.release(process.pid)
            # The tree is gone, so the pipe is closed; a writer that escaped it is not waited for.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await draining
    finally:
        if group is not None:
            group.remove()
    if full is not None and code != 0:
        return f"the build was stopped: {full}"
    if code is None:
        return f"the build took longer than {timeout:.0f} s"
    if code != 0:
        return f"the build failed with exit code {code}: {_what_broke(log, drain)}"
    try:
        # Hashing may read up to a GiB: not in the event loop, which other builds' drains share.
        await asyncio.to_thread(buildstamp.remember, spec)
    except ManifestError as error:
        return f"the build left a folder the arena will not use: {error}"
    return None
