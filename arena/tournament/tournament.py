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
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import engine
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.limits import Confinement, DescriptorError, raise_open_files_limit
from arena.bots.isolation.sandbox import Sandbox, SandboxError, decide
from arena.bots.manifest import BotSpec, ManifestError
from arena.referee.clock.deadline import TimeControlError
from arena.referee.service.auth import TokenBook
from arena.referee.service.heap import frozen_heap
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee
from arena.store import LeagueStore, StoreError, open_store
from arena.store.causes import folder_failure
from arena.tournament.config import (
    TooFewBotsError,
    TournamentConfig,
    TournamentError,
    Venue,
    too_few,
    valid_tournament_name,
)
from arena.tournament.info import RunStatus, TournamentInfo
from arena.tournament.play.entrants import enter
from arena.tournament.play.game_logs import GameLogMarks
from arena.tournament.play.lineup import Lineup, own_referee
from arena.tournament.play.observer import Observer, Observers, Progress
from arena.tournament.play.recovery import Recovery
from arena.tournament.play.runner import GameRunner, Waiting
from arena.tournament.play.tables import Hosts, TableWatcher
from arena.tournament.report.summary import StoppedError, Summary
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.in_league import check_resume, refuse_taken_name
from arena.tournament.results.league_writes import BUSY_WAIT_S, patiently
from arena.tournament.results.lock import FolderBusyError, FolderLock
from arena.tournament.results.resuming import (
    all_played,
    journal_missing,
    league_of,
    played_on_server,
    read_info,
    resume_command,
)
from arena.tournament.versions import bots_of

__all__ = [
    "Observer",
    "Observers",
    "Progress",
    "StoppedError",
    "Summary",
    "TableWatcher",
    "Tournament",
]


T = TypeVar("T")


STOP_WRITE_GRACE = 1.0
"""Seconds a request still being written at a stop gets before it is a stall."""


class Tournament:
    def __init__(
        self,
        config: TournamentConfig,
        observer: Observer,
        tables: TableWatcher | None = None,
        hosts: Hosts | None = None,
    ) -> None:
        """`tables` follows the games in play, event by event (the web page); with `hosts`
        (a cluster's) the games are played there, not on a referee of this process."""
        self.config = config
        self.hosts = hosts
        self.observer = observer
        self.tables = tables
        self._stopping = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._lineup = Lineup(config, observer)
        self._lobby: Lobby | None = None
        self._runner: GameRunner | None = None
        self._concluded: str | None = None

    def waiting(self) -> list[Waiting]:
        """The disconnected bots its games wait for, with their grace left (none before play)."""
        return [] if self._runner is None else self._runner.waiting()

    @property
    def lobby(self) -> Lobby | None:
        """The lobby its games take sessions from, once the bots are started (None before,
        and on a cluster's hosts, whose lobbies are theirs)."""
        return self._lobby

    @property
    def process_ids(self) -> dict[str, int]:
        """The process of each bot started, by name: all of them must be gone once it ends."""
        return {name: bot.process.pid for name, bot in self._lineup.processes.items()}

    def request_stop(self) -> None:
        """Finish the games in flight, then stop (the first Ctrl-C).

        A game waiting on a bot that takes no data would wait out its time
        limit: such a write is cut short, a stall, so the game can finish now.
        """
        self._stopping.set()
        if self._runner is not None:  # nor does it wait out a league store that is away
            self._runner.league.abandon()
        if self._lobby is not None:
            for session in self._lobby.all_sessions():
                session.cut_stalled_write(STOP_WRITE_GRACE)

    def conclude(self, why: str) -> None:
        """End the run now that its caller has what it came for (an A/B test's verdict): the
        games in flight finish and count, the rest are dropped, and the run is finished."""
        self._concluded = why
        if self._runner is not None:
            self._runner.conclude(why)

    def abort(self) -> None:
        """Stop now, abandoning the games in flight (the second Ctrl-C)."""
        self._stopping.set()
        for task in self._workers:
            task.cancel()
        if self._runner is not None:
            self._runner.league.abandon()

    async def run(self, resume: Path | None = None, venue: Venue | None = None) -> Summary:
        """Play the tournament on a referee of its own, or on `venue` with its remote bots."""
        where: list[TournamentFolder] = []
        try:
            return await self._run(resume, venue, where)
        except TooFewBotsError:
            if resume is None and where:
                _remove_unplayed(where[0])
            raise
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
            root = where[0].root if where else Path(self.config.out)
            why = folder_failure("running the tournament", error, root)
            then = (
                f"; once fixed, continue with: {resume_command(where[0].root, venue, self.hosts)}"
                if where  # before its folder was open there is nothing to continue
                else ""
            )
            raise TournamentError(f"{why}{then}") from None

    async def _run(
        self, resume: Path | None, venue: Venue | None, where: list[TournamentFolder]
    ) -> Summary:
        raise_open_files_limit()
        sandbox = decide(self.config.sandbox, self.config.build_network)
        if resume is None:
            self._check_config()
            league = self.config.league_store  # a damaged one: refused before any folder
            store = await self._patiently(lambda: open_store(league, busy_timeout=BUSY_WAIT_S))
        else:
            info = read_info(resume)
            if venue is None and played_on_server(info):
                raise TournamentError(
                    f"{resume} was played on a league server: its remote bots connect there, "
                    f"not here; resume it there with: arena admin start --resume {resume}"
                )
            league = league_of(info, self.config.league)
            store = await self._patiently(lambda: open_store(league, busy_timeout=BUSY_WAIT_S))
        try:
            folder, info, lock = await self._patiently(
                lambda: self._open(resume, venue is not None, store)
            )
        except BaseException:
            store.close()
            raise
        where.append(folder)
        try:
            return await self._run_in(folder, info, store, venue, sandbox)
        finally:
            store.close()
            lock.release()

    async def _patiently(self, call: Callable[[], T]) -> T:
        """A call on the league store before play, a short outage waited out."""
        return await patiently(call, self.config.store_patience, self.observer.note, self._stopping)

    def _check_config(self) -> None:
        """What can be refused before anything is written."""
        cfg = self.config
        if cfg.bots_dir is not None and not cfg.bots_dir.is_dir():
            raise TournamentError(f"{cfg.bots_dir} is not a folder")
        if cfg.name is not None and not valid_tournament_name(cfg.name):  # from the admin service
            raise TournamentError(f"{cfg.name!r} is not a tournament name (it becomes a folder)")
        try:
            cfg.time_control()
        except TimeControlError as error:
            raise TournamentError(str(error)) from None

    async def _run_in(
        self,
        folder: TournamentFolder,
        info: TournamentInfo,
        store: LeagueStore,
        venue: Venue | None,
        sandbox: Sandbox,
    ) -> Summary:
        starting = not info.played  # a new run, or one stopped before play began
        if not starting and self.hosts is None and all_played(folder, info):
            # Stopped after its last game (the league store out, the disk full): only the
            # books are left to close, which needs no bot, nor their folder as it was.
            self.observer.note("every game is on record: closing the books")
            await self._patiently(
                lambda: store.add_tournament(info.id, info.to_json(), started=info.created)
            )
            return await self._play(folder, info, Lobby(TokenBook()), store, venue)
        if self.hosts is not None:
            return await self._run_on_hosts(self.hosts, folder, info, store, starting)
        own: Referee | None = None
        bots: list[BotSpec] = []
        remote: tuple[str, ...] = ()
        private = Path(tempfile.mkdtemp(prefix="perudo-referee-"))  # 0700: the arena's alone
        cgroups = CgroupRoot.find()
        try:
            if venue is None:
                own, port = await own_referee(info.plan.time.move_time, private)
                referee = own
            else:
                referee, port, remote = venue.referee, venue.port, venue.remote
            lineup = self._lineup
            ca_file = venue.local_ca if venue is not None and referee.unix_tls else None
            # A league server's line-ups hold strangers' bots: their programs found strictly.
            strict = venue is not None
            confinement = Confinement(
                sandbox, cgroups, referee.unix_socket, referee.tls, ca_file, strict=strict
            )
            info = lineup.confine(confinement, info)
            lobby = self._lobby = referee.lobby
            if info.plan.bots_dir is not None:
                bots = await lineup.prepare(
                    folder, info, not starting, lobby.tokens, need=2 - len(remote)
                )
            await lineup.start(bots, lobby.tokens, lobby, port, folder, info.plan.jobs)
            connected = await lineup.await_connections(bots, lobby, folder)
            connected |= {name for name in remote if lobby.connected().get(name)}
            if starting:
                entrants = sorted(connected)
                if len(entrants) < 2:
                    raise lineup.too_few(entrants)
                info = enter(info, entrants, bots, lineup.skipped)
                folder.write_info(info)
            await self._patiently(
                lambda: store.add_tournament(info.id, info.to_json(), started=info.created)
            )
            return await self._play(folder, info, lobby, store, venue)
        finally:
            self._lineup.end_a_large_field()
            if own is not None:
                await own.stop("the tournament is over")
            elif venue is not None:  # the venue stays up: dismiss only the bots this run started
                for session in venue.referee.lobby.all_sessions():
                    if session.name in self._lineup.processes:
                        await venue.referee.goodbye(session, "the tournament is over")
                for name in self._lineup.processes:
                    venue.referee.lobby.tokens.revoke(name)
            await self._lineup.stop()
            if cgroups is not None:
                cgroups.remove()
            shutil.rmtree(private, ignore_errors=True)

    async def _run_on_hosts(
        self,
        hosts: Hosts,
        folder: TournamentFolder,
        info: TournamentInfo,
        store: LeagueStore,
        starting: bool,
    ) -> Summary:
        """Play on a cluster's hosts, which build and start the bots; the books stay here."""
        try:
            ready = sorted(await hosts.open(info, folder.seed()))
            if starting:
                if len(ready) < 2:
                    raise TournamentError(too_few(ready))
                assert info.plan.bots_dir is not None  # a cluster's run has its bots folder
                found, _ = bots_of(Path(info.plan.bots_dir))
                info = enter(info, ready, [bot for bot in found if bot.name in ready], info.skipped)
                folder.write_info(info)
            await self._patiently(
                lambda: store.add_tournament(info.id, info.to_json(), started=info.created)
            )
            # No bot connects to this process: the hosts' referees hold the sessions.
            return await self._play(folder, info, Lobby(TokenBook()), store, None)
        finally:
            await hosts.close()

    def _open(
        self, resume: Path | None, on_server: bool, store: LeagueStore
    ) -> tuple[TournamentFolder, TournamentInfo, FolderLock]:
        """The folder to play in, locked: `resume`, or a new one (or one that never began);
        refused where the league holds another run of its name, or games it lacks."""
        if resume is not None:
            lock = FolderLock.take(resume)
            try:
                folder = TournamentFolder(resume)
                info = read_info(resume)  # again: it may have changed while we waited
                if info.status is RunStatus.FINISHED:
                    raise TournamentError(f"{resume} has already finished")
                if info.played and not folder.games_path.is_file():
                    raise TournamentError(journal_missing(folder.games_path, info.id, store.where))
                folder.repair()
                folder.clean_tmp()
                # A bad line, or a league that says otherwise, is refused before any bot starts.
                lines = folder.finished(folder.schedule(info)).lines if info.played else ()
                check_resume(store, resume, info, lines)
            except BaseException:
                lock.release()
                raise
            return folder, info, lock
        cfg = self.config
        seed = cfg.seed or engine.new_seed()
        tid = cfg.name or time.strftime("%Y%m%d-%H%M%S") + "-" + engine.commitment(seed)[:6]
        fresh = TournamentInfo(
            id=tid,
            created=time.time(),
            plan=cfg.plan(on_server),
            seed_sha256=engine.commitment(seed),
            run_id=secrets.token_hex(16),
        )
        root = cfg.out / tid
        if not root.exists() or TournamentFolder(root).never_played():
            refuse_taken_name(store, tid)  # (a folder that played is told to --resume below)
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

    async def _play(
        self,
        folder: TournamentFolder,
        info: TournamentInfo,
        lobby: Lobby,
        store: LeagueStore,
        venue: Venue | None,
    ) -> Summary:
        runner = self._runner = GameRunner(
            folder,
            info,
            lobby,
            store,
            self.observer,
            self._stopping,
            reconnect_grace=self.config.reconnect_grace if venue is not None else None,
            recovery=self._recovery(lobby, info) if self.hosts is None else None,
            tables=self.tables,
            where=self.hosts,
            store_patience=self.config.store_patience,
            game_logs=GameLogMarks(self._lineup.processes, self.observer.note),
        )
        clock = runner.clock
        if clock.bank or clock.increment or not clock.enforced:  # beyond the plain move time
            self.observer.note(f"time control: {clock.describe()}")
        if self._concluded is not None:  # concluded while the runner was being made
            runner.conclude(self._concluded)
        workers = info.plan.jobs if self.hosts is None else self.hosts.slots()
        self._workers = [asyncio.ensure_future(runner.worker()) for _ in range(workers)]
        with frozen_heap(), contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._workers)
        summary = await runner.finish()
        if runner.error:
            journal = folder.games_path
            on_disk = f" with every finished game in {journal}" if journal.is_file() else ""
            raise StoppedError(
                f"{runner.error}. Stopped{on_disk}; {runner.then}, continue with: "
                f"{resume_command(folder.root, venue, self.hosts)}",
                summary,
            )
        return summary

    def _recovery(self, lobby: Lobby, info: TournamentInfo) -> Recovery | None:
        if not self.config.recover:
            return None
        # Counted on from the info's; the runner writes them with the rest, so a resume counts on.
        return Recovery(self._lineup, lobby, self.config.recover, self.observer.note, info.restarts)


def _remove_unplayed(folder: TournamentFolder) -> None:
    """The new folder of a run refused before its first game, removed: nothing of it is worth
    keeping (a retry makes it again), unless its bots' logs say why they could not play."""
    if folder.never_played() and not any((folder.root / "logs").glob("*")):
        shutil.rmtree(folder.root, ignore_errors=True)
