"""`arena play`: the person at the terminal takes a seat at a table of bots.

The quickest way for an author to feel how a bot plays. The game goes
through the same referee and protocol as a tournament: the bots are built,
sandboxed and started as in `arena run`, and the person plays through
`arena.kit.human`, a client that dials the referee like any bot, started as
a child process that shares this terminal. Their seat has time enough for a
person; the bots keep `--move-time`. Nothing is recorded in a league; the
bots' logs are kept, and where is said at the end.

Each game's summary is printed once the person's client has exited, so that
it never falls among the lines that client is still writing to the shared
terminal. A person whose input ends has left the table (the client exits 0):
that is said as such, not as a crash, and no further game is dealt.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import engine
from arena.bots.builds.build import run_build
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.environment import arena_variables
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import decide
from arena.bots.manifest import BotSpec, discover
from arena.bots.run.processes import BotProcess
from arena.cli import options, validate
from arena.referee.clock.deadline import TimeControl
from arena.referee.service.auth import TokenBook
from arena.referee.session.exits import exit_probe
from arena.tournament.config import TournamentError
from arena.tournament.options import Command

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from arena.protocol.messages import referee as pb
    from arena.referee.match import GameRecord, Seat
    from arena.referee.service.lobby import Lobby
    from arena.referee.service.referee_server import Referee
    from arena.referee.session.reply import Reply
    from arena.referee.session.session import Session

HUMAN_TIME = 3600.0
"""Seconds the person has for each decision: no limit a person at the table would meet."""

MAX_BOTS = 5
"""Bots at the table with the person: six seats in all, as a tournament's tables."""

Say = Callable[[str], None]


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    play = commands.add_parser("play", help="play a game yourself, at a table with bots")
    play.add_argument(
        "--bots",
        type=validate.folder,
        required=True,
        help=f"folder of bots to play against (up to {MAX_BOTS}; as for arena run)",
    )
    play.add_argument(
        "--seat",
        type=validate.int_between(0, MAX_BOTS),
        default=0,
        help="your seat, from 0 to the number of bots (default 0; seat 0 opens when the "
        "opener is seat0)",
    )
    play.add_argument(
        "--games",
        type=validate.int_between(1, 100),
        default=1,
        help="games to play (default 1)",
    )
    options.add_options(play, Command.PLAY)  # --move-time is the bots': yours has no limit


class PatientSeat:
    """The person's seat: their session, with a person's time for every decision."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.name = session.name

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        return await self._session.ask(request, request_id, HUMAN_TIME)

    async def send(self, message: pb.RefereeMessage) -> bool:
        return await self._session.send(message)

    async def crashed(self) -> str | None:
        return await self._session.crashed()


@dataclass(frozen=True, slots=True)
class Table:
    """Who sits where: bot names, with the person's name at their seat."""

    names: tuple[str, ...]
    human: str


def _seat(bots: list[BotSpec], seat: int) -> Table:
    check_seat(seat, len(bots))
    taken = {b.name for b in bots}
    human = next(n for n in ("you", "human", "person") if n not in taken)
    names = [b.name for b in bots]
    names.insert(seat, human)
    return Table(tuple(names), human)


def check_seat(seat: int, bots: int) -> None:
    """A seat the table has: at a table of `bots` bots and the person, 0 to `bots`."""
    if seat > bots:
        raise TournamentError(
            f"--seat {seat}: the table has {bots + 1} seats ({bots} bot{'s' if bots != 1 else ''}"
            f" and you), so your seat is 0 to {bots}"
        )


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    def say(text: str) -> None:
        console.print(text, highlight=False, markup=False)

    return asyncio.run(_play(args, say))


async def _play(args: argparse.Namespace, say: Say) -> int:
    config = options.config(args, Command.PLAY, bots_dir=args.bots)
    logs = Path(tempfile.mkdtemp(prefix="arena-play-"))
    private = logs / "referee"
    private.mkdir(mode=0o700)
    cgroups = CgroupRoot.find()
    socket = private / "referee.sock"
    confinement = Confinement(decide(config.sandbox, config.build_network), cgroups, socket)
    try:
        bots = await _built(args.bots, logs, confinement, say, args.seat)
        table = _seat(bots, args.seat)
        tokens = TokenBook()
        referee = _referee(tokens, config.move_time)
        lobby = referee.lobby
        port = await referee.start("127.0.0.1:0", unix_socket=socket)
        processes: list[BotProcess] = []
        records: list[GameRecord] = []
        human: asyncio.subprocess.Process | None = None
        try:
            for bot in bots:
                address = confinement.address(port)
                env = arena_variables(address, bot.name, tokens.issue(bot.name), 1)
                process = await BotProcess.start(
                    bot, env, logs / f"{bot.name}.log", ResourceLimits(), confinement
                )
                processes.append(process)
                lobby.crash_probes[bot.name] = exit_probe(process.process)
            human = await _start_human(table.human, tokens.issue(table.human), port)
            lobby.crash_probes[table.human] = exit_probe(human)
            # The slowest a bot's manifest allows to connect, if longer than --connect-timeout.
            timeout = max(b.connect_window(config.connect_timeout)[0] for b in bots)
            ready = await lobby.wait_for(table.names, 1, max(timeout, config.connect_timeout))
            missing = [n for n in table.names if n not in ready]
            if missing:
                raise TournamentError(
                    f"{', '.join(missing)} did not connect within {timeout:g} s (logs: {logs})"
                )
            for index in range(1, args.games + 1):
                record = await _game(lobby, table, config.ruleset, config.move_time, index)
                if record is None:  # the person left during the game before
                    break
                records.append(record)
        finally:
            await referee.stop("the game is over")
            if human is not None:
                await _stop_human(human)
            await asyncio.gather(*(p.stop() for p in processes))
            # Only now: the person's client has written its last line to this terminal.
            left = human is not None and human.returncode == 0 and _faulted(records, table.human)
            for record in records:
                _tell(record, say, table.human, left)
            if left:
                say(f"You left the table after {len(records)} of {args.games} game(s).")
    finally:
        if cgroups is not None:
            cgroups.remove()
    say(f"The bots' logs: {logs}")
    return 0


def _referee(tokens: TokenBook, move_time: float) -> Referee:
    """The table's referee: loaded to play, never for `arena --help` nor the other commands."""
    from arena.referee.service.lobby import Lobby
    from arena.referee.service.referee_server import Referee, ServerLimits

    return Referee(Lobby(tokens), ServerLimits(move_time=move_time))


async def _built(
    folder: Path, logs: Path, confinement: Confinement, say: Say, seat: int
) -> list[BotSpec]:
    """The bots of `folder` that are ready to play (built, if they have a build); a seat the
    table would not have is refused before any build."""
    found, problems = discover(folder)
    for entry, reason in problems:
        say(f"{entry}: skipped: {reason}")
    if len(found) > MAX_BOTS:
        say(f"{len(found)} bots: the first {MAX_BOTS} play, {MAX_BOTS + 1} seats in all")
        found = found[:MAX_BOTS]
    if found:
        check_seat(seat, len(found))
    bots: list[BotSpec] = []
    for bot in found:
        log = logs / f"{bot.name}.build.log"
        failure = await run_build(bot, {}, log, ResourceLimits(), confinement)
        if failure is None:
            bots.append(bot)
        else:
            say(f"{bot.name}: skipped: {failure}")
    if not bots:
        raise TournamentError(f"no bot in {folder} is ready to play against")
    return bots


async def _start_human(name: str, token: str, port: int) -> asyncio.subprocess.Process:
    """The person's client, sharing this terminal: it dials the referee like a bot."""
    env = dict(os.environ, **arena_variables(f"127.0.0.1:{port}", name, token, 1))
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "arena.kit.human", env=env)


async def _stop_human(human: asyncio.subprocess.Process) -> None:
    """It leaves on the referee's Goodbye; one that does not is stopped."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(5):
            await human.wait()
    if human.returncode is None:
        human.kill()
        await human.wait()


async def _game(
    lobby: Lobby, table: Table, ruleset: engine.Ruleset, move_time: float, index: int
) -> GameRecord | None:
    """The game played, or None when the person has left the table."""
    from arena.referee.match import GameSpec, Match

    game_id = f"play-{index}"
    borrowed = await lobby.borrow_table(table.names)
    if borrowed.get(table.human) is None:
        for session in borrowed.values():
            if session is not None:
                await lobby.give_back(session)
        return None
    seats: list[Seat] = []
    for name, session in borrowed.items():
        if session is None:
            raise TournamentError(f"{name} has left the table")
        seats.append(PatientSeat(session) if name == table.human else session)
    try:
        spec = GameSpec(game_id, table.names, game_id, ruleset)
        return await Match(spec, seats, engine.new_seed(), TimeControl(move_time)).play()
    finally:
        for session in borrowed.values():
            if session is not None:
                await lobby.give_back(session)


def _faulted(records: list[GameRecord], name: str) -> bool:
    return any(f.bot == name for record in records for f in record.faults)


def _tell(record: GameRecord, say: Say, human: str, left: bool) -> None:
    """A game's summary; `left`: the person's client ended on their input's end, so their
    fault (the stream closed mid-game) is them leaving the table."""
    say(f"Game {record.spec.game_id}: {', '.join(record.ranking)} (winner first)")
    for fault in record.faults:
        if left and fault.bot == human:
            say("  you left the table (your input ended): out of the game")
        else:
            say(f"  fault: {fault.bot} {fault.fault.kind.value}: {fault.fault.detail}")
    if not record.faults:
        say("  no faults")
