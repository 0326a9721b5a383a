"""A tournament from start to finish: bots in, leaderboard out.

Discover and build the bots, start the referee on a local port, start each
bot with its address and token, wait for them to connect, play the schedule
with several games at once, record each game the moment it ends, and stop
everything that was started, however the run ends. A run that was stopped
(Ctrl-C, a crash, SIGKILL) resumes from its folder without losing or
repeating a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from arena.auth import TokenBook
from arena.lobby import Lobby
from arena.manifest import BotSpec, ManifestError, discover
from arena.processes import BotProcess, ResourceLimits, run_build
from arena.results import TournamentFolder
from arena.scheduler import Observer, Progress, Scheduler, Summary
from arena.server import Referee, ServerLimits
from arena.session import exit_probe
from arena.store import LeagueStore
from engine import Ruleset

__all__ = [
    "Observer",
    "Progress",
    "Summary",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "Venue",
]


STOP_WRITE_GRACE = 1.0
"""Seconds a request still being written at a stop gets before it is a stall."""


class TournamentError(Exception):
    """The tournament cannot go on; the message says why."""


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
    time_margin: float = 0.025
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

    @property
    def league_path(self) -> Path:
        return self.league if self.league is not None else self.out / "league.sqlite"


@dataclass(frozen=True, slots=True)
class Venue:
    """A referee that is already running (a league server's), and its remote entrants."""

    referee: Referee
    port: int
    remote: tuple[str, ...]


class Tournament:
    def __init__(self, config: TournamentConfig, observer: Observer) -> None:
        self.config = config
        self.observer = observer
        self._stopping = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._processes: dict[str, BotProcess] = {}
        self._lobby: Lobby | None = None

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
        folder, info = self._open(resume)
        store = LeagueStore(self.config.league_path if resume is None else Path(info["league"]))
        own: Referee | None = None
        bots: list[BotSpec] = []
        remote: tuple[str, ...] = ()
        try:
            if venue is None:
                own = Referee(
                    Lobby(TokenBook(), max_sessions_per_bot=64),
                    ServerLimits(move_time=info["move_time"]),
                )
                referee, port = own, await own.start("127.0.0.1:0")
            else:
                referee, port, remote = venue.referee, venue.port, venue.remote
            lobby = self._lobby = referee.lobby
            if info["bots_dir"] is not None:
                bots = await self._prepare_bots(
                    folder, info, resume is not None, need=2 - len(remote)
                )
            await self._start_bots(bots, lobby.tokens, lobby, port, folder, info["jobs"])
            connected = await self._await_connections(bots, lobby, folder)
            connected |= {name for name in remote if lobby.connected().get(name)}
            if resume is None:
                entrants = sorted(connected)
                if len(entrants) < 2:
                    raise TournamentError(
                        f"fewer than two bots can play ({', '.join(entrants) or 'none'}); "
                        f"nothing to do"
                    )
                info.update(self._entrant_info(entrants, bots))
                folder.write_info(info)
            store.add_tournament(info["id"], info)
            return await self._play(folder, info, lobby, store, defer=venue is not None)
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
            store.close()

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
                why = f"did not connect within {self.config.connect_timeout:.0f} s"
            else:
                why = f"exited with code {process.process.returncode} before connecting"
            self.observer.note(f"{name}: {why}: {_last_line(log)} (log: {log})")
        return connected

    def _open(self, resume: Path | None) -> tuple[TournamentFolder, dict[str, Any]]:
        if resume is not None:
            folder = TournamentFolder(resume)
            try:
                info = folder.info()
            except (OSError, ValueError) as error:
                raise TournamentError(f"{resume} is not a tournament folder: {error}") from None
            if info.get("status") == "finished":
                raise TournamentError(f"{resume} has already finished")
            if "entrants" not in info:  # it stopped before play: fewer than two bots, say
                raise TournamentError(f"{resume} never began to play; start a new run instead")
            folder.repair()
            return folder, info
        cfg = self.config
        if cfg.bots_dir is not None and not cfg.bots_dir.is_dir():  # before writing anything
            raise TournamentError(f"{cfg.bots_dir} is not a folder")
        seed = cfg.seed or engine.new_seed()
        tid = cfg.name or time.strftime("%Y%m%d-%H%M%S") + "-" + engine.commitment(seed)[:6]
        fresh: dict[str, Any] = {
            "id": tid,
            "status": "running",
            "created": time.time(),
            "bots_dir": str(cfg.bots_dir.resolve()) if cfg.bots_dir is not None else None,
            "league": str(cfg.league_path.resolve()),
            "ruleset": cfg.ruleset.to_mapping(),
            "table_size": cfg.table_size,
            "games": cfg.games,
            "jobs": cfg.jobs,
            "move_time": cfg.move_time,
            "time_margin": cfg.time_margin,
            "seed_sha256": engine.commitment(seed),
            "seed": None,
        }
        try:
            folder = TournamentFolder.create(cfg.out / tid, fresh, seed)
        except FileExistsError:
            raise TournamentError(
                f"{cfg.out / tid} already exists; use --resume to continue it"
            ) from None
        return folder, fresh

    def _entrant_info(self, entrants: list[str], bots: list[BotSpec]) -> dict[str, Any]:
        by_name = {b.name: b for b in bots}
        size = self.config.table_size or min(len(entrants), 6)
        if not 2 <= size <= len(entrants):
            raise TournamentError(f"--table-size {size} does not fit {len(entrants)} entrants")
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

    async def _prepare_bots(
        self, folder: TournamentFolder, info: dict[str, Any], resuming: bool, need: int = 2
    ) -> list[BotSpec]:
        try:
            found, problems = discover(Path(info["bots_dir"]))
        except ManifestError as error:
            raise TournamentError(str(error)) from None
        for entry, reason in problems:
            self.observer.note(f"{entry}: skipped: {reason}")
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
                self.observer.note(
                    f"{bot.name}: skipped: needs {', '.join(missing)}, not found on PATH"
                )
            else:
                usable.append(bot)
        builds = await asyncio.gather(
            *(run_build(b, {}, folder.logs / f"{b.name}.build.log") for b in usable)
        )
        ready = []
        for bot, failure in zip(usable, builds, strict=True):
            if failure is None:
                ready.append(bot)
            else:
                self.observer.note(
                    f"{bot.name}: skipped: {failure} (see {folder.logs / f'{bot.name}.build.log'})"
                )
        if len(ready) < need and not resuming:
            raise TournamentError(
                f"fewer than two bots can play ({', '.join(b.name for b in ready) or 'none'}); "
                "nothing to do"
            )
        return ready

    async def _start_bots(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        for bot in bots:
            sessions = min(bot.sessions or jobs, jobs)
            env = {
                "PERUDO_ADDRESS": f"127.0.0.1:{port}",
                "PERUDO_BOT_NAME": bot.name,
                "PERUDO_TOKEN": tokens.issue(bot.name),
                "PERUDO_SESSIONS": str(sessions),
            }
            try:
                process = await BotProcess.start(
                    bot, env, folder.logs / f"{bot.name}.log", self.config.limits
                )
            except OSError as error:
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
        defer: bool = False,
    ) -> Summary:
        scheduler = Scheduler(
            folder,
            info,
            lobby,
            store,
            self.observer,
            self._stopping,
            reconnect_grace=self.config.reconnect_grace if defer else None,
        )
        self._workers = [asyncio.ensure_future(scheduler.worker()) for _ in range(info["jobs"])]
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._workers)
        summary = scheduler.finish()
        if scheduler.error:
            raise TournamentError(scheduler.error)
        return summary


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return lines[-1][:200] if lines else "(no output)"
