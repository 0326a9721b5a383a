"""Control groups for bot processes: a memory and a process cap the bot cannot shed.

Rlimits are per process (a bot that forks gets a fresh address space per
child) and RLIMIT_NPROC is not enforced for root at all; a cgroup counts the
whole tree. The arena makes one group per bot under its own group, and the
launcher moves itself in before it becomes the bot, so everything the bot
starts is inside:
- on cgroup v2, in the unified hierarchy, when the arena's own group has been
  given the `memory` and `pids` controllers (a delegated group, such as
  `systemd-run --user --scope -p Delegate=yes arena run ...` makes);
- otherwise in each cgroup v1 hierarchy it may write to (`memory`, `pids`).
Where neither is writable, the rlimits are all there is, and the arena says so
at start.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

_CONTROLLERS = ("memory", "pids")
_PREFIX = "perudo-arena-"


@dataclass(frozen=True, slots=True)
class CgroupRoot:
    """This arena's own groups: `<mount>/<our group>/perudo-arena-<pid>`, one per v1
    controller, or one in the unified (v2) hierarchy that holds both controllers."""

    folders: tuple[tuple[str, Path], ...]
    """(controller, folder) for each controller the arena may use."""
    unified: bool = False
    """True when every controller shares one v2 folder (its files are named the v2 way)."""

    @property
    def controllers(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.folders)

    @classmethod
    def find(cls, proc: Path = Path("/proc/self")) -> CgroupRoot | None:
        """A delegated v2 group if there is one, else the writable v1 hierarchies, each with
        a fresh folder for this arena; None if neither.

        `proc` is where this process's `cgroup` and `mounts` files are read: a test can
        point it at a tree of its own.
        """
        unified = _unified_root(proc)
        if unified is not None:
            return cls(tuple((controller, unified) for controller in _CONTROLLERS), True)
        folders = []
        for controller, base in _own_groups(proc):
            with contextlib.suppress(OSError):
                _sweep_stale(base)
                mine = base / f"{_PREFIX}{os.getpid()}"
                mine.mkdir(exist_ok=True)
                folders.append((controller, mine))
        return cls(tuple(folders)) if folders else None

    def group(self, name: str, memory_mb: int, nproc: int) -> BotGroup | None:
        """A group of its own for one process tree, limits set; None if it cannot be made."""
        made: list[Path] = []
        try:
            for controller, folder in self.folders[:1] if self.unified else self.folders:
                path = folder / f"{name}-{os.urandom(3).hex()}"
                path.mkdir()
                made.append(path)
                if self.unified:
                    (path / "memory.max").write_text(str(memory_mb * 1024 * 1024))
                    if (path / "memory.swap.max").exists():  # swap would stretch the cap
                        (path / "memory.swap.max").write_text("0")
                    (path / "pids.max").write_text(str(nproc))
                elif controller == "memory":
                    (path / "memory.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
                else:
                    (path / "pids.max").write_text(str(nproc))
        except OSError:
            BotGroup(tuple(made)).remove()
            return None
        return BotGroup(tuple(made))

    def remove(self) -> None:
        for folder in {folder for _, folder in self.folders}:
            _remove_tree(folder)


@dataclass(frozen=True, slots=True)
class BotGroup:
    """One bot's (or build's) groups, one per controller."""

    paths: tuple[Path, ...]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.paths:
            with contextlib.suppress(OSError, ValueError):
                found |= {int(p) for p in (path / "cgroup.procs").read_text().split()}
        return found

    def kill(self) -> None:
        """SIGKILL every process in the group, even those that left the bot's process group."""
        deadline = time.monotonic() + 2.0
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.rmdir()


def _unified_root(proc: Path) -> Path | None:
    """This arena's folder in the v2 hierarchy, its children able to hold memory and pids
    limits; None where the arena's group was not given both controllers.

    v2 lets a group hand controllers to its children only while no process sits in it
    ("no internal processes"), so the arena first moves itself into a leaf of its own
    group, then enables the controllers for that group's children and for its folder.
    """
    try:
        membership = (proc / "cgroup").read_text().splitlines()
        mounts = (proc / "mounts").read_text().splitlines()
    except OSError:
        return None
    mount = next(
        (
            Path(f[1])
            for f in (line.split() for line in mounts)
            if len(f) >= 3 and f[2] == "cgroup2"
        ),
        None,
    )
    path = next((line[3:] for line in membership if line.startswith("0::")), None)
    if mount is None or path is None:
        return None
    own = mount / path.lstrip("/")
    wanted = " ".join(f"+{c}" for c in _CONTROLLERS)
    try:
        if not set(_CONTROLLERS) <= set((own / "cgroup.controllers").read_text().split()):
            return None
        _sweep_stale(own)
        if not set(_CONTROLLERS) <= set((own / "cgroup.subtree_control").read_text().split()):
            leaf = own / f"{_PREFIX}{os.getpid()}-arena"
            leaf.mkdir(exist_ok=True)
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
            try:
                (own / "cgroup.subtree_control").write_text(wanted)
            except OSError:  # other processes share the group: leave it as it was
                (own / "cgroup.procs").write_text(str(os.getpid()))
                leaf.rmdir()
                return None
        mine = own / f"{_PREFIX}{os.getpid()}"
        mine.mkdir(exist_ok=True)
        (mine / "cgroup.subtree_control").write_text(wanted)
    except OSError:
        return None
    return mine


def _own_groups(proc: Path) -> list[tuple[str, Path]]:
    """(controller, the folder of our own group) for each v1 controller we use."""
    try:
        membership = (proc / "cgroup").read_text().splitlines()
        mounts = (proc / "mounts").read_text().splitlines()
    except OSError:
        return []
    where: dict[str, Path] = {}
    for line in mounts:
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in _CONTROLLERS:
                    where[option] = Path(fields[1])
    found = []
    for line in membership:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            if controller in where:
                found.append((controller, where[controller] / path.lstrip("/")))
    return found


def _sweep_stale(base: Path) -> None:
    """Remove the empty groups of arenas that died without cleaning up (SIGKILL)."""
    for folder in base.glob(f"{_PREFIX}*"):
        pid = folder.name.removeprefix(_PREFIX).removesuffix("-arena")
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            _remove_tree(folder)


def _remove_tree(folder: Path) -> None:
    """Groups are removed with rmdir, children first; a group still in use stays."""
    with contextlib.suppress(OSError):
        for child in folder.iterdir():
            if child.is_dir():
                _remove_tree(child)
        folder.rmdir()
