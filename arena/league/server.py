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
import hmac
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from arena.league.admin_stream import LAST, EventObserver
from arena.league.local_tls import LocalTls, decide_local_tls
from arena.league.start import given_of
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.referee.auth import TokenBook
from arena.referee.lobby import Lobby
from arena.referee.server import ListenError, Referee, ServerLimits, Tls
from arena.store import is_url, open_store
from arena.tournament.config import TournamentConfig, TournamentError, Venue, too_few
from arena.tournament.tournament import (
    Observer,
    Observers,
    Summary,
    TableWatcher,
    Tournament,
)
from engine import PerudoError

REVOCATION_CHECK_S = 2.0


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
    defaults: TournamentConfig = dataclasses.field(
        default_factory=lambda: TournamentConfig(bots_dir=None)
    )


def admin_token_path(league: Path | str, out: Path = Path("results")) -> Path:
    """Beside an SQLite league; in the results folder `out` for a database server's."""
    return out / "admin.token" if is_url(league) else Path(league).with_name("admin.token")


class _Admin(apb_grpc.AdminServiceServicer):
    def __init__(self, league: LeagueServer, token: str) -> None:
        self._league = league
        self._token = token

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        sent = dict(context.invocation_metadata() or ()).get("authorization", "")
        if not hmac.compare_digest(str(sent).encode(), f"Bearer {self._token}".encode()):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "wrong or missing admin token")

    async def GetStatus(  # noqa: N802 (grpc's method name)
        self, request: apb.GetStatusRequest, context: Any
    ) -> apb.GetStatusResponse:
        await self._authorize(context)
        return self._league.status()

    async def StartTournament(  # noqa: N802 (grpc's method name)
        self, request: apb.StartTournamentRequest, context: Any
    ) -> AsyncIterator[apb.TournamentEvent]:
        await self._authorize(context)
        try:
            queue = self._league.start_tournament(request)
        except (TournamentError, PerudoError, ValueError) as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            return
        try:
            while True:
                event = await queue.get()
                yield event
                if event.WhichOneof("kind") in LAST:
                    return
        finally:
            self._league.observer.listeners.discard(queue)

    async def StopTournament(  # noqa: N802 (grpc's method name)
        self, request: apb.StopTournamentRequest, context: Any
    ) -> apb.StopTournamentResponse:
        await self._authorize(context)
        return apb.StopTournamentResponse(stopping=self._league.stop_tournament())


class LeagueServer:
    def __init__(
        self,
        config: LeagueConfig,
        say: Callable[[str], None] | None = None,
        watcher: Observer | None = None,
        tables: TableWatcher | None = None,
        finished: Callable[[Summary], None] | None = None,
    ) -> None:
        """`say` is told, in a line each, when a bot connects and when it leaves; `watcher`
        and `tables` follow each tournament beside the admin stream (the web page), and
        `finished` is given each one's summary as it ends (the HTML replays)."""
        self.config = config
        self._say = say
        self._finished = finished
        self._watcher = watcher
        self._tables = tables
        self.store = open_store(config.league)
        self.lobby = Lobby(
            TokenBook(registry=self.store.entrants), max_sessions_per_bot=config.sessions_per_bot
        )
        self.referee = Referee(self.lobby, config.limits)
        self.observer = EventObserver()
        self.port = 0
        self.admin_port = 0
        self._admin_server: grpc.aio.Server | None = None
        self._tournament: Tournament | None = None
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None
        self._arrivals: asyncio.Task[None] | None = None
        # Local bots (--bots) dial a Unix socket here: sandboxed, they have no network.
        self._private = Path(tempfile.mkdtemp(prefix="perudo-league-"))
        self.local_tls: LocalTls | None = None
        """With TLS, whether local bots dial the Unix socket with it too (and why not)."""

    async def start(self) -> str:
        """Start both services; return the admin token (also written beside the league)."""
        tls = self.config.tls
        if tls is not None:
            self.local_tls = decide_local_tls(tls, self.config.tls_ca, self._private)
        try:
            self.port = await self.referee.start(
                self.config.listen,
                tls,
                unix_socket=self._private / "referee.sock",
                unix_tls=self.local_tls is not None and self.local_tls.ca_file is not None,
            )
        except RuntimeError:  # what grpc raises for an address it cannot bind
            raise ListenError(f"could not listen on {self.config.listen}") from None
        token = secrets.token_urlsafe(32)
        # Without so_reuseport=0, a second server on this address would share it, not fail.
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        apb_grpc.add_AdminServiceServicer_to_server(_Admin(self, token), server)  # type: ignore[no-untyped-call]
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
        self._watch = asyncio.ensure_future(self._close_revoked())
        if self._say is not None:
            self._arrivals = asyncio.ensure_future(self._announce_arrivals(self._say))
        return token

    async def stop(self) -> None:
        self.stop_tournament()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        for task in (self._watch, self._arrivals):
            if task is not None:
                task.cancel()
        if self._admin_server is not None:
            await self._admin_server.stop(grace=1)
        await self.referee.stop("the league server is shutting down")
        self.store.close()
        shutil.rmtree(self._private, ignore_errors=True)

    async def _announce_arrivals(self, say: Callable[[str], None]) -> None:
        """Say who connects and who leaves: a bot with its first session, or its last gone.

        The lobby is compared with what was last said after each change (and every
        second, in case a change came between two waits), so a bot opening eight
        sessions is one arrival, not eight.
        """
        known: dict[str, int] = {}
        timed: set[str] = set()
        while True:
            await self.lobby.changed(1.0)
            now = self.lobby.connected()
            for name in sorted(now.keys() - known.keys()):
                say(f"{name} connected ({now[name]} session(s))")
            for name in sorted(known.keys() - now.keys()):
                say(f"{name} left (no session open)")
            known = now
            timed &= now.keys()  # told again when it comes back: its link may have changed
            for name, seconds in sorted(self.lobby.round_trips().items()):
                if name not in timed:
                    timed.add(name)
                    say(f"{name}: network round trip {seconds * 1000:.1f} ms")

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
        if self._task is not None and not self._task.done() and self._tournament is not None:
            folder = self.observer.folder
            reply.tournament = folder.name if folder is not None else "starting"
            progress = self.observer.progress
            if progress is not None:
                reply.games_done, reply.games_total = progress.done, progress.total
            for waiting in self._tournament.waiting():
                reply.waiting.add(name=waiting.name, grace_left=waiting.grace_left)
        return reply

    def stop_tournament(self) -> bool:
        if self._tournament is None or self._task is None or self._task.done():
            return False
        self._tournament.request_stop()
        return True

    def start_tournament(
        self, request: apb.StartTournamentRequest
    ) -> asyncio.Queue[apb.TournamentEvent]:
        if self._task is not None and not self._task.done():
            raise TournamentError("a tournament is already running; stop it first")
        config = self._config(request)
        resume = self._resume_folder(request.resume) if request.resume else None
        connected = set(self.lobby.connected())
        remote = sorted(connected & set(request.only)) if request.only else sorted(connected)
        remote = [n for n in remote if self.store.entrants().get(n)]
        if resume is None and not request.bots_dir and len(remote) < 2:
            # Refused here, before a tournament folder exists that a retry under the same
            # name would trip over (the admin service cannot resume it).
            raise TournamentError(too_few(remote, " connected") + "; nothing to do")
        queue: asyncio.Queue[apb.TournamentEvent] = asyncio.Queue()
        self.observer.listeners.add(queue)
        self.observer.progress = None
        self.observer.folder = None
        observer = (
            self.observer if self._watcher is None else Observers(self.observer, self._watcher)
        )
        tournament = Tournament(config, observer, tables=self._tables)
        self._tournament = tournament
        local_ca = self.local_tls.ca_file if self.local_tls is not None else None
        venue = Venue(self.referee, self.port, tuple(remote), local_ca)

        async def run() -> None:
            try:
                summary = await tournament.run(resume, venue=venue)
            except Exception as error:  # the admin stream must always get its end event
                known = isinstance(error, TournamentError | OSError)
                text = str(error) if known else f"{type(error).__name__}: {error}"
                self.observer.failed(text)
                return
            if self._finished is not None:
                self._finished(summary)
            self.observer.finished(summary.report())

        self._task = asyncio.ensure_future(run())
        return queue

    def _resume_folder(self, given: str) -> Path:
        """The folder to resume: a path on this machine, or a name under the results folder."""
        path = Path(given)
        if not path.is_absolute() and not path.is_dir():
            path = self.config.out / path
        if not path.is_dir():
            raise TournamentError(
                f"no tournament folder {given!r} here (nor under {self.config.out})"
            )
        return path

    def _config(self, request: apb.StartTournamentRequest) -> TournamentConfig:
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
