"""The command line a bot or a build is spawned with, its cgroup, the signal to its group.

The launcher sets the limits and joins the cgroup, then runs bwrap (when
sandboxed), then the bot: a bot and its build go through the same steps.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

from arena.bots.builds.toolcache import BuildTools
from arena.bots.isolation.cgroups import BotGroup
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import Jail
from arena.bots.manifest import BotSpec


def _home(spec: BotSpec) -> Path:
    """What of the bot's files the sandbox shows: its folder, or a script alone."""
    return spec.path.resolve()


def launch_command(
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
        "arena.bots.run.launcher",
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
    network = confinement.sandbox.network
    if build is not None and network.slirp is not None:
        launcher.append(f"--slirp={network.slirp}")
    jail = Jail(
        home=_home(spec),
        workdir=spec.workdir.resolve(),
        scratch_mb=limits.scratch_mb if build is None else limits.build_scratch_mb,
        writable=build is not None,
        network=network.mode,
        socket=confinement.socket if build is None else None,
        ca_file=confinement.ca_file if build is None else None,
        programs=spec.programs,
        strict=confinement.strict,
        caches=build.writable if build is not None else (),
        readonly=build.readonly if build is not None else (),
    )
    return [*launcher, "--", *jail.command(bwrap, command)]


def bot_group(spec: BotSpec, limits: ResourceLimits, confinement: Confinement) -> BotGroup | None:
    if confinement.cgroups is None:
        return None
    return confinement.cgroups.group(spec.name, limits.memory_for(spec), limits.nproc)


def signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
