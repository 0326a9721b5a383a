"""Fixtures for the arena tests; the referee helpers live in referee_harness.py, the
PostgreSQL server's in postgres_harness.py, the finished night the league's truth is checked
against in truth_harness.py."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from postgres_harness import postgres_server, postgres_url  # noqa: F401 (fixtures)
from referee_harness import Arena
from truth_harness import night  # noqa: F401 (a fixture)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Arena]:
    a = Arena(tmp_path)
    try:
        yield a
    finally:
        a.kill_all()


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mount a real tmpfs of the size asked (say "64k") for a full-disk test, or skip
    where mounting is not allowed; every one made is unmounted afterwards."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        disk = tmp_path / f"disk{len(mounted)}"
        disk.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
        mounted.append(disk)
        return disk

    yield mount
    for disk in mounted:
        subprocess.run(["umount", "-l", str(disk)], check=False)
