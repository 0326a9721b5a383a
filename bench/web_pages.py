"""What spectators cost the referee: decisions per second with and without a hundred pages.

Each trial is a real tournament (`Tournament`, as `arena run` plays it) of the
benchmark's instant bots, so the referee's own work is all that limits it.
Trials alternate between no page at all (no spectator, no server) and the
live page with `clients` streams open, and each round swaps which goes
first, so that a machine whose load drifts favours neither. The pages are
read by a separate process that discards what it reads as a browser would
draw it, at the lowest priority (spectators sit at their own machines, not
at the referee's; on a 2-core machine it still takes its share, and its CPU
time is told). Decisions are counted from the games' records, from the
first game's start to the last one's end, so the bots' start-up is left out.

On a machine that others share, decisions per second move with their load
far more than with the pages; the referee's own CPU time per decision (its
process alone: not the bots', not the readers') is told beside it, the
steadier measure of what the pages cost it, and the CPU its web server's
ticks took, measured in the trials themselves. Every trial is told, and the
figures are given as the best of each side and as the range of the ratios
of the two trials of each round.
"""

from __future__ import annotations

import asyncio
import json
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.bots.isolation.sandbox import SandboxMode
from arena.records import GameLine, Json
from arena.tournament.config import TournamentConfig
from arena.tournament.play.observer import Observers, Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Tournament
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer
from bench import child_env

BENCH_BOT = Path(__file__).with_name("bot.py")
CONNECT_S = 30.0


@dataclass(frozen=True, slots=True)
class Trial:
    rate: float
    """Decisions per second."""
    cpu_us: float
    """The referee's CPU time per decision (its process: every thread of it)."""


@dataclass(frozen=True, slots=True)
class Watched(Trial):
    tick_cpu_us: float
    """Of `cpu_us`, what the web server's ticks took: encoding and writing to the pages."""
    readers_cpu_us: float
    """The readers' CPU time per decision (their own process, at nice 19)."""
    messages: int
    """Messages one page was sent, the first state included."""
    page_bytes: int
    """Bytes each page was sent, as sent (gzipped), the least of them."""


@dataclass(frozen=True, slots=True)
class WebSpeed:
    clients: int
    bare: tuple[Trial, ...]
    watched: tuple[Watched, ...]
    """Round by round: bare[i] and watched[i] were played one after the other."""

    @property
    def without(self) -> float:
        """Decisions per second with no page served (the best trial)."""
        return max(t.rate for t in self.bare)

    @property
    def with_clients(self) -> float:
        """Decisions per second with the page served to `clients` streams (the best trial)."""
        return max(t.rate for t in self.watched)

    @property
    def cpu_us_without(self) -> float:
        """The referee's CPU time per decision with no page (the least of the trials)."""
        return min(t.cpu_us for t in self.bare)

    @property
    def cpu_us_with(self) -> float:
        return min(t.cpu_us for t in self.watched)

    @property
    def ratio(self) -> float:
        return self.with_clients / self.without

    @property
    def cpu_ratio(self) -> float:
        """The referee's CPU per decision without pages over with them: 1 costs nothing."""
        return self.cpu_us_without / self.cpu_us_with

    @property
    def round_ratios(self) -> tuple[tuple[float, float], ...]:
        """Each round's (decisions/s ratio, CPU per decision ratio), with pages to without."""
        return tuple(
            (w.rate / b.rate, b.cpu_us / w.cpu_us)
            for b, w in zip(self.bare, self.watched, strict=True)
        )

    @property
    def tick_cpu_us(self) -> float:
        return min(t.tick_cpu_us for t in self.watched)

    @property
    def readers_cpu_us(self) -> float:
        return min(t.readers_cpu_us for t in self.watched)

    @property
    def messages_per_page(self) -> int:
        return self.watched[-1].messages

    @property
    def bytes_per_page(self) -> int:
        return self.watched[-1].page_bytes

    def to_json(self) -> Json:
        rounds = self.round_ratios
        return {
            "decisions_per_s_without_page": self.without,
            "decisions_per_s_with_pages": self.with_clients,
            "pages": self.clients,
            "messages_per_page": self.messages_per_page,
            "bytes_per_page": self.bytes_per_page,
            "with_to_without_ratio": self.ratio,
            "referee_cpu_us_per_decision_without_page": self.cpu_us_without,
            "referee_cpu_us_per_decision_with_pages": self.cpu_us_with,
            "cpu_without_to_with_ratio": self.cpu_ratio,
            "round_ratios": [{"decisions_per_s": r, "cpu": c} for r, c in rounds],
            "server_ticks_cpu_us_per_decision": self.tick_cpu_us,
            "readers_cpu_us_per_decision": self.readers_cpu_us,
        }

    def lines(self) -> list[str]:
        rates = [r for r, _ in self.round_ratios]
        cpus = [c for _, c in self.round_ratios]
        return [
            f"with {self.clients} live pages open: {self.with_clients:.0f} decisions/s, without: "
            f"{self.without:.0f} (the best trials); ratio {self.ratio:.3f} (target at least "
            f"0.97), round by round {min(rates):.3f}-{max(rates):.3f}, median "
            f"{statistics.median(rates):.3f}",
            f"the referee's CPU per decision: {self.cpu_us_with:.0f} us with the pages, "
            f"{self.cpu_us_without:.0f} us without (the least); ratio {self.cpu_ratio:.3f}, "
            f"round by round {min(cpus):.3f}-{max(cpus):.3f}, median {statistics.median(cpus):.3f}",
            f"of it, the web server's ticks (encoding once, writing to every page): "
            f"{self.tick_cpu_us:.1f} us per decision; the readers (a process of their own, at "
            f"nice 19): {self.readers_cpu_us:.1f} us per decision",
            f"each page was sent {self.messages_per_page:,} messages, "
            f"{self.bytes_per_page / 1e6:.2f} MB as sent (gzipped, as a browser asks), in "
            "events of one tick each",
        ]


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


class _TimedServer(WebServer):
    """The web server, with the CPU time of its ticks (a handful a second) added up."""

    tick_cpu_s = 0.0

    def _send(self) -> None:
        began = time.thread_time()
        super()._send()
        self.tick_cpu_s += time.thread_time() - began


def _config(work: Path, name: str, games: int, jobs: int) -> TournamentConfig:
    return TournamentConfig(
        bots_dir=work / "bots",
        out=work / "results",
        table_size=4,
        games=games,
        jobs=jobs,
        move_time=5.0,
        name=name,
        sandbox=SandboxMode.OFF,
    )


async def _bare(config: TournamentConfig) -> Trial:
    count = _Count()
    await Tournament(config, count).run()
    return Trial(count.rate, count.cpu_us)


async def _watched(config: TournamentConfig, clients: int) -> Watched:
    count = _Count()
    spectator = Spectator()
    server = _TimedServer(spectator)
    url = await server.start()
    readers = subprocess.Popen(
        ["nice", "-n", "19", sys.executable, "-m", "bench.web_pages", url + "events", str(clients)],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        deadline = time.monotonic() + CONNECT_S
        while spectator.watchers < clients and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await Tournament(config, Observers(count, spectator), tables=spectator).run()
    finally:
        await server.stop()  # ends every stream: the readers say what they read, and exit
        out, _ = await asyncio.to_thread(readers.communicate, timeout=CONNECT_S)
    read = json.loads(out)
    decisions = max(count.decisions, 1)
    return Watched(
        count.rate,
        count.cpu_us,
        server.tick_cpu_s / decisions * 1e6,
        read["cpu_s"] / decisions * 1e6,
        read["messages"],
        read["bytes"],
    )


def measure(
    clients: int = 100,
    games: int = 48,
    rounds: int = 3,
    jobs: int = 2,
    say: Callable[[str], None] = print,
) -> WebSpeed:
    """`rounds` rounds of a trial without pages and one with `clients`, which first by turns."""
    work = Path(tempfile.mkdtemp(prefix="arena-webbench-"))
    try:
        (work / "bots").mkdir()
        for i in range(4):
            shutil.copy(BENCH_BOT, work / "bots" / f"bench{i}.py")
        bare: list[Trial] = []
        watched: list[Watched] = []
        for n in range(rounds):
            for side in (0, clients) if n % 2 == 0 else (clients, 0):
                config = _config(work, f"r{n}-{side}", games, jobs)
                if side:
                    watched.append(asyncio.run(_watched(config, clients)))
                else:
                    bare.append(asyncio.run(_bare(config)))
                result = (watched if side else bare)[-1]
                say(
                    f"round {n + 1}, {side} pages: {result.rate:.0f} decisions/s, "
                    f"referee {result.cpu_us:.0f} us CPU per decision"
                )
        return WebSpeed(clients, tuple(bare), tuple(watched))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read_streams(url: str, clients: int) -> Json:
    """Open `clients` streams and read each to its end, as cheaply as a reader can (one
    thread, one selector, one buffer: a browser runs on another machine, and what this takes
    of a 2-core machine is not the referee's): the first page's messages are counted, every
    page's bytes, as they come (gzipped, since a browser asks for that; inflating them is
    the browser's work, on its own machine). Its own CPU time from the first read on is told
    too."""
    host, _, rest = url.removeprefix("http://").partition("/")
    address, _, port = host.rpartition(":")
    request = (
        f"GET /{rest} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n"
    ).encode()
    selector = selectors.DefaultSelector()
    socks = [socket.create_connection((address, int(port))) for _ in range(clients)]
    for i, sock in enumerate(socks):
        sock.sendall(request)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, i)
    began = time.process_time()
    sizes = [0] * clients
    first = bytearray()
    buffer = bytearray(1 << 16)
    while selector.get_map():
        for key, _ in selector.select():
            sock = socks[key.data]
            try:
                size = sock.recv_into(buffer)
            except BlockingIOError:
                continue
            if not size:  # the stream ended
                selector.unregister(sock)
                sock.close()
                continue
            sizes[key.data] += size
            if key.data == 0:
                first += buffer[:size]
    cpu_s = time.process_time() - began
    events = [line for line in _body(bytes(first)).split(b"\n") if line.startswith(b"data: ")]
    return {
        "messages": sum(len(json.loads(line[6:])) for line in events),
        "bytes": min(sizes),
        "cpu_s": cpu_s,
    }


def _body(response: bytes) -> bytes:
    """An HTTP/1.1 response's body, unchunked and inflated if gzipped."""
    head, _, rest = response.partition(b"\r\n\r\n")
    body = bytearray()
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        length = int(size, 16)
        if not length:
            break
        body += rest[:length]
        rest = rest[length + 2 :]
    if b"content-encoding: gzip" in head.lower():
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(bytes(body))
    return bytes(body)


if __name__ == "__main__":
    print(json.dumps(_read_streams(sys.argv[1], int(sys.argv[2]))))
