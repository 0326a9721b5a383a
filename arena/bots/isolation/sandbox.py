"""A bubblewrap sandbox for every local bot process, and for its build.

A bot runs as the organiser's own user; without a sandbox it could read the
seed of the dice, the other bots' files and environments, the league store,
and open any connection. Inside `bwrap` (the sandbox Flatpak uses) a bot sees:

- the system's runtime read-only (`/usr`, `/lib*`, `/bin`, a few files of
  `/etc` that programs need to start), the arena's Python (its interpreter,
  its virtualenv and the `arena` and `engine` packages, so Python bots import
  the kit) and the arena's wire contract `proto/`, all read-only; the folders
  of the programs its manifest `requires` that the toolchain table declares
  (`arena.bots.toolchains`: a JDK's home and `/etc/java-*`, say), found, for a
  submitted bot, on the system PATH and the table's folders alone;
- its own folder read-only (a single-script bot: that script alone);
- a private `/tmp` of capped size, also its `$HOME`: its only writable place;
- its own PID, IPC, UTS, user and network namespaces and no capabilities: it
  sees only its own processes, and has no network at all but the referee's
  Unix socket, bound at `/run/perudo/referee.sock`.

A build is sandboxed the same way, except that the bot's folder is writable,
the arena's own copies of the toolchains' caches (Go modules and build cache,
npm, cargo, Maven; see `arena.bots.builds.toolcache`) are bound writable so that a night neither
downloads nor compiles everything again, and it has a network: by default
one of its own that reaches the internet and not the host (see
`arena.bots.isolation.buildnet`), since `npm ci`, `go build` and `cargo build` fetch from
registries. It still cannot see the results folder, the league store, any
other bot, or the organiser's own caches and credentials.

Everything else is read-only: the sandbox's root, made by bwrap as a tmpfs
that would take whatever a bot wrote there (up to half the machine's memory),
is remounted read-only once every bind is in place, so `/tmp` (also seen as
`/var/tmp`), and a build's folder and caches, are all a bot or a build can write.

The environment is the launcher's, which the arena builds from an allow-list
(see `arena.bots.isolation.environment`); it is not passed with `--clearenv --setenv`, which
would put the bot's token on bwrap's command line, readable by every user of
the machine in /proc.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena.bots.isolation.buildnet import (
    AWAIT_NETWORK,
    INFO_FD,
    NO_NETWORK,
    RESOLV_FD,
    UNSANDBOXED,
    BuildNet,
    BuildNetwork,
)
from arena.bots.toolchains import folders
from arena.errors import ArenaError

SOCKET_INSIDE = Path("/run/perudo/referee.sock")
CA_INSIDE = Path("/run/perudo/ca.pem")
"""Where a sandboxed bot finds the certificate it trusts, a TLS league server's."""
_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
)
_BUILD_ETC = ("gai.conf", "host.conf")
_SYSTEM = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_INSTALL_HINT = "apt install bubblewrap"
_SLIRP_HINT = "apt install slirp4netns"


class SandboxMode(StrEnum):
    AUTO = "auto"
    """Sandbox where the machine allows it; otherwise say why not, and go on."""
    REQUIRE = "require"
    """Refuse to start bots that cannot be sandboxed."""
    OFF = "off"


class SandboxError(ArenaError):
    """`--sandbox require` on a machine where bubblewrap cannot run."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """The decision for this run: bwrap's path when bots are sandboxed, else why not."""

    bwrap: str | None
    why_not: str = ""
    network: BuildNet = NO_NETWORK
    """The network sandboxed builds get (`arena.bots.isolation.buildnet`); none unless decided."""

    @property
    def active(self) -> bool:
        return self.bwrap is not None

    @property
    def builds(self) -> BuildNet:
        """The network builds get: without the sandbox, the host's."""
        return self.network if self.active else UNSANDBOXED

    def describe(self) -> str:
        if self.active:
            return (
                "bots are sandboxed (bubblewrap: own PID, network, IPC, UTS, user and mount "
                "namespaces, no capabilities, only the referee's socket)"
            )
        return f"bots are NOT isolated: {self.why_not}"


def decide(mode: SandboxMode, network: BuildNetwork = BuildNetwork.ISOLATED) -> Sandbox:
    """Whether bots run sandboxed, and what network their builds get; raises
    `SandboxError` when the sandbox is required and impossible."""
    if mode is SandboxMode.OFF:
        return Sandbox(None, "--sandbox off")
    bwrap, why_not = _probe()
    if bwrap is None and mode is SandboxMode.REQUIRE:
        raise SandboxError(f"--sandbox require, but {why_not}")
    if bwrap is None:
        return Sandbox(None, why_not)
    return Sandbox(bwrap, why_not, decide_network(network, bwrap))


def decide_network(mode: BuildNetwork, bwrap: str) -> BuildNet:
    """The network sandboxed builds get. `isolated` where slirp4netns cannot attach is
    `off`, said with why, rather than a refusal or the host's network: the host stays
    out either way, and a build that needs to fetch fails with its own error."""
    if mode is not BuildNetwork.ISOLATED:
        return BuildNet(mode)
    slirp, why_not = _probe_slirp(bwrap)
    if slirp is None:
        return BuildNet(BuildNetwork.OFF, why=f"--build-network isolated, but {why_not}")
    return BuildNet(BuildNetwork.ISOLATED, slirp)


@functools.cache
def _probe() -> tuple[str | None, str]:
    """Run bwrap once as bots will be run, so that `auto` finds out before any bot starts."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, f"bwrap missing: {_INSTALL_HINT}"
    jail = Jail(home=Path("/usr"), workdir=Path("/"), scratch_mb=1)
    try:
        done = subprocess.run(
            jail.command(bwrap, ["/usr/bin/env", "true"]),
            capture_output=True,
            timeout=30,
            check=False,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"bwrap cannot run: {error}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        hint = ""
        if "uid map" in said[0] or "namespace" in said[0]:
            hint = (
                " (are unprivileged user namespaces off? sysctl kernel.unprivileged_userns_clone)"
            )
        return None, f"bwrap fails here: {said[0][:200]}{hint}"
    return bwrap, ""


@functools.cache
def _probe_slirp(bwrap: str) -> tuple[str | None, str]:
    """Attach slirp4netns once, through the launcher, as builds will be; so that a machine
    where it cannot (no /dev/net/tun, say) is found out before any build."""
    slirp = shutil.which("slirp4netns")
    if slirp is None:
        return None, f"slirp4netns missing: {_SLIRP_HINT}"
    jail = Jail(
        home=Path("/usr"),
        workdir=Path("/"),
        scratch_mb=1,
        writable=True,
        network=BuildNetwork.ISOLATED,
    )
    command = [sys.executable, "-m", "arena.bots.run.launcher", f"--slirp={slirp}", "--"]
    command += jail.command(bwrap, ["/usr/bin/env", "true"])
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=30, check=False, env={"PATH": "/usr/bin:/bin"}
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"slirp4netns cannot run: {error}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return None, f"slirp4netns fails here: {said[0][:200]}"
    return slirp, ""


@dataclass(frozen=True, slots=True)
class Jail:
    """What one sandboxed process may see."""

    home: Path
    """The bot's folder, or its script: bound at its own path."""
    workdir: Path
    scratch_mb: int
    writable: bool = False
    """A build: the bot's folder writable, and a network (`network`)."""
    network: BuildNetwork = BuildNetwork.OFF
    """A build's network; a bot has none. `isolated` needs the launcher's `--slirp`."""
    socket: Path | None = None
    """The referee's Unix socket on the host, bound at `SOCKET_INSIDE`."""
    ca_file: Path | None = None
    """The certificate a bot of a TLS league server trusts, bound read-only at `CA_INSIDE`."""
    programs: tuple[str, ...] = ()
    """Programs the bot requires: each one's folders are bound read-only when outside /usr,
    as its toolchain declares (`arena.bots.toolchains`)."""
    strict: bool = False
    """A submitted bot: its programs found on the system PATH and the toolchains' folders
    only, and nothing shown but the program's folder and its toolchain's declared ones;
    else (the organiser's own bots) as found on this process's PATH."""
    caches: tuple[tuple[Path, Path], ...] = ()
    """(folder, where it is seen): toolchain caches a build may write (Go, npm, cargo)."""
    readonly: tuple[Path, ...] = ()
    """More bound read-only for a build: rustup's toolchains, Go's settings file."""

    def command(self, bwrap: str, command: list[str]) -> list[str]:
        args = [
            bwrap,
            "--unshare-user",
            "--disable-userns",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "perudo-bot",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
        ]
        network = self.network if self.writable else BuildNetwork.OFF
        if network is not BuildNetwork.HOST:
            args.append("--unshare-net")
        if network is BuildNetwork.ISOLATED:  # the launcher's pipes: `arena.bots.isolation.slirp`
            args += ["--info-fd", str(INFO_FD)]
            command = ["/bin/sh", "-c", AWAIT_NETWORK, "sh", *command]
        args += ["--ro-bind", "/usr", "/usr"]
        for name in _SYSTEM:
            path = Path(name)
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), name]
            elif path.is_dir():
                args += ["--ro-bind", name, name]
        for name in (*_ETC, *(_BUILD_ETC if network is not BuildNetwork.OFF else ())):
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        if network is BuildNetwork.HOST:
            args += ["--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"]
        elif network is BuildNetwork.ISOLATED:  # the host's resolver is not reachable
            args += ["--ro-bind-data", str(RESOLV_FD), "/etc/resolv.conf"]
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
        args += ["--size", str(self.scratch_mb * 1024 * 1024), "--tmpfs", "/tmp"]
        args += ["--symlink", "/tmp", "/var/tmp"]  # the other scratch programs expect
        for cache, seen in self.caches:  # first: a toolchain's bin may be bound inside one
            args += ["--bind", str(cache), str(seen)]
        shown = [f for program in self.programs for f in folders(program, self.strict)]
        for path in _dedupe(_python_paths() + shown):
            args += ["--ro-bind", str(path), str(path)]
        args += ["--bind" if self.writable else "--ro-bind", str(self.home), str(self.home)]
        for path in self.readonly:
            args += ["--ro-bind", str(path), str(path)]
        if self.socket is not None:
            args += ["--ro-bind", str(self.socket), str(SOCKET_INSIDE)]
        if self.ca_file is not None:
            args += ["--ro-bind", str(self.ca_file), str(CA_INSIDE)]
        # Last, once every bind is in place: nothing but /tmp and the binds is writable.
        args += ["--remount-ro", "/", "--chdir", str(self.workdir), "--", *command]
        return args


def _python_paths() -> list[Path]:
    """The arena's interpreter, virtualenv, packages and wire contract, for Python bots."""
    paths = [Path(sys.base_prefix), Path(sys.prefix)]
    packages = [_package_folder(name) for name in ("arena", "engine")]
    paths.extend(packages)
    proto = packages[0].parent / "proto"
    if proto.is_dir():
        paths.append(proto)
    return [p for p in paths if p.exists() and not _under_usr(p)]


def _package_folder(name: str) -> Path:
    """Where an installed package lives, found without importing it (bots below the rest)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SandboxError(f"cannot find the {name!r} package to show it to Python bots")
    return Path(spec.origin).resolve().parent


def _under_usr(path: Path) -> bool:
    return path == Path("/usr") or Path("/usr") in path.parents


def _dedupe(paths: list[Path]) -> list[Path]:
    """Each folder once, and none inside another already bound (binds must not shadow)."""
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(k == path or k in path.parents for k in kept):
            kept.append(path)
    return kept
