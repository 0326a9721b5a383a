"""What spectators cost the referee: decisions per second with and without a hundred pages.

Each trial is a real tournament (`Tournament`, as `arena run` plays it) of the
benchmark's instant bots, so the referee's own work is all that limits it.
Trials alternate between no page at all and the live page with `clients`
streams open, read by a separate process that discards what it reads as a
browser would draw it (run at low priority: spectators sit at their own
machines, not at the referee's); the best trial of each side is kept, as
`arena bench` keeps its best. Decisions are counted from the games'
records, from the first game's start to the last one's end, so the bots'
start-up is left out.

On a machine that others share, decisions per second move with their load
far more than with the pages; the referee's own CPU time per decision (its
process alone: not the bots', not the pages' reader) is told beside it, the
steadier measure of what the pages cost it.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.bots.sandbox import SandboxMode
from arena.records import GameLine
from arena.tournament.config import TournamentConfig
from arena.tournament.ratings import Standing
from arena.tournament.runner import Observers, Progress
from arena.tournament.tournament import Tournament
from arena.web.spectator import Spectator

BENCH_BOT = Path(__file__).resolve().parent.parent / "bench" / "bot.py"
CONNECT_S = 30.0


@dataclass(frozen=True, slots=True)
class WebSpeed:
    without: float
    """Decisions per second with no page served (the best trial)."""
    with_clients: float
    """Decisions per second with the page served to `clients` streams (the best trial)."""
    clients: int
    events_per_client: int
    """Events the last trial's streams were each sent, on average: the page's load."""
    cpu_us_without: float
    """The referee's CPU time per decision with no page (the least of the trials)."""
    cpu_us_with: float

    @property
    def ratio(self) -> float:
        return self.with_clients / self.without

    @property
    def cpu_ratio(self) -> float:
        """The referee's CPU per decision without pages over with them: 1 costs nothing."""
        return self.cpu_us_without / self.cpu_us_with


class _Count:
    """Decisions of finished games, and the time from play's start to the last game's end."""

    def __init__(self) -> None:
        self.decisions = 0
        self.began = self.ended = 0.0
        self.cpu_began = self.cpu_ended = 0.0

    def note(self, text: str) -> None:
        pass  # the benchmark's bots say nothing worth a line

    def building(self, name: str, running: bool) -> None:
        pass  # a script bot is never built

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.began = time.monotonic()
        self.cpu_began = time.process_time()

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.decisions += line.decisions or 0
        self.ended = time.monotonic()
        self.cpu_ended = time.process_time()

    @property
    def rate(self) -> float:
        return self.decisions / max(self.ended - self.began, 1e-9)

    @property
    def cpu_us(self) -> float:
        return (self.cpu_ended - self.cpu_began) / max(self.decisions, 1) * 1e6


@dataclass(frozen=True, slots=True)
class _Trial:
    rate: float
    cpu_us: float
    events_each: int


async def _trial(work: Path, name: str, games: int, jobs: int, clients: int) -> _Trial:
    count = _Count()
    config = TournamentConfig(
        bots_dir=work / "bots",
        out=work / "results",
        table_size=4,
        games=games,
        jobs=jobs,
        move_time=5.0,
        name=name,
        sandbox=SandboxMode.OFF,
    )
    if not clients:
        await Tournament(config, count).run()
        return _Trial(count.rate, count.cpu_us, 0)
    from arena.web.server import WebServer

    spectator = Spectator()
    server = WebServer(spectator)
    url = await server.start()
    readers = subprocess.Popen(
        ["nice", "-n", "19", sys.executable, "-m", "arena.web.bench", url + "events", str(clients)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + CONNECT_S
        while spectator.watchers < clients and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await Tournament(config, Observers(count, spectator), tables=spectator).run()
    finally:
        await server.stop()  # ends every stream: the readers say what they read, and exit
        out, _ = await asyncio.to_thread(readers.communicate, timeout=CONNECT_S)
    return _Trial(count.rate, count.cpu_us, int(out.strip() or 0) // clients)


def measure(
    clients: int = 100,
    games: int = 48,
    trials: int = 2,
    jobs: int = 2,
    say: Callable[[str], None] = print,
) -> WebSpeed:
    """Alternate trials without and with `clients` pages; the best of each side."""
    work = Path(tempfile.mkdtemp(prefix="arena-webbench-"))
    try:
        (work / "bots").mkdir()
        for i in range(4):
            shutil.copy(BENCH_BOT, work / "bots" / f"bench{i}.py")
        sides: dict[int, list[_Trial]] = {0: [], clients: []}
        for trial in range(trials):
            for side, kept in sides.items():
                result = asyncio.run(_trial(work, f"t{trial}-{side}", games, jobs, side))
                kept.append(result)
                say(
                    f"trial {trial + 1}, {side} pages: {result.rate:.0f} decisions/s, "
                    f"referee {result.cpu_us:.0f} us CPU per decision"
                )
        bare, watched = sides[0], sides[clients]
        return WebSpeed(
            max(t.rate for t in bare),
            max(t.rate for t in watched),
            clients,
            watched[-1].events_each,
            min(t.cpu_us for t in bare),
            min(t.cpu_us for t in watched),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _read_streams(url: str, clients: int) -> int:
    """Open `clients` streams and read each to its end; the events read, in all."""
    host, _, rest = url.removeprefix("http://").partition("/")
    address, _, port = host.rpartition(":")
    counts = [0] * clients

    async def one(i: int) -> None:
        reader, writer = await asyncio.open_connection(address, int(port))
        writer.write(f"GET /{rest} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        await writer.drain()
        while chunk := await reader.read(65536):
            counts[i] += chunk.count(b"\ndata: ") + chunk.startswith(b"data: ")
        writer.close()

    await asyncio.gather(*(one(i) for i in range(clients)))
    return sum(counts)


if __name__ == "__main__":
    print(asyncio.run(_read_streams(sys.argv[1], int(sys.argv[2]))))
