"""What the sandbox costs, for `arena bench speed --sandbox`: speed and start-up, side by side.

The arena's own measurement (`bench.benchmark.arena_speed`) runs once with the
bots unsandboxed and once sandboxed; this module times the start of a
process that does nothing, with and without the sandbox, since a Python
bot's own start-up varies far more than bwrap's, and puts the figures together.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import Sandbox
from arena.bots.manifest import BotSpec
from arena.bots.run.processes import BotProcess
from bench.overhead import Overhead

_BOT = Path(__file__).with_name("bench_bot.py")


@dataclass(frozen=True, slots=True)
class ArenaSpeed:
    decisions_per_s: float
    startup_s: float
    """The median time from starting a bot's process to its first session."""
    overhead: Overhead
    """The referee's own time between a reply read and the next request written."""


async def spawn_times(logs: Path, sandbox: Sandbox, times: int = 15) -> tuple[float, float]:
    """Median times to start and end a process that does nothing: unsandboxed, sandboxed.

    What the sandbox costs a bot's start-up, apart from the bot's own start-up
    (a Python bot's imports take far longer, and vary more, than bwrap). The
    two alternate, so that load from elsewhere weighs on both alike.
    """
    cgroups = CgroupRoot.find()
    sides = (Confinement(Sandbox(None, "off"), cgroups), Confinement(sandbox, cgroups))
    spec = BotSpec(name="spawn", path=_BOT, workdir=_BOT.parent, run=("true",))
    took: tuple[list[float], list[float]] = ([], [])
    for _ in range(times):
        for side, confinement in enumerate(sides):
            started = time.monotonic()
            process = await BotProcess.start(
                spec, {}, logs / "spawn.log", ResourceLimits(), confinement
            )
            await process.stop()
            took[side].append(time.monotonic() - started)
    if cgroups is not None:
        cgroups.remove()
    return statistics.median(took[0]), statistics.median(took[1])


def sandbox_figures(arenas: list[ArenaSpeed], jailed: list[ArenaSpeed]) -> dict[str, float]:
    """The sandbox's cost, side by side: best speed of each, median start-up of each."""
    if not jailed:
        return {}
    free = max(a.decisions_per_s for a in arenas)
    boxed = max(a.decisions_per_s for a in jailed)
    free_start = statistics.median(a.startup_s for a in arenas) * 1000
    boxed_start = statistics.median(a.startup_s for a in jailed) * 1000
    return {
        "sandboxed_decisions_per_s": round(boxed, 1),
        "sandboxed_to_unsandboxed_ratio": round(boxed / free, 3),
        "startup_ms_per_bot": round(free_start, 1),
        "sandboxed_startup_ms_per_bot": round(boxed_start, 1),
    }
