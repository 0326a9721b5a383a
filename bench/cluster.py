"""`arena bench cluster`: games/s on one host and on two, side by side, on this machine.

Both trials play the same tournament of instant bots (`bench.bot`, so the
referees are the bottleneck) on a Ray cluster of this one machine, started here
on a loopback address and stopped at the end. The rate counts from the first
game's end to the last's, so building and starting the bots is left out. Also
measured: decisions per second per core of the machine (all hosts together,
divided by its cores) and the resident memory of each bot process.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.cluster.connect import ray_module
from arena.cluster.hosts import ClusterOptions, RayHosts
from arena.records import GameLine
from arena.tournament.config import TournamentConfig
from arena.tournament.play.observer import Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Tournament
from bench import bot as instant_bot

BENCH_NODE = "127.0.0.2"
"""The bench's own one-node cluster listens here: loopback, and not 127.0.0.1, which Ray
replaces with the machine's outward address."""


@dataclass(frozen=True, slots=True)
class Trial:
    hosts: int
    games: int
    games_per_s: float
    decisions_per_s: float
    restarts: int
    bot_rss: tuple[int, ...]
    """Resident bytes of each bot process (with all it started), over every host."""


@dataclass(frozen=True, slots=True)
class ClusterBench:
    trials: tuple[Trial, ...]
    cores: int

    @property
    def ratio(self) -> float:
        return self.trials[-1].games_per_s / self.trials[0].games_per_s

    def lines(self) -> list[str]:
        rows = [
            f"{t.hosts} host(s): {t.games_per_s:6.1f} games/s, {t.decisions_per_s:7.0f} "
            f"decisions/s ({t.decisions_per_s / self.cores:.0f} per core of {self.cores}), "
            f"{t.restarts} restarts in {t.games} games"
            for t in self.trials
        ]
        rss = [r for t in self.trials for r in t.bot_rss]
        mib = statistics.median(rss) / 2**20 if rss else 0.0
        return [
            *rows,
            f"{self.trials[-1].hosts} hosts / 1 host: {self.ratio:.2f}x games/s",
            f"memory per bot process (resident, median of {len(rss)}): {mib:.1f} MiB",
        ]

    def to_json(self) -> dict[str, object]:
        return {
            "cores": self.cores,
            "ratio": self.ratio,
            "trials": [
                {
                    "hosts": t.hosts,
                    "games": t.games,
                    "games_per_s": t.games_per_s,
                    "decisions_per_s": t.decisions_per_s,
                    "decisions_per_s_per_core": t.decisions_per_s / self.cores,
                    "restarts": t.restarts,
                    "bot_rss_bytes": list(t.bot_rss),
                }
                for t in self.trials
            ],
        }


class _Clock:
    """An observer that keeps when each game ended and its decisions."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.ends: list[tuple[float, int]] = []

    def note(self, text: str) -> None:
        if text.startswith("cluster:"):
            self.say(text)

    def building(self, name: str, running: bool) -> None:
        """The bench's bots are scripts: nothing is built."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """Counted from the first game's end instead, past the start-ups."""

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.ends.append((time.monotonic(), line.decisions or 0))


async def _trial(
    root: Path, bots: Path, hosts: int, games: int, jobs: int, say: Callable[[str], None]
) -> Trial:
    config = TournamentConfig(
        bots_dir=bots,
        out=root / f"hosts-{hosts}",
        games=games,
        jobs=jobs,
        table_size=4,
        seed=bytes(32),
        name="bench",
    )
    clock = _Clock(say)
    cluster = RayHosts(ClusterOptions(BENCH_NODE, hosts=hosts), config, clock)
    memory: dict[str, dict[str, int]] = {}

    async def sample() -> None:
        while len(clock.ends) < games // 2:  # mid-run, every bot started
            await asyncio.sleep(0.2)
        memory.update(await cluster.bot_memory())

    sampler = asyncio.ensure_future(sample())
    try:
        await Tournament(config, clock, hosts=cluster).run()
    finally:
        sampler.cancel()
    (first, _), (last, _) = clock.ends[0], clock.ends[-1]
    spent = max(last - first, 1e-9)
    decisions = sum(d for _, d in clock.ends[1:])
    return Trial(
        hosts,
        len(clock.ends),
        (len(clock.ends) - 1) / spent,
        decisions / spent,
        cluster.report.restarts,
        tuple(r for per_host in memory.values() for r in per_host.values()),
    )


def run_cluster_bench(
    games: int, bots: int, jobs: int, root: Path, say: Callable[[str], None]
) -> ClusterBench:
    """One host, then two, on a Ray cluster of this machine started for the bench."""
    ray = ray_module()
    folder = root / "bots"
    folder.mkdir(parents=True)
    for i in range(bots):
        shutil.copy(instant_bot.__file__, folder / f"instant{i + 1}.py")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # A cluster of this process alone, on loopback: no token (Ray would write one into
    # ~/.ray for a new local cluster, and every later `ray start` here would expect it).
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    cores = os.cpu_count() or 1
    trials = []
    for hosts in (1, 2):
        ray.init(
            num_cpus=cores,
            include_dashboard=False,
            _node_ip_address=BENCH_NODE,
            logging_level="WARNING",
            log_to_driver=False,
        )
        try:
            say(f"{hosts} host(s): {games} games of 4 instant bots, --jobs {jobs} per host")
            trials.append(asyncio.run(_trial(root, folder, hosts, games, jobs, say)))
        finally:
            ray.shutdown()
    return ClusterBench(tuple(trials), cores)
