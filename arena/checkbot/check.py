"""`arena check-bot`: put one bot through the situations that trip bots up.

The bot runs as it would in a tournament (its manifest, build, process,
session), against a real referee. Each probe is an exact position built with
the engine (an opening, a raise after a paco bid, a palifico round, a calza
offer, ...) sent to the bot as a real request; its answer must be legal and
on time. Then it plays whole games, several at once, against opponents that
run in process. Every failure says what the bot sent and what was expected,
and comes with the last lines of the bot's log; the log itself is kept (its
path is in `CheckRun.log`) for the author to read once the check is over.

This module starts the bot and runs the check in order; the probes are in
`probing`, the whole games in `games`, and what each check says in `verdict`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.builds import buildstamp
from arena.bots.builds.build import run_build
from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.environment import arena_variables
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import Sandbox, SandboxError, SandboxMode, decide
from arena.bots.manifest import BotSpec, ManifestError, load_entry
from arena.bots.run.logdrain import last_line, last_lines
from arena.bots.run.processes import BotProcess
from arena.checkbot.games import play_games
from arena.checkbot.positions import probes
from arena.checkbot.probing import probe_bot
from arena.checkbot.verdict import Check
from arena.referee.clock.deadline import TimeControl
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, ServerLimits
from arena.referee.session.exits import describe_exit, exit_probe
from arena.text import printable

__all__ = ["Check", "CheckRun", "check_bot"]
"""The check's face: `check_bot`, what it returns, and what it says of each check."""

SESSIONS = 2
CONNECTS = "connects and says hello"
LOG_LINES = 8
BRIDGE = "arena.kit.bridge"
"""Lines of the bot's log shown with each failure."""


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
    build_network: BuildNetwork = BuildNetwork.ISOLATED,
    rebuild: bool = False,
    timeouts: bool = True,
    strict: bool = False,
) -> CheckRun:
    """Put the bot at `path` through the checks; an unchanged bot is not built again
    unless `rebuild` (see `arena.bots.builds.buildstamp`), and `timeouts` False (a bot in a
    debugger) sets no deadline. `strict`: a stranger's bot, its programs found as a league
    server finds them (`arena.bots.isolation.limits.Confinement.strict`)."""
    run = CheckRun()
    clock = TimeControl(move_time, enforced=timeouts)
    logs: list[Path] = []
    """Where the logs go, once there is a folder for them: the bot's, and its build's."""

    def record(check: Check) -> None:
        # As text: a check's words quote the bot's log, its build's output, its manifest
        # and what it sent, and they go to a person's terminal.
        check = dataclasses.replace(
            check, detail=printable(check.detail), warning=printable(check.warning)
        )
        if not check.passed and not check.final and logs:
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
    missing = spec.missing_programs(strict)
    if missing:
        record(Check("toolchain", False, f"needs {', '.join(missing)}, not found on PATH"))
        return run
    try:
        decided = decide(sandbox, build_network)
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
            strict,
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
    strict: bool,
) -> None:
    """Build, start and probe the bot, confined as in a tournament."""
    private = logs / "referee"
    private.mkdir(mode=0o700)
    socket = private / "referee.sock"
    confinement = Confinement(sandbox, cgroups, socket, strict=strict)
    said = confinement.describe(limits)
    warning = next((line for line in said if line.startswith("WARNING: ")), "")
    detail = "; ".join(line for line in said if line != warning)
    record(Check("sandbox", True, detail, warning=warning.removeprefix("WARNING: ")))
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
            spec,
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
    spec: BotSpec,
    process: BotProcess,
    logs: Path,
    clock: TimeControl,
    window: tuple[float, str],
    sessions: int,
) -> None:
    name = spec.name
    connect_timeout, given = window  # the bot's manifest's, else --connect-timeout
    deadline = time.monotonic() + connect_timeout
    while not lobby.connected().get(name) and process.alive and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if not lobby.connected().get(name):
        code = None if process.alive else await process.exit_status()
        last = last_line(logs / "bot.log", 300)
        if process.alive:
            why = f"nothing within {connect_timeout:g} s ({given})"
        else:
            why = "its process exited" if code is None else f"its process {describe_exit(code)}"
            if code == 0 or not last_lines(logs / "bot.log", 1):
                why += f" without ever dialling the referee; {_bridge_hint(spec)}"
        record(Check(CONNECTS, False, f"{why}; last log line: {last}"))
        return
    record(Check(CONNECTS, True, f"{lobby.connected()[name]} session(s)"))
    # Each session may come from a process of its own that loads as slowly as the first
    # did: every one gets the time the first had.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(connect_timeout):
            await _sessions(lobby, name, sessions)
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
    for index, probe in enumerate(probes()):
        check = await probe_bot(session, probe, clock, first=index == 0)
        record(check)
        if check.final:
            return
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
    await play_games(pool, clock, record)


def _bridge_hint(spec: BotSpec) -> str:
    """What a program that quietly ends before dialling most often lacks: it reads JSON lines
    on stdin, which is /dev/null, and was started without the bridge in front of it."""
    if BRIDGE in spec.run:
        return "it is started through the bridge, so its program ended before the bridge dialled"
    bridged = shlex.join(("python", "-m", BRIDGE, "--", *spec.run))
    where = "in its bot.toml" if spec.path.is_dir() else "in the bot.toml of a folder for it"
    return (
        "a program that reads JSON lines on stdin needs the bridge in front of it, "
        f'{where}: run = "{bridged}" (docs/writing-a-bot.md, 7.2)'
    )


async def _sessions(lobby: Lobby, name: str, count: int) -> None:
    while lobby.connected().get(name, 0) < count:
        await asyncio.sleep(0.05)
