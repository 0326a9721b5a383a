"""Control groups on a cgroup v2 machine, read from a tree laid out as the kernel lays it.

This machine's own groups are v1 (test_processes.py runs bots in them); here the v2
path is taken through a tree of the same files, so what the arena writes where is
checked even where the kernel offers no delegated v2 group.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.bots.isolation.cgroups import CgroupRoot


def _machine(tmp_path: Path, controllers: str, subtree: str = "") -> tuple[Path, Path]:
    """A /proc/self and a v2 mount in which this process sits in a group of its own."""
    proc, mount = tmp_path / "proc", tmp_path / "cgroup"
    own = mount / "user.slice" / "arena.scope"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text(controllers + "\n")
    (own / "cgroup.subtree_control").write_text(subtree + "\n")
    (own / "cgroup.procs").write_text(f"{os.getpid()}\n")
    proc.mkdir()
    (proc / "cgroup").write_text("0::/user.slice/arena.scope\n")
    (proc / "mounts").write_text(f"cgroup2 {mount} cgroup2 rw,nosuid,nodev,noexec 0 0\n")
    return proc, own


def test_a_delegated_v2_group_holds_each_bots_memory_and_process_caps(tmp_path: Path) -> None:
    proc, own = _machine(tmp_path, "cpu memory pids")
    root = CgroupRoot.find(proc)
    assert root is not None and root.unified
    assert set(root.controllers) == {"memory", "pids"}
    # The arena left its group for a leaf, so the group may hand controllers down.
    leaf = own / f"perudo-arena-{os.getpid()}-arena"
    assert (leaf / "cgroup.procs").read_text() == str(os.getpid())
    assert (own / "cgroup.subtree_control").read_text() == "+memory +pids"
    mine = own / f"perudo-arena-{os.getpid()}"
    assert (mine / "cgroup.subtree_control").read_text() == "+memory +pids"
    group = root.group("bob", memory_mb=256, nproc=64)
    assert group is not None and len(group.paths) == 1
    [path] = group.paths
    assert path.parent == mine and path.name.startswith("bob-")
    assert (path / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (path / "pids.max").read_text() == "64"
    assert not (path / "memory.limit_in_bytes").exists()


def test_a_group_already_handing_down_its_controllers_is_used_as_it_is(tmp_path: Path) -> None:
    proc, own = _machine(tmp_path, "memory pids", subtree="memory pids")
    root = CgroupRoot.find(proc)
    assert root is not None and root.unified
    assert not (own / f"perudo-arena-{os.getpid()}-arena").exists()
    assert (own / "cgroup.subtree_control").read_text() == "memory pids\n"


def test_a_v2_group_without_both_controllers_is_not_used(tmp_path: Path) -> None:
    proc, own = _machine(tmp_path, "cpu memory")  # no pids: not delegated for us
    assert CgroupRoot.find(proc) is None
    assert [p.name for p in own.iterdir() if p.is_dir()] == []


def test_no_cgroup_files_means_no_groups(tmp_path: Path) -> None:
    assert CgroupRoot.find(tmp_path / "nowhere") is None
