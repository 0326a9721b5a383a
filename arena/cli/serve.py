"""`arena serve`: the league server, run until it is stopped, its screen or JSON log said.

A module of its own, loaded only by the command: the server brings the referee, the
tournament and the web page with it, which `arena --help` and the other commands need not
load."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from rich.console import Console

from arena.cli import options, request, submit, webpage
from arena.errors import ArenaError
from arena.league import screen
from arena.league.digest import Digest, every_minute
from arena.league.handshakes import HandshakeWatch
from arena.league.screen import Field, Kind, LineWriter, Screen, ScreenEvent
from arena.league.server import LeagueConfig, LeagueServer, admin_token_path
from arena.referee.server import ServerLimits, Tls
from arena.tournament.config import TournamentError
from arena.tournament.options import Command
from arena.web.league_view import League
from arena.web.spectator import Spectator


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
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
        submissions=submit.limits_of(args),
        requests=request.limits_of(args),
        ladder=args.ladder,
        ladder_table_sizes=args.ladder_table_size,
        ladder_jobs=args.ladder_jobs,
        ladder_compact=not args.ladder_keep_rounds,
        new_league=args.new_league,
        new_ladder_secret=args.new_ladder_secret,
    )
    return asyncio.run(_serve(config, args.web, args.log_format))


async def _serve(config: LeagueConfig, web: str | None = None, log_format: str = "screen") -> int:
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
