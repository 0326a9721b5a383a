"""The league server: a referee that stays up for remote bots, and its admin service.

Entrants are registered in the league store (`arena token add`), which keeps
only a hash of each token; the referee reads them afresh at every Hello, so
adding or revoking a token takes effect at once, and a revoked bot's open
sessions are closed. Tournaments are started through the admin service,
which listens apart (loopback by default) and wants its own token.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from arena.errors import ArenaError
from arena.league.admin_service import AdminService
from arena.league.admin_stream import EventObserver
from arena.league.final_night import SeasonFinal
from arena.league.grounds import Night
from arena.league.ladder.play import Ladder
from arena.league.local_tls import LocalTls, decide_local_tls
from arena.league.narrator import Arrivals, Narrator, Refusals
from arena.league.opening import Opening
from arena.league.request_games import RequestGames
from arena.league.screen import Kind, Screen, ScreenEvent
from arena.league.start import given_of
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.referee.service.auth import TokenBook
from arena.referee.service.health import Health
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import SERVICE, ListenError, Referee, ServerLimits, Tls
from arena.referee.service.reflection import Reflection
from arena.referee.service.side_streams import SideStreams
from arena.store import is_url, open_store
from arena.store.lock import ServerLock
from arena.submissions.limits import SubmissionLimits
from arena.submissions.lineups import lineup_for, make_way
from arena.submissions.requests import RequestLimits
from arena.submissions.service import SubmissionService
from arena.submissions.versions import Verdict, Versions
from arena.tournament.config import TournamentConfig, TournamentError, Venue, too_few
from arena.tournament.metering import GameMeter, sessions_by_state
from arena.tournament.play.tables import TableWatchers
from arena.tournament.tournament import (
    Observer,
    Observers,
    Summary,
    TableWatcher,
    Tournament,
)

if TYPE_CHECKING:  # prometheus_client is loaded once a server is made, not with the CLI
    from arena.metrics import Metrics

REVOCATION_CHECK_S = 2.0

ADMIN_SERVICE = apb.DESCRIPTOR.services_by_name["AdminService"].full_name


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    listen: str = "0.0.0.0:50051"
    admin_listen: str = "127.0.0.1:50052"
    league: Path | str = Path("results/league.sqlite")
    """An SQLite file or a postgresql:// URL."""
    out: Path = Path("results")
    tls: Tls | None = None
    tls_ca: bytes | None = None
    """The certificate of the CA that signed `tls`'s, which local bots trust; None: `tls`'s
    own certificate (a self-signed one)."""
    limits: ServerLimits = dataclasses.field(default_factory=ServerLimits)
    sessions_per_bot: int = 8
    reflection: bool = True
    """Whether the bots' port answers gRPC server reflection (the protocol is public)."""
    defaults: TournamentConfig = dataclasses.field(
        default_factory=lambda: TournamentConfig(bots_dir=None)
    )
    submissions: SubmissionLimits = dataclasses.field(default_factory=SubmissionLimits)
    """Quotas on what entrants submit; their builds and checks get `defaults`' limits."""
    ladder: bool = False
    """Whether the ladder plays from the start (`arena serve --ladder`)."""
    ladder_table_sizes: tuple[int, ...] = (3,)
    """The sizes its tables may have: the matchmaker draws each table's."""
    ladder_jobs: int = 2
    """Its games at a time: a night's `--jobs` is the night's own."""
    ladder_compact: bool = False
    """Whether each finished round is folded into its day's record and its folder removed
    (`arena.tournament.results.folding`); `arena serve` does, unless `--ladder-keep-rounds`."""
    new_league: bool = False
    """Start on an empty store though a league's files are beside it (`--new-league`)."""
    new_ladder_secret: bool = False
    """Make the ladder's secret anew though its rounds are on record (`--new-ladder-secret`)."""
    requests: RequestLimits = dataclasses.field(default_factory=RequestLimits)
    """Authors' quota of unranked test games (`arena request`)."""


def admin_token_path(league: Path | str, out: Path = Path("results")) -> Path:
    """Beside an SQLite league; in the results folder `out` for a database server's."""
    return out / "admin.token" if is_url(league) else Path(league).with_name("admin.token")


class LeagueServer:
    def __init__(
        self,
        config: LeagueConfig,
        tell: Screen | None = None,
        watcher: Observer | None = None,
        tables: TableWatcher | None = None,
        finished: Callable[[Summary], None] | None = None,
        metrics: Metrics | None = None,
        verdicts: Callable[[Verdict], None] | None = None,
    ) -> None:
        """`tell` is told the server's events (`arena.league.screen`): a bot connecting or
        leaving, a stream refused, each tournament's games and faults, the stop; `watcher`
        and `tables` follow each tournament beside the admin stream (the web page), and
        `finished` is given each one's summary as it ends (the HTML replays). Games and
        sessions are counted into `metrics` (a registry of the server's own by default);
        `verdicts` is given every submission's verdict."""
        from arena.metrics import Metrics

        self.config = config
        self._tell = tell
        self._finished = finished
        self._watcher = watcher
        self._tables = tables
        self.store = open_store(config.league)
        self.lobby = Lobby(
            TokenBook(registry=self.store.entrants), max_sessions_per_bot=config.sessions_per_bot
        )
        self.referee = Referee(self.lobby, config.limits)
        self.health = Health([SERVICE], SideStreams())
        """The bots' port's health: SERVING until a stop begins."""
        self.admin_health = Health([ADMIN_SERVICE], SideStreams())
        self.metrics = metrics or Metrics()
        self._meter = GameMeter(self.metrics)
        self.metrics.follow_sessions(
            lambda: sessions_by_state(self.lobby, self.referee.unauthenticated())
        )
        self.versions = Versions.beside(
            self.store,
            config.league,
            config.out,
            config.submissions,
            config.defaults,
            self._said,
            self._judged,
        )
        self._verdicts = verdicts
        self.requests = RequestGames(self, config.requests, tell)
        self._submissions = SubmissionService(
            self.versions, config.limits.max_message_bytes, self.requests
        )
        self.observer = EventObserver()
        self.ladder = Ladder(self, config.ladder_table_sizes, config.ladder_jobs, tell)
        self.final = SeasonFinal(self)
        self.port = 0
        self.admin_port = 0
        self._admin_server: grpc.aio.Server | None = None
        self._tournament: Tournament | None = None
        self._stop_early = False
        """A stop asked for while the night was being prepared: it is not begun."""
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None
        self._arrivals: asyncio.Task[None] | None = None
        # Local bots (--bots) dial a Unix socket here: sandboxed, they have no network.
        self._private = Path(tempfile.mkdtemp(prefix="perudo-league-"))
        self.local_tls: LocalTls | None = None
        """With TLS, whether local bots dial the Unix socket with it too (and why not)."""
        beside = [] if is_url(config.league) else [Path(config.league).parent]
        self._lock = ServerLock([*beside, config.out], config.league)
        self._held = False

    def _said(self, text: str) -> None:
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.SUBMISSION, text))

    def _judged(self, verdict: Verdict) -> None:
        word = "accepted" if verdict.accepted else "rejected"
        self.metrics.count_submission(word)
        if verdict.built:
            self.metrics.count_build(word)
        if self._verdicts is not None:
            self._verdicts(verdict)

    async def start(self) -> str:
        """Start both services; return the admin token (also written beside the league)."""
        tls = self.config.tls
        if tls is not None:
            self.local_tls = decide_local_tls(tls, self.config.tls_ca, self._private)
        if self._tell is not None:
            self.referee.refused = self._submissions.refused = Refusals(self._tell)
        # Remote bots and authors come in through the referee's front door: counted by their
        # own addresses, not the relay's.
        self.health.streams.peer_of = self._submissions.peer_of = self.referee.peer
        beside: list[Health | Reflection] = [self.health]
        if self.config.reflection:
            idle = self.config.limits.hello_timeout
            beside.append(Reflection([SERVICE], self.health.streams, idle))
        # One server per league, and the store the league beside it, before anything changes:
        # a second server must leave the first's token and builds alone.
        self._lock.take()
        try:
            Opening(
                self.config.league,
                self.config.out,
                self.versions.files,
                self.config.new_league,
                self.config.new_ladder_secret,
            ).check(self.store)
        except BaseException:
            self._lock.release()
            raise
        self._held = True
        self.versions.recover()  # what a killed server left half done, before any new upload
        self.final.recover()
        try:
            self.port = await self.referee.start(
                self.config.listen,
                tls,
                unix_socket=self._private / "referee.sock",
                unix_tls=self.local_tls is not None and self.local_tls.ca_file is not None,
                beside=beside,
                services=(self._submissions.register,),
                front_door=True,
            )
        except RuntimeError:  # what grpc raises for an address it cannot bind
            raise ListenError(f"could not listen on {self.config.listen}") from None
        token = secrets.token_urlsafe(32)
        # Without so_reuseport=0, a second server on this address would share it, not fail.
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        apb_grpc.add_AdminServiceServicer_to_server(AdminService(self, token), server)  # type: ignore[no-untyped-call]
        self.admin_health.add_to(server)
        try:
            self.admin_port = server.add_insecure_port(self.config.admin_listen)
        except RuntimeError:  # what grpc raises for an address it cannot bind
            self.admin_port = 0
        if self.admin_port == 0:
            await server.stop(None)
            raise ListenError(f"could not listen on {self.config.admin_listen}")
        # Only now, so that a server that cannot start leaves a running one's token alone;
        # and created private, as chmod after writing leaves it readable by all for a moment.
        path = admin_token_path(self.config.league, self.config.out)
        path.parent.mkdir(parents=True, exist_ok=True)  # the results folder, for a server's league
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
            out.write(token + "\n")
        path.chmod(0o600)  # a file left by an earlier run keeps its mode otherwise
        await server.start()
        self._admin_server = server
        bots, admin = (a.rpartition(":")[0] for a in (self.config.listen, self.config.admin_listen))
        self._lock.announce(f"bots {bots}:{self.port}, admin {admin}:{self.admin_port}")
        self._watch = asyncio.ensure_future(self._close_revoked())
        if self._tell is not None:
            self._arrivals = asyncio.ensure_future(Arrivals(self.lobby, self._tell).follow())
        self.requests.start()
        if self.config.ladder:
            self.ladder.start()
        return token

    async def stop(self) -> None:
        """Drain (both ports say NOT_SERVING from here on), finish the games in flight, close."""
        if not self._held:  # refused before it changed anything (another server's league, say)
            self.store.close()
            shutil.rmtree(self._private, ignore_errors=True)
            return
        self.health.drain()
        self.admin_health.drain()
        self._submissions.stopping.set()  # an upload in flight ends now, its author told why
        started = self._admin_server is not None  # else a start that failed: nothing to tell
        if self._arrivals is not None:  # who came and went before the stop is said before it
            self._arrivals.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._arrivals
        if started:
            self._told(Kind.STOPPING, "Stopping: finishing the games in flight.")
        self.stop_tournament()
        ladder = asyncio.ensure_future(self.ladder.stop())
        requests = asyncio.ensure_future(self.requests.stop())
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        await ladder
        await requests
        if self._watch is not None:
            self._watch.cancel()
        if self._admin_server is not None:
            await self._admin_server.stop(grace=1)
        await self.versions.stop()
        await self.referee.stop("the league server is shutting down")
        self.store.close()
        shutil.rmtree(self._private, ignore_errors=True)
        self._lock.release()
        self._held = False
        if started:
            self._told(Kind.STOPPED, "Stopped.")

    def _told(self, kind: Kind, text: str, **fields: str | int) -> None:
        if self._tell is not None:
            self._tell(ScreenEvent(kind, text, fields))

    async def _close_revoked(self) -> None:
        while True:
            await asyncio.sleep(REVOCATION_CHECK_S)
            for session in self.lobby.all_sessions():
                current = self.lobby.tokens.current(session.name)
                if current != session.token_hash:
                    why = "revoked" if current is None else "replaced by a new one"
                    await self.referee.goodbye(session, f"the token of {session.name!r} was {why}")

    def status(self) -> apb.GetStatusResponse:
        links = self.lobby.round_trips()
        reply = apb.GetStatusResponse(
            bots=[
                apb.ConnectedBot(
                    name=n, sessions=c, round_trip_ms=links[n] * 1000 if n in links else None
                )
                for n, c in sorted(self.lobby.connected().items())
            ]
        )
        if self._task is not None and not self._task.done():
            folder = self.observer.folder
            reply.tournament = folder.name if folder is not None else "starting"
            progress = self.observer.progress
            if progress is not None:
                reply.games_done, reply.games_total = progress.done, progress.total
            if self._tournament is not None:
                for waiting in self._tournament.waiting():
                    reply.waiting.add(name=waiting.name, grace_left=waiting.grace_left)
        return reply

    def stop_tournament(self) -> bool:
        """Ask the night in play to stop after its games in flight; one still being prepared
        (a final waiting for the submissions under way) is not begun."""
        if self._task is None or self._task.done():
            return False
        if self._tournament is None:
            self._stop_early = True
        else:
            self._tournament.request_stop()
        return True

    def start_tournament(
        self, request: apb.StartTournamentRequest
    ) -> asyncio.Queue[apb.TournamentEvent]:
        self.refuse_busy()
        config = self.night_config(request)
        resume = self.resume_folder(request.resume) if request.resume else None
        # Submitted versions play from a line-up: every entrant's when no --bots is given.
        lineup = lineup_for(self.store, self.versions.files, resume, request.bots_dir, request.only)
        submitted = set(lineup.pins) if lineup is not None else set()
        if lineup is not None and resume is None:
            config = dataclasses.replace(config, bots_dir=lineup.folder)
        connected = set(self.lobby.connected())
        remote = sorted(connected & set(request.only)) if request.only else sorted(connected)
        remote = [n for n in remote if self.store.entrants().get(n) and n not in submitted]
        if resume is None and not request.bots_dir and len(remote) + len(submitted) < 2:
            # Refused here, before a tournament folder exists that a retry under the same
            # name would trip over (the admin service cannot resume it).
            raise TournamentError(too_few(remote, " connected") + "; nothing to do")
        night = Night(config, lineup, tuple(remote), resume)

        async def planned() -> Night:
            return night

        return self.launch(planned)

    def refuse_busy(self) -> None:
        """One night at a time: a second is refused while one plays."""
        if self._task is not None and not self._task.done():
            raise TournamentError("a tournament is already running; stop it first")

    def launch(
        self,
        plan: Callable[[], Awaitable[Night]],
        ended: Callable[[Summary | None, str], None] | None = None,
    ) -> asyncio.Queue[apb.TournamentEvent]:
        """Play the night `plan` makes once the ladder and the test games have paused (the
        final chooses its field then), followed down the queue returned; `ended` is told
        its summary (None and why, when it could not go on) before the stream's last event."""
        queue: asyncio.Queue[apb.TournamentEvent] = asyncio.Queue()
        self.observer.listeners.add(queue)
        self.observer.progress = None
        self.observer.folder = None
        self._tournament = None
        self._stop_early = False
        narrator = Narrator(self._tell) if self._tell is not None else None
        followers = (self._watcher, self._meter, narrator)
        observer = Observers(self.observer, *(f for f in followers if f is not None))
        watchers = (self._tables, self._meter, narrator)
        tables = TableWatchers(*(w for w in watchers if w is not None))

        async def run() -> None:
            paused = object()
            await self.ladder.pause(paused)  # its games in flight finish first
            await self.requests.pause(paused)
            try:
                night = await plan()
                if self._stop_early:
                    raise TournamentError("stopped before its first game, as asked")
                tournament = Tournament(night.config, observer, tables=tables)
                self._tournament = tournament
                venue = self.venue(night.remote)
                if night.lineup is not None:
                    await make_way(night.lineup, self.referee, self.observer.note)
                summary = await tournament.run(night.resume, venue=venue)
            except Exception as error:  # the admin stream must always get its end event
                known = isinstance(error, ArenaError | OSError)
                text = str(error) if known else f"{type(error).__name__}: {error}"
                if ended is not None:
                    ended(None, text)
                self.observer.failed(text)
                if narrator is not None:
                    narrator.failed(text)
                return
            finally:
                self.ladder.go_on(paused)
                self.requests.go_on(paused)
            if narrator is not None:
                narrator.ended(summary)
            if self._finished is not None:
                self._finished(summary)
            if ended is not None:
                ended(summary, "")
            self.observer.finished(summary.report())

        self._task = asyncio.ensure_future(run())
        return queue

    def venue(self, remote: tuple[str, ...]) -> Venue:
        """Where a night plays, once the server has started: its referee and port, the
        `remote` entrants that play from afar, and the CA local bots trust (with TLS)."""
        local_ca = self.local_tls.ca_file if self.local_tls is not None else None
        return Venue(self.referee, self.port, remote, local_ca)

    def resume_folder(self, given: str) -> Path:
        """The folder to resume: a path on this machine, or a name under the results folder."""
        path = Path(given)
        if not path.is_absolute() and not path.is_dir():
            path = self.config.out / path
        if not path.is_dir():
            raise TournamentError(
                f"no tournament folder {given!r} here (nor under {self.config.out})"
            )
        return path

    def night_config(self, request: apb.StartTournamentRequest) -> TournamentConfig:
        """The options the request gives over the server's defaults, checked as the config is
        made, and its jobs against this machine's cores (not the client's)."""
        config = dataclasses.replace(
            self.config.defaults,
            bots_dir=Path(request.bots_dir) if request.bots_dir else None,
            out=self.config.out,
            league=self.config.league,
            **given_of(request),
        )
        config.check_cores()
        return config
