"""`arena serve`: the league server, run until it is stopped, its screen or JSON log said.

Its flags are declared here, the quotas it puts on the authors (submissions, test games)
among them. The server brings the referee, the tournament and the web page with it: those
are loaded when the command runs, not by `arena --help` nor the other commands."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import options, validate, webpage
from arena.cli.admin import DEFAULT_ADMIN, DEFAULT_LEAGUE, LEAGUE
from arena.cli.toolchains import add_toolchains_flag
from arena.errors import ArenaError
from arena.league import screen
from arena.league.digest import Digest, every_minute
from arena.league.handshakes import HandshakeWatch
from arena.league.screen import Field, Kind, LineWriter, Screen, ScreenEvent
from arena.referee.service.bounds import HELLO_TIMEOUT, MAX_MESSAGE_BYTES
from arena.submissions.limits import MIB, SubmissionLimits
from arena.submissions.requests import RequestLimits
from arena.tournament.config import TournamentError
from arena.tournament.options import Command

if TYPE_CHECKING:
    from rich.console import Console

    from arena.league.league_server import LeagueConfig, LeagueServer


def add_command(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the referee for remote bots (a league server)")
    serve.add_argument(
        "--listen", default="0.0.0.0:50051", help="HOST:PORT where bots connect (port 0: any free)"
    )
    serve.add_argument("--admin", default=DEFAULT_ADMIN, help="where the organiser connects")
    serve.add_argument("--tls-cert", type=Path, help="certificate (PEM) for TLS")
    serve.add_argument("--tls-key", type=Path, help="private key (PEM) for TLS")
    serve.add_argument(
        "--tls-ca",
        type=Path,
        help="the CA certificate (PEM) that signed --tls-cert, which the local bots (--bots) "
        "trust; default: --tls-cert itself, a self-signed one",
    )
    serve.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE, help=LEAGUE)
    serve.add_argument(
        "--out",
        type=validate.out_folder,
        default=Path("results"),
        help="the folder of its tournaments' and ladder rounds' results",
    )
    serve.add_argument(
        "--sessions-per-bot",
        type=validate.int_at_least(1),
        default=8,
        help="sessions one name may open",
    )
    serve.add_argument(
        "--max-message-bytes",
        type=validate.int_at_least(1024),
        default=MAX_MESSAGE_BYTES,
        help="the largest message a bot or an author may send, in bytes (a submission comes "
        "in pieces of this size)",
    )
    serve.add_argument(
        "--hello-timeout",
        type=validate.seconds,
        default=HELLO_TIMEOUT,
        help="seconds a new stream has to say who it is before it is closed",
    )
    options.add_options(serve, Command.SERVE)
    add_toolchains_flag(serve)
    serve.add_argument(
        "--no-reflection",
        action="store_true",
        help="do not answer gRPC server reflection on the bots' port (on by default: the "
        "protocol is public)",
    )
    webpage.add_web_flag(serve, "the tournaments `arena admin start` begins (and /metrics)")
    serve.add_argument(
        "--log-format",
        choices=["screen", "json"],
        default="screen",
        help="screen: a readable line per event (default); json: one JSON object a line, "
        "with its time, for a log shipper",
    )
    add_quota_flags(serve)
    serve.add_argument(
        "--ladder",
        action="store_true",
        help="play the ladder from the start: games all the time among the league's entrants "
        "(`arena admin ladder` starts, stops and shows it)",
    )
    serve.add_argument(
        "--ladder-table-size",
        metavar="N[,N...]",
        type=validate.table_sizes,
        default=(3,),
        help="the ladder's table size (default 3), or several (2,3,4): the matchmaker then "
        "draws each table's",
    )
    serve.add_argument(
        "--ladder-jobs",
        type=validate.int_at_least(1),
        default=2,
        help="the ladder's games at a time (default 2): a round plays its table in every "
        "rotation, so jobs / (largest) table size tables play at once (at least one), no "
        "entrant at two",
    )
    serve.add_argument(
        "--ladder-keep-rounds",
        action="store_true",
        help="keep each finished ladder round's folder as it played (15 KB and 5 files a "
        "game) rather than fold it into its day's record under results/days/ (a few files a "
        "day, under 3 KB a game)",
    )

    serve.add_argument(
        "--new-league",
        action="store_true",
        help="start on an empty league store although a league's files are beside it "
        "(accepted versions, its tournaments, a ladder secret); refused without it, as a "
        "deleted or mistyped store",
    )
    serve.add_argument(
        "--new-ladder-secret",
        action="store_true",
        help="make the ladder's secret anew although the store holds its rounds; refused "
        "without it, as a deleted secret",
    )


def add_quota_flags(serve: argparse.ArgumentParser) -> None:
    """`arena serve`'s quotas on what the authors submit and the test games they ask for."""
    default = SubmissionLimits()
    serve.add_argument(
        "--submissions-per-hour",
        type=validate.int_at_least(1),
        default=default.per_hour,
        help="submissions an author may send an hour (default %(default)s)",
    )
    serve.add_argument(
        "--submission-max-mb",
        type=validate.int_at_least(1),
        default=default.max_bytes // MIB,
        help="the largest archive a submission may be, in MiB (default %(default)s)",
    )
    serve.add_argument(
        "--version-max-mb",
        type=validate.int_at_least(1),
        default=default.max_built_bytes // MIB,
        help="the most a version's tree may hold once built, in MiB (default %(default)s)",
    )
    serve.add_argument(
        "--author-max-mb",
        type=validate.int_at_least(1),
        default=default.max_author_bytes // MIB,
        help="the most an author's kept versions may hold together, in MiB (default %(default)s)",
    )
    serve.add_argument(
        "--builds-at-once",
        type=validate.int_at_least(1),
        default=default.builds_at_once,
        help="submissions built and checked at once, from all authors (default %(default)s)",
    )
    requests = RequestLimits()
    serve.add_argument(
        "--requests-per-day",
        type=validate.int_at_least(0),
        default=requests.per_day,
        help="requests for test games an author may make in any 24 hours; 0: none "
        "(default %(default)s)",
    )
    serve.add_argument(
        "--request-max-games",
        type=validate.int_at_least(1),
        default=requests.max_games,
        help="the most games one request for test games may ask for (default %(default)s)",
    )


def submission_limits(args: argparse.Namespace) -> SubmissionLimits:
    return SubmissionLimits(
        per_hour=args.submissions_per_hour,
        max_bytes=args.submission_max_mb * MIB,
        builds_at_once=args.builds_at_once,
        max_built_bytes=args.version_max_mb * MIB,
        max_author_bytes=args.author_max_mb * MIB,
    )


def request_limits(args: argparse.Namespace) -> RequestLimits:
    return RequestLimits(per_day=args.requests_per_day, max_games=args.request_max_games)


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from arena.league.league_server import LeagueConfig  # the server, loaded only to serve
    from arena.referee.service.referee_server import ServerLimits, Tls

    tls = None
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise TournamentError("TLS needs both --tls-cert and --tls-key")
        tls = Tls(args.tls_cert.read_bytes(), args.tls_key.read_bytes())
    elif args.tls_ca:
        raise TournamentError("--tls-ca needs --tls-cert and --tls-key")
    config = LeagueConfig(
        listen=args.listen,
        admin_listen=args.admin,
        league=args.league,
        out=args.out,
        tls=tls,
        tls_ca=args.tls_ca.read_bytes() if args.tls_ca else None,
        limits=ServerLimits(
            max_message_bytes=args.max_message_bytes, hello_timeout=args.hello_timeout
        ),
        sessions_per_bot=args.sessions_per_bot,
        reflection=not args.no_reflection,
        defaults=options.config(args, Command.SERVE, bots_dir=None),
        submissions=submission_limits(args),
        requests=request_limits(args),
        ladder=args.ladder,
        ladder_table_sizes=args.ladder_table_size,
        ladder_jobs=args.ladder_jobs,
        ladder_compact=not args.ladder_keep_rounds,
        new_league=args.new_league,
        new_ladder_secret=args.new_ladder_secret,
    )
    return asyncio.run(_serve(config, args.web, args.log_format))


async def _serve(config: LeagueConfig, web: str | None = None, log_format: str = "screen") -> int:
    from arena.league.league_server import LeagueServer
    from arena.web.league_view import League
    from arena.web.spectator import Spectator

    as_json = log_format == "json"
    writer = LineWriter(sys.stdout, as_json=as_json)
    # A person's screen is digested (what repeats said once, the ladder once a minute); the
    # JSON log, for machines, keeps every event.
    digest = None if as_json else Digest(writer)
    tell: Screen = writer if digest is None else digest

    def say(text: str) -> None:
        tell(screen.note(text))

    spectator = Spectator() if web is not None else None
    async with contextlib.AsyncExitStack() as page:
        metrics = authors = None
        if spectator is not None and web is not None:  # a port in use: nothing else started
            metrics, authors = webpage.metrics(), webpage.author_pages(spectator)
            await page.enter_async_context(webpage.serving(spectator, web, say, metrics, authors))
        # At each tournament's end: its board on the page, and its HTML replays (as arena run).
        server = LeagueServer(
            config, tell, spectator, spectator, webpage.after_run(spectator, say), metrics
        )
        if authors is not None:
            requests = server.requests
            authors.attach(
                League(server.store, server.versions, config.out, server.ladder, requests)
            )
        if spectator is not None:  # the ladder's tables in play, live on the page
            server.ladder.watch = spectator.ladder_round
        if digest is not None:
            ticking = asyncio.ensure_future(every_minute(digest))
            page.callback(ticking.cancel)
        return await _serve_league(server, tell)


async def _serve_league(server: LeagueServer, tell: Screen) -> int:
    from arena.league.league_server import admin_token_path

    config = server.config
    try:
        await server.start()
    except OSError as error:
        await server.stop()
        raise TournamentError(f"cannot start the league server: {error}") from None
    except ArenaError:  # refused (another server's league, a store not the league's): said
        await server.stop()
        raise
    host, admin_host = config.listen.rpartition(":")[0], config.admin_listen.rpartition(":")[0]
    tls = " (TLS)" if config.tls else ""
    fields: dict[str, Field] = {
        "service": "bots",
        "address": f"{host}:{server.port}",
        "tls": config.tls is not None,
    }
    tell(ScreenEvent(Kind.LISTENING, f"Referee listening on {host}:{server.port}{tls}", fields))
    if server.local_tls is not None:
        tell(screen.note(server.local_tls.describe()))
    token = admin_token_path(config.league, config.out)
    fields = {
        "service": "admin",
        "address": f"{admin_host}:{server.admin_port}",
        "token_file": str(token),
    }
    text = f"Admin on {admin_host}:{server.admin_port}; token in {token}"
    tell(ScreenEvent(Kind.LISTENING, text, fields))
    tell(screen.note(config.submissions.describe()))
    tell(screen.note(config.requests.describe()))
    tell(screen.note("Register bots with: arena token add NAME   (Ctrl-C stops the server)"))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    def handshake(text: str) -> None:
        tell(ScreenEvent(Kind.REFUSE, text, {"stage": "tls", "reason": text}))

    # gRPC's line per failed TLS handshake, told once in words instead.
    with HandshakeWatch(handshake) if config.tls else contextlib.nullcontext():
        await stop.wait()
        await server.stop()
    return 0


COMMANDS = {"serve": cmd_serve}
