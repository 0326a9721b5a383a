"""A tournament from start to finish: bots in, leaderboard out.

Discover and build the bots, start the referee on a local port, start each
bot with its address and token, wait for them to connect, play the schedule
with several games at once, record each game the moment it ends, and stop
everything that was started, however the run ends. A run that was stopped
(Ctrl-C, a crash, SIGKILL) resumes from its folder without losing or
repeating a game; one that was stopped before play began resumes (or is
started again under its name) from the beginning. One arena at a time runs a
folder: it holds the folder's lock for the whole run.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from arena.bots.cgroups import CgroupRoot
from arena.bots.manifest import BotSpec, ManifestError, discover
from arena.bots.processes import (
    BotProcess,
    Confinement,
    DescriptorError,
    ResourceLimits,
    arena_variables,
    check_descriptors,
    last_line,
    raise_open_files_limit,
    run_build,
)
from arena.bots.sandbox import Sandbox, SandboxError, SandboxMode, decide
from arena.errors import ArenaError
from arena.league.store import LeagueStore, StoreError
from arena.referee.auth import TokenBook
from arena.referee.match import DEFAULT_TIME_MARGIN
from arena.referee.pool import Lobby
from arena.referee.server import Referee, ServerLimits
from arena.referee.session import exit_probe
from arena.tournament.folder import ResultsError, TournamentFolder
from arena.tournament.lock import FolderBusyError, FolderLock
from arena.tournament.runner import Observer, Progress, Scheduler, Summary, Waiting
from arena.tournament.schedule import Deals, ScheduleError, check_deals
from engine import Ruleset

__all__ = [
    "Observer",
    "Progress",
    "Summary",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "Venue",
    "valid_tournament_name",
]


STOP_WRITE_GRACE = 1.0
"""Seconds a request still being written at a stop gets before it is a stall."""


class TournamentError(ArenaError):
    """The tournament cannot go on; the message says why."""


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def valid_tournament_name(name: str) -> bool:
    """A name that stays one folder inside the results folder: no '/', no '..'."""
    return bool(_NAME.match(name)) and ".." not in name


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    bots_dir: Path | None
    """Local bots to start; None when only remote bots play (on a league server)."""
    out: Path = Path("results")
    table_size: int | None = None
    """Players per game; None means every entrant, up to 6."""
    games: int = 120
    jobs: int = 6
    ruleset: Ruleset = field(default_factory=Ruleset)
    move_time: float = 1.0
    time_margin: float = DEFAULT_TIME_MARGIN
    """Seconds added to each decision's limit for scheduling jitter (bots are told `move_time`).

    25 ms: on a loaded 2-core machine, instant bots at a 50 ms move time were
    late about once in a thousand decisions without it, never with it
    (`arena bench --timing`)."""
    seed: bytes | None = None
    league: Path | None = None
    """The league store; None means `out/league.sqlite`."""
    connect_timeout: float = 20.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    name: str | None = None
    reconnect_grace: float = 60.0
    """On a league server: how long to wait for a disconnected bot before its games are dropped."""
    deals: Deals = Deals.OWN
    sandbox: SandboxMode = SandboxMode.AUTO

    @property
    def league_path(self) -> Path:
        return self.league if self.league is not None else self.out / "league.sqlite"


@dataclass(frozen=True, slots=True)
class Venue:
    """A referee that is already running (a league server's), and its remote entrants."""

    referee: Referee
    port: int
    remote: tuple[str, ...]


def too_few(playing: Sequence[str], how: str = "") -> str:
    """The one way the arena says a night cannot be: fewer than two bots to seat (`how`:
    what `playing` are, e.g. " connected")."""
    return f"fewer than two bots can play ({', '.join(playing) or 'none'}{how})"


class Tournament:
    def __init__(self, config: TournamentConfig, observer: Observer) -> None:
        self.config = config
        self.observer = observer
        self._stopping = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._processes: dict[str, BotProcess] = {}
        self._skipped: list[dict[str, str]] = []
        """Bots that will not play, with why: said at the end and kept in tournament.json."""
        self._confinement = Confinement()
        self._lobby: Lobby | None = None
        self._scheduler: Scheduler | None = None

    def waiting(self) -> list[Waiting]:
        """The disconnected bots its games wait for, with their grace left (none before play)."""
        return [] if self._scheduler is None else self._scheduler.waiting()

    @property
    def process_ids(self) -> dict[str, int]:
        """The process of each bot started, by name: all of them must be gone once it ends."""
        return {name: bot.process.pid for name, bot in self._processes.items()}

    def request_stop(self) -> None:
        """Finish the games in flight, then stop (the first Ctrl-C).

        A game waiting on a bot that takes no data would wait out its time
        limit: such a write is cut short, a stall, so the game can finish now.
        """
        self._stopping.set()
        if self._lobby is not None:
            for session in self._lobby.all_sessions():
                session.cut_stalled_write(STOP_WRITE_GRACE)

    def abort(self) -> None:
        """Stop now, abandoning the games in flight (the second Ctrl-C)."""
        self._stopping.set()
        for task in self._workers:
            task.cancel()

    async def run(self, resume: Path | None = None, venue: Venue | None = None) -> Summary:
        """Play the tournament on a referee of its own, or on `venue` with its remote bots."""
        where: list[TournamentFolder] = []
        try:
            return await self._run(resume, venue, where)
        except (
            ResultsError,
            StoreError,
            FolderBusyError,
            SandboxError,
            ManifestError,
            DescriptorError,
        ) as error:  # the run's callers (the CLI, the league) are told one type
            raise TournamentError(str(error)) from None
        except OSError as error:  # a full disk, say, outside the game records
            then = f"; once fixed, continue with: {_resume_command(where[0].root, venue)}"
            raise TournamentError(f"cannot go on: {error}{then if where else ''}") from None

    async def _run(
        self, resume: Path | None, venue: Venue | None, where: list[TournamentFolder]
    ) -> Summary:
        raise_open_files_limit()
        sandbox = decide(self.config.sandbox)
        if resume is None:
            self._check_config()
            store = LeagueStore(self.config.league_path)  # a damaged one: before any folder
        else:
            info = _read_info(resume)
            if venue is None and _played_on_server(info):
                raise TournamentError(
                    f"{resume} was played on a league server: its remote bots connect there, "
                    f"not here; resume it there with: arena admin start --resume {resume}"
                )
            store = LeagueStore(Path(info["league"]))
        try:
            folder, info, lock = self._open(resume, venue is not None)
        except BaseException:
            store.close()
            raise
        where.append(folder)
        try:
            return await self._run_in(folder, info, store, venue, sandbox)
        finally:
            store.close()
            lock.release()

    def _check_config(self) -> None:
        """What can be refused before anything is written."""
        cfg = self.config
        if cfg.bots_dir is not None and not cfg.bots_dir.is_dir():
            raise TournamentError(f"{cfg.bots_dir} is not a folder")
        if cfg.name is not None and not valid_tournament_name(cfg.name):  # from the admin service
            raise TournamentError(f"{cfg.name!r} is not a tournament name (it becomes a folder)")

    async def _run_in(
        self,
        folder: TournamentFolder,
        info: dict[str, Any],
        store: LeagueStore,
        venue: Venue | None,
        sandbox: Sandbox,
    ) -> Summary:
        starting = "entrants" not in info  # a new run, or one stopped before play began
        own: Referee | None = None
        bots: list[BotSpec] = []
        remote: tuple[str, ...] = ()
        private = Path(tempfile.mkdtemp(prefix="perudo-referee-"))  # 0700: the arena's alone
        cgroups = CgroupRoot.find()
        try:
            if venue is None:
                own = Referee(
                    Lobby(TokenBook(), max_sessions_per_bot=64),
                    ServerLimits(move_time=info["move_time"]),
                )
                port = await own.start("127.0.0.1:0", unix_socket=private / "referee.sock")
                referee = own
            else:
                referee, port, remote = venue.referee, venue.port, venue.remote
            self._confine(Confinement(sandbox, cgroups, referee.unix_socket), info)
            lobby = self._lobby = referee.lobby
            if info["bots_dir"] is not None:
                bots = await self._prepare_bots(
                    folder, info, not starting, lobby.tokens, need=2 - len(remote)
                )
            await self._start_bots(bots, lobby.tokens, lobby, port, folder, info["jobs"])
            connected = await self._await_connections(bots, lobby, folder)
            connected |= {name for name in remote if lobby.connected().get(name)}
            if starting:
                entrants = sorted(connected)
                if len(entrants) < 2:
                    raise TournamentError(self._too_few(entrants))
                info.update(_entrant_info(info, entrants, bots))
                info["skipped"] = self._skipped
                folder.write_info(info)
            store.add_tournament(info["id"], info)
            return await self._play(folder, info, lobby, store, venue)
        finally:
            if own is not None:
                await own.stop("the tournament is over")
            elif venue is not None:  # the venue stays up: dismiss only the bots this run started
                for session in venue.referee.lobby.all_sessions():
                    if session.name in self._processes:
                        await venue.referee.goodbye(session, "the tournament is over")
                for name in self._processes:
                    venue.referee.lobby.tokens.revoke(name)
            await asyncio.gather(*(p.stop() for p in self._processes.values()))
            for name, process in self._processes.items():
                if process.output_lost is not None:
                    self.observer.note(f"{name}: {process.output_lost}")
            if cgroups is not None:
                cgroups.remove()
            shutil.rmtree(private, ignore_errors=True)

    def _confine(self, confinement: Confinement, info: dict[str, Any]) -> None:
        """Say at the start, and in tournament.json, how far the local bots are kept apart."""
        self._confinement = confinement
        if info["bots_dir"] is None:
            return  # remote bots only: nothing here to isolate
        isolation = confinement.describe(self.config.limits)
        for line in isolation:
            self.observer.note(line)
        info["isolation"] = isolation

    async def _await_connections(
        self, bots: list[BotSpec], lobby: Lobby, folder: TournamentFolder
    ) -> set[str]:
        """Wait until every started bot has connected or died, or the timeout."""
        deadline = time.monotonic() + self.config.connect_timeout
        waiting = {b.name for b in bots if b.name in self._processes}
        while time.monotonic() < deadline:
            connected = set(lobby.connected())
            dead = {n for n in waiting - connected if not self._processes[n].alive}
            if waiting <= connected | dead:
                break
            await asyncio.sleep(0.05)
        connected = set(lobby.connected()) & waiting
        for name in sorted(waiting - connected):
            log = folder.logs / f"{name}.log"
            process = self._processes[name]
            if process.alive:
                why = f"did not connect within {self.config.connect_timeout:.0f} s; stopped"
                await process.stop(grace=0)
            else:
                why = f"exited with code {process.process.returncode} before connecting"
            self.observer.note(f"{name}: {why}: {last_line(log)} (log: {log})")
            self._skipped.append({"name": name, "reason": f"{why}: {last_line(log)}"})
        return connected

    def _skip(self, name: str, reason: str) -> None:
        self._skipped.append({"name": name, "reason": reason})
        self.observer.note(f"{name}: skipped: {reason}")

    def _too_few(self, playing: list[str]) -> str:
        """Why there is no tournament: who could play, and each other bot's reason."""
        reasons = "".join(f"; {s['name']}: {s['reason']}" for s in self._skipped)
        return too_few(playing) + reasons

    def _open(
        self, resume: Path | None, on_server: bool
    ) -> tuple[TournamentFolder, dict[str, Any], FolderLock]:
        """The folder to play in, locked: `resume`, or a new one (or one that never began)."""
        if resume is not None:
            lock = FolderLock.take(resume)
            try:
                folder = TournamentFolder(resume)
                info = _read_info(resume)  # again: it may have changed while we waited
                if info.get("status") == "finished":
                    raise TournamentError(f"{resume} has already finished")
                folder.repair()
                folder.clean_tmp()
                if "entrants" in info:  # a bad line is refused before any bot is started
                    folder.finished(folder.schedule(info))
            except BaseException:
                lock.release()
                raise
            return folder, info, lock
        cfg = self.config
        seed = cfg.seed or engine.new_seed()
        tid = cfg.name or time.strftime("%Y%m%d-%H%M%S") + "-" + engine.commitment(seed)[:6]
        fresh: dict[str, Any] = {
            "id": tid,
            "status": "running",
            "created": time.time(),
            "bots_dir": str(cfg.bots_dir.resolve()) if cfg.bots_dir is not None else None,
            "league": str(cfg.league_path.resolve()),
            "server": on_server,
            "ruleset": cfg.ruleset.to_mapping(),
            "table_size": cfg.table_size,
            "games": cfg.games,
            "jobs": cfg.jobs,
            "move_time": cfg.move_time,
            "deals": cfg.deals.value,
            "time_margin": cfg.time_margin,
            "seed_sha256": engine.commitment(seed),
            "seed": None,
        }
        root = cfg.out / tid
        cfg.out.mkdir(parents=True, exist_ok=True)
        try:
            root.mkdir()
            new = True
        except FileExistsError:
            new = False
        # Locked before a file is written, so two runs of one name cannot both lay it out.
        lock = FolderLock.take(root)
        try:
            if not new and not TournamentFolder(root).never_played():
                raise TournamentError(f"{root} already exists; use --resume to continue it")
            folder = TournamentFolder.lay_out(root, fresh, seed)
        except BaseException:
            lock.release()
            raise
        return folder, fresh, lock

    async def _prepare_bots(
        self,
        folder: TournamentFolder,
        info: dict[str, Any],
        resuming: bool,
        tokens: TokenBook,
        need: int = 2,
    ) -> list[BotSpec]:
        found, problems = discover(Path(info["bots_dir"]))
        for entry, reason in problems:
            self._skip(entry, reason)
        for bot in [b for b in found if tokens.knows(b.name)]:
            # Its token would replace the entrant's for the night: the entrant locked out.
            self._skipped.append(
                {"name": bot.name, "reason": "a registered remote entrant has that name"}
            )
            self.observer.note(
                f"{bot.name}: refused: a registered remote entrant has that name; "
                "rename the local bot"
            )
            found.remove(bot)
        if resuming:
            entrants = set(info["entrants"])
            found = [b for b in found if b.name in entrants]
            for name in sorted(entrants - {b.name for b in found}):
                self.observer.note(f"{name}: no longer in {info['bots_dir']}; its games are faults")
            for bot in found:
                if bot.files_hash != info["bots"][bot.name]["files_sha256"]:
                    self.observer.note(f"{bot.name}: its files changed since the run began")
        usable = []
        for bot in found:
            missing = bot.missing_programs()
            if missing:
                self._skip(bot.name, f"needs {', '.join(missing)}, not found on PATH")
            else:
                usable.append(bot)
        builds = await asyncio.gather(*(self._build(b, folder) for b in usable))
        ready = [bot for bot, built in zip(usable, builds, strict=True) if built]
        if len(ready) < need and not resuming:
            raise TournamentError(self._too_few([b.name for b in ready]))
        return ready

    async def _build(self, bot: BotSpec, folder: TournamentFolder) -> bool:
        """Build one bot, saying when it starts and how long it took: builds can take minutes."""
        if bot.build is None:
            return True
        log = folder.logs / f"{bot.name}.build.log"
        self.observer.note(f"building {bot.name} (up to {bot.build_timeout:.0f} s)")
        began = time.monotonic()
        self.observer.building(bot.name, running=True)
        try:
            failure = await run_build(bot, {}, log, self.config.limits, self._confinement)
        finally:
            self.observer.building(bot.name, running=False)
        elapsed = time.monotonic() - began
        if failure is not None:
            self._skip(bot.name, f"{failure} (after {elapsed:.1f} s; see {log})")
            return False
        self.observer.note(f"built {bot.name} in {elapsed:.1f} s")
        return True

    async def _start_bots(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        check_descriptors(bots, jobs)
        for bot in bots:
            sessions = min(bot.sessions or jobs, jobs)
            address = self._confinement.address(port)
            env = arena_variables(address, bot.name, tokens.issue(bot.name), sessions)
            try:
                process = await BotProcess.start(
                    bot,
                    env,
                    folder.logs / f"{bot.name}.log",
                    self.config.limits,
                    self._confinement,
                )
            except OSError as error:
                self._skipped.append({"name": bot.name, "reason": f"cannot start: {error}"})
                self.observer.note(f"{bot.name}: cannot start: {error}")
                continue
            self._processes[bot.name] = process
            lobby.crash_probes[bot.name] = exit_probe(process.process)
            lobby.process_ids[bot.name] = process.process.pid

    async def _play(
        self,
        folder: TournamentFolder,
        info: dict[str, Any],
        lobby: Lobby,
        store: LeagueStore,
        venue: Venue | None,
    ) -> Summary:
        scheduler = self._scheduler = Scheduler(
            folder,
            info,
            lobby,
            store,
            self.observer,
            self._stopping,
            reconnect_grace=self.config.reconnect_grace if venue is not None else None,
        )
        self._workers = [asyncio.ensure_future(scheduler.worker()) for _ in range(info["jobs"])]
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._workers)
        summary = scheduler.finish()
        if scheduler.error:
            raise TournamentError(
                f"{scheduler.error}. Stopped with every finished game on disk; once that is "
                f"fixed, continue with: {_resume_command(folder.root, venue)}"
            )
        return summary


def _entrant_info(info: dict[str, Any], entrants: list[str], bots: list[BotSpec]) -> dict[str, Any]:
    """What the tournament knows once its entrants are known: who they are, the table."""
    by_name = {b.name: b for b in bots}
    size = info["table_size"] or min(len(entrants), 6)
    if not 2 <= size <= len(entrants):
        raise TournamentError(f"--table-size {size} does not fit {len(entrants)} entrants")
    try:
        check_deals(Deals(info.get("deals", Deals.OWN.value)), len(entrants), size)
    except ScheduleError as error:
        raise TournamentError(str(error)) from None
    return {
        "entrants": entrants,
        "table_size": size,
        "bots": {
            n: (
                {"path": str(by_name[n].path), "files_sha256": by_name[n].files_hash}
                if n in by_name
                else {"remote": True}
            )
            for n in entrants
        },
    }


def _read_info(folder: Path) -> dict[str, Any]:
    try:
        return TournamentFolder(folder).info()
    except (OSError, ValueError) as error:
        raise TournamentError(f"{folder} is not a tournament folder: {error}") from None


def _played_on_server(info: dict[str, Any]) -> bool:
    bots = info.get("bots", {}).values()
    remote = any(b.get("remote") for b in bots)
    return bool(info.get("server")) or remote or info.get("bots_dir") is None


def _resume_command(folder: Path, venue: Venue | None) -> str:
    return f"arena {'admin start' if venue is not None else 'run'} --resume {folder}"
