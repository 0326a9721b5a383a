"""`arena check-bot`: put one bot through the situations that trip bots up.

The bot runs as it would in a tournament (its manifest, build, process,
session), against a real referee. Each probe is an exact position built with
the engine (an opening, a raise after a paco bid, a palifico round, a calza
offer, ...) sent to the bot as a real request; its answer must be legal and
on time. Then it plays whole games, several at once, against opponents that
run in process. Every failure says what the bot sent and what was expected,
and comes with the last lines of the bot's log; the log itself is kept (its
path is in `CheckRun.log`) for the author to read once the check is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import engine
from arena.bots import buildstamp
from arena.bots.build import run_build
from arena.bots.cgroups import CgroupRoot
from arena.bots.environment import arena_variables
from arena.bots.limits import Confinement, ResourceLimits
from arena.bots.logdrain import last_line, last_lines
from arena.bots.manifest import BotSpec, ManifestError, load_entry
from arena.bots.processes import BotProcess
from arena.bots.sandbox import Sandbox, SandboxError, SandboxMode, decide
from arena.checkbot.positions import HouseSeat, Probe, probes
from arena.protocol import wire
from arena.protocol.faults import Fault, FaultKind
from arena.referee.auth import TokenBook
from arena.referee.clock import GameClock, TimeControl
from arena.referee.exits import describe_exit, exit_probe
from arena.referee.match import GameSpec, Match, Seat, answer_misfit
from arena.referee.pool import Lobby
from arena.referee.reply import Reply, next_request_id
from arena.referee.server import Referee, ServerLimits
from arena.referee.session import Session
from engine import CalzaRule, Ruleset

SESSIONS = 2
OPPONENT = "house"
CONNECTS = "connects and says hello"
LOG_LINES = 8
"""Lines of the bot's log shown with each failure."""


NEAR_LIMIT = 0.9
"""A decision that takes this share of its limit passes, with a warning: on a busier
machine, or a harder position, it would be a timeout."""


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    passed: bool
    detail: str = ""
    warning: str = ""
    """For a check passed: what the author should still know (a decision near its limit)."""
    log_tail: tuple[str, ...] = ()
    """For a failure: the last lines of the bot's log (or its build's) when it was found."""


def near_limit(ms: float, move_time: float) -> str:
    """The warning for a decision of `ms` that came within 10% of the move time (or, with
    timeouts off, past it), or ""."""
    limit_ms = move_time * 1000
    if ms < NEAR_LIMIT * limit_ms:
        return ""
    if ms > limit_ms:  # only with timeouts off
        return (
            f"a decision took {ms:.0f} ms, over the {limit_ms:.0f} ms limit: "
            "a timeout, were they on"
        )
    return (
        f"a decision took {ms:.0f} ms, within 10% of the {limit_ms:.0f} ms limit: "
        "on a busier machine it would time out"
    )


async def _probe(session: Session, probe: Probe, clock: TimeControl) -> Check:
    request_id = next_request_id()
    game_id = f"check-{probe.name.replace(' ', '-')}"
    players = tuple(
        OPPONENT if s != probe.seat else session.name for s in range(probe.state.players)
    )
    request = wire.encode_request(
        engine.observe(probe.state, probe.seat),
        request_id=request_id,
        offer=probe.offer,
        game_id=game_id,
        players=players,
        ruleset=wire.ruleset_to_proto(probe.state.ruleset),
        news=(),
        time_left_ms=round(clock.move_time * 1000),
    )
    reply = await session.ask(request, request_id, GameClock(clock, 1).limit(0))
    if reply.fault is not None and reply.late is not None:
        reply = await _lateness(reply, max(clock.move_time, 1.0))
    if reply.fault is not None and reply.fault.kind is FaultKind.DISCONNECT:
        how = await session.crashed()
        if how is not None:
            crash = Fault(FaultKind.CRASH, f"the bot's process died, {how}", "", request_id)
            reply = dataclasses.replace(reply, fault=crash)
    check = _judge(probe, reply, clock.move_time)
    await session.send(
        wire.game_over_to_proto(
            game_id=game_id,
            seat=probe.seat,
            order=[probe.seat, *(s for s in range(probe.state.players) if s != probe.seat)],
            players=players,
            news=(),
            fault=reply.fault,
        )
    )
    return check


async def _lateness(reply: Reply, within: float) -> Reply:
    """A timed-out probe waits `within` seconds more for the reply, to say how late it came:
    a bot a little too slow and one that never answers want different fixes."""
    assert reply.fault is not None and reply.late is not None
    try:
        late = await asyncio.wait_for(asyncio.shield(reply.late), within)
    except TimeoutError:
        late = f"no reply came in {within:.1f} s more either"
    fault = dataclasses.replace(reply.fault, detail=f"{reply.fault.detail}; {late}")
    return dataclasses.replace(reply, fault=fault)


def _judge(probe: Probe, reply: Reply, move_time: float) -> Check:
    name = f"{probe.name}"
    if reply.fault is not None:
        sent = f"; it sent {reply.fault.sent}" if reply.fault.sent else ""
        return Check(
            name,
            False,
            f"{reply.fault.kind.value}: {reply.fault.detail}{sent}; expected {probe.expect}",
        )
    answer = reply.answer
    timing = f"{reply.elapsed * 1000:.1f} ms"
    why = answer_misfit(answer, probe.offer)
    if why is None and isinstance(answer, engine.Bid | engine.Dudo | engine.Calza):
        refusal = engine.refusal(probe.state, probe.seat, answer)
        why = None if refusal is None else str(refusal)
    if why is None:
        warning = near_limit(reply.elapsed * 1000, move_time)
        return Check(name, True, f"{answer} ({timing})", warning)
    return Check(
        name, False, f"it sent {answer}, which is illegal ({why}); expected {probe.expect}"
    )


async def _games(
    session_pool: list[Session], clock: TimeControl, say: Callable[[Check], None]
) -> list[Check]:
    variants = [
        ("rulebook", Ruleset()),
        ("calza by anyone", Ruleset(calza=CalzaRule.ANY)),
        ("no calza, palifico every time", Ruleset(calza=CalzaRule.OFF, palifico_once=False)),
        ("one-die face change", Ruleset(palifico_one_die_may_change_face=True, dice_per_player=3)),
    ]
    checks: list[Check] = []
    seed = engine.new_seed()

    async def play(index: int, label: str, ruleset: Ruleset, session: Session) -> Check:
        seats: list[Seat] = [HouseSeat(f"{OPPONENT}-{i}") for i in range(3)]
        seat = index % 3
        seats[seat] = session
        names = tuple(s.name for s in seats)
        spec = GameSpec(f"check-game-{index}", names, f"check-{index}", ruleset)
        record = await Match(spec, seats, seed, clock).play()
        faults = [f for f in record.faults if f.seat == seat]
        place = record.order.index(seat) + 1
        name = f"whole game: {label}"
        if faults:
            f = faults[0].fault
            sent = f"; it sent {f.sent}" if f.sent else ""
            return Check(
                name, False, f"{f.kind.value} in round {faults[0].round}: {f.detail}{sent}"
            )
        times = record.think_ms[seat]
        slowest = max(times) if times else 0.0
        return Check(
            name,
            True,
            f"place {place} of 3, {len(times)} decisions, slowest {slowest:.1f} ms",
            near_limit(slowest, clock.move_time),
        )

    for start in range(0, len(variants), len(session_pool)):
        batch = variants[start : start + len(session_pool)]
        results = await asyncio.gather(
            *(
                play(start + i, label, rules, session_pool[i])
                for i, (label, rules) in enumerate(batch)
            )
        )
        for check in results:
            say(check)
            checks.append(check)
    return checks


@dataclass
class CheckRun:
    checks: list[Check] = field(default_factory=list)
    log: Path | None = None
    """The bot's log, kept after the check (None when the bot was never started)."""

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)


async def check_bot(
    path: Path,
    say: Callable[[Check], None],
    move_time: float = 1.0,
    connect_timeout: float = 20.0,
    limits: ResourceLimits | None = None,
    sandbox: SandboxMode = SandboxMode.AUTO,
    rebuild: bool = False,
    timeouts: bool = True,
) -> CheckRun:
    """Put the bot at `path` through the checks; an unchanged bot is not built again
    unless `rebuild` (see `arena.bots.buildstamp`), and `timeouts` False (a bot in a
    debugger) sets no deadline."""
    run = CheckRun()
    clock = TimeControl(move_time, enforced=timeouts)
    logs: list[Path] = []
    """Where the logs go, once there is a folder for them: the bot's, and its build's."""

    def record(check: Check) -> None:
        if not check.passed and logs:
            for log in logs:  # the bot's log if it was started, else its build's
                if tail := last_lines(log, LOG_LINES):
                    check = dataclasses.replace(check, log_tail=tail)
                    break
        run.checks.append(check)
        say(check)

    try:
        spec = load_entry(path)
    except ManifestError as error:
        record(Check("manifest", False, str(error)))
        return run
    if spec is None:
        record(
            Check(
                "manifest",
                False,
                f"{path} is not a bot (a folder with bot.toml, or a .py/.js/.sh script)",
            )
        )
        return run
    missing = spec.missing_programs()
    if missing:
        record(Check("toolchain", False, f"needs {', '.join(missing)}, not found on PATH"))
        return run
    try:
        decided = decide(sandbox)
    except SandboxError as error:
        record(Check("sandbox", False, str(error)))
        return run
    limits = limits or ResourceLimits()
    cgroups = CgroupRoot.find()
    # Kept when the check is over: the bot's log is where its author finds out why.
    folder = Path(tempfile.mkdtemp(prefix=f"check-bot-{spec.name}-"))
    logs.extend((folder / "bot.log", folder / "build.log"))
    try:
        await _check_in(
            spec,
            folder,
            record,
            run,
            limits,
            decided,
            cgroups,
            clock,
            connect_timeout,
            rebuild,
        )
    finally:
        shutil.rmtree(folder / "referee", ignore_errors=True)
        if cgroups is not None:
            cgroups.remove()
    for log in logs:
        if log.exists():
            run.log = log
            break
    return run


async def _check_in(
    spec: BotSpec,
    logs: Path,
    record: Callable[[Check], None],
    run: CheckRun,
    limits: ResourceLimits,
    sandbox: Sandbox,
    cgroups: CgroupRoot | None,
    clock: TimeControl,
    connect_timeout: float,
    rebuild: bool,
) -> None:
    """Build, start and probe the bot, confined as in a tournament."""
    private = logs / "referee"
    private.mkdir(mode=0o700)
    socket = private / "referee.sock"
    confinement = Confinement(sandbox, cgroups, socket)
    record(Check("sandbox", True, " ".join(confinement.describe(limits))))
    if spec.build is not None and not rebuild and buildstamp.current(spec):
        record(Check("build", True, "unchanged since its last build: not rebuilt (--rebuild)"))
    else:
        failure = await run_build(spec, {}, logs / "build.log", limits, confinement)
        if failure is not None:
            record(Check("build", False, failure))
            return
        if spec.build is not None:
            record(Check("build", True, " ".join(spec.build)))
    tokens = TokenBook()
    lobby = Lobby(tokens)
    referee = Referee(lobby, ServerLimits(move_time=clock.move_time))
    port = await referee.start(unix_socket=socket)
    sessions = min(SESSIONS, spec.sessions or SESSIONS)
    env = arena_variables(confinement.address(port), spec.name, tokens.issue(spec.name), sessions)
    process = await BotProcess.start(spec, env, logs / "bot.log", limits, confinement)
    lobby.crash_probes[spec.name] = exit_probe(process.process)
    try:
        await _check_running(
            record,
            lobby,
            spec.name,
            process,
            logs,
            clock,
            spec.connect_window(connect_timeout),
            sessions,
        )
    finally:
        await referee.stop("the check is over")
        code = await process.stop()
    if any(c.name == CONNECTS and c.passed for c in run.checks):
        how = "still running when stopped" if code is None else describe_exit(code)
        record(Check("exits after goodbye", code == 0, how))


async def _check_running(
    record: Callable[[Check], None],
    lobby: Lobby,
    name: str,
    process: BotProcess,
    logs: Path,
    clock: TimeControl,
    window: tuple[float, str],
    sessions: int,
) -> None:
    connect_timeout, given = window  # the bot's manifest's, else --connect-timeout
    deadline = time.monotonic() + connect_timeout
    while not lobby.connected().get(name) and process.alive and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if not lobby.connected().get(name):
        code = process.process.returncode
        if process.alive:
            why = f"nothing within {connect_timeout:g} s ({given})"
        else:
            why = "its process exited" if code is None else f"its process {describe_exit(code)}"
        record(Check(CONNECTS, False, f"{why}; last log line: {last_line(logs / 'bot.log', 300)}"))
        return
    record(Check(CONNECTS, True, f"{lobby.connected()[name]} session(s)"))
    # Each session may come from a process of its own that loads as slowly as the first
    # did: every one gets the time the first had.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(_sessions(lobby, name, sessions), connect_timeout)
    opened = lobby.connected().get(name, 0)
    record(
        Check(
            f"opens {sessions} session(s) when asked",
            opened >= sessions,
            f"opened {opened} (PERUDO_SESSIONS={sessions})",
        )
    )
    borrowed = await lobby.borrow_table([name])
    session = borrowed[name]
    if session is None:
        record(
            Check(
                "stays connected",
                False,
                f"the session closed; last log line: {last_line(logs / 'bot.log', 300)}",
            )
        )
        return
    pool = [session]
    if sessions > 1 and opened >= sessions:
        second = (await lobby.borrow_table([name]))[name]
        if second is not None:
            pool.append(second)
    for probe in probes():
        record(await _probe(session, probe, clock))
        if session.closed:
            record(
                Check(
                    "stays connected",
                    False,
                    f"{session.close_reason}; last log line: {last_line(logs / 'bot.log', 300)}",
                )
            )
            return
    record(
        Check(
            "keeps playing after game over",
            not session.closed,
            "answered every probe after its game over",
        )
    )
    await _games(pool, clock, record)


async def _sessions(lobby: Lobby, name: str, count: int) -> None:
    while lobby.connected().get(name, 0) < count:
        await asyncio.sleep(0.05)
