"""A real league server in process, kit bots in processes of their own, and the admin
service's own client: what the league tests share."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.league.admin_stream import tell
from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.screen import ScreenEvent
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.records import GameLine
from arena.referee.service.auth import new_token, token_hash
from arena.referee.service.referee_server import Tls
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.play.observer import Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import RunReport
from arena.tournament.schedule.round_robin import build

HERE = Path(__file__).parent
STEADY = HERE / "league_bots" / "steady.py"
SAMPLE_BOTS = HERE.parents[1] / "sample_bots"
SEED = "5eed" * 16
TEST_TIMEOUT = 45.0


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run one test's body on a fresh loop, never for longer than TEST_TIMEOUT."""

    async def bounded() -> None:
        await asyncio.wait_for(body(), TEST_TIMEOUT)

    asyncio.run(bounded())


async def eventually(
    check: Callable[[], Awaitable[bool]] | Callable[[], bool], what: str, seconds: float = 10.0
) -> None:
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        await asyncio.sleep(0.05)


@dataclasses.dataclass
class Bot:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    async def exited(self, seconds: float = 10.0) -> int:
        await eventually(lambda: self.process.poll() is not None, f"{self.name} exits", seconds)
        return self.process.returncode


@dataclasses.dataclass
class League:
    """A running league server, its admin client, and the bot processes of one test."""

    server: LeagueServer
    tmp: Path
    admin: apb_grpc.AdminServiceStub
    metadata: list[tuple[str, str]]
    bots: list[Bot] = dataclasses.field(default_factory=list)
    ca_file: Path | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def register(self, *names: str) -> dict[str, str]:
        """Register entrants the way `arena token add` does; return their tokens."""
        tokens = {}
        for name in names:
            tokens[name] = new_token()
            self.server.store.set_entrant(name, token_hash(tokens[name]))
        return tokens

    def launch(
        self,
        name: str,
        token: str,
        sessions: int = 1,
        script: Path = STEADY,
        address: str | None = None,
        **env: str,
    ) -> Bot:
        """Start a kit bot as a process of its own, dialling the referee with its token (at
        `address` if given: a proxy's, say)."""
        log = self.tmp / "bot-logs" / f"{name}-{len(self.bots)}.log"
        log.parent.mkdir(exist_ok=True)
        environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")},
            "PERUDO_ADDRESS": address or self.address,
            "PERUDO_BOT_NAME": name,
            "PERUDO_TOKEN": token,
            "PERUDO_SESSIONS": str(sessions),
            **env,
        }
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, str(script)],
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        bot = Bot(name, process, log)
        self.bots.append(bot)
        return bot

    async def status(self) -> apb.GetStatusResponse:
        return await self.admin.GetStatus(apb.GetStatusRequest(), metadata=self.metadata, timeout=5)

    async def connected(self) -> dict[str, int]:
        return {b.name: b.sessions for b in (await self.status()).bots}

    async def wait_connected(self, expected: dict[str, int], seconds: float = 15.0) -> None:
        async def check() -> bool:
            return await self.connected() == expected

        try:
            await eventually(check, f"connected bots are {expected}", seconds)
        except AssertionError:
            logs = "\n".join(f"--- {b.name}\n{b.output()}" for b in self.bots)
            raise AssertionError(f"connected: {await self.connected()}\n{logs}") from None

    def start(self, **fields: Any) -> grpc.aio.UnaryStreamCall[Any, apb.TournamentEvent]:
        request = apb.StartTournamentRequest(seed=bytes.fromhex(SEED), **fields)
        return self.admin.StartTournament(request, metadata=self.metadata)  # type: ignore[no-any-return]

    async def play(self, **fields: Any) -> Tournament:
        """Start a tournament and follow it to its end."""
        return await Tournament.follow(self.start(**fields))


class _Told:
    """An observer keeping what the admin stream told it, each with its event's kind."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def note(self, text: str) -> None:
        self.events.append(("note", text))

    def building(self, name: str, running: bool) -> None:
        self.events.append(("build", (name, running)))

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.events.append(("started", (folder, entrants, progress)))

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.events.append(("game", (line, table, progress)))


@dataclasses.dataclass
class Tournament:
    """What the admin stream told about one tournament, and what it left on disk."""

    events: list[tuple[str, Any]]
    """Each event's kind and what it told: a note's text, a build's (bot, running), a start's
    (folder, entrants, progress), a game's (line, table, progress), the end's report."""

    @classmethod
    async def follow(
        cls,
        call: grpc.aio.UnaryStreamCall[Any, apb.TournamentEvent],
        on_game: Callable[[Progress], Awaitable[None]] | None = None,
    ) -> Tournament:
        told = _Told()
        async for event in call:
            try:
                report = tell(event, told)
            except TournamentError as error:
                told.events.append(("error", str(error)))
                continue
            if report is not None:
                told.events.append(("finished", report))
            if event.WhichOneof("kind") == "game" and on_game is not None:
                await on_game(told.events[-1][1][2])
        return cls(told.events)

    def of(self, kind: str) -> list[Any]:
        return [value for k, value in self.events if k == kind]

    @property
    def finished(self) -> RunReport:
        assert self.of("error") == [], self.of("error")
        (report,) = self.of("finished")
        return report  # type: ignore[no-any-return]

    @property
    def folder(self) -> Path:
        return self.finished.folder

    def info(self) -> dict[str, Any]:
        return json.loads((self.folder / "tournament.json").read_text())  # type: ignore[no-any-return]

    def lines(self) -> list[dict[str, Any]]:
        text = (self.folder / "games.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines()]

    def schedule_ids(self) -> list[str]:
        info = self.info()
        seed = bytes.fromhex(info["seed"] or SEED)
        games = build(info["entrants"], info["table_size"], info["games"], seed)
        return [g.game_id for g in games]

    def players(self) -> dict[str, tuple[str, ...]]:
        info = self.info()
        games = build(info["entrants"], info["table_size"], info["games"], bytes.fromhex(SEED))
        return {g.game_id: g.players for g in games}


@contextlib.asynccontextmanager
async def league(
    tmp: Path,
    *,
    sessions_per_bot: int = 8,
    reconnect_grace: float = 5.0,
    tls: Tls | None = None,
    store: Path | str | None = None,
    say: Callable[[ScreenEvent], None] | None = None,
    ladder_table_sizes: tuple[int, ...] = (3,),
    ladder_jobs: int = 2,
    ladder_compact: bool = False,
) -> AsyncIterator[League]:
    """`store`: the league store, a file or a postgresql:// URL (default: an SQLite file);
    `say`: told the server's screen events (who connects, their links)."""
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp / "league" / "league.sqlite" if store is None else store,
        out=tmp / "results",
        tls=tls,
        sessions_per_bot=sessions_per_bot,
        defaults=TournamentConfig(bots_dir=None, reconnect_grace=reconnect_grace, move_time=1.0),
        ladder_table_sizes=ladder_table_sizes,
        ladder_jobs=ladder_jobs,
        ladder_compact=ladder_compact,
    )
    server = LeagueServer(config, say)
    token = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
    stub = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
    written = admin_token_path(config.league, config.out).read_text().strip()
    assert written == token
    the_league = League(server, tmp, stub, [("authorization", f"Bearer {written}")])
    try:
        yield the_league
    finally:
        for bot in the_league.bots:
            if bot.process.poll() is None:
                bot.process.kill()
        for bot in the_league.bots:
            bot.process.wait(timeout=10)
        await channel.close(None)
        await server.stop()


def assert_refused(bot: Bot, code: str, detail: str) -> None:
    output = bot.output()
    assert bot.process.returncode == 1, output
    assert f"{bot.name}: {code}: {detail}" in output, output


def opened_databases(monkeypatch: pytest.MonkeyPatch) -> dict[str, sqlite3.Connection]:
    """Each SQLite connection opened from now on, by the path it opened: the test's handle
    on the database under the store, to make it full as a disk would."""
    opened: dict[str, sqlite3.Connection] = {}
    real_connect = sqlite3.connect

    def connect(path: str | Path, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened[str(path)] = db = real_connect(path, *args, **kwargs)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    return opened


async def gamma_killed_mid_game(lg: League, tmp: Path) -> asyncio.Future[Tournament]:
    """Three bots, a night of six games at tables of two, and gamma SIGKILLed while it is
    asked for a move: the night, still being followed."""
    tokens = lg.register("alpha", "beta", "gamma")
    hang = tmp / "gamma-is-thinking"
    lg.launch("alpha", tokens["alpha"], sessions=2)
    lg.launch("beta", tokens["beta"], sessions=2)
    victim = lg.launch("gamma", tokens["gamma"], sessions=2, PERUDO_TEST_HANG_FILE=str(hang))
    await lg.wait_connected({"alpha": 2, "beta": 2, "gamma": 2})
    call = lg.start(games=6, table_size=2, jobs=2, move_time=3.0, name="killed")
    follow = asyncio.ensure_future(Tournament.follow(call))
    await eventually(hang.exists, "gamma is asked for a move", 15)
    victim.process.send_signal(signal.SIGKILL)
    return follow
