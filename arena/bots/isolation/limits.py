"""The organiser's caps on each bot, how the bots are kept apart, and the arena's own files.

A bot's manifest may ask for less than these caps, never for more. Each bot
also costs the referee open files, so a field too large for this process's
limit is refused before any bot starts.
"""

from __future__ import annotations

import contextlib
import os
import resource
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.sandbox import CA_INSIDE, SOCKET_INSIDE, Sandbox
from arena.bots.manifest import BotSpec
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
    build_disk_floor_mb: int = 256
    """Free space a build must leave on each disk it writes (its folder's, its caches'):
    a build that takes a disk below it is stopped, before the results and the league,
    which often share that disk, have no room left."""

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
    tls_port: bool = False
    """The referee's TCP port speaks TLS (a league server's): local bots, sandboxed or
    not, dial the Unix socket, which sandboxed bots can reach and whose server
    clients name `localhost` (see `arena.league.local_tls`)."""
    ca_file: Path | None = None
    """The Unix socket speaks TLS too, and local bots trust this file (the CA that signed
    the server's certificate, or the certificate itself): bound into the sandbox."""
    strict: bool = False
    """Submitted bots, a stranger's (a league server's): the programs they require are
    found on the system PATH and the toolchain table's folders alone, and only those
    programs' declared folders are shown (`arena.bots.toolchains`). The organiser's own
    bots (`arena run`) are found on the arena's PATH, as the organiser's shell would."""

    def address(self, port: int) -> str:
        if self.socket is not None and self.sandbox.active:
            return f"unix:{SOCKET_INSIDE}"
        if self.socket is not None and self.tls_port:
            return f"unix:{self.socket}"
        return f"127.0.0.1:{port}"

    def tls_variables(self) -> dict[str, str]:
        """PERUDO_TLS and PERUDO_CA_FILE, as the guide has every bot read them, when the
        socket local bots dial speaks TLS; nothing when it does not."""
        if self.ca_file is None or self.socket is None:
            return {}
        seen = CA_INSIDE if self.sandbox.active else self.ca_file
        return {"PERUDO_TLS": "1", "PERUDO_CA_FILE": str(seen)}

    def describe(self, limits: ResourceLimits) -> list[str]:
        cgroups = self.cgroups.controllers if self.cgroups is not None else ()
        lines = [
            self.sandbox.describe(),
            self.sandbox.builds.describe(),
            limits.describe(cgroups, self.sandbox.active),
        ]
        if self.sandbox.active:
            lines.append(self.describe_programs())
        if self.tls_port and self.socket is not None:
            how = (
                "with TLS" if self.ca_file is not None else "in plaintext, which no network reaches"
            )
            lines.append(f"local bots dial the referee's Unix socket {how}")
        return lines

    def describe_programs(self) -> str:
        if self.strict:
            return (
                "programs bots require are found on the system PATH and the toolchain table's "
                "folders only; a bot sees only their declared folders"
            )
        return (
            "programs bots require are found on this machine's PATH, their install folders "
            "shown to the bot (local bots are the organiser's own)"
        )


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
