"""Speed, measured side by side in one run: never a timed test.

- engine: random legal games in process (deals included), microseconds per
  decision and games per second for 2, 4 and 6 players;
- transport: raw gRPC round trips per second over bidirectional streams, from
  this process to bot processes running the bot kit, at the arena's
  concurrency (one request in flight per stream);
- arena: decisions per second of the real referee playing that many games at
  once against the same bot processes.
The ratio arena/transport says what the referee costs beyond the round trip
that every decision needs anyway. With `sandbox`, the arena is measured a
second time with its bots in the bubblewrap sandbox (dialling its Unix
socket), alternating with the unsandboxed arena, and each side's start-up
cost per bot (process start to first session) is measured too.
"""

from __future__ import annotations

import asyncio
import cProfile
import functools
import gc
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc

import engine
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.environment import arena_variables
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import Sandbox, SandboxMode, decide
from arena.bots.manifest import BotSpec
from arena.bots.run.processes import BotProcess
from arena.errors import ArenaError
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameSpec, Match
from arena.referee.service.auth import TokenBook
from arena.referee.service.heap import frozen_heap
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import SERVICE, Referee, ServerLimits
from bench import bot as bench_bot
from bench.engine_speed import engine_speed
from bench.overhead import GameGaps, Overhead
from bench.sandbox import ArenaSpeed, sandbox_figures, spawn_times

_EOF = grpc.aio.EOF  # type: ignore[attr-defined]  # missing from the stubs
_BOT = Path(__file__).with_name("bot.py")


class BenchError(ArenaError):
    """The benchmark's bots did not get going, so there is nothing to measure."""


async def start_bots(
    port: int,
    tokens: TokenBook,
    count: int,
    sessions: int,
    logs: Path,
    confinement: Confinement | None = None,
    lobby: Lobby | None = None,
) -> tuple[list[BotProcess], list[float]]:
    """Start the bots; with a lobby, one at a time, timing each from start to first session."""
    confinement = confinement or Confinement()
    bots, startups = [], []
    for i in range(count):
        name = f"bench-{i}"
        spec = BotSpec(name=name, path=_BOT, workdir=_BOT.parent, run=("python", _BOT.name))
        env = arena_variables(confinement.address(port), name, tokens.issue(name), sessions)
        started = time.monotonic()
        bots.append(
            await BotProcess.start(spec, env, logs / f"{name}.log", ResourceLimits(), confinement)
        )
        if lobby is not None:
            await _until(functools.partial(_has_session, lobby, name), 20)
            startups.append(time.monotonic() - started)
    return bots, startups


def _has_session(lobby: Lobby, name: str) -> bool:
    return bool(lobby.connected().get(name))


def sample_requests(games: int = 20, players: int = 4) -> list[bytes]:
    """The requests of whole games, encoded as the referee sends them.

    The games are played by the benchmark bot's own policy, and the transport
    is measured with their requests, so that the bots do the same work per
    round trip as in the arena (round results included) and the ratio shows
    what the referee itself adds. They are written as they are, with
    the request id they were built with: the bots echo it, and the relay
    does not look.
    """
    dice = engine.HmacDice(b"b" * 32, "sample")
    messages = []
    for game in range(games):
        builder = wire.RequestBuilder(
            f"sample-{game}",
            [f"p{i}" for i in range(players)],
            wire.ruleset_to_proto(engine.Ruleset()),
            1000,
        )
        told = [0] * players
        state = engine.new_game(engine.Ruleset(), players, game % players)
        while not state.is_over:
            if state.phase is engine.Phase.DEAL:
                state = engine.deal(state, engine.roll_hands(state, dice))
                continue
            seat = state.to_act
            obs = engine.observe(state, seat)
            messages.append(
                builder.build(
                    obs, request_id=0, offer=False, history=state.history, told=told[seat]
                )
            )
            told[seat] = len(state.history)
            answer = bench_bot.act(obs)
            assert not isinstance(answer, wire.Pass)  # every request here is a turn
            state = engine.apply(state, seat, answer)
    return messages


async def transport_speed(
    concurrency: int, bots: int, seconds: float, logs: Path
) -> tuple[float, Overhead]:
    """Round trips per second with a server that only relays requests: the transport's limit;
    and the gaps from a reply read to the next request written, a relay's least overhead.

    Traffic takes the arena's shape, with nothing of the referee in it: the
    bots hold as many streams as in the arena, `concurrency` chains of requests
    are in flight, and each chain moves from bot to bot the way a game's turns
    move from seat to seat, reading each reply inline on its stream.
    """
    tokens = TokenBook()
    requests = sample_requests()
    free: dict[int, list[grpc.aio.ServicerContext]] = {}  # type: ignore[type-arg]
    done = asyncio.Event()
    opened = 0

    async def play(_requests: object, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        nonlocal opened
        first = await context.read()
        if first is _EOF:
            return
        await context.write(
            pb.RefereeMessage(welcome=pb.Welcome(protocol_version=1)).SerializeToString()
        )
        name = pb.BotMessage.FromString(first).hello.name
        free.setdefault(int(name.rpartition("-")[2]), []).append(context)
        opened += 1
        await done.wait()
        await context.write(
            pb.RefereeMessage(goodbye=pb.Goodbye(reason="done")).SerializeToString()
        )

    trips = 0
    running = True
    gaps: list[float] = []
    loop = asyncio.get_running_loop()

    async def chain(index: int) -> None:
        nonlocal trips
        step = 0
        read = None
        while running:
            bot = (index + step) % bots  # the next seat's bot
            context = free[bot].pop()  # each bot holds a stream per chain: never empty
            await context.write(requests[(step + 7 * index) % len(requests)])
            if read is not None:
                gaps.append(loop.time() - read)
            step += 1
            await context.read()
            read = loop.time()
            free[bot].append(context)
            trips += 1

    server, port = await _relay(play)
    processes, _ = await start_bots(port, tokens, bots, concurrency, logs)
    try:
        await _until(lambda: opened >= bots * concurrency, 20)
        gc.collect()  # swept, so the heap freezes as a process's first play does
        with frozen_heap():  # as the arena plays (below)
            chains = asyncio.gather(*(chain(i) for i in range(concurrency)))
            rate = await _window(lambda: trips, seconds, gaps.clear)
            running = False
            await chains
    finally:
        done.set()
        await asyncio.gather(*(p.stop(grace=2) for p in processes))
        await server.stop(grace=1)
    return rate, Overhead.of(gaps)


async def _relay(play: Callable[..., Awaitable[None]]) -> tuple[grpc.aio.Server, int]:
    """A gRPC server on loopback whose Play streams `play` serves, raw bytes each way; its
    port."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE,
                {
                    "Play": grpc.stream_stream_rpc_method_handler(
                        play,
                        request_deserializer=None,
                        response_serializer=None,
                    )
                },
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def arena_speed(
    concurrency: int, bots: int, seconds: float, logs: Path, sandbox: Sandbox | None = None
) -> ArenaSpeed:
    """Decisions per second of the real referee with `concurrency` games at once.

    Games in flight count the decisions they have made so far, so the window
    is measured exactly as the transport's is. The bots run as `arena run`
    runs them: in cgroups where the machine allows, and in `sandbox` if given.
    """
    tokens = TokenBook()
    lobby = Lobby(tokens, max_sessions_per_bot=64)
    referee = Referee(lobby, ServerLimits(move_time=5.0))
    private = Path(tempfile.mkdtemp(prefix="perudo-bench-"))
    port = await referee.start(unix_socket=private / "referee.sock")
    cgroups = CgroupRoot.find()
    confinement = Confinement(sandbox or Sandbox(None, "off"), cgroups, referee.unix_socket)
    processes, startups = await start_bots(
        port, tokens, bots, concurrency, logs, confinement, lobby
    )
    names = [f"bench-{i}" for i in range(bots)]
    seed = engine.new_seed()
    finished = 0
    playing: set[Match] = set()
    running = True
    table = min(bots, 4)
    gaps: list[float] = []
    try:
        await lobby.wait_for(names, concurrency, 20)

        async def worker(w: int) -> None:
            nonlocal finished
            game = 0
            while running:
                game += 1
                players = tuple(random.sample(names, table))
                borrowed = await lobby.borrow_table(players)
                seats = [s for s in borrowed.values() if s is not None]
                spec = GameSpec(f"w{w}-g{game}", players, f"w{w}-g{game}", engine.Ruleset())
                timed = GameGaps(gaps)
                match = Match(spec, [timed.seat(s) for s in seats], seed, TimeControl(5.0))
                playing.add(match)
                record = await match.play()
                playing.discard(match)
                finished += record.decisions
                for session in seats:
                    await lobby.give_back(session)

        gc.collect()  # swept, so the heap freezes as a process's first play does
        with frozen_heap():  # as a tournament plays its games
            workers = asyncio.gather(*(worker(w) for w in range(concurrency)))
            rate = await _window(
                lambda: finished + sum(m.record.decisions for m in playing), seconds, gaps.clear
            )
            running = False
            await workers
    finally:
        await referee.stop()
        await asyncio.gather(*(p.stop(grace=2) for p in processes))
        if cgroups is not None:
            cgroups.remove()
        private.joinpath("referee.sock").unlink(missing_ok=True)
        private.rmdir()
    return ArenaSpeed(rate, statistics.median(startups), Overhead.of(gaps))


def _arena_line(label: str, speed: ArenaSpeed, concurrency: int) -> str:
    return (
        f"{label}: {speed.decisions_per_s:.0f} decisions/s at concurrency {concurrency}, "
        f"start-up {speed.startup_s * 1000:.0f} ms per bot; a reply read to the next request "
        f"written: {speed.overhead.line()}"
    )


async def _window(
    count: Callable[[], int], seconds: float, begin: Callable[[], None] = lambda: None
) -> float:
    """The rate of `count` over `seconds`, after a warm-up that is not counted (`begin` is
    called when it ends: what was gathered during it, forgotten).

    The first moments of a phase (bots' first requests, cold caches) say
    nothing about its steady speed, and both phases are counted alike.
    """
    await asyncio.sleep(min(0.5, seconds / 4))
    begin()
    started, first = time.monotonic(), count()
    await asyncio.sleep(seconds)
    return (count() - first) / (time.monotonic() - started)


async def _until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise BenchError("the benchmark's bots did not get going in time")
        await asyncio.sleep(0.02)


def _profiled(path: Path, measure: Callable[[], object]) -> None:
    """Run `measure` under cProfile and write its statistics to `path`."""
    profiler = cProfile.Profile()
    profiler.runcall(measure)
    profiler.dump_stats(path)


def run(
    seconds: float,
    concurrency: int,
    bots: int,
    logs: Path,
    say: Callable[[str], None],
    rounds: int = 3,
    sandbox: bool = False,
    profile: Path | None = None,
) -> dict[str, float]:
    """Measure everything; transport and arena alternate `rounds` times, best of each kept.
    With `profile`, the arena's measurement is played once more under cProfile, and where
    its time went is written there (pstats); that run is not counted.

    Alternating means a burst of load from elsewhere on a shared machine
    hurts one sample, not one side of the ratio. With `sandbox`, the arena
    with sandboxed bots takes its turn in each round too (`SandboxError` when
    this machine cannot sandbox).
    """
    jail = decide(SandboxMode.REQUIRE) if sandbox else None
    speeds = []
    for players in (2, 4, 6):
        speed = min(
            (engine_speed(players, seconds / 2 / rounds) for _ in range(rounds)),
            key=lambda s: s.us_per_decision,
        )
        speeds.append(speed)
        say(
            f"engine, {players} players: {speed.us_per_decision:.1f} us/decision, "
            f"{speed.games_per_s:.0f} games/s"
        )
    transports: list[tuple[float, Overhead]] = []
    arenas: list[ArenaSpeed] = []
    jailed: list[ArenaSpeed] = []
    for _ in range(rounds):
        transports.append(asyncio.run(transport_speed(concurrency, bots, seconds, logs)))
        say(
            f"transport: {transports[-1][0]:.0f} round trips/s at concurrency {concurrency}; "
            f"a reply read to the next request written: {transports[-1][1].line()}"
        )
        arenas.append(asyncio.run(arena_speed(concurrency, bots, seconds, logs)))
        say(_arena_line("arena", arenas[-1], concurrency))
        if jail is not None:
            jailed.append(asyncio.run(arena_speed(concurrency, bots, seconds, logs, jail)))
            say(_arena_line("arena, bots sandboxed", jailed[-1], concurrency))
    if profile is not None:
        _profiled(profile, lambda: asyncio.run(arena_speed(concurrency, bots, seconds, logs)))
        say(f"where the arena's time went: {profile} (python -m pstats {profile})")
    transport, relayed = max(transports, key=lambda t: t[0])
    best = max(arenas, key=lambda a: a.decisions_per_s)
    arena, referee = best.decisions_per_s, best.overhead
    worst = max(s.us_per_decision for s in speeds)
    spawns: dict[str, float] = {}
    if jail is not None:
        free_spawn, boxed_spawn = asyncio.run(spawn_times(logs, jail))
        say(
            f"start a process that does nothing: {free_spawn * 1000:.0f} ms, "
            f"sandboxed {boxed_spawn * 1000:.0f} ms"
        )
        spawns = {
            "spawn_ms": round(free_spawn * 1000, 1),
            "sandboxed_spawn_ms": round(boxed_spawn * 1000, 1),
            "sandbox_startup_cost_ms": round((boxed_spawn - free_spawn) * 1000, 1),
        }
    return {
        **sandbox_figures(arenas, jailed),
        **spawns,
        "engine_us_per_decision": round(worst, 2),
        **{f"engine_us_per_decision_{s.players}p": round(s.us_per_decision, 2) for s in speeds},
        **{f"engine_games_per_s_{s.players}p": round(s.games_per_s, 1) for s in speeds},
        "transport_roundtrips_per_s": round(transport, 1),
        "arena_decisions_per_s": round(arena, 1),
        "arena_to_transport_ratio": round(arena / transport, 3),
        "referee_overhead_p50_us": round(referee.p50_us, 1),
        "referee_overhead_p99_us": round(referee.p99_us, 1),
        "transport_overhead_p50_us": round(relayed.p50_us, 1),
        "transport_overhead_p99_us": round(relayed.p99_us, 1),
        "concurrency": concurrency,
        "rounds": rounds,
        "python": float(f"{sys.version_info.major}.{sys.version_info.minor}"),
    }
