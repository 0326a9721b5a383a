"""Control groups for bot processes: a memory and a process cap the bot cannot shed.

Rlimits are per process (a bot that forks gets a fresh address space per
child) and RLIMIT_NPROC is not enforced for root at all; a cgroup counts the
whole tree. The arena makes one group per bot under its own group, in each
cgroup v1 hierarchy it may write to (`memory`, `pids`), and the launcher moves
itself in before it becomes the bot, so everything the bot starts is inside.
Where no hierarchy is writable (cgroup v2 without delegation, no permission),
the rlimits are all there is, and the arena says so at start.
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
    """This arena's own groups: `<mount>/<our group>/perudo-arena-<pid>` per controller."""

    folders: tuple[tuple[str, Path], ...]
    """(controller, folder) for each controller the arena may use."""

    @property
    def controllers(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.folders)

    @classmethod
    def find(cls) -> CgroupRoot | None:
        """The writable v1 hierarchies, each with a fresh folder for this arena; None if none."""
        folders = []
        for controller, base in _own_groups():
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
            for controller, folder in self.folders:
                path = folder / f"{name}-{os.urandom(3).hex()}"
                path.mkdir()
                made.append(path)
                if controller == "memory":
                    (path / "memory.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
                else:
                    (path / "pids.max").write_text(str(nproc))
        except OSError:
            BotGroup(tuple(made)).remove()
            return None
        return BotGroup(tuple(made))

    def remove(self) -> None:
        for _, folder in self.folders:
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


def _own_groups() -> list[tuple[str, Path]]:
    """(controller, the folder of our own group) for each v1 controller we use."""
    try:
        membership = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mounts").read_text().splitlines()
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
        pid = folder.name.removeprefix(_PREFIX)
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _remove_tree(folder)


def _remove_tree(folder: Path) -> None:
    """Groups are removed with rmdir, children first; a group still in use stays."""
    with contextlib.suppress(OSError):
        for child in folder.iterdir():
            if child.is_dir():
                _remove_tree(child)
        folder.rmdir()
