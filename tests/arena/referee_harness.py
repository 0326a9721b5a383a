"""A real referee on 127.0.0.1 port 0 and real bot processes, for the arena tests.

Each test runs its own event loop (`run`), starts a `Referee` inside it
(`Arena.serving`), launches bot scripts from tests/arena/harness_bots as child
processes with the environment the arena gives a bot, and plays games with
`Match`. Whatever happens, the referee is stopped and every child process is
killed (the `live` fixture in conftest.py kills any that survived).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc

import engine
from arena.protocol.messages import referee as pb
from arena.records import Deal, Decision, FaultEvent, RoundEnd
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameRecord, GameSpec, Match
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, ServerLimits
from arena.referee.session.session import Session
from engine import Ruleset

BOTS = Path(__file__).resolve().parent / "harness_bots"
PLAY = "/perudo.v1.RefereeService/Play"
SEED = b"perudo-arena tests: a fixed seed, so every game replays the same"
TEST_TIMEOUT = 45.0

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T], timeout: float = TEST_TIMEOUT) -> T:
    """Run one test's coroutine in a fresh event loop, with a hard time limit."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def hello(name: str, token: str, version: int = 1) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(name=name, token=token, protocol_version=version))


def reply(request_id: int, kind: int = pb.ACTION_KIND_DUDO, count: int = 0, face: int = 0) -> bytes:
    action = pb.Action(kind=kind, count=count, face=face)
    return pb.BotMessage(
        reply=pb.ActionReply(request_id=request_id, action=action)
    ).SerializeToString()


def request(request_id: int, game_id: str = "test") -> bytes:
    """A bare request, enough for `Session.ask` (which does not read it)."""
    message = pb.RefereeMessage(request=pb.ActionRequest(request_id=request_id, game_id=game_id))
    return message.SerializeToString()


class RawClient:
    """A hand-driven Play stream in the test's own loop: it sends raw bytes."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.call = self.channel.stream_stream(
            PLAY, request_serializer=None, response_deserializer=pb.RefereeMessage.FromString
        )()

    async def send(self, data: bytes | pb.BotMessage) -> None:
        if isinstance(data, pb.BotMessage):
            data = data.SerializeToString()
        await self.call.write(data)

    async def read(self, timeout: float = 5.0) -> pb.RefereeMessage | None:
        """The next message, or None when the stream has ended."""
        message = await asyncio.wait_for(self.call.read(), timeout)
        return None if message is grpc.aio.EOF else message

    async def status(self, timeout: float = 5.0) -> tuple[grpc.StatusCode, str, list[str]]:
        """Read to the end of the stream: (status code, details, kinds of messages read)."""
        kinds: list[str] = []
        try:
            while (message := await self.read(timeout)) is not None:
                kinds.append(message.WhichOneof("kind"))
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or "", kinds
        code = await asyncio.wait_for(self.call.code(), timeout)
        details = await asyncio.wait_for(self.call.details(), timeout)
        return code, details or "", kinds

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


class Arena:
    """One test's referee, lobby, tokens and bot processes."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.procs: list[subprocess.Popen[bytes]] = []
        self.stderr: dict[str, Path] = {}
        self.tokens: dict[str, str] = {}
        self.book = TokenBook()
        self.lobby: Lobby
        self.referee: Referee
        self.limits: ServerLimits
        self.port = 0
        self.clients: list[RawClient] = []

    @contextlib.asynccontextmanager
    async def serving(
        self,
        *,
        move_time: float = 0.5,
        hello_timeout: float = 2.0,
        goodbye_grace: float = 0.5,
        max_message_bytes: int = 16 * 1024,
        max_sessions_per_bot: int = 16,
        max_streams: int = ServerLimits().max_streams,
        front_door: bool = False,
    ) -> AsyncIterator[Arena]:
        self.limits = ServerLimits(
            max_message_bytes=max_message_bytes,
            hello_timeout=hello_timeout,
            goodbye_grace=goodbye_grace,
            move_time=move_time,
            max_streams=max_streams,
        )
        self.lobby = Lobby(self.book, max_sessions_per_bot=max_sessions_per_bot)
        self.referee = Referee(self.lobby, self.limits)
        self.port = await self.referee.start("127.0.0.1:0", front_door=front_door)
        try:
            yield self
        finally:
            try:
                for client in self.clients:
                    await client.close()
                await asyncio.wait_for(self.referee.stop(), 10)
            finally:
                await self.reap()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def token(self, name: str) -> str:
        if name not in self.tokens:
            self.tokens[name] = self.book.issue(name)
        return self.tokens[name]

    def spawn(
        self,
        script: str,
        name: str,
        *,
        sessions: int = 1,
        token: str | None = None,
        address: str | None = None,
        remote: bool = False,
        **env: str | float | int,
    ) -> subprocess.Popen[bytes]:
        """Start tests/arena/harness_bots/<script>.py as bot `name`, as the arena would
        (dialling `address` if given: a proxy's, say); `remote`, as a bot on another machine
        that the arena did not start (no exit status of it is known)."""
        environment = dict(
            os.environ,
            PERUDO_ADDRESS=address or self.address,
            PERUDO_BOT_NAME=name,
            PERUDO_TOKEN=token if token is not None else self.token(name),
            PERUDO_SESSIONS=str(sessions),
            PYTHONUNBUFFERED="1",
            **{key: str(value) for key, value in env.items()},
        )
        stderr = self.tmp / f"{name}.stderr"
        self.stderr[name] = stderr
        holder: list[subprocess.Popen[bytes]] = []

        async def exit_status(within: float) -> int | None:
            deadline = time.monotonic() + within
            while holder and holder[0].poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return holder[0].poll() if holder else None

        # The probe is in place before the bot can connect (sessions read it then).
        if not remote:
            self.lobby.crash_probes[name] = exit_status
        with open(stderr, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, str(BOTS / f"{script}.py")],
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,  # a group of its own: the kit's copies die with it
            )
        holder.append(proc)
        self.lobby.process_ids[name] = proc.pid
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        path = self.stderr.get(name)
        return path.read_text(errors="replace") if path and path.exists() else ""

    async def wait_connected(
        self, names: Sequence[str], sessions: int = 1, timeout: float = 20
    ) -> None:
        ready = await self.lobby.wait_for(names, sessions, timeout)
        missing = set(names) - ready
        assert not missing, f"bots never connected: {missing}; " + " ".join(
            f"[{n}: {self.log(n)}]" for n in missing
        )

    async def launch(self, script: str, names: Sequence[str], **env: str | float | int) -> None:
        for name in names:
            self.spawn(script, name, **env)
        await self.wait_connected(names)

    async def borrow(self, names: Sequence[str]) -> list[Session]:
        borrowed = await asyncio.wait_for(self.lobby.borrow_table(names), 10)
        seats = list(borrowed.values())
        assert all(seats), f"no free session for some of {names}"
        return [s for s in seats if s is not None]

    async def play(
        self,
        names: Sequence[str],
        ruleset: Ruleset | None = None,
        *,
        game_id: str = "game-1",
        deal_key: str | None = None,
        move_time: float | None = None,
        clock: TimeControl | None = None,
    ) -> GameRecord:
        """Play one game on free sessions of `names` (seat i is names[i]), under `clock`
        (default: `move_time` alone, or the server's)."""
        spec = GameSpec(game_id, tuple(names), deal_key or game_id, ruleset or Ruleset())
        clock = clock or TimeControl(move_time or self.limits.move_time)
        seats = await self.borrow(names)
        try:
            return await Match(spec, seats, SEED, clock).play()
        finally:
            for seat in seats:
                await self.lobby.give_back(seat)

    def raw(self) -> RawClient:
        client = RawClient(self.port)
        self.clients.append(client)
        return client

    async def raw_session(self, name: str) -> tuple[RawClient, Session]:
        """An in-test client admitted as bot `name`, and its session, borrowed from the lobby."""
        client = self.raw()
        await client.send(hello(name, self.token(name)))
        welcome = await client.read()
        assert welcome is not None and welcome.WhichOneof("kind") == "welcome"
        await self.wait_connected([name])
        [session] = await self.borrow([name])
        return client, session

    async def wait_exit(self, proc: subprocess.Popen[bytes], timeout: float = 10) -> int | None:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return proc.poll()

    async def reap(self, timeout: float = 5) -> None:
        """Give the bots a moment to leave after Goodbye, then kill what is left."""
        for proc in self.procs:
            await self.wait_exit(proc, timeout)
        self.kill_all()

    def kill_all(self) -> None:
        """Kill every bot process and anything it started."""
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)


def replay(record: GameRecord, seed: bytes = SEED) -> engine.GameState:
    """Replay a record's deals, actions and faults through the engine alone.

    Checks on the way that every deal is the one the seeded dice give, and that
    every recorded round ending is what the engine computes.
    """
    spec = record.spec
    dice = engine.HmacDice(seed, spec.deal_key)
    n = len(spec.players)
    deals = [e for e in record.events if isinstance(e, Deal)]
    assert deals, "no round was dealt"
    first = engine.rolloff(dice, n) if spec.ruleset.opener is engine.Opener.ROLLOFF else 0
    assert deals[0].opener == first
    state = engine.new_game(spec.ruleset, n, first)
    for event in record.events:
        if isinstance(event, Deal):
            assert state.phase is engine.Phase.DEAL
            assert (event.round, event.opener, event.palifico) == (
                state.round,
                state.opener,
                state.palifico,
            )
            assert event.hands == engine.roll_hands(state, dice)
            state = engine.deal(state, event.hands)
        elif isinstance(event, Decision):
            if not event.declined:
                state = engine.apply(state, event.seat, engine.parse_action(event.action))
        elif isinstance(event, FaultEvent):
            state = engine.fault(state, event.seat)
        else:
            outcome = state.history[-1]
            assert event == RoundEnd(
                outcome.end, outcome.counted, outcome.changed_seat, outcome.dice_change
            )
    assert state.is_over
    return state


def read_record(path: Path) -> list[pb.RefereeMessage]:
    """The RefereeMessages a recording bot wrote, in the order it received them."""
    if not path.exists():
        return []
    return [
        pb.RefereeMessage.FromString(base64.b64decode(line))
        for line in path.read_text().splitlines()
        if line
    ]


async def until(check: Callable[[], bool], timeout: float) -> bool:
    """Wait until `check()` holds; False if it still does not after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def bot_folder(folder: Path, name: str, script: str, settings: dict[str, str]) -> None:
    """A bot folder for `arena run` holding one of the test bots, with its settings
    beside it (see `harness_bots/bot_settings.py`)."""
    (folder / name).mkdir()
    (folder / name / "bot.env").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    for part in (script, "strategy.py", "bot_settings.py"):
        shutil.copy(BOTS / part, folder / name / part)
    (folder / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python {script}"\n')
