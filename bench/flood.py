"""What a Hello flood costs the referee: `arena bench flood`.

    arena bench flood [--seconds 30] [--connections 32] [--streams 16]
                        [--message-bytes 4193280] [--json]

Honest bots (the benchmark's, as real processes) play games against the real
referee, as a tournament does, while a hostile process (`flooder`) opens
connections on both the referee's Unix socket and its TCP port and keeps
streams open on each, every stream's first message megabytes long. The
figures are this process's resident memory (it is the arena: the referee and
the games) from /proc: before the flood, its peak during it (VmHWM, reset when
the flood begins), and what is left once the flood has stopped; with the
decisions played and the faults charged to the honest bots meanwhile, which
must be none.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import engine
from arena.referee.clock.deadline import DEFAULT_TIME_MARGIN, TimeControl
from arena.referee.match import GameSpec, Match
from arena.referee.service import bounds
from arena.referee.service.auth import TokenBook
from arena.referee.service.heap import frozen_heap
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, ServerLimits
from bench import child_env
from bench.benchmark import BenchError, start_bots

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FloodSetup:
    seconds: float = 30.0
    connections: int = 32
    streams: int = 16
    """Streams the flooder keeps open on each connection (32 x 16: 512 at once)."""
    message_bytes: int = 4 * MIB - 1024
    """Just under grpc's own default limit, which a referee that relied on it let through."""
    bots: int = 4
    games: int = 2
    """Honest games at once."""
    move_time: float = 1.0
    settle: float = 3.0
    """Seconds after the flood ends before the memory left is read."""


@dataclass(frozen=True, slots=True)
class FloodFigures:
    before_mib: float
    peak_mib: float
    after_mib: float
    decisions: int
    """Decisions the honest bots made while the flood lasted."""
    honest_faults: dict[str, int]
    """Faults charged to the honest bots, by kind (none is the only right answer)."""
    flood: dict[str, object] = field(default_factory=dict)
    """The flooder's own account: streams opened, and how they ended."""
    settle: float = 0.0
    """Seconds after the flood when `after_mib` was read."""

    def to_json(self) -> dict[str, object]:
        return {
            "rss_before_mib": round(self.before_mib, 1),
            "rss_peak_mib": round(self.peak_mib, 1),
            "rss_after_mib": round(self.after_mib, 1),
            "after_seconds": self.settle,
            "honest_decisions": self.decisions,
            "honest_faults": self.honest_faults,
            "flood": self.flood,
        }

    def lines(self) -> list[str]:
        opened = self.flood.get("streams_opened", 0)
        ended = self.flood.get("ended", {})
        limits = ServerLimits()
        budget = bounds.bytes_in_flight(limits.max_message_bytes, limits.max_streams)
        lines = [
            f"referee bounds: messages up to "
            f"{bounds.grpc_message_limit(limits.max_message_bytes) // 1024} KiB, "
            f"{limits.max_streams} streams at once, {budget // MIB} MiB in flight at most",
            f"arena resident memory: {self.before_mib:.0f} MiB before the flood, "
            f"peak {self.peak_mib:.0f} MiB during it (target under 500), "
            f"{self.after_mib:.0f} MiB {self.settle:g} s after it",
            f"honest bots: {self.decisions} decisions during the flood, "
            f"{sum(self.honest_faults.values())} faults {dict(self.honest_faults) or ''}".rstrip(),
            f"flood: {opened} streams opened; how they ended:",
        ]
        if isinstance(ended, dict):
            lines += [f"  {count:>6} {how}" for how, count in sorted(ended.items())]
        return lines


def _status(field_name: str) -> float:
    """A line of /proc/self/status in MiB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"/proc/self/status has no {field_name}")


def _reset_peak() -> None:
    """Start VmHWM afresh from the resident memory now (Linux: clear_refs 5)."""
    Path("/proc/self/clear_refs").write_text("5")


async def _flood(setup: FloodSetup, targets: list[str]) -> dict[str, object]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.flooder",
        *(f"--target={t}" for t in targets),
        f"--connections={setup.connections}",
        f"--streams={setup.streams}",
        f"--message-bytes={setup.message_bytes}",
        f"--seconds={setup.seconds}",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        stdin=asyncio.subprocess.DEVNULL,
        env=child_env(),
    )
    try:
        async with asyncio.timeout(setup.seconds + 60):
            out, _ = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise BenchError("the flooder did not stop by itself") from None
    if process.returncode != 0 or not out.strip():
        raise BenchError(f"the flooder failed (exit status {process.returncode})")
    result: dict[str, object] = json.loads(out.splitlines()[-1])
    return result


class _HonestPlay:
    """Games among the honest bots, one after another on each of `games` workers."""

    def __init__(self, lobby: Lobby, names: list[str], setup: FloodSetup) -> None:
        self.lobby = lobby
        self.names = names
        self.setup = setup
        self.seed = engine.new_seed()
        self.decisions = 0
        self.faults: Counter[str] = Counter()
        self.running = True

    async def worker(self, w: int) -> None:
        game = 0
        while self.running:
            game += 1
            players = tuple(random.sample(self.names, min(4, len(self.names))))
            borrowed = await self.lobby.borrow_table(players)
            seats = [s for s in borrowed.values() if s is not None]
            self.faults.update("no session" for s in borrowed.values() if s is None)
            spec = GameSpec(f"w{w}-g{game}", players, f"w{w}-g{game}", engine.Ruleset())
            clock = TimeControl(self.setup.move_time, margin=DEFAULT_TIME_MARGIN)
            record = await Match(spec, seats, self.seed, clock).play()
            self.decisions += record.decisions
            self.faults.update(f.fault.kind.value for f in record.faults)
            for session in seats:
                await self.lobby.give_back(session)


async def measure(setup: FloodSetup, logs: Path) -> FloodFigures:
    """Play honest games through a flood; the arena's memory before, at peak and after."""
    tokens = TokenBook()
    lobby = Lobby(tokens, max_sessions_per_bot=64)
    referee = Referee(lobby, ServerLimits(move_time=setup.move_time))
    private = Path(tempfile.mkdtemp(prefix="perudo-flood-"))
    socket = private / "referee.sock"
    port = await referee.start(unix_socket=socket)
    processes, _ = await start_bots(port, tokens, setup.bots, setup.games, logs)
    play = _HonestPlay(lobby, [f"bench-{i}" for i in range(setup.bots)], setup)
    try:
        if set(play.names) - await lobby.wait_for(play.names, setup.games, 60):
            raise BenchError("the benchmark's bots did not open their sessions in 60 s")
        gc.collect()  # swept, so the heap freezes as a process's first play does
        with frozen_heap():
            workers = asyncio.gather(*(play.worker(w) for w in range(setup.games)))
            await asyncio.sleep(1.0)
            before = _status("VmRSS")
            _reset_peak()
            start = play.decisions
            flood = await _flood(setup, [f"unix:{socket}", f"127.0.0.1:{port}"])
            during = play.decisions - start
            await asyncio.sleep(setup.settle)
            peak, after = _status("VmHWM"), _status("VmRSS")
            play.running = False
            await workers
    finally:
        await referee.stop()
        await asyncio.gather(*(p.stop(grace=2) for p in processes))
        socket.unlink(missing_ok=True)
        private.rmdir()
    return FloodFigures(before, peak, after, during, dict(play.faults), flood, setup.settle)


def run_flood(setup: FloodSetup, logs: Path) -> FloodFigures:
    return asyncio.run(measure(setup, logs))
