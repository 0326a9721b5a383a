"""How many games this machine can run at once, fairly.

Each game in flight keeps one bot process thinking at a time (the seats take
turns), and the referee needs its share too. With more games than cores,
bots wait for a core while their clock runs, and the timeouts that follow are
the machine's, not the bots'. So `--jobs` defaults to the cores this process
may use (its CPU affinity, and a cgroup CPU quota where there is one) and a
larger number is refused unless the organiser insists (`--force-jobs`), as
fastchess caps its concurrency at the hardware threads.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from arena.errors import ArenaError

CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


class JobsError(ArenaError, ValueError):
    """More games at once than the machine can run fairly."""


def usable_cores() -> int:
    """Cores this process may run on: its affinity, capped by a cgroup v2 CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    try:
        quota, period = CPU_MAX.read_text().split()[:2]
        if quota != "max":
            cores = min(cores, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        pass
    return max(1, cores)


def default_jobs() -> int:
    """One game per usable core: one bot thinking per core."""
    return usable_cores()


def check_jobs(jobs: int, force: bool = False) -> None:
    """Raise `JobsError` if `jobs` games at once is more than the machine runs fairly."""
    cores = usable_cores()
    if jobs > cores and not force:
        raise JobsError(
            f"--jobs {jobs} is more games at once than this machine's {cores} usable "
            f"core{'s' if cores != 1 else ''} can run fairly (each game in flight keeps a bot "
            f"thinking, and bots waiting for a core time out); use --jobs {cores} or fewer, "
            "or add --force-jobs to run it anyway"
        )
