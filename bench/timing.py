"""Is the timing fair under load? Timeouts per 10,000 decisions of bots that answer at once.

    arena bench timing [--bots 24] [--move-time 0.05] [--jobs CORES,2xCORES] [--front-door]

Instant bots never deserve a timeout, so every one counted here is the
machine's or the referee's lateness charged to a bot. Each setting plays
random 6-player tables of the benchmark bot (every session of a bot in one
process) for a while, with the arena's default time margin; a setting above
the machine's cores is one `arena run` refuses without `--force-jobs`, and
is measured anyway to show what the refusal spares. With `--front-door`, each
setting is played twice, side by side: the bots dialling gRPC direct, then
through the referee's front door (`arena.referee.service.front_door`), as a
league server's remote bots do; the difference in decisions a second and in
the median decision is what the relay costs a message and its answer.
"""

from __future__ import annotations

import asyncio
import random
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import engine
from arena.bots.run.capacity import usable_cores
from arena.protocol.faults import FaultKind
from arena.referee.clock.deadline import DEFAULT_TIME_MARGIN, TimeControl
from arena.referee.match import GameSpec, Match
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, ServerLimits
from bench.benchmark import BenchError, start_bots


@dataclass(frozen=True, slots=True)
class Timing:
    jobs: int
    decisions: int
    timeouts: int
    referee_late: int
    """Decisions over the limit by the referee's clock, excused as the referee's own lateness."""
    worst_lag_ms: float
    bots_timed_out: int
    allowed: bool
    """Whether `arena run` takes this many jobs without --force-jobs."""
    front_door: bool = False
    """Whether the bots came in through the referee's front door."""
    seconds: float = 0.0
    median_ms: float = 0.0
    """The median decision, as charged to the bots (request written to reply read)."""

    @property
    def per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def per_10000(self) -> float:
        return 10_000 * self.timeouts / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "jobs": self.jobs,
            "decisions": self.decisions,
            "timeouts": self.timeouts,
            "timeouts_per_10000": round(self.per_10000, 2),
            "referee_late": self.referee_late,
            "worst_loop_lag_ms": round(self.worst_lag_ms, 1),
            "bots_timed_out": self.bots_timed_out,
            "allowed_without_force_jobs": self.allowed,
            "front_door": self.front_door,
            "decisions_per_second": round(self.per_second, 1),
            "median_decision_ms": round(self.median_ms, 3),
        }


async def timing(
    jobs: int,
    bots: int,
    move_time: float,
    margin: float,
    seconds: float,
    logs: Path,
    front_door: bool = False,
) -> Timing:
    """Play `jobs` games at once among `bots` instant bots for `seconds` (through the
    referee's front door with `front_door`); count the timeouts."""
    tokens = TokenBook()
    lobby = Lobby(tokens, max_sessions_per_bot=64)
    referee = Referee(lobby, ServerLimits(move_time=move_time))
    port = await referee.start(front_door=front_door)
    processes, _ = await start_bots(port, tokens, bots, jobs, logs)
    names = [f"bench-{i}" for i in range(bots)]
    seed = engine.new_seed()
    decisions = late = 0
    times: list[float] = []
    timed_out: Counter[str] = Counter()
    running = True
    table = min(bots, 6)
    try:
        missing = set(names) - await lobby.wait_for(names, jobs, 60)
        if missing:
            raise BenchError(
                f"{len(missing)} of the benchmark's bots did not open {jobs} sessions in 60 s"
            )

        async def worker(w: int) -> None:
            nonlocal decisions, late
            game = 0
            while running:
                game += 1
                players = tuple(random.sample(names, table))
                borrowed = await lobby.borrow_table(players)
                seats = [s for s in borrowed.values() if s is not None]
                if len(seats) < table:  # a bot lost a session: its games are not timing's
                    for session in seats:
                        await lobby.give_back(session)
                    await asyncio.sleep(0.01)
                    continue
                spec = GameSpec(f"w{w}-g{game}", players, f"w{w}-g{game}", engine.Ruleset())
                clock = TimeControl(move_time, margin=margin)
                record = await Match(spec, seats, seed, clock).play()
                decisions += record.decisions
                times.extend(ms for seat in record.think_ms for ms in seat)
                late += len(record.referee_late)
                for fault in record.faults:
                    if fault.fault.kind is FaultKind.TIMEOUT:
                        timed_out[fault.bot] += 1
                for session in seats:
                    await lobby.give_back(session)

        workers = asyncio.gather(*(worker(w) for w in range(jobs)))
        await asyncio.sleep(seconds)
        running = False
        await workers
        worst = referee.lag.worst
    finally:
        await referee.stop()
        await asyncio.gather(*(p.stop(grace=2) for p in processes))
    return Timing(
        jobs,
        decisions,
        sum(timed_out.values()),
        late,
        worst * 1000,
        len(timed_out),
        jobs <= usable_cores(),
        front_door,
        seconds,
        statistics.median(times) if times else 0.0,
    )


def run_timing(
    jobs: tuple[int, ...],
    bots: int,
    move_time: float,
    seconds: float,
    logs: Path,
    margin: float | None = None,
    doors: tuple[bool, ...] = (False,),
) -> list[Timing]:
    """Each setting in a fresh event loop, one after the other (each of `doors`: without
    the front door, through it)."""
    if margin is None:
        margin = DEFAULT_TIME_MARGIN
    return [
        asyncio.run(timing(n, bots, move_time, margin, seconds, logs, door))
        for n in jobs
        for door in doors
    ]
